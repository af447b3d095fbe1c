//! Pacing (`pacing`), as Linux's TCP paces on its own (`tcp_internal_pacing`,
//! net/ipv4/tcp_output.c) and as the fq qdisc releases what TCP stamps
//! with an earliest departure time.
//!
//! The sender keeps the earliest departure of its next segment (Linux's
//! `tcp_wstamp_ns`); a send loop stops when that time lies ahead
//! (`tcp_pacing_check`), and only then the sender names it as its next
//! timer, which the engine keeps beside the retransmission timer (one
//! pending wake-up per sender): a flow limited by its window or its data
//! costs no event. Segments leave in bursts as Linux's TSO autosizing
//! makes them ([`burst_segs`]: about 1 ms of data at the pacing rate, at
//! least 2 segments, at most 64 KB), each burst paced as one segment of its
//! size: after each, `tcp_update_skb_after_send`: the departure time moves
//! to now if it lies behind, then on by its payload / rate, less up to half
//! of that if the sender was late (the credit Linux gives for its timer's
//! slack); the first 10 data segments of a connection leave back to back
//! (Linux adds the gap from `data_segs_out` 10 on, as sch_fq leaves its
//! first 10 MSS unpaced).
//!
//! The rate is the controller's (BBR sets its own), else Linux's
//! `tcp_update_pacing_rate`: ratio x max(cwnd, packets out) x MSS / SRTT,
//! with ratio `pacing_ss_ratio` (200 %) while cwnd < ssthresh / 2 and
//! `pacing_ca_ratio` (120 %) otherwise; no pacing before the first RTT
//! sample. Linux sets the rate on each ACK; fctlab computes it from the
//! same quantities when each segment leaves. Held: new data and RFC
//! 6675's retransmissions in recovery; not held (as Linux resends at once
//! from its timers and on the first duplicate ACKs): the retransmission
//! after a timeout, NewReno's fast and partial-ACK retransmissions and
//! F-RTO's two new segments; all of them count in the pacing timeline.

use crate::sim::Time;

/// Segments that leave before pacing starts (sch_fq's `initial_quantum`
/// of 10 MSS; Linux `tcp_update_skb_after_send`: `data_segs_out >= 10`).
const UNPACED_SEGS: u8 = 10;

/// Segments per burst at a pacing rate of `rate` payload bytes per second
/// with segments of `mss` bytes: Linux's TSO autosizing as BBR computes it
/// (`bbr_tso_segs_goal`; `tcp_tso_autosize` is alike): about 1 ms of data
/// (`rate >> sk_pacing_shift`, shift 10), within 64 KB less headers
/// (`GSO_MAX_SIZE` before BIG TCP), at least 2 segments (1 below 1.2 Mb/s),
/// at most 127.
pub fn burst_segs(rate: f64, mss: f64) -> f64 {
    let min_segs = if rate < 1.2e6 / 8.0 { 1.0 } else { 2.0 };
    let bytes = (rate / 1024.0).floor().min(65_536.0 - 1.0 - 320.0);
    (bytes / mss).floor().max(min_segs).min(127.0)
}

/// A sender's pacing state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// The earliest departure of the next segment (`tcp_wstamp_ns`).
    pub next_at: Time,
    /// Data segments sent so far, counted up to 10.
    segs: u8,
    /// A send loop stopped for pacing: the sender wants waking at `next_at`.
    held: bool,
    /// The burst under way (one TSO segment of Linux's): when it left, its
    /// segments so far and its size, and the credit it has left.
    burst_at: Time,
    burst: u32,
    burst_size: u32,
    credit: Time,
}

impl Pacer {
    /// Whether the burst under way at `now` has room for another segment.
    #[inline]
    fn in_burst(&self, now: Time) -> bool {
        self.burst_at == now && self.burst > 0 && self.burst < self.burst_size
    }

    /// Whether a segment may leave at `now`; if not, the sender is held
    /// and wants waking at [`Pacer::next_at`].
    #[inline]
    pub fn allows(&mut self, now: Time) -> bool {
        if self.next_at <= now || self.in_burst(now) {
            return true;
        }
        self.held = true;
        false
    }

    /// A segment of `payload` bytes left at `now`, paced at `rate` payload
    /// bytes per second (infinite or zero: unpaced), in bursts of
    /// [`burst_segs`] segments of `mss` bytes.
    pub fn sent(&mut self, now: Time, payload: u32, rate: f64, mss: f64) {
        if !self.in_burst(now) {
            // A new burst: the departure time moves up to now, and the time
            // it was behind is credit (Linux: prior_wstamp).
            let prior = self.next_at;
            self.next_at = self.next_at.max(now);
            self.credit = self.next_at - prior;
            self.burst_at = now;
            self.burst = 0;
            self.burst_size = burst_segs(rate, mss) as u32;
        }
        self.burst += 1;
        self.segs = (self.segs + 1).min(UNPACED_SEGS);
        if self.segs >= UNPACED_SEGS && rate.is_finite() && rate > 0.0 {
            let len_ns = (payload as f64 * 1e9 / rate) as Time;
            let credit = (len_ns / 2).min(self.credit);
            self.credit -= credit;
            self.next_at += len_ns - credit;
        }
    }

    /// When the sender wants waking, if a send loop was held.
    #[inline]
    pub fn wake(&self) -> Option<Time> {
        self.held.then_some(self.next_at)
    }

    /// The wake-up came (or is no longer wanted).
    #[inline]
    pub fn woken(&mut self) {
        self.held = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_segments_leave_at_once_then_bursts_one_payload_over_rate_apart() {
        // 1000 bytes at 1e6 B/s: 1 ms per segment once pacing starts; 976
        // bytes a ms is under a segment, so bursts of 2 (above 1.2 Mb/s).
        let mut p = Pacer::default();
        for _ in 0..9 {
            assert!(p.allows(5));
            p.sent(5, 1000, 1e6, 1000.0);
            assert_eq!(p.next_at, 5);
        }
        // The 10th ends the 9th's burst and sets the gap; the 11th waits.
        assert!(p.allows(5));
        p.sent(5, 1000, 1e6, 1000.0);
        assert_eq!(p.next_at, 5 + 1_000_000);
        assert!(!p.allows(5));
        assert_eq!(p.wake(), Some(1_000_005));
        p.woken();
        assert_eq!(p.wake(), None);
        // Then two at a time, 2 ms per burst.
        for k in 1..=2 {
            assert!(p.allows(1_000_005));
            p.sent(1_000_005, 1000, 1e6, 1000.0);
            assert_eq!(p.next_at, 1_000_005 + k * 1_000_000);
        }
        assert!(!p.allows(1_000_005));
        assert!(p.allows(3_000_005));
        p.sent(3_000_005, 500, 1e6, 1000.0);
        assert_eq!(p.next_at, 3_500_005);
    }

    #[test]
    fn bursts_are_a_millisecond_of_data_within_64_kb() {
        assert_eq!(burst_segs(1e5, 1000.0), 1.0, "below 1.2 Mb/s");
        assert_eq!(burst_segs(1e6, 1000.0), 2.0);
        // 125 MB/s: 122,070 bytes a ms, capped at 65,215: 65 segments.
        assert_eq!(burst_segs(125e6, 1000.0), 65.0);
        assert_eq!(burst_segs(10e6, 1000.0), 9.0);
    }

    #[test]
    fn a_late_sender_gets_at_most_half_a_burst_of_credit() {
        let mut p = Pacer {
            next_at: 1_000,
            segs: UNPACED_SEGS,
            ..Default::default()
        };
        // 1e9 B/s: bursts of 976 bytes a ms / 1000 -> 2 segments, 1000 ns
        // each. 100 ns late: the burst's 2000 ns shrink by the 100 ns.
        p.sent(1_100, 1000, 1e9, 1000.0);
        assert_eq!(p.next_at, 1_100 + 900);
        p.sent(1_100, 1000, 1e9, 1000.0);
        assert_eq!(p.next_at, 1_100 + 1900);
        // 10 us late: by half the burst at most.
        p.sent(12_000, 1000, 1e9, 1000.0);
        p.sent(12_000, 1000, 1e9, 1000.0);
        assert_eq!(p.next_at, 12_000 + 1000);
        // An infinite rate (no RTT sample yet) does not pace.
        p.sent(20_000, 1000, f64::INFINITY, 1000.0);
        assert_eq!(p.next_at, 20_000);
    }

    /// A NewReno sender with pacing, IW 20, 100 ms RTT from the handshake.
    mod sender {
        use crate::net::{Packet, PacketKind};
        use crate::sim::Time;
        use crate::transport::cc::NewReno;
        use crate::transport::tcp::{TcpOptions, TcpSender};
        use crate::transport::{FlowSize, Sender, TransportParams};

        const MS: Time = 1_000_000;

        fn sender(pacing: Option<bool>) -> TcpSender {
            let p = TransportParams {
                mss_bytes: 1000,
                header_bytes: 40,
                init_cwnd_pkts: 20.0,
                handshake: true,
                delayed_ack: false,
                delack_timeout_ns: 100 * MS,
                min_rto_ns: 200 * MS,
                initial_rto_ns: 1000 * MS,
                max_rto_ns: 60_000 * MS,
                dupack_threshold: 3,
                max_cwnd_pkts: f64::MAX,
                ecn: false,
                tcp: TcpOptions {
                    pacing,
                    ..Default::default()
                },
            };
            TcpSender::new(0, FlowSize::of_pkts(100, 1000), p, Box::new(NewReno))
        }

        fn established(s: &mut TcpSender) -> Vec<Packet> {
            let mut out = Vec::new();
            s.start(0, &mut out);
            assert_eq!(out.len(), 1);
            out.clear();
            s.on_packet(100 * MS, &Packet::new(0, PacketKind::SynAck, 40, 0, 0), &mut out);
            out
        }

        #[test]
        fn slow_start_paces_at_twice_cwnd_over_srtt_after_ten_segments() {
            // SRTT 100 ms, cwnd 20 < ssthresh / 2: rate = 200 % x 20 x 1000 B
            // / 0.1 s = 400,000 B/s, 2.5 ms per 1000-byte segment, in bursts
            // of 2 (390 bytes a ms is under a segment).
            let mut s = sender(Some(true));
            let out = established(&mut s);
            assert_eq!(out.len(), 10, "ten back to back");
            let gap = 2_500_000;
            assert_eq!(s.next_timer(), Some(100 * MS + gap));
            let mut out = Vec::new();
            for k in 1..=5u64 {
                let t = s.next_timer().unwrap();
                assert_eq!(t, 100 * MS + (2 * k - 1) * gap);
                s.on_timer(t, &mut out);
                assert_eq!(out.len() as u64, 2 * k, "a burst of two per wake-up");
            }
            // The window (20) is full: no wake-up for pacing, only the RTO.
            assert_eq!(s.pacer().unwrap().wake(), None);
            assert!(s.next_timer().unwrap() > 300 * MS);
        }

        #[test]
        fn without_pacing_the_window_leaves_at_once_and_no_pacer_is_kept() {
            for p in [None, Some(false)] {
                let mut s = sender(p);
                assert_eq!(established(&mut s).len(), 20);
                assert!(s.pacer().is_none());
            }
        }
    }
}

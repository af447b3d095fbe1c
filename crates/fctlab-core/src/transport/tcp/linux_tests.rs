//! Linux's timers and loss recovery (`preset = "linux"`), traced by hand on
//! a sender or receiver fed crafted packets: F-RTO (RFC 5682 section 2),
//! PRR (RFC 6937 section 3.1) and delayed ACKs (Linux's quickack and ato).

use super::options::Delack;
use super::*;
use crate::net::packet::SackBlocks;
use crate::transport::cc::NewReno;

const MS: Time = 1_000_000;

fn params(iw: f64, tcp: TcpOptions) -> TransportParams {
    TransportParams {
        mss_bytes: 1000,
        header_bytes: 40,
        init_cwnd_pkts: iw,
        handshake: false,
        delayed_ack: false,
        delack_timeout_ns: 100 * MS,
        min_rto_ns: 200 * MS,
        initial_rto_ns: 1000 * MS,
        max_rto_ns: 60_000 * MS,
        dupack_threshold: 3,
        max_cwnd_pkts: f64::MAX,
        ecn: false,
        tcp,
    }
}

const SIZE: FlowSize = FlowSize::Finite {
    bytes: 100_000,
    pkts: 100,
};

fn seqs(out: &[Packet]) -> Vec<(u64, bool)> {
    out.iter().map(|p| (p.seq, p.flags & flags::RETX != 0)).collect()
}

fn ack(seq: u64, blocks: &[(u64, u64)]) -> Packet {
    let mut a = Packet::new(0, PacketKind::Ack, 40, seq, 0);
    if !blocks.is_empty() {
        a.hdr.set(SackBlocks::new(seq, blocks.iter().copied()));
    }
    a
}

mod frto {
    use super::*;

    /// NewReno with IW 10, the first ten segments out and the timer fired at
    /// the initial RTO (1 s) with no ACK back: segment 0 resent.
    fn timed_out(frto: bool) -> TcpSender {
        let o = TcpOptions {
            frto,
            ..Default::default()
        };
        let mut s = TcpSender::new(0, SIZE, params(10.0, o), Box::new(NewReno));
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        s.on_timer(1000 * MS, &mut out);
        assert_eq!(seqs(&out), vec![(0, true)]);
        // RFC 5681 eq. 4: ssthresh = max(10 / 2, 2) = 5, cwnd 1.
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 1.0));
        s
    }

    #[test]
    fn a_delay_spike_without_loss_is_undone() {
        // The ACKs of the original 0 and 1 come late, after the timeout.
        let mut s = timed_out(true);
        let mut out = Vec::new();
        // Step 2b: ACK 1 covers the retransmission, not recover (10): slow
        // start makes cwnd 2, and two new segments go instead of 1 and 2.
        s.on_packet(1010 * MS, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(10, false), (11, false)]);
        assert_eq!(s.core.w.cwnd, 2.0);
        // Step 3b: ACK 2 acknowledges segment 1, never resent: spurious.
        // Undo: cwnd = max(2, 10), ssthresh = max(5, max(unbounded, 7.5));
        // then slow start adds one: cwnd 11 with 10 out (2..11): one more.
        out.clear();
        s.on_packet(1011 * MS, &ack(2, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(12, false)]);
        assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (11.0, f64::MAX));
        assert_eq!(s.timeouts(), (1, 1));
        assert_eq!(s.retransmits(), 1);
        // recover = snd_nxt (13): later ACKs carry on with new data.
        out.clear();
        s.on_packet(1012 * MS, &ack(3, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(13, false), (14, false)]);
    }

    #[test]
    fn without_frto_the_same_acks_go_back_n() {
        let mut s = timed_out(false);
        let mut out = Vec::new();
        s.on_packet(1010 * MS, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true), (2, true)]);
        out.clear();
        s.on_packet(1011 * MS, &ack(2, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(3, true), (4, true)]);
        assert_eq!(s.timeouts(), (1, 0));
    }

    #[test]
    fn a_duplicate_ack_at_step_3_means_the_loss_was_real() {
        let mut s = timed_out(true);
        let mut out = Vec::new();
        s.on_packet(1010 * MS, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(10, false), (11, false)]);
        // Step 3a: a duplicate ACK of 1 (from segment 10): cwnd at most 3
        // (it is 2); go back N: snd_nxt returns to 1, and 1 and 2 are resent.
        out.clear();
        s.on_packet(1011 * MS, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true), (2, true)]);
        assert_eq!(s.core.w.cwnd, 2.0);
        assert_eq!(s.timeouts(), (1, 0));
    }

    #[test]
    fn a_duplicate_ack_before_step_2_is_passed_over() {
        let mut s = timed_out(true);
        let mut out = Vec::new();
        // A duplicate ACK of 0 (say, from a segment resent before): Linux's
        // tcp_process_loss keeps F-RTO waiting, nothing is sent (the resent
        // segment fills cwnd 1).
        s.on_packet(1010 * MS, &ack(0, &[]), &mut out);
        assert!(out.is_empty());
        // Then steps 2b and 3b as without it.
        s.on_packet(1011 * MS, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(10, false), (11, false)]);
        out.clear();
        s.on_packet(1012 * MS, &ack(2, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(12, false)]);
        assert_eq!(s.timeouts(), (1, 1));
    }

    #[test]
    fn a_first_ack_covering_everything_ends_frto() {
        let mut s = timed_out(true);
        let mut out = Vec::new();
        // Step 2a: ACK 10 covers recover: F-RTO is over, and the ACK is
        // taken as usual (slow start: cwnd 2, new data 10 and 11).
        s.on_packet(1010 * MS, &ack(10, &[]), &mut out);
        assert!(s.core.frto.is_none());
        assert_eq!(seqs(&out), vec![(10, false), (11, false)]);
        assert_eq!(s.timeouts(), (1, 0));
    }
}

mod prr {
    use super::*;

    /// tcp-sack with IW 20: segments 0..19 out.
    fn sender(prr: bool) -> TcpSender {
        let o = TcpOptions {
            prr,
            ..Default::default()
        };
        let mut s = TcpSender::with_sack(0, SIZE, Arc::new(params(20.0, o)), Box::new(NewReno), true);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 20);
        s
    }

    /// Segment 0 is lost; the ACK of segment k (k = 1..19) SACKs 1..k. Each
    /// ACK's sends.
    fn sends(s: &mut TcpSender) -> Vec<Vec<(u64, bool)>> {
        (1..20)
            .map(|k| {
                let mut out = Vec::new();
                s.on_packet(k, &ack(0, &[(1, k + 1)]), &mut out);
                seqs(&out)
            })
            .collect()
    }

    #[test]
    fn one_loss_in_twenty_sends_one_segment_per_two_acks() {
        // RFC 6937 section 3.1 by hand. The third duplicate ACK starts
        // recovery: ssthresh = 20 / 2 = 10, RecoverFS = 20; pipe (RFC 6675
        // SetPipe: 0 lost, 1..3 SACKed) = 16 (segments 4..19), and
        // prr_delivered = 1: sndcnt = ceil(1 x 10 / 20) - 0 = 1: the fast
        // retransmit. At ACK k after that, pipe = (19 - k) + 1 (the resent 0)
        // + the new segments out; while pipe > 10 sndcnt = ceil((k - 2) x 10
        // / 20) - prr_out, one on each odd k: 5, 7, 9, 11, 13. At k = 15 pipe
        // = 4 + 1 + 5 = 10 = ssthresh: the slow-start reduction bound,
        // min(ssthresh - pipe, max(prr_delivered - prr_out, 1) + 1) = 0; at
        // k = 16..19 pipe = 9: one each, pipe back to 10.
        let mut s = sender(true);
        let got = sends(&mut s);
        let mut want: Vec<Vec<(u64, bool)>> = vec![Vec::new(); 19];
        want[2] = vec![(0, true)];
        for (i, k) in [5, 7, 9, 11, 13, 16, 17, 18, 19].iter().enumerate() {
            want[k - 1] = vec![(20 + i as u64, false)];
        }
        assert_eq!(got, want);
        let p = match &s.recovery {
            Recovery::Rfc6675(r) => r.prr().unwrap(),
            _ => unreachable!(),
        };
        assert_eq!((p.delivered, p.out), (17, 10));
        // An ACK of everything sent (up to 28) ends recovery with cwnd =
        // ssthresh.
        let mut out = Vec::new();
        s.on_packet(30, &ack(29, &[]), &mut out);
        assert!(!s.core.phase.in_recovery());
        assert_eq!(s.core.w.cwnd, 10.0);
    }

    #[test]
    fn without_prr_rfc6675_waits_then_sends_a_burst() {
        // RFC 6675: cwnd = ssthresh = 10 at once; nothing new until pipe
        // falls below 10: pipe = (19 - k) + 1 < 10 from k = 11, then one per ACK.
        let mut s = sender(false);
        let got = sends(&mut s);
        let mut want: Vec<Vec<(u64, bool)>> = vec![Vec::new(); 19];
        want[2] = vec![(0, true)];
        for (i, k) in (11..=19).enumerate() {
            want[k - 1] = vec![(20 + i as u64, false)];
        }
        assert_eq!(got, want);
    }
}

mod delack {
    use super::*;

    fn receiver() -> TcpReceiver {
        let o = TcpOptions {
            delack: Delack::Linux,
            ..Default::default()
        };
        TcpReceiver::new(0, SIZE, &params(10.0, o))
    }

    fn data(seq: u64) -> Packet {
        Packet::new(0, PacketKind::Data, 1040, seq, 0)
    }

    #[test]
    fn quickack_then_every_second_segment_then_the_adaptive_timer() {
        let mut r = receiver();
        let mut out = Vec::new();
        // Quickack mode: the first 16 segments (1 ms apart) each get an ACK.
        for seq in 0..16 {
            r.on_packet(seq * MS, &data(seq), &mut out);
            assert_eq!(out.len() as u64, seq + 1, "segment {seq}");
        }
        // Leaving quickack mode sets ato = 40 ms (TCP_ATO_MIN). Segment 16
        // (1 ms after the last: ato = 40/2 + 20 = 40) waits, with the timer
        // at 16 + 40 ms; segment 17 is the second: an ACK at once.
        r.on_packet(16 * MS, &data(16), &mut out);
        assert_eq!((out.len(), r.next_timer()), (16, Some(56 * MS)));
        r.on_packet(17 * MS, &data(17), &mut out);
        assert_eq!((out.len(), r.next_timer()), (17, None));
        assert_eq!(out.last().unwrap().seq, 18);
        // Segment 18 alone: the timer fires 40 ms later and ato doubles to 80.
        r.on_packet(18 * MS, &data(18), &mut out);
        assert_eq!(r.next_timer(), Some(58 * MS));
        r.on_timer(58 * MS, &mut out);
        assert_eq!((out.len(), r.linux_acks().unwrap().ato), (18, 80 * MS));
        // 100 ms later (not within ato, not beyond the 1 s RTO): ato stays,
        // the timer is 80 ms.
        r.on_packet(118 * MS, &data(19), &mut out);
        assert_eq!(r.next_timer(), Some(198 * MS));
        // A segment 30 ms later (within ato): ato = 80/2 + 30 = 70; it is
        // the second: an ACK at once.
        r.on_packet(148 * MS, &data(20), &mut out);
        assert_eq!((out.len(), r.linux_acks().unwrap().ato), (19, 70 * MS));
        // After a gap of 1.5 s (above the receiver's 1 s RTO) quickack mode
        // returns: an ACK at once.
        r.on_packet(1648 * MS, &data(21), &mut out);
        assert_eq!(out.len(), 20);
        assert_eq!(r.linux_acks().unwrap().quick, 15);
    }

    #[test]
    fn the_timeout_is_at_most_200_ms() {
        let mut r = receiver();
        let mut out = Vec::new();
        for seq in 0..16 {
            r.on_packet(seq * MS, &data(seq), &mut out);
        }
        // Each lone segment lets the timer fire: ato 40 -> 80 -> 160 -> 320
        // (at most the 1 s RTO), the timer at most 200 ms (TCP_DELACK_MAX).
        let mut t = 400 * MS;
        for (seq, delay) in [(16, 40), (17, 80), (18, 160), (19, 200), (20, 200)] {
            r.on_packet(t, &data(seq), &mut out);
            assert_eq!(r.next_timer(), Some(t + delay * MS), "segment {seq}");
            r.on_timer(t + delay * MS, &mut out);
            t += 2000 * MS / 2;
        }
    }
}

mod ticks {
    use super::super::core::on_ticks;
    use super::*;

    #[test]
    fn a_coarse_timer_counts_whole_ticks_from_the_next() {
        // 500 ms ticks. An RTO of 1.2 s is 3 ticks; set at 0.7 s, the count
        // starts at the tick at 1.0 s and ends at 2.0 s (1.3 s later).
        assert_eq!(on_ticks(700 * MS, 1200 * MS, 500 * MS), 2000 * MS);
        // Set just before a tick, the same 3 ticks end 1.0 s + a bit later.
        assert_eq!(on_ticks(999 * MS, 1200 * MS, 500 * MS), 2000 * MS);
        // Set on a tick: 3 full ticks.
        assert_eq!(on_ticks(1000 * MS, 1200 * MS, 500 * MS), 2500 * MS);
        // At least one tick.
        assert_eq!(on_ticks(100 * MS, 1, 500 * MS), 500 * MS);
    }

    #[test]
    fn the_sender_arms_its_timer_on_ticks() {
        let o = TcpOptions {
            rto_tick_ms: Some(500.0),
            ..Default::default()
        };
        let mut s = TcpSender::new(0, SIZE, params(10.0, o), Box::new(NewReno));
        let mut out = Vec::new();
        // The initial RTO of 1 s set at 0.3 s is 2 ticks, counted at 0.5 s
        // and 1.0 s: it fires 0.7 s after it was set.
        s.start(300 * MS, &mut out);
        assert_eq!(s.next_timer(), Some(1000 * MS));
    }
}

/// BBR on the SACK scoreboard after a timeout, traced against Linux:
/// `tcp_timeout_mark_lost` (net/ipv4/tcp_input.c) takes every unSACKed
/// segment for lost, and `tcp_packets_in_flight` (sent - SACKed - lost +
/// retransmitted) is what cwnd bounds (`tcp_cwnd_test`, tcp_output.c).
mod bbr_timeout {
    use super::*;
    use crate::transport::cc::bbr::Bbr;

    /// The segments in `first` and those sent after them until `until` (no
    /// ACK coming), the sender woken at each time it names.
    fn sends_until(s: &mut TcpSender, first: Vec<Packet>, until: Time) -> Vec<(u64, bool)> {
        let mut got = seqs(&first);
        while let Some(t) = s.next_timer().filter(|&t| t < until) {
            let mut out = Vec::new();
            s.on_timer(t, &mut out);
            got.extend(seqs(&out));
        }
        got
    }

    #[test]
    fn sacked_segments_are_not_in_flight_after_a_timeout() {
        // tcp-bbr, IW 10, no handshake: segments 0..9 leave at 0 (the first
        // ten unpaced). No ACK: the timer fires at the initial RTO (1 s),
        // cwnd 1, segment 0 resent.
        let p = Arc::new(params(10.0, TcpOptions::default()));
        let mut s = TcpSender::with_sack(0, SIZE, p, Box::new(Bbr::new(1000.0, 0)), true);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        s.on_timer(1000 * MS, &mut out);
        assert_eq!(seqs(&out), vec![(0, true)]);
        assert_eq!(s.core.w.cwnd, 1.0);
        // Its ACK, 10 ms later, acknowledges 0 and SACKs 2..9 (1 was lost):
        // 9 delivered. BBR in STARTUP grows cwnd by what is delivered while
        // below its target or before 10 are delivered (bbr_set_cwnd): 1 + 9 =
        // 10. In Linux's count, 1..9 are out, 2..9 SACKed and 1 lost: none in
        // flight. So 1 is resent, then 10..18 leave (10 in flight = cwnd).
        // Counting the SACKed 2..9 as in flight would leave room for one
        // more segment only.
        let mut out = Vec::new();
        let mut a = ack(1, &[(2, 10)]);
        a.ts = 1000 * MS;
        s.on_packet(1010 * MS, &a, &mut out);
        assert_eq!(s.core.w.cwnd, 10.0);
        // Until the next timeout (at least 200 ms on).
        let got = sends_until(&mut s, out, 1200 * MS);
        let mut want = vec![(1, true)];
        want.extend((10..19).map(|k| (k, false)));
        assert_eq!(got, want);
    }
}

/// What the SACK sender tells a controller that owns the window about
/// losses: Linux's `rs->losses`, the segments newly marked lost on each ACK
/// (`tcp_mark_skb_lost`), which `bbr_set_cwnd_to_recover_or_restore` takes
/// off cwnd in any state.
mod delivery_losses {
    use super::*;
    use crate::transport::cc::{AckSample, CongestionControl, Delivery, Window};
    use std::sync::Mutex;

    /// A controller that owns the window and notes (delivered, losses) of
    /// each ACK.
    struct Spy(Arc<Mutex<Vec<(u64, u64)>>>);

    impl CongestionControl for Spy {
        fn on_ack(&mut self, _w: &mut Window, _s: &AckSample) {}
        fn ssthresh_after_loss(&mut self, w: &Window, _flight: u64) -> f64 {
            w.ssthresh
        }
        fn wants_delivery(&self) -> bool {
            true
        }
        fn on_delivery(&mut self, _w: &mut Window, d: &Delivery) {
            self.0.lock().unwrap().push((d.delivered, d.losses));
        }
    }

    #[test]
    fn each_ack_reports_the_segments_it_makes_lost() {
        // IW 20, segments 0..19 out; 0 and 5 are lost. The ACKs of 1, 2, 3:
        // the third duplicate ACK starts recovery with 0 lost (IsLost: three
        // SACKed above it). The ACKs of 4, 6 and 7 SACK up to 7: the third
        // highest SACKed is then 4, so nothing more is lost. The ACK of 8
        // makes 6 the third highest: 5 (unSACKed, below it) is lost now.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let p = Arc::new(params(20.0, TcpOptions::default()));
        let mut s = TcpSender::with_sack(0, SIZE, p, Box::new(Spy(seen.clone())), true);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 20);
        let acks: [&[(u64, u64)]; 7] = [
            &[(1, 2)],
            &[(1, 3)],
            &[(1, 4)],
            &[(1, 5)],
            &[(6, 7), (1, 5)],
            &[(6, 8), (1, 5)],
            &[(6, 9), (1, 5)],
        ];
        for (k, blocks) in acks.iter().enumerate() {
            s.on_packet(10 * MS + k as Time, &ack(0, blocks), &mut out);
        }
        assert!(s.core.phase.in_recovery());
        let want = vec![(1, 0), (1, 0), (1, 1), (1, 0), (1, 0), (1, 0), (1, 1)];
        assert_eq!(*seen.lock().unwrap(), want);
    }
}

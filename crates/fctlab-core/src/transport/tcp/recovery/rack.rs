//! RACK-TLP (RFC 8985) on the SACK scoreboard (`rack`), as Linux runs it
//! (net/ipv4/tcp_recovery.c `tcp_rack_advance`, `tcp_rack_detect_loss`,
//! `tcp_rack_mark_lost`, `tcp_rack_reo_timeout`; tcp_output.c
//! `tcp_schedule_loss_probe`, `tcp_send_loss_probe`; tcp_input.c
//! `tcp_process_tlp_ack`).
//!
//! - Each outstanding segment keeps the time of its latest (re)transmission
//!   and whether it was ever retransmitted, is marked lost, or has a
//!   retransmission in flight.
//! - Every ACK (RFC 8985 6.2): step 2 takes, among the segments it newly
//!   delivers (cumulatively or by SACK), the one sent last, leaving out a
//!   retransmission whose delivery is ambiguous (the ACK echoes an earlier
//!   send time, or the RTT is below the minimum RTT): RACK.xmit_ts and
//!   RACK.end_seq become its own if it was sent after them, RACK.rtt its RTT.
//!   Step 3: a segment never retransmitted delivered below the highest
//!   delivered one (RACK.fack) is reordering (Linux's
//!   `tcp_check_sack_reordering`). Step 4: reo_wnd = min(min_RTT / 4, SRTT),
//!   or 0 while no reordering has been seen and the sender is in recovery
//!   or has DupThresh segments SACKed. Step 5: a segment not delivered that
//!   was sent before RACK's is lost once now >= its xmit_ts + RACK.rtt +
//!   reo_wnd; otherwise the reordering timer is armed for the latest such
//!   deadline.
//! - The segments step 5 looks at (not delivered, and not marked lost
//!   unless resent since: Linux's `tsorted_sent_queue` less the skipped
//!   ones) are taken in (xmit_ts, sequence) order, RACK_sent_after's
//!   order: the lost ones are a prefix, and the timer's deadline is that of
//!   the last one sent before RACK's. The tail of segments sent once and
//!   not yet SACKed or marked is already in that order; the others are kept
//!   in an ordered set. An ACK costs a logarithm, not a walk over the
//!   window, and in-order data touches no set.
//! - TLP (RFC 8985 7): the probe timeout, PTO = 2 SRTT (plus WCDelAckT,
//!   200 ms, when one segment is outstanding; 1 s before an RTT sample),
//!   not later than the RTO would fire.
//!
//! Not modelled: DSACK (fctlab's receiver sends none), so RACK.reo_wnd_mult
//! stays 1 (RFC 8985 6.2 step 4 without its DSACK adaptation, Linux's
//! `reo_wnd_steps`), and a probe that proves unneeded is not told apart
//! from one that repaired a loss (RFC 8985 7.4.1; Linux's
//! `FLAG_DSACK_TLP`).

use crate::sim::Time;
use crate::transport::sack::Scoreboard;
use std::collections::{BTreeSet, VecDeque};

/// RFC 8985 7.2: the worst-case delayed-ACK timer, WCDelAckT (200 ms).
pub const WC_DEL_ACK_T: Time = 200_000_000;
/// RFC 8985 7.2: the PTO before any RTT sample (1 s).
pub const PTO_NO_RTT: Time = 1_000_000_000;

/// Ever retransmitted (RFC 8985's Segment.retransmitted).
const RETX: u8 = 1;
/// Marked lost (Segment.lost), until delivered.
const LOST: u8 = 2;
/// A retransmission in flight, not (yet) taken for lost (Linux's
/// `TCPCB_SACKED_RETRANS`): it counts in the pipe.
const RTX_OUT: u8 = 4;
/// Delivered by a SACK.
const SACKED: u8 = 8;

#[derive(Clone, Copy, Debug)]
struct Seg {
    /// The latest (re)transmission (Segment.xmit_ts).
    ts: Time,
    flags: u8,
}

/// Whether a segment with these flags is one step 5 looks at: not SACKed,
/// and not marked lost unless resent since (Linux's `tcp_rack_detect_loss`
/// skips those).
#[inline]
fn watched(flags: u8) -> bool {
    flags & SACKED == 0 && (flags & LOST == 0 || flags & RTX_OUT != 0)
}

/// RFC 8985 6.2 step 5's order: segment 1 (sent at `t1`, ending at `end1`)
/// was sent after segment 2 (RACK_sent_after).
#[inline]
pub fn sent_after(t1: Time, end1: u64, t2: Time, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

/// RFC 8985 7.2 TLP_calc_PTO: 2 SRTT, plus WCDelAckT with one segment
/// outstanding (`flight`), 1 s without an RTT sample; capped so that it
/// fires no later than the RTO (`rto_left`: the time until it would).
pub fn pto(srtt: Option<Time>, flight: u64, rto_left: Time) -> Time {
    let p = match srtt {
        Some(s) => 2 * s + if flight == 1 { WC_DEL_ACK_T } else { 0 },
        None => PTO_NO_RTT,
    };
    p.min(rto_left)
}

/// RFC 8985 6.2 step 4 (RACK.reo_wnd_mult 1): `recovering` in fast or RTO
/// recovery, `sacked` segments SACKed, `min_rtt` (None: no sample yet).
pub fn reo_wnd(
    reordering_seen: bool,
    recovering: bool,
    sacked: u64,
    dupthresh: u64,
    min_rtt: Option<Time>,
    srtt: Option<Time>,
) -> Time {
    if !reordering_seen && (recovering || sacked >= dupthresh) {
        return 0;
    }
    let w = min_rtt.map_or(0, |m| m / 4);
    srtt.map_or(w, |s| w.min(s))
}

/// A probe in flight (RFC 8985 7.3: TLP.end_seq; Linux's `tlp_high_seq`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// One past the highest segment sent when the probe left.
    pub end: u64,
    /// The probe was a retransmission (Linux's `tlp_retrans`).
    pub retrans: bool,
}

/// RACK-TLP's state for one sender (boxed, behind the SACK recovery).
#[derive(Clone, Debug)]
pub struct Rack {
    /// The sequence number of `segs[0]`: the cumulative ACK.
    base: u64,
    /// Every segment from `base` up to HighData.
    segs: VecDeque<Seg>,
    /// The segments step 5 looks at (outstanding, not SACKed, and not marked
    /// lost unless resent since) below `tail`, as (xmit_ts, sequence).
    watched: BTreeSet<(Time, u64)>,
    /// From here to HighData every segment was sent once and is neither
    /// SACKed nor marked: all watched, in sending order.
    tail: u64,
    /// RACK.xmit_ts and RACK.end_seq (0: no segment delivered yet).
    pub xmit_ts: Time,
    pub end_seq: u64,
    /// RACK.rtt.
    pub rtt: Time,
    /// RACK.min_RTT (Time::MAX: none yet).
    min_rtt: Time,
    /// RACK.fack: one past the highest segment delivered.
    pub fack: u64,
    pub reordering_seen: bool,
    /// Lost and not retransmitted since, in sequence order: what recovery
    /// sends first.
    need: BTreeSet<u64>,
    /// Segments outstanding, not SACKed, marked lost (Linux's `lost_out`).
    pub lost_out: u64,
    /// Retransmissions in flight (Linux's `retrans_out`).
    pub retrans_out: u64,
    /// When the retransmission timer would fire while the reordering or the
    /// probe timer stands in for it (the sender's one timer, as Linux's
    /// `icsk_retransmit_timer` serves all three).
    pub rto_at: Time,
    /// The probe in flight.
    pub tlp: Option<Probe>,
    /// Segments marked lost (lost retransmissions included), probes sent,
    /// and probes whose ACK showed they repaired a loss.
    pub marked: u64,
    pub probes: u32,
    pub probe_recoveries: u32,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            base: 0,
            segs: VecDeque::new(),
            watched: BTreeSet::new(),
            tail: 0,
            xmit_ts: 0,
            end_seq: 0,
            rtt: 0,
            min_rtt: Time::MAX,
            fack: 0,
            reordering_seen: false,
            need: BTreeSet::new(),
            lost_out: 0,
            retrans_out: 0,
            rto_at: 0,
            tlp: None,
            marked: 0,
            probes: 0,
            probe_recoveries: 0,
        }
    }
}

/// What one ACK newly delivered, for RFC 8985 6.2 steps 2 and 3.
#[derive(Default)]
struct Best {
    /// The segment sent last among those that may advance RACK: (xmit_ts, end_seq).
    seg: Option<(Time, u64)>,
    /// The highest end among the newly delivered.
    fack: u64,
    /// A segment never retransmitted delivered below the prior RACK.fack.
    reordered: bool,
}

impl Rack {
    /// RACK.min_RTT.
    pub fn min_rtt(&self) -> Option<Time> {
        (self.min_rtt != Time::MAX).then_some(self.min_rtt)
    }

    /// Segment `seq` left at `now`: new data at HighData, else a retransmission.
    pub fn sent(&mut self, seq: u64, now: Time) {
        let i = (seq - self.base) as usize;
        if i == self.segs.len() {
            // New data joins the tail.
            self.segs.push_back(Seg { ts: now, flags: 0 });
            return;
        }
        self.unwatch(seq, i);
        let s = &mut self.segs[i];
        s.ts = now;
        s.flags |= RETX;
        if s.flags & (RTX_OUT | SACKED) == 0 {
            s.flags |= RTX_OUT;
            self.retrans_out += 1;
        }
        if watched(s.flags) {
            self.watched.insert((now, seq));
        }
        self.need.remove(&seq);
    }

    /// Segment `seq` (at `i`) is about to change: off the watched segments
    /// (a tail segment leaves the tail, and those below it join the set).
    fn unwatch(&mut self, seq: u64, i: usize) {
        if seq >= self.tail {
            for k in self.tail..seq {
                let ts = self.segs[(k - self.base) as usize].ts;
                self.watched.insert((ts, k));
            }
            self.tail = seq + 1;
        } else {
            let s = self.segs[i];
            if watched(s.flags) {
                self.watched.remove(&(s.ts, seq));
            }
        }
    }

    /// The part of an ACK RACK takes before the scoreboard does (`sb`: the
    /// scoreboard before it, `blocks`: the SACK blocks, `echo`: the send time
    /// the ACK echoes; `min_rtt`: the RTT estimator's). RFC 8985 6.2 steps
    /// 1 to 3, and the segments' delivery.
    pub fn on_ack(
        &mut self,
        now: Time,
        ack: u64,
        echo: Time,
        blocks: &[(u64, u64)],
        sb: &Scoreboard,
        min_rtt: Option<Time>,
    ) {
        if let Some(m) = min_rtt {
            self.min_rtt = self.min_rtt.min(m);
        }
        let high = self.base + self.segs.len() as u64;
        let prior_fack = self.fack;
        let mut best = Best::default();
        // Newly SACKed: the parts of each block the scoreboard did not hold.
        for &(s, e) in blocks {
            let (mut x, e) = (s.max(ack).max(self.base), e.min(high));
            while x < e {
                x = sb.first_unsacked_from(x);
                if x >= e {
                    break;
                }
                let y = sb.next_sacked_after(x).unwrap_or(e).min(e);
                for seq in x..y {
                    let i = (seq - self.base) as usize;
                    if self.segs[i].flags & SACKED == 0 {
                        self.unwatch(seq, i);
                        let g = self.clear_marks(i);
                        self.need.remove(&seq);
                        self.segs[i].flags |= SACKED;
                        self.delivered(now, echo, seq, g, prior_fack, &mut best);
                    }
                }
                x = y;
            }
        }
        // Newly acknowledged cumulatively.
        while self.base < ack.min(high) {
            let seq = self.base;
            if seq < self.tail {
                self.unwatch(seq, 0);
            }
            let g = self.clear_marks(0);
            self.segs.pop_front();
            self.base += 1;
            if g.flags & SACKED == 0 {
                self.delivered(now, echo, seq, g, prior_fack, &mut best);
            }
        }
        self.tail = self.tail.max(self.base);
        if self.need.first().is_some_and(|&s| s < self.base) {
            self.need = self.need.split_off(&self.base);
        }
        // Step 2's outcome; step 3.
        if let Some((ts, end)) = best.seg {
            self.rtt = now.saturating_sub(ts);
            if sent_after(ts, end, self.xmit_ts, self.end_seq) {
                self.xmit_ts = ts;
                self.end_seq = end;
            }
        }
        self.fack = self.fack.max(best.fack);
        self.reordering_seen |= best.reordered;
    }

    /// Segment `i` is delivered: off the lost and retransmitted counts
    /// (only segments not SACKed carry those marks). Returns it as it was.
    fn clear_marks(&mut self, i: usize) -> Seg {
        let s = self.segs[i];
        if s.flags & LOST != 0 {
            self.lost_out -= 1;
        }
        if s.flags & RTX_OUT != 0 {
            self.retrans_out -= 1;
        }
        self.segs[i].flags &= !(LOST | RTX_OUT);
        s
    }

    /// RFC 8985 6.2 steps 1 to 3 for one newly delivered segment.
    fn delivered(&mut self, now: Time, echo: Time, seq: u64, s: Seg, prior_fack: u64, best: &mut Best) {
        let rtt = now.saturating_sub(s.ts);
        let end = seq + 1;
        best.fack = best.fack.max(end);
        if s.flags & RETX == 0 {
            self.min_rtt = self.min_rtt.min(rtt);
            best.reordered |= end < prior_fack;
        } else if echo < s.ts || rtt < self.min_rtt {
            // Step 2: possibly the delivery of an earlier transmission.
            return;
        }
        if best.seg.is_none_or(|(t, e)| sent_after(s.ts, end, t, e)) {
            best.seg = Some((s.ts, end));
        }
    }

    /// RFC 8985 6.2 step 5 (RACK_detect_loss) with reordering window `reo`:
    /// marks the segments lost and returns when the reordering timer should
    /// fire (the latest deadline of a segment sent before RACK's that is
    /// not yet lost), if any.
    pub fn detect(&mut self, now: Time, reo: Time) -> Option<Time> {
        if self.end_seq == 0 {
            return None;
        }
        let wait = self.rtt.saturating_add(reo);
        // Watched segments sent before RACK's: (ts, seq) below (xmit_ts,
        // end_seq - 1), as RACK_sent_after orders them.
        let bound = (self.xmit_ts, self.end_seq - 1);
        let high = self.base + self.segs.len() as u64;
        loop {
            let tail = (self.tail < high).then(|| (self.segs[(self.tail - self.base) as usize].ts, self.tail));
            let first = match (self.watched.first().copied(), tail) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(x) => x,
                    None => break,
                },
            };
            if first >= bound || first.0.saturating_add(wait) > now {
                break;
            }
            let i = (first.1 - self.base) as usize;
            self.unwatch(first.1, i);
            self.mark_lost(first.1, i);
        }
        // The last watched segment sent before RACK's: in the set, or in the
        // tail (found by bisection: the tail is in sending order).
        let (mut lo, mut hi) = ((self.tail - self.base) as usize, self.segs.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if (self.segs[mid].ts, self.base + mid as u64) < bound {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let in_tail = (lo > (self.tail - self.base) as usize).then(|| self.segs[lo - 1].ts);
        let in_set = self.watched.range(..bound).next_back().map(|&(ts, _)| ts);
        in_tail.max(in_set).map(|ts| ts.saturating_add(wait))
    }

    /// Segment `seq` (at `i`, no longer watched) is lost.
    fn mark_lost(&mut self, seq: u64, i: usize) {
        self.marked += 1;
        let s = &mut self.segs[i];
        if s.flags & RTX_OUT != 0 {
            // A lost retransmission.
            s.flags &= !RTX_OUT;
            self.retrans_out -= 1;
        }
        if s.flags & LOST == 0 {
            s.flags |= LOST;
            self.lost_out += 1;
        }
        self.need.insert(seq);
    }

    /// The first segment marked lost and not resent since.
    pub fn next_lost(&self) -> Option<u64> {
        self.need.first().copied()
    }

    /// Whether segment `seq` (outstanding) is marked lost.
    pub fn is_lost(&self, seq: u64) -> bool {
        seq >= self.base
            && self
                .segs
                .get((seq - self.base) as usize)
                .is_some_and(|s| s.flags & LOST != 0)
    }

    /// The segments in the network (Linux's `tcp_packets_in_flight`):
    /// outstanding, less SACKed and lost, plus retransmissions in flight.
    pub fn pipe(&self, una: u64, high_data: u64, sacked: u64) -> u64 {
        debug_assert!(self.counts_agree(una, high_data), "{self:?}");
        (high_data - una - sacked - self.lost_out) + self.retrans_out
    }

    /// The counts against the marks, and the watched set against the
    /// segments (checked in debug builds).
    fn counts_agree(&self, una: u64, high_data: u64) -> bool {
        let n = |f: u8| {
            self.segs
                .iter()
                .filter(|s| s.flags & f != 0 && s.flags & SACKED == 0)
                .count() as u64
        };
        let t = (self.tail - self.base) as usize;
        let w = self.segs.iter().take(t).enumerate().filter(|(_, s)| watched(s.flags));
        self.base == una
            && self.base + self.segs.len() as u64 == high_data
            && self.tail >= self.base
            && n(LOST) == self.lost_out
            && n(RTX_OUT) == self.retrans_out
            && self.segs.iter().skip(t).all(|s| s.flags == 0)
            && self
                .segs
                .iter()
                .skip(t)
                .zip(self.segs.iter().skip(t + 1))
                .all(|(a, b)| a.ts <= b.ts)
            && w.clone().count() == self.watched.len()
            && w.into_iter()
                .all(|(k, s)| self.watched.contains(&(s.ts, self.base + k as u64)))
    }

    /// A retransmission timeout: the marks go (go-back-N resends what is
    /// not SACKed), and so does the probe.
    pub fn on_timeout(&mut self) {
        self.watched.clear();
        self.tail = self.base + self.segs.len() as u64;
        for (k, s) in self.segs.iter_mut().enumerate() {
            s.flags &= !(LOST | RTX_OUT);
            if watched(s.flags) {
                self.watched.insert((s.ts, self.base + k as u64));
            }
        }
        self.lost_out = 0;
        self.retrans_out = 0;
        self.need.clear();
        self.tlp = None;
    }
}

#[cfg(test)]
#[path = "rack_tests.rs"]
mod tests;

//! TCP with selective acknowledgements: `tcp-sack`.
//!
//! The receiver reports SACK blocks (RFC 2018) on every ACK ([`SackReport`]);
//! the sender keeps a scoreboard of what was SACKed ([`Scoreboard`]) and runs
//! the conservative loss recovery of RFC 6675 on it (the sender machinery in
//! [`super::tcp`] drives it). Window growth is NewReno's (RFC 5681 slow start
//! and congestion avoidance); on entering recovery ssthresh = cwnd =
//! max(FlightSize / 2, 2) (RFC 6675 section 5 step 4.2 with RFC 5681 eq. 4).
//!
//! Units are packets, as everywhere in fctlab's TCP: sequence number s is the
//! packet s, and RFC 6675's octet quantities become packet counts. Every
//! packet but a flow's last carries SMSS bytes, so IsLost's two tests agree:
//! k SACKed packets above s carry more than (k - 1) SMSS bytes, and more than
//! (DupThresh - 1) SMSS SACKed bytes need at least DupThresh packets. The
//! RFC's inclusive octet variables (HighRxt, RescueRxt) are kept as exclusive
//! packet bounds: `high_rxt` is one past the highest packet retransmitted, so
//! "S2 > HighRxt" reads `s >= high_rxt`.
//!
//! What the sender does, step by step (RFC 6675 section 5):
//! - Every ACK updates the scoreboard with its cumulative ACK and SACK blocks
//!   (Update). An ACK that SACKs packets not SACKed before is a duplicate ACK
//!   (RFC 6675 section 2); a cumulative ACK resets the count.
//! - Outside recovery, DupThresh duplicate ACKs or IsLost(HighACK + 1) start
//!   recovery (steps 1, 2 and 4): RecoveryPoint = HighData, ssthresh = cwnd =
//!   max(FlightSize / 2, 2), retransmit the first unacknowledged packet,
//!   HighRxt = RescueRxt = that packet, then step (C). Limited Transmit (step
//!   3, a MAY) is not done, as fctlab's other TCPs do not do it; recovery is
//!   not entered again before everything sent before it (or before a
//!   timeout) is acknowledged (RFC 6675 section 5.1, RFC 6582's `recover`).
//! - In recovery every ACK runs (A) to (C): a cumulative ACK at or beyond
//!   RecoveryPoint ends recovery (cwnd stays at ssthresh: the window does not
//!   grow during recovery); otherwise SetPipe, and while cwnd - pipe >= 1 the
//!   packet NextSeg picks is sent: (1) the first lost packet above HighRxt,
//!   (2) new data, (3) the first unSACKed packet above HighRxt below the
//!   highest SACKed one, (4) the rescue: once per recovery, once HighACK >
//!   RescueRxt (the highest packet cumulatively acknowledged lies beyond the
//!   first retransmitted one), the highest unSACKed packet (`rescue = false`
//!   leaves rule 4 out).
//! - The retransmission timer follows RFC 6298: started when data leaves and
//!   none is pending, restarted by every ACK that advances the cumulative ACK
//!   (in recovery too) and, as for the other schemes here, on entering
//!   recovery. A retransmission that is lost again is found by the rescue if
//!   it is the highest unSACKed packet and HighACK > RescueRxt, and otherwise
//!   by the timer (no rule resends a packet at or below HighRxt).
//! - A timeout: RecoveryPoint = HighData, and recovery is not entered again
//!   until it is acknowledged (RFC 6675 section 5.1); ssthresh as for the
//!   other schemes, cwnd = 1, go back N from the cumulative ACK. RFC 6675
//!   section 5.1 would allow keeping the scoreboard; fctlab empties it, as
//!   RFC 2018 asks (section 5: turn off the SACKed bits after a timeout, the
//!   receiver may have reneged; section 5.1: ignore prior SACK information in
//!   determining which data to retransmit). So everything unacknowledged is
//!   resent, except what ACKs arriving after the timeout SACK, which go-back-N
//!   skips (as FreeBSD's `tcp_sack_adjust` in sys/netinet/tcp_sack.c does).

use crate::config::{documented, ConfigError, Entry, ParamDoc, Params};
use crate::net::packet::SackBlocks;
use crate::transport::{tcp, SchemeEntry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[transport.sack]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SackParams {
    /// SACK blocks per ACK.
    pub blocks: u32,
    /// NextSeg rule 4, the rescue retransmission.
    pub rescue: bool,
}

impl Default for SackParams {
    fn default() -> Self {
        SackParams {
            blocks: SackBlocks::MAX as u32,
            rescue: true,
        }
    }
}

impl Params for SackParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("blocks", "RFC 2018 section 3: at most 3 SACK blocks fit beside the timestamp option, which fctlab's ACKs carry (1 to 3)"),
        ParamDoc::new("rescue", "RFC 6675 section 4, NextSeg rule 4 (a SHOULD); ns-3 leaves it out (tcp-tx-buffer.cc, TcpTxBuffer::NextSeg)"),
    ];

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(1..=SackBlocks::MAX as u32).contains(&self.blocks) {
            return Err(ConfigError::new(
                format!("{field}.blocks"),
                format!("must be 1 to {}, got {}", SackBlocks::MAX, self.blocks),
            ));
        }
        Ok(())
    }
}

/// `tcp-sack`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-sack",
    description: "TCP SACK: RFC 2018 SACK blocks, RFC 6675 loss recovery (scoreboard, pipe, NextSeg with the rescue retransmission); NewReno window growth",
    table: Some("sack"),
    params: documented::<SackParams>,
    requires: None,
    factory: |t, p| {
        let c: SackParams = t.parse()?;
        Ok(tcp::sack_endpoints(p, c.blocks as usize, c.rescue, super::cc::newreno::newreno_for(p)))
    },
};

// ---------------------------------------------------------------------------
// The receiver's side: which blocks to report.

/// The SACK blocks a receiver reports (RFC 2018 section 4): the block holding
/// the packet that triggered the ACK first (unless that packet advanced the
/// cumulative ACK), then the most recently reported blocks that are not
/// inside it, as many as the option holds. Blocks are always whole runs of
/// packets received above the cumulative ACK: a block grows only by being the
/// first one again, and a run that is filled in up to the cumulative ACK
/// leaves the list.
#[derive(Clone, Debug)]
pub struct SackReport {
    /// Runs of packets held above the cumulative ACK: start -> end (exclusive).
    runs: BTreeMap<u64, u64>,
    /// The blocks of the last ACK, most recent first.
    recent: Vec<(u64, u64)>,
    max_blocks: usize,
}

impl SackReport {
    pub fn new(max_blocks: usize) -> Self {
        let max_blocks = max_blocks.clamp(1, SackBlocks::MAX);
        SackReport {
            runs: BTreeMap::new(),
            recent: Vec::with_capacity(max_blocks),
            max_blocks,
        }
    }

    /// Data packet `seq` arrived; `rcv_nxt` is the cumulative ACK after it.
    #[inline(never)]
    pub fn on_data(&mut self, seq: u64, rcv_nxt: u64) {
        let mut head = None;
        if seq >= rcv_nxt {
            // Out of order. Already held (a duplicate): its run is reported
            // first. Otherwise it joins the runs that end at it or start
            // right after it.
            let prev = self.runs.range(..=seq).next_back().map(|(&s, &e)| (s, e));
            match prev {
                Some((s, e)) if e > seq => head = Some((s, e)),
                _ => {
                    let start = prev.filter(|&(_, e)| e == seq).map_or(seq, |(s, _)| s);
                    let end = self.runs.remove(&(seq + 1)).unwrap_or(seq + 1);
                    self.runs.insert(start, end);
                    head = Some((start, end));
                }
            }
        } else {
            // The cumulative ACK may have swallowed the runs it reached.
            while let Some((&s, _)) = self.runs.first_key_value() {
                if s >= rcv_nxt {
                    break;
                }
                self.runs.pop_first();
            }
        }
        let old = std::mem::take(&mut self.recent);
        self.recent.extend(head);
        for b in old {
            if self.recent.len() == self.max_blocks {
                break;
            }
            let inside_head = head.is_some_and(|(s, e)| s <= b.0 && b.1 <= e);
            if b.1 > rcv_nxt && !inside_head {
                self.recent.push(b);
            }
        }
    }

    /// The SACK option of an ACK of `rcv_nxt`.
    #[inline(never)]
    pub fn option(&self, rcv_nxt: u64) -> SackBlocks {
        SackBlocks::new(rcv_nxt, self.recent.iter().copied())
    }
}

// ---------------------------------------------------------------------------
// The sender's side: the scoreboard and RFC 6675's routines.

/// Which NextSeg rule (RFC 6675 section 4) chose a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// (1) the first lost packet above HighRxt.
    Lost,
    /// (2) new data.
    New,
    /// (3) the first unSACKed packet above HighRxt, below the highest SACKed one.
    Unsacked,
    /// (4) the rescue retransmission.
    Rescue,
}

/// The SACK scoreboard (RFC 6675 section 3) with the recovery variables
/// HighRxt and RescueRxt, in packets.
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// SACKed packets above the cumulative ACK as ranges [start, end):
    /// sorted, disjoint, never adjacent.
    ranges: Vec<(u64, u64)>,
    /// Packets in `ranges`.
    sacked: u64,
    dupthresh: u64,
    /// HighRxt + 1: one past the highest packet retransmitted in this recovery.
    pub high_rxt: u64,
    /// RescueRxt + 1.
    pub rescue_rxt: u64,
    /// Whether NextSeg may use rule 4.
    pub rescue: bool,
}

impl Scoreboard {
    pub fn new(dupthresh: u32, rescue: bool) -> Self {
        Scoreboard {
            ranges: Vec::new(),
            sacked: 0,
            dupthresh: dupthresh.max(1) as u64,
            high_rxt: 0,
            rescue_rxt: 0,
            rescue,
        }
    }

    /// Update (): the cumulative ACK `ack` and the blocks of one ACK. Blocks
    /// are kept only where they lie above `ack` and below `high_data` (data
    /// sent). Returns the packets SACKed for the first time.
    pub fn update(&mut self, ack: u64, blocks: impl Iterator<Item = (u64, u64)>, high_data: u64) -> u64 {
        // Forget what the cumulative ACK covers.
        let gone = self.ranges.iter().take_while(|r| r.1 <= ack).count();
        for r in self.ranges.drain(..gone) {
            self.sacked -= r.1 - r.0;
        }
        if let Some(r) = self.ranges.first_mut() {
            if r.0 < ack {
                self.sacked -= ack - r.0;
                r.0 = ack;
            }
        }
        let before = self.sacked;
        for (s, e) in blocks {
            let (s, e) = (s.max(ack), e.min(high_data));
            if s < e {
                self.insert(s, e);
            }
        }
        self.sacked - before
    }

    fn insert(&mut self, s: u64, e: u64) {
        // Ranges that overlap or touch [s, e) merge with it.
        let first = self.ranges.partition_point(|r| r.1 < s);
        let last = self.ranges.partition_point(|r| r.0 <= e);
        let (mut ns, mut ne) = (s, e);
        for r in &self.ranges[first..last] {
            ns = ns.min(r.0);
            ne = ne.max(r.1);
            self.sacked -= r.1 - r.0;
        }
        self.ranges.splice(first..last, std::iter::once((ns, ne)));
        self.sacked += ne - ns;
    }

    /// Forget every SACK (after a retransmission timeout).
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.sacked = 0;
    }

    /// Packets SACKed above the cumulative ACK.
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        self.ranges.get(i).is_some_and(|r| r.0 <= seq)
    }

    /// The first packet at or after `seq` that is not SACKed.
    pub fn first_unsacked_from(&self, seq: u64) -> u64 {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        match self.ranges.get(i) {
            Some(r) if r.0 <= seq => r.1,
            _ => seq,
        }
    }

    /// The start of the first SACKed range above `seq`, a packet not SACKed.
    pub fn next_sacked_after(&self, seq: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|r| r.0 <= seq);
        self.ranges.get(i).map(|r| r.0)
    }

    /// The highest SACKed packet.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1 - 1)
    }

    /// SACKed packets in [a, b).
    fn sacked_in(&self, a: u64, b: u64) -> u64 {
        self.ranges.iter().map(|r| r.1.min(b).saturating_sub(r.0.max(a))).sum()
    }

    /// Packets in [a, b) not SACKed.
    pub fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        b.saturating_sub(a) - self.sacked_in(a, b.max(a))
    }

    /// IsLost (seq): DupThresh or more packets above `seq` are SACKed (which,
    /// in packets, is also "more than (DupThresh - 1) SMSS bytes SACKed").
    pub fn is_lost(&self, seq: u64) -> bool {
        self.sacked_in(seq + 1, u64::MAX) >= self.dupthresh
    }

    /// IsLost as a bound: the DupThresh-th highest SACKed packet. An unSACKed
    /// packet is lost exactly when it lies below it (more SACKed packets lie
    /// above a lower packet). None: fewer than DupThresh packets are SACKed.
    pub fn lost_below(&self) -> Option<u64> {
        let mut need = self.dupthresh;
        for r in self.ranges.iter().rev() {
            let n = r.1 - r.0;
            if n >= need {
                return Some(r.1 - need);
            }
            need -= n;
        }
        None
    }

    /// SetPipe (): over the unSACKed packets in [una, high_data), one for each
    /// not lost and one more for each at or below HighRxt (retransmitted).
    pub fn pipe(&self, una: u64, high_data: u64) -> u64 {
        let lost_below = self.lost_below().unwrap_or(una).clamp(una, high_data);
        self.unsacked_in(lost_below, high_data) + self.unsacked_in(una, self.high_rxt.clamp(una, high_data))
    }

    /// NextSeg (): the packet to send next, and the rule that chose it.
    /// `new_data`: unsent data exists and the receiver's window allows it.
    pub fn next_seg(&self, una: u64, high_data: u64, new_data: bool) -> Option<(u64, Rule)> {
        let from = self.first_unsacked_from(self.high_rxt.max(una));
        // (1) the smallest unSACKed S2 > HighRxt (1.a) below the highest SACK
        // (1.b) with IsLost (S2) (1.c); lost_below() is itself SACKed.
        if self.lost_below().is_some_and(|q| from < q) {
            return Some((from, Rule::Lost));
        }
        // (2) new data.
        if new_data {
            return Some((high_data, Rule::New));
        }
        // (3) as (1) without (1.c).
        if self.highest_sacked().is_some_and(|h| from < h) {
            return Some((from, Rule::Unsacked));
        }
        // (4) the rescue: once per recovery, when HighACK > RescueRxt, the
        // highest unSACKed packet outstanding.
        if self.rescue && una > self.rescue_rxt {
            return self.highest_unsacked_below(una, high_data).map(|s| (s, Rule::Rescue));
        }
        None
    }

    /// The highest packet in [una, high_data) not SACKed.
    pub fn highest_unsacked_below(&self, una: u64, high_data: u64) -> Option<u64> {
        let mut top = high_data;
        for r in self.ranges.iter().rev() {
            if r.0 >= top {
                continue;
            }
            if r.1 < top {
                break;
            }
            top = r.0;
        }
        (top > una).then(|| top - 1)
    }

    /// Recovery starts with the retransmission of `una` (step 4.3: HighRxt =
    /// RescueRxt = the retransmitted packet).
    pub fn start_recovery(&mut self, una: u64) {
        self.high_rxt = una + 1;
        self.rescue_rxt = una + 1;
    }

    /// Packet `seq` chosen by `rule` was sent (steps C.2 and rule 4's
    /// RescueRxt = RecoveryPoint; `recover` is RecoveryPoint + 1).
    pub fn sent(&mut self, seq: u64, rule: Rule, recover: u64) {
        match rule {
            Rule::Lost | Rule::Unsacked => self.high_rxt = self.high_rxt.max(seq + 1),
            Rule::Rescue => self.rescue_rxt = recover,
            Rule::New => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Header;

    /// RFC 2018 section 7, case 3 ("the 2nd, 4th, 6th, and 8th (last)
    /// segments are dropped") and its continuation, with 500-byte segments
    /// from 5000: segment k is packet k, byte 5000 + 500 k.
    #[test]
    fn rfc2018_case_3_receiver_options() {
        let seg = |byte: u64| (byte - 5000) / 500;
        let mut r = SackReport::new(3);
        let mut rcv_nxt = 0u64;
        let mut held = std::collections::BTreeSet::new();
        let mut arrive = |byte: u64, r: &mut SackReport| -> (u64, Vec<(u64, u64)>) {
            let s = seg(byte);
            held.insert(s);
            while held.contains(&rcv_nxt) {
                rcv_nxt += 1;
            }
            r.on_data(s, rcv_nxt);
            let blocks = r
                .option(rcv_nxt)
                .blocks(rcv_nxt)
                .map(|(a, b)| (5000 + 500 * a, 5000 + 500 * b))
                .collect();
            (5000 + 500 * rcv_nxt, blocks)
        };
        assert_eq!(arrive(5000, &mut r), (5500, vec![]));
        assert_eq!(arrive(6000, &mut r), (5500, vec![(6000, 6500)]));
        assert_eq!(arrive(7000, &mut r), (5500, vec![(7000, 7500), (6000, 6500)]));
        assert_eq!(
            arrive(8000, &mut r),
            (5500, vec![(8000, 8500), (7000, 7500), (6000, 6500)])
        );
        // "the 4th packet is received out of order": two blocks left.
        assert_eq!(arrive(6500, &mut r), (5500, vec![(6000, 7500), (8000, 8500)]));
        // "the 2nd segment is received".
        assert_eq!(arrive(5500, &mut r), (7500, vec![(8000, 8500)]));
    }

    #[test]
    fn receiver_repeats_recent_blocks_and_forgets_the_fourth() {
        // Packets 1, 3, 5, 7 held above a hole at 0: the option holds three;
        // the oldest (1) is left out until a packet joins it.
        let mut r = SackReport::new(3);
        for s in [1, 3, 5, 7] {
            r.on_data(s, 0);
        }
        let got: Vec<_> = r.option(0).blocks(0).collect();
        assert_eq!(got, vec![(7, 8), (5, 6), (3, 4)]);
        r.on_data(2, 0);
        assert_eq!(r.option(0).blocks(0).collect::<Vec<_>>(), vec![(1, 4), (7, 8), (5, 6)]);
        // A duplicate of 5 moves its block first.
        r.on_data(5, 0);
        assert_eq!(r.option(0).blocks(0).collect::<Vec<_>>(), vec![(5, 6), (1, 4), (7, 8)]);
        // One block allowed.
        let mut r1 = SackReport::new(1);
        for s in [1, 3] {
            r1.on_data(s, 0);
        }
        assert_eq!(r1.option(0).blocks(0).collect::<Vec<_>>(), vec![(3, 4)]);
    }

    fn board(sacked: &[(u64, u64)], ack: u64, high_data: u64) -> Scoreboard {
        let mut b = Scoreboard::new(3, true);
        b.update(ack, sacked.iter().copied(), high_data);
        b
    }

    #[test]
    fn update_merges_trims_and_counts_new_sacks() {
        let mut b = Scoreboard::new(3, true);
        assert_eq!(b.update(0, [(2, 3)].into_iter(), 20), 1);
        assert_eq!(b.update(0, [(4, 6), (2, 3)].into_iter(), 20), 2);
        // Touching ranges merge; a repeated block adds nothing.
        assert_eq!(b.update(0, [(3, 4), (4, 6)].into_iter(), 20), 1);
        assert_eq!((b.ranges.clone(), b.sacked()), (vec![(2, 6)], 4));
        // Blocks beyond what was sent are cut at high_data.
        assert_eq!(b.update(0, [(8, 30)].into_iter(), 20), 12);
        // The cumulative ACK moving into a range trims it.
        assert_eq!(b.update(4, std::iter::empty(), 20), 0);
        assert_eq!((b.ranges.clone(), b.sacked()), (vec![(4, 6), (8, 20)], 14));
        assert_eq!(b.update(7, std::iter::empty(), 20), 0);
        assert_eq!((b.ranges.clone(), b.sacked()), (vec![(8, 20)], 12));
        assert!(b.is_sacked(8) && !b.is_sacked(7) && !b.is_sacked(20));
        assert_eq!((b.first_unsacked_from(7), b.first_unsacked_from(9)), (7, 20));
    }

    #[test]
    fn is_lost_counts_sacked_packets_above() {
        // SACKed: 2, 4, 6, 7. Above 1: four; above 3: three; above 5: two.
        let b = board(&[(2, 3), (4, 5), (6, 8)], 1, 10);
        assert!(b.is_lost(1) && b.is_lost(3));
        assert!(!b.is_lost(5) && !b.is_lost(8));
        // The bound agrees: the third-highest SACKed packet is 4.
        assert_eq!(b.lost_below(), Some(4));
        for s in 1..10 {
            if !b.is_sacked(s) {
                assert_eq!(b.is_lost(s), s < 4, "{s}");
            }
        }
        assert_eq!(board(&[(2, 3), (4, 5)], 1, 10).lost_below(), None);
        // DupThresh 1: any SACK above marks a packet lost.
        let mut b1 = Scoreboard::new(1, true);
        b1.update(0, [(5, 6)].into_iter(), 10);
        assert!(b1.is_lost(4) && !b1.is_lost(5));
    }

    #[test]
    fn set_pipe_by_hand() {
        // HighACK + 1 = 5, HighData + 1 = 14; SACKed 6, 8, 10, 11; HighRxt = 5.
        // Lost (3 SACKed above): 5, 7. Not lost, not SACKed: 9, 12, 13 -> 3;
        // retransmitted (<= HighRxt): 5 -> 1. pipe = 4.
        let mut b = board(&[(6, 7), (8, 9), (10, 12)], 5, 14);
        b.start_recovery(5);
        assert_eq!(b.pipe(5, 14), 4);
        // Without the retransmission: 3.
        b.high_rxt = 5;
        assert_eq!(b.pipe(5, 14), 3);
        // Nothing SACKed: every outstanding packet is in the pipe.
        assert_eq!(board(&[], 5, 14).pipe(5, 14), 9);
    }

    #[test]
    fn next_seg_rules_in_order() {
        // HighACK + 1 = 1, HighData + 1 = 12; SACKed 2, 4, 6..=9; HighRxt = 1.
        let mut b = board(&[(2, 3), (4, 5), (6, 10)], 1, 12);
        b.start_recovery(1);
        // Rule 1: 3 is lost (SACKed above: 4, 6, 7, 8, 9) and above HighRxt.
        assert_eq!(b.next_seg(1, 12, true), Some((3, Rule::Lost)));
        b.sent(3, Rule::Lost, 12);
        // 5 too (6, 7, 8 above).
        assert_eq!(b.next_seg(1, 12, true), Some((5, Rule::Lost)));
        b.sent(5, Rule::Lost, 12);
        // 10 and 11 are above every SACK: new data first (rule 2) ...
        assert_eq!(b.next_seg(1, 12, true), Some((12, Rule::New)));
        // ... and without new data, rule 3 has nothing below the highest SACK,
        // and the rescue waits for HighACK to pass RescueRxt (packet 1).
        assert_eq!(b.next_seg(1, 12, false), None);
        b.update(2, std::iter::empty(), 12);
        assert_eq!(b.next_seg(2, 12, false), None, "HighACK = RescueRxt is not beyond it");
        b.update(3, std::iter::empty(), 12);
        // Rule 4: the highest unSACKed packet outstanding, 11.
        assert_eq!(b.next_seg(3, 12, false), Some((11, Rule::Rescue)));
        b.sent(11, Rule::Rescue, 12);
        assert_eq!(b.high_rxt, 6, "rule 4 leaves HighRxt");
        assert_eq!(b.next_seg(3, 12, false), None, "one rescue per recovery");
        // Without rule 4: nothing.
        let mut c = board(&[(4, 5), (6, 10)], 3, 12);
        c.rescue = false;
        c.start_recovery(1);
        c.high_rxt = 6;
        assert_eq!(c.next_seg(3, 12, false), None);
        c.rescue = true;
        assert_eq!(c.next_seg(3, 12, false), Some((11, Rule::Rescue)));
    }

    #[test]
    fn next_seg_rule_3_below_the_highest_sack() {
        // SACKed 5 and 9 only: nothing is lost (2 SACKed above anything), so
        // with no new data rule 3 resends the first unSACKed packet above
        // HighRxt below 9.
        let mut b = board(&[(5, 6), (9, 10)], 2, 10);
        b.start_recovery(2);
        assert_eq!(b.next_seg(2, 10, false), Some((3, Rule::Unsacked)));
        b.sent(3, Rule::Unsacked, 10);
        assert_eq!(b.next_seg(2, 10, false), Some((4, Rule::Unsacked)));
        b.sent(4, Rule::Unsacked, 10);
        // 5 is SACKed: next is 6.
        assert_eq!(b.next_seg(2, 10, false), Some((6, Rule::Unsacked)));
        assert_eq!(b.highest_unsacked_below(2, 10), Some(8));
        assert_eq!(board(&[(3, 10)], 2, 10).highest_unsacked_below(2, 10), Some(2));
        assert_eq!(board(&[(3, 10)], 3, 10).highest_unsacked_below(3, 10), None);
    }

    #[test]
    fn sack_blocks_round_trip_as_offsets() {
        let b = SackBlocks::new(100, [(105, 110), (101, 103)]);
        assert_eq!(b.blocks(100).collect::<Vec<_>>(), vec![(105, 110), (101, 103)]);
        assert!(SackBlocks::default().is_empty() && !b.is_empty());
        // Through the header words, exactly, up to the largest block that fits
        // (offset 2^27 - 1, length 2^26 - 1, far above any cumulative ACK).
        let ack = 1u64 << 40;
        let big = (ack + (1 << 27) - 1, ack + (1 << 27) - 1 + (1 << 26) - 1);
        let b: SackBlocks = Header::of(SackBlocks::new(ack, [big, (ack + 1, ack + 2)])).get();
        assert_eq!(b.blocks(ack).collect::<Vec<_>>(), vec![big, (ack + 1, ack + 2)]);
        assert!(
            Header::of(b).words().iter().all(|&w| w <= 0.0),
            "negative: not a positive RTT field"
        );
        // At most three; a block that does not fit is left out with those after it.
        let b = SackBlocks::new(0, [(1, 2), (3, 4), (5, 6), (7, 8)]);
        assert_eq!(b.blocks(0).count(), 3);
        let b = SackBlocks::new(0, [(1, 2), (1 << 27, (1 << 27) + 1), (5, 6)]);
        assert_eq!(b.blocks(0).collect::<Vec<_>>(), vec![(1, 2)]);
        let b = SackBlocks::new(0, [(1, 1 + (1 << 26)), (5, 6)]);
        assert!(b.is_empty());
    }
}

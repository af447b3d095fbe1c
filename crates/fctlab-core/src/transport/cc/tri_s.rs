//! Tri-S, "Slow Start and Search" (Wang & Crowcroft, "A new congestion
//! control scheme: slow start and search (Tri-S)", ACM CCR 21(1), 1991): the
//! window follows the throughput gradient. The throughput of a window `W` is
//! `T(W) = W / RTT`; the normalised throughput gradient of a step from `W'`
//! to `W` is
//!
//! ```text
//! NTG = ((T(W) - T(W')) / (W - W')) / T(1),    T(1) = 1 packet / RTT_min
//! ```
//!
//! While the path has spare capacity the RTT does not grow and NTG is about
//! 1; once a queue builds, extra window only adds delay and NTG falls toward
//! 0. Tri-S grows while NTG is at least `ntg_threshold` (1/2 in the paper)
//! and steps back otherwise.
//!
//! Readings (the paper itself was out of reach; this follows its published
//! summary: after each one-segment increase, if `T(W) - T(W-1) < T(1)/2`
//! then `W -= 1`, else keep increasing; after a timeout `W = 1`):
//!
//! - Measurements are one per round: a round ends when the ACK of the last
//!   packet the round's window let out arrives, and `T` of the round is its
//!   window over that ACK's RTT. `T(1)` is one packet over the smallest RTT
//!   seen (the RTT of a window of one, which builds no queue).
//! - Slow start: the window grows by one per ACK (Tahoe's slow start) and
//!   each round's NTG is taken against the previous round's. When it falls
//!   below the threshold, the window goes back to the previous round's and
//!   the search begins.
//! - Search: one segment more per round, tested at the round's end against
//!   the round before it; a failed test takes the segment back, and the
//!   round after a step back is measured without a test, so the search then
//!   tries the larger window again (Tri-S keeps probing).
//! - Losses: Tahoe's recovery (window 1, go back N, ssthresh half the
//!   flight); slow start then resumes, up to ssthresh or a failed test.

use super::{slow_start, AckSample, AckSeq, CongestionControl, Recovery, Window};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::Time;
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.tri_s]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TriSParams {
    /// Grow while the normalised throughput gradient is at least this.
    pub ntg_threshold: f64,
}

impl Default for TriSParams {
    fn default() -> Self {
        TriSParams { ntg_threshold: 0.5 }
    }
}

impl Params for TriSParams {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "ntg_threshold",
        "Wang & Crowcroft 1991: keep increasing while T(W) - T(W-1) >= T(1)/2",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.ntg_threshold.is_finite() && self.ntg_threshold > 0.0 && self.ntg_threshold < 1.0) {
            return err(
                format!("{field}.ntg_threshold"),
                format!("must be in (0, 1), got {}", self.ntg_threshold),
            );
        }
        Ok(())
    }
}

/// `tri-s`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tri-s",
    description: "Tri-S (Wang & Crowcroft 1991): slow start, then a one-segment-per-round search that keeps a step only if the normalised throughput gradient is at least 1/2; Tahoe loss recovery",
    table: Some("tri_s"),
    params: documented::<TriSParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: TriSParams = t.parse()?;
    Ok(tcp::endpoints(p, move || Box::new(TriS::new(c.ntg_threshold))))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    SlowStart,
    Search,
}

/// The Tri-S window policy.
pub struct TriS {
    threshold: f64,
    phase: Phase,
    /// The current round ends with the ACK of this sequence number; None: a
    /// round starts on the next ACK.
    round_end: Option<u64>,
    /// The window the round runs with (whole packets).
    round_w: f64,
    /// The previous round's window and throughput (packets per ns); None:
    /// the next round is measured without a test.
    prev: Option<(f64, f64)>,
    min_rtt: Time,
    /// The last cumulative ACK seen, where the next round begins.
    last_ack: u64,
    started: bool,
    /// Gradient tests failed.
    pub steps_back: u64,
}

impl TriS {
    pub fn new(threshold: f64) -> Self {
        TriS {
            threshold,
            phase: Phase::SlowStart,
            round_end: None,
            round_w: 0.0,
            prev: None,
            min_rtt: Time::MAX,
            last_ack: 0,
            started: false,
            steps_back: 0,
        }
    }

    /// After a loss: slow start again, rounds from the next ACK.
    fn restart(&mut self) {
        self.phase = Phase::SlowStart;
        self.round_end = None;
        self.prev = None;
    }

    fn begin_round(&mut self, ack: u64, w: f64) {
        let n = w.floor().max(1.0);
        self.round_w = n;
        self.round_end = Some(ack + n as u64);
    }

    /// A round ended with an ACK whose RTT is `rtt`: test and move the window.
    fn end_round(&mut self, w: &mut Window, rtt: Time) {
        let t = self.round_w / rtt.max(1) as f64;
        let t1 = 1.0 / self.min_rtt.max(1) as f64;
        let ntg = match self.prev {
            Some((wp, tp)) if self.round_w != wp => Some((t - tp) / (self.round_w - wp) / t1),
            _ => None,
        };
        match self.phase {
            Phase::SlowStart => {
                if let (Some(g), Some((wp, _))) = (ntg, self.prev) {
                    if g < self.threshold && self.round_w > wp {
                        self.steps_back += 1;
                        self.phase = Phase::Search;
                        w.cwnd = wp;
                        w.ssthresh = wp;
                        self.prev = None;
                        return;
                    }
                }
                self.prev = Some((self.round_w, t));
            }
            Phase::Search => match (ntg, self.prev) {
                (Some(g), Some((wp, _))) if self.round_w > wp && g < self.threshold => {
                    self.steps_back += 1;
                    w.cwnd = wp.max(1.0);
                    self.prev = None;
                }
                _ => {
                    self.prev = Some((self.round_w, t));
                    w.cwnd = self.round_w + 1.0;
                }
            },
        }
    }
}

impl CongestionControl for TriS {
    /// Per ACK only in slow start (below ssthresh); the search moves the
    /// window once per round, in `on_ack_seq`. A round begins here, after
    /// the ACK's growth, so it runs with the window that sends its packets.
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if self.phase == Phase::SlowStart {
            if w.cwnd < w.ssthresh {
                slow_start(w, s.acked_pkts);
            } else {
                self.phase = Phase::Search;
                self.prev = None;
            }
        }
        if self.round_end.is_none() {
            self.begin_round(self.last_ack, w.cwnd);
        }
    }

    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        self.restart();
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn on_rto(&mut self, _w: &mut Window) {
        self.restart();
    }

    fn recovery(&self) -> Recovery {
        Recovery::Tahoe
    }

    fn wants_ack_seq(&self) -> bool {
        true
    }

    fn on_ack_seq(&mut self, w: &mut Window, s: &AckSeq) {
        self.min_rtt = self.min_rtt.min(s.rtt_ns);
        self.last_ack = s.ack;
        if !self.started {
            // The first round: the initial window, sent at the flow's start.
            self.started = true;
            self.begin_round(0, w.cwnd);
        }
        if self.round_end.is_some_and(|end| s.ack >= end) {
            self.end_round(w, s.rtt_ns);
            self.round_end = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One ACK of one packet, in the sender's order: `on_ack_seq`, then `on_ack`.
    fn feed(cc: &mut TriS, w: &mut Window, a: u64, rtt: Time) {
        cc.on_ack_seq(
            w,
            &AckSeq {
                now: 0,
                ack: a,
                acked_pkts: 1,
                snd_nxt: 0,
                congestion_bit: false,
                rtt_ns: rtt,
                in_recovery: false,
                rtt_sampled: true,
            },
        );
        cc.on_ack(
            w,
            &AckSample {
                now: 0,
                acked_pkts: 1,
                rtt_ns: rtt,
                srtt_ns: rtt,
                min_rtt_ns: rtt,
                flight_pkts: 1,
            },
        );
    }

    #[test]
    fn search_keeps_a_step_while_the_gradient_is_at_least_half() {
        // Search phase at W=4, base RTT 100 (T(1) = 0.01 pkt/ns).
        let mut cc = TriS::new(0.5);
        cc.phase = Phase::Search;
        cc.min_rtt = 100;
        cc.started = true;
        let mut w = Window {
            cwnd: 4.0,
            ssthresh: 4.0,
        };
        // Round with W=4 from ACK 0: ends on ACK 4, RTT 100: T(4) = 0.04; no
        // previous round: no test, W 5.
        cc.begin_round(0, w.cwnd);
        for a in 1..=4 {
            feed(&mut cc, &mut w, a, 100);
        }
        assert_eq!(w.cwnd, 5.0);
        // W=5 round (ACKs 5..9), RTT 100: T(5) = 0.05, NTG = 0.01/0.01 = 1: W 6.
        for a in 5..=9 {
            feed(&mut cc, &mut w, a, 100);
        }
        assert_eq!(w.cwnd, 6.0);
        // W=6 round (ACKs 10..15) ends with RTT 118: T(6) = 6/118 = 0.050847;
        // NTG = 0.000847/0.01 = 0.085 < 1/2: back to 5.
        for a in 10..=15 {
            feed(&mut cc, &mut w, a, 118);
        }
        assert_eq!((w.cwnd, cc.steps_back), (5.0, 1));
        // The round after a step back (ACKs 16..20) is measured without a test: W 6 again.
        for a in 16..=20 {
            feed(&mut cc, &mut w, a, 100);
        }
        assert_eq!(w.cwnd, 6.0);
        // W=6 (ACKs 21..26) with RTT 109: T = 0.055046, NTG = (0.055046 - 0.05)/0.01 = 0.505 >= 1/2: W 7.
        for a in 21..=26 {
            feed(&mut cc, &mut w, a, 109);
        }
        assert_eq!(w.cwnd, 7.0);
        // RTT 111 instead would give NTG (6/111 - 0.05)/0.01 = 0.405: a step back.
        let ntg_111: f64 = (6.0 / 111.0 - 0.05) / 0.01;
        assert!(ntg_111 < 0.5);
    }

    #[test]
    fn slow_start_ends_on_a_flat_gradient() {
        let mut cc = TriS::new(0.5);
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: f64::MAX,
        };
        // Round 1: W=1, packet 0, ACK 1 (RTT 100): T(1) = 0.01; W 2 by slow start.
        feed(&mut cc, &mut w, 1, 100);
        assert_eq!(w.cwnd, 2.0);
        // Round 2: packets 1, 2 (W=2), ends on ACK 3, RTT 100: NTG = (0.02 - 0.01)/1/0.01 = 1. W 4.
        feed(&mut cc, &mut w, 2, 100);
        feed(&mut cc, &mut w, 3, 100);
        assert_eq!(w.cwnd, 4.0);
        // Round 3: packets 3..6 (W=4), ends on ACK 7 with RTT 300: T = 0.01333;
        // NTG = (0.01333 - 0.02)/2/0.01 < 0: back to W 2, search begins.
        for a in 4..=7 {
            feed(&mut cc, &mut w, a, if a == 7 { 300 } else { 100 });
        }
        assert_eq!((w.cwnd, w.ssthresh, cc.phase), (2.0, 2.0, Phase::Search));
        // A loss: slow start again from the sender's window of one.
        cc.ssthresh_after_loss(&w, 2);
        w.cwnd = 1.0;
        feed(&mut cc, &mut w, 8, 100);
        assert_eq!((w.cwnd, cc.phase), (2.0, Phase::SlowStart));
    }
}

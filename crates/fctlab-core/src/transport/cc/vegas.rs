//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995) as Linux
//! `net/ipv4/tcp_vegas.c` runs it.
//!
//! - RTTs in whole microseconds plus one, as Linux takes them
//!   (`tcp_vegas_pkts_acked`: `vrtt = rtt_us + 1`), from each ACK of new
//!   data that gives a sample (none under Karn's rule). baseRTT is the least of the flow; each round (a window of data:
//!   the ACK beyond the SND.NXT of the last decision) keeps the least of the
//!   round, RTT, and counts its samples.
//! - Once per round, with more than two samples in it, in Linux's integer
//!   arithmetic on the whole cwnd: target = floor(cwnd baseRTT / RTT), diff
//!   = floor(cwnd (RTT - baseRTT) / baseRTT) (the packets the flow keeps
//!   queued, Expected - Actual scaled by baseRTT, in units of baseRTT). In
//!   slow start, diff > gamma ends it: cwnd = min(cwnd, target + 1),
//!   ssthresh = min(ssthresh, cwnd - 1); else slow start goes on. In
//!   congestion avoidance: diff > beta, cwnd - 1 and ssthresh = min(ssthresh,
//!   cwnd - 1); diff < alpha, cwnd + 1; otherwise unchanged. cwnd stays at
//!   least 2, and ssthresh is raised to 3/4 cwnd (`tcp_current_ssthresh`).
//! - With two samples or fewer in the round, that ACK grows the window as
//!   Reno does; between decisions slow start grows per ACK (RFC 5681) and
//!   congestion avoidance holds.
//! - A loss halves the window as Reno (Linux `tcp_reno_ssthresh`); NewReno
//!   recovery, during which Vegas stands aside (`tcp_vegas_state`); leaving
//!   it starts a new round (`vegas_enable`). Not modelled: the paper's slow
//!   start that doubles every other round, and its fine-grained timeouts;
//!   Linux's restart of baseRTT whenever the sender sends into an empty pipe
//!   (`CA_EVENT_TX_START`: after an idle time, or the resend after a
//!   timeout, which Linux's Vegas then runs through with a fresh baseRTT).

use super::{slow_start, AckSample, AckSeq, CongestionControl, NewReno, Window};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::Time;
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.vegas]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasParams {
    /// Grow when fewer than alpha packets are queued.
    pub alpha: f64,
    /// Shrink when more than beta packets are queued.
    pub beta: f64,
    /// Leave slow start when more than gamma packets are queued.
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 2.0,
            beta: 4.0,
            gamma: 1.0,
        }
    }
}

impl Params for VegasParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("alpha", "Linux tcp_vegas.c alpha = 2; Brakmo & Peterson 1995 used 1 and 3"),
        ParamDoc::new("beta", "Linux tcp_vegas.c beta = 4"),
        ParamDoc::new("gamma", "Linux tcp_vegas.c gamma = 1; Brakmo & Peterson 1995 sec. 3.3"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        for (k, v) in [("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)] {
            if !(v.is_finite() && v >= 0.0) {
                return err(format!("{field}.{k}"), format!("must be a number of packets >= 0, got {v}"));
            }
        }
        if self.alpha > self.beta {
            return err(
                format!("{field}.alpha"),
                format!("must be at most beta ({}), got {}", self.beta, self.alpha),
            );
        }
        Ok(())
    }
}

/// `tcp-vegas`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-vegas",
    description: "TCP Vegas (Brakmo & Peterson 1995, Linux tcp_vegas.c): once per round diff = floor(cwnd (RTT - baseRTT) / baseRTT); +1 below alpha 2, -1 above beta 4, slow start ends above gamma 1; Reno halving on loss",
    table: Some("vegas"),
    params: documented::<VegasParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: VegasParams = t.parse()?;
    Ok(tcp::endpoints(p, move || Box::new(Vegas::new(&c))))
}

/// What the last ACK's round decision leaves to `on_ack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// No decision on this ACK: slow start grows, avoidance holds.
    Between,
    /// A decision was taken; nothing more on this ACK.
    Decided,
    /// Too few samples: grow as Reno on this ACK.
    Reno,
}

/// The Vegas window policy of one flow.
#[derive(Clone, Debug)]
pub struct Vegas {
    p: VegasParams,
    /// baseRTT and the round's least RTT, Linux's microseconds plus one.
    pub base_rtt: u64,
    round_min: u64,
    samples: u32,
    round_end: u64,
    step: Step,
    /// The last ACK found the sender in fast recovery.
    was_recovering: bool,
}

/// An RTT as Linux's Vegas takes it: whole microseconds, plus one.
fn vrtt(rtt_ns: Time) -> u64 {
    rtt_ns / 1_000 + 1
}

impl Vegas {
    pub fn new(p: &VegasParams) -> Self {
        Vegas {
            p: p.clone(),
            base_rtt: u64::MAX,
            round_min: u64::MAX,
            samples: 0,
            round_end: 0,
            step: Step::Between,
            was_recovering: false,
        }
    }

    /// The once-per-round decision on the round's least RTT `rtt` (Linux
    /// `tcp_vegas_cong_avoid`, in its integer arithmetic).
    fn decide(&mut self, w: &mut Window, rtt: u64) {
        let base = self.base_rtt;
        let cwnd = w.cwnd.floor().max(0.0) as u64;
        let target = (cwnd as u128 * base as u128 / rtt as u128) as f64;
        let diff = (cwnd as u128 * rtt.saturating_sub(base) as u128 / base as u128) as f64;
        let cwnd = cwnd as f64;
        let in_slow_start = w.cwnd < w.ssthresh;
        if diff > self.p.gamma && in_slow_start {
            w.cwnd = cwnd.min(target + 1.0);
            w.ssthresh = w.ssthresh.min(w.cwnd - 1.0);
        } else if in_slow_start {
            // tcp_slow_start on the deciding ACK (one segment per ACK here).
            slow_start(w, 1);
        } else if diff > self.p.beta {
            w.cwnd = cwnd - 1.0;
            w.ssthresh = w.ssthresh.min(w.cwnd - 1.0);
        } else if diff < self.p.alpha {
            w.cwnd = cwnd + 1.0;
        }
        w.cwnd = w.cwnd.max(2.0);
        // tcp_current_ssthresh outside recovery: at least 3/4 cwnd.
        let c = w.cwnd.floor() as u64;
        w.ssthresh = w.ssthresh.max(((c >> 1) + (c >> 2)) as f64);
    }
}

impl CongestionControl for Vegas {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        match self.step {
            Step::Decided => {}
            Step::Reno => NewReno.on_ack(w, s),
            Step::Between => {
                if w.cwnd < w.ssthresh {
                    slow_start(w, s.acked_pkts);
                }
            }
        }
        self.step = Step::Between;
    }

    /// Reno's halving (Linux `tcp_reno_ssthresh`).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn wants_ack_seq(&self) -> bool {
        true
    }

    fn on_ack_seq(&mut self, w: &mut Window, s: &AckSeq) {
        // An ACK without an RTT sample (Karn's rule) is not counted
        // (tcp_vegas_pkts_acked returns on rtt_us < 0).
        if s.rtt_sampled {
            let rtt = vrtt(s.rtt_ns);
            self.base_rtt = self.base_rtt.min(rtt);
            self.round_min = self.round_min.min(rtt);
            self.samples += 1;
        }
        self.step = Step::Between;
        let recovering = std::mem::replace(&mut self.was_recovering, s.in_recovery);
        if s.in_recovery {
            return;
        }
        if recovering {
            // vegas_enable on the way back to Open: a new round from here.
            self.new_round(s);
            return;
        }
        if s.ack <= self.round_end {
            return;
        }
        self.step = if self.samples <= 2 {
            Step::Reno
        } else {
            let rtt = self.round_min;
            self.decide(w, rtt);
            Step::Decided
        };
        self.new_round(s);
    }
}

impl Vegas {
    /// The next round ends beyond what is sent now.
    fn new_round(&mut self, s: &AckSeq) {
        self.round_end = s.snd_nxt.max(s.ack);
        self.round_min = u64::MAX;
        self.samples = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One decision on cwnd, ssthresh, baseRTT and the round's RTT (both in
    /// Linux's microseconds).
    fn decide(cwnd: f64, ssthresh: f64, base: u64, rtt: u64) -> Window {
        let mut v = Vegas::new(&VegasParams::default());
        v.base_rtt = base;
        let mut w = Window { cwnd, ssthresh };
        v.decide(&mut w, rtt);
        w
    }

    #[test]
    fn one_decision_per_round_by_hand() {
        // Linux tcp_vegas_cong_avoid in integers, base 10 ms = 10000 us.
        // Avoidance at cwnd 20: RTT 12 ms, diff = 20 x 2000 / 10000 = 4, not
        // above beta 4: held (ssthresh 10 raised to 3/4 x 20 = 15).
        assert_eq!(
            (decide(20.0, 10.0, 10_000, 12_000).cwnd, decide(20.0, 10.0, 10_000, 12_000).ssthresh),
            (20.0, 15.0)
        );
        // RTT 15 ms: diff 10 > 4: cwnd 19, ssthresh min(20, 18) = 18 (3/4 x
        // 19 = 9 + 4 = 13 is below).
        let w = decide(20.0, 20.0, 10_000, 15_000);
        assert_eq!((w.cwnd, w.ssthresh), (19.0, 18.0));
        // RTT 12.5 ms: diff = 20 x 2500 / 10000 = 5 > 4: 19. Scaled by 1/RTT
        // instead (20 x (1 - 10/12.5) = 4) it would be held.
        assert_eq!(decide(20.0, 10.0, 10_000, 12_500).cwnd, 19.0);
        // RTT 10.5 ms: diff = 1 < alpha 2: 21.
        assert_eq!(decide(20.0, 10.0, 10_000, 10_500).cwnd, 21.0);
        // Slow start at 20, RTT 12 ms: diff 4 > gamma 1: target = 20 x 10000
        // / 12000 = 16 (truncated), cwnd = min(20, 16 + 1) = 17, ssthresh =
        // min(inf, 17 - 1) = 16.
        let w = decide(20.0, f64::MAX, 10_000, 12_000);
        assert_eq!((w.cwnd, w.ssthresh), (17.0, 16.0));
        // RTT 10.999 ms: diff = 20 x 999 / 10000 = 1.998, truncated to 1, not
        // above gamma: slow start goes on (+1 on the deciding ACK).
        let w = decide(20.0, f64::MAX, 10_000, 10_999);
        assert_eq!((w.cwnd, w.ssthresh), (21.0, f64::MAX));
        // A fractional cwnd (Reno's growth) counts whole segments, as Linux's
        // snd_cwnd: 20.9 at RTT 15 ms is 20 - 1.
        assert_eq!(decide(20.9, 10.0, 10_000, 15_000).cwnd, 19.0);
    }

    fn seq(ack: u64, snd_nxt: u64, rtt: Time, in_recovery: bool) -> AckSeq {
        AckSeq {
            now: 0,
            ack,
            acked_pkts: 1,
            snd_nxt,
            congestion_bit: false,
            rtt_ns: rtt,
            in_recovery,
            rtt_sampled: true,
        }
    }

    #[test]
    fn rounds_are_told_apart_by_snd_nxt_and_need_three_samples() {
        let mut v = Vegas::new(&VegasParams::default());
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        // The first ACK ends round 0 with one sample: Reno's step. RTTs in
        // Linux's microseconds plus one: 10 ms is 10001.
        v.on_ack_seq(&mut w, &seq(1, 10, 10_000_000, false));
        assert_eq!(v.step, Step::Reno);
        assert_eq!(v.base_rtt, 10_001);
        // ACKs 2..=10 are in the round that ends beyond 10: no decision.
        for a in 2..=10 {
            v.on_ack_seq(&mut w, &seq(a, 10 + a, 20_000_000, false));
            assert_eq!(v.step, Step::Between);
        }
        // ACK 11: 10 samples of 20001 against base 10001: diff = 10 x 10000
        // / 10001 = 9 > 4: cwnd 9; ssthresh 5 raised to 3/4 x 9 = 4 + 2 = 6.
        v.on_ack_seq(&mut w, &seq(11, 20, 20_000_000, false));
        assert_eq!(v.step, Step::Decided);
        assert_eq!((w.cwnd, w.ssthresh), (9.0, 6.0));
    }

    #[test]
    fn an_ack_without_an_rtt_sample_is_not_counted() {
        // Karn's rule leaves the ACK of a resent segment without a sample;
        // the sender then reports the smoothed RTT, which Linux's Vegas never
        // sees (rtt_us < 0). Round 1 ends at ACK 11 with two samples of 10
        // ms and eight unsampled ACKs reporting 20 ms: Reno's step, not a
        // decision. (Counted, they would make ten samples and a decision:
        // least RTT 10 ms, diff 0 < alpha, cwnd 11.)
        let mut v = Vegas::new(&VegasParams::default());
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        v.on_ack_seq(&mut w, &seq(1, 10, 10_000_000, false));
        for a in 2..=10 {
            // ACKs 2 and 3 sample 10 ms; 4..10 have no sample.
            let mut s = seq(a, 10, if a <= 3 { 10_000_000 } else { 20_000_000 }, false);
            s.rtt_sampled = a <= 3;
            v.on_ack_seq(&mut w, &s);
        }
        let mut s = seq(11, 20, 20_000_000, false);
        s.rtt_sampled = false;
        v.on_ack_seq(&mut w, &s);
        assert_eq!(v.step, Step::Reno);
        assert_eq!(v.base_rtt, 10_001);
    }

    #[test]
    fn leaving_recovery_starts_a_round() {
        // Linux tcp_vegas_state: Vegas stands aside out of Open, and
        // vegas_enable on the way back sets beg_snd_nxt = SND.NXT and empties
        // the round.
        let mut v = Vegas::new(&VegasParams::default());
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        v.on_ack_seq(&mut w, &seq(1, 10, 10_000_000, false));
        for a in 2..=5 {
            v.on_ack_seq(&mut w, &seq(a, 10, 20_000_000, true));
            assert_eq!(v.step, Step::Between);
        }
        // ACK 11 leaves recovery: beyond the round's end (10), but the round
        // restarts instead of deciding; it ends beyond 20.
        v.on_ack_seq(&mut w, &seq(11, 20, 20_000_000, false));
        assert_eq!(v.step, Step::Between);
        assert_eq!(w.cwnd, 10.0);
        for a in 12..=20 {
            v.on_ack_seq(&mut w, &seq(a, 20, 20_000_000, false));
            assert_eq!(v.step, Step::Between);
        }
        // ACK 21: nine samples in the new round: a decision.
        v.on_ack_seq(&mut w, &seq(21, 30, 20_000_000, false));
        assert_eq!(v.step, Step::Decided);
    }
}

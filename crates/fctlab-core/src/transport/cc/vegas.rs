//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995) as Linux
//! `net/ipv4/tcp_vegas.c` runs it.
//!
//! - baseRTT is the least RTT sample of the flow; each round (a window of
//!   data: the ACK beyond the SND.NXT of the last decision) keeps the least
//!   sample of the round, RTT.
//! - Once per round, with more than two samples in it: diff = cwnd (1 -
//!   baseRTT / RTT), the packets the flow keeps queued (Expected - Actual,
//!   times baseRTT; Linux scales the same difference by 1 / baseRTT instead
//!   of 1 / RTT). In slow start, diff > gamma ends it: cwnd = min(cwnd,
//!   cwnd baseRTT / RTT + 1), ssthresh = min(ssthresh, cwnd - 1). In
//!   congestion avoidance: diff > beta, cwnd - 1 (and ssthresh = min(ssthresh,
//!   cwnd - 1)); diff < alpha, cwnd + 1; otherwise unchanged. cwnd stays at
//!   least 2.
//! - With two samples or fewer in the round, that ACK grows the window as
//!   Reno does; between decisions slow start grows per ACK (RFC 5681) and
//!   congestion avoidance holds.
//! - A loss halves the window as Reno (Linux `tcp_reno_ssthresh`); NewReno
//!   recovery. Not modelled: the paper's slow start that doubles every other
//!   round, and its fine-grained timeouts.

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
    description: "TCP Vegas (Brakmo & Peterson 1995, Linux tcp_vegas.c): once per round diff = cwnd (1 - baseRTT/RTT); +1 below alpha 2, -1 above beta 4, slow start ends above gamma 1; Reno halving on loss",
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
    pub base_rtt: Time,
    round_min: Time,
    samples: u32,
    round_end: u64,
    step: Step,
}

impl Vegas {
    pub fn new(p: &VegasParams) -> Self {
        Vegas {
            p: p.clone(),
            base_rtt: Time::MAX,
            round_min: Time::MAX,
            samples: 0,
            round_end: 0,
            step: Step::Between,
        }
    }

    /// The once-per-round decision on the round's least RTT `rtt`.
    fn decide(&mut self, w: &mut Window, rtt: Time) {
        let ratio = self.base_rtt as f64 / rtt as f64;
        let diff = w.cwnd * (1.0 - ratio);
        if w.cwnd < w.ssthresh {
            if diff > self.p.gamma {
                w.cwnd = w.cwnd.min(w.cwnd * ratio + 1.0);
                w.ssthresh = w.ssthresh.min((w.cwnd - 1.0).max(2.0));
            } else {
                w.cwnd += 1.0;
            }
        } else if diff > self.p.beta {
            w.cwnd -= 1.0;
            w.ssthresh = w.ssthresh.min((w.cwnd - 1.0).max(2.0));
        } else if diff < self.p.alpha {
            w.cwnd += 1.0;
        }
        w.cwnd = w.cwnd.max(2.0);
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
        self.base_rtt = self.base_rtt.min(s.rtt_ns.max(1));
        self.round_min = self.round_min.min(s.rtt_ns.max(1));
        self.samples += 1;
        self.step = Step::Between;
        if s.in_recovery || s.ack <= self.round_end {
            return;
        }
        self.step = if self.samples <= 2 {
            Step::Reno
        } else {
            let rtt = self.round_min;
            self.decide(w, rtt);
            Step::Decided
        };
        self.round_end = s.snd_nxt.max(s.ack);
        self.round_min = Time::MAX;
        self.samples = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(cwnd: f64, ssthresh: f64, base: Time, rtt: Time) -> Window {
        let mut v = Vegas::new(&VegasParams::default());
        v.base_rtt = base;
        let mut w = Window { cwnd, ssthresh };
        v.decide(&mut w, rtt);
        w
    }

    #[test]
    fn one_decision_per_round_by_hand() {
        // base 10 ms, cwnd 20 in avoidance: RTT 12 ms, diff = 20 (1 - 10/12)
        // = 3.33, within [2, 4]: held. RTT 15 ms: 6.67 > 4: 19. RTT 10.5 ms:
        // 0.95 < 2: 21.
        assert_eq!(decide(20.0, 10.0, 10_000_000, 12_000_000).cwnd, 20.0);
        let w = decide(20.0, 30.0 - 10.0, 10_000_000, 15_000_000);
        assert_eq!((w.cwnd, w.ssthresh), (19.0, 18.0));
        assert_eq!(decide(20.0, 10.0, 10_000_000, 10_500_000).cwnd, 21.0);
        // Slow start at 20, RTT 12 ms: diff 3.33 > gamma 1: cwnd = 20 x 10/12
        // + 1 = 17.67, ssthresh 16.67.
        let w = decide(20.0, f64::MAX, 10_000_000, 12_000_000);
        assert!((w.cwnd - (20.0 * 10.0 / 12.0 + 1.0)).abs() < 1e-12);
        assert!((w.ssthresh - (20.0 * 10.0 / 12.0)).abs() < 1e-12);
        // diff 0.5 <= gamma: slow start goes on (+1 at the decision).
        assert_eq!(decide(20.0, f64::MAX, 10_000_000, 10_256_410).cwnd, 21.0);
    }

    #[test]
    fn rounds_are_told_apart_by_snd_nxt_and_need_three_samples() {
        let mut v = Vegas::new(&VegasParams::default());
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        let seq = |ack, snd_nxt, rtt| AckSeq {
            now: 0,
            ack,
            acked_pkts: 1,
            snd_nxt,
            congestion_bit: false,
            rtt_ns: rtt,
            in_recovery: false,
        };
        // The first ACK ends round 0 with one sample: Reno's step.
        v.on_ack_seq(&mut w, &seq(1, 10, 10_000_000));
        assert_eq!(v.step, Step::Reno);
        // ACKs 2..=10 are in the round that ends beyond 10: no decision.
        for a in 2..=10 {
            v.on_ack_seq(&mut w, &seq(a, 10 + a, 20_000_000));
            assert_eq!(v.step, Step::Between);
        }
        // ACK 11: 10 samples of 20 ms against base 10 ms: diff = 5 > 4: 9.
        v.on_ack_seq(&mut w, &seq(11, 20, 20_000_000));
        assert_eq!(v.step, Step::Decided);
        assert_eq!(w.cwnd, 9.0);
    }
}

//! CUBIC (RFC 9438), cross-checked against Linux `net/ipv4/tcp_cubic.c`,
//! with HyStart++ (RFC 9406) in slow start.
//!
//! - **Congestion event** (a loss, a timeout, an ECE): W_max = cwnd, or with
//!   fast convergence cwnd (1 + beta) / 2 when cwnd is below the last W_max
//!   (RFC 9438 4.7); ssthresh = max(cwnd beta, 2) (4.6; Linux
//!   `bictcp_recalc_ssthresh`); the epoch ends.
//! - **Congestion avoidance.** The epoch starts on the first ACK after the
//!   event (t_epoch; Linux `epoch_start`), with cwnd_epoch the window then:
//!   K = cbrt((W_max - cwnd_epoch) / C), or K = 0 and W_max = cwnd_epoch
//!   when the window is already above W_max (4.2; Linux `bictcp_update`).
//!   W_cubic(t) = C (t - K)^3 + W_max. Per ACK of n packets the
//!   Reno-friendly estimate grows W_est += alpha n / cwnd, alpha =
//!   3 (1 - beta) / (1 + beta), and 1 once W_est reaches the window before
//!   the event (4.3). If W_cubic(t) < W_est, cwnd = W_est; otherwise the
//!   target is W_cubic(t + RTT) held within [cwnd, 1.5 cwnd] and cwnd +=
//!   n (target - cwnd) / cwnd (4.4, 4.5). RTT is the smoothed RTT (RFC 9438;
//!   Linux adds its minimum RTT instead).
//! - **Slow start**: RFC 5681's, with HyStart++ (below) unless `hystart =
//!   false`.
//!
//! **HyStart++** (RFC 9406 section 4.2), not Linux's HyStart (ack trains and
//! delay, `hystart_update`): it is specified with exact constants in an RFC,
//! its delay rule is the one Linux's delay detection approximates, and its
//! ack-train detection depends on how ACKs are spaced by a host's timers,
//! which fctlab does not model. Per round (a window of data, ended by the
//! ACK reaching the SND.NXT of its start) the minimum of the first
//! N_RTT_SAMPLE = 8 RTT samples is kept; in slow start, once 8 samples are
//! in and the round's minimum is at least last round's plus RttThresh =
//! clamp(last / 8, 4 ms, 16 ms), the sender enters Conservative Slow Start
//! (CSS): growth is divided by CSS_GROWTH_DIVISOR = 4; a round whose minimum
//! falls below the baseline goes back to slow start; after CSS_ROUNDS = 5
//! rounds, ssthresh = cwnd and congestion avoidance begins. A loss in slow
//! start or CSS ends both (ssthresh from the event). The limit L on growth
//! per ACK is not modelled (the sender's slow start adds one packet per ACK).
//!
//! Not modelled: Linux's `bic_scale`/`cube_rtt_scale` fixed-point arithmetic
//! and its once-per-ms update granularity, the `tcp_friendliness` packet
//! counters (the same estimate, in integers).

use super::{slow_start, AckSample, AckSeq, CongestionControl, Window};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::{Time, NS_PER_S};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.cubic]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicParams {
    /// C, packets / s^3.
    pub c: f64,
    /// The multiplicative decrease factor beta.
    pub beta: f64,
    /// Fast convergence (RFC 9438 4.7).
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 4.3).
    pub reno_friendly: bool,
    /// HyStart++ in slow start (RFC 9406).
    pub hystart: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
        }
    }
}

impl Params for CubicParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("c", "RFC 9438 sec. 5: C = 0.4; Linux tcp_cubic.c bic_scale 41 (41/1024 x 10)"),
        ParamDoc::new("beta", "RFC 9438 sec. 4.6: beta_cubic = 0.7; Linux beta 717/1024"),
        ParamDoc::new("fast_convergence", "RFC 9438 sec. 4.7; Linux fast_convergence = 1"),
        ParamDoc::new("reno_friendly", "RFC 9438 sec. 4.3; Linux tcp_friendliness = 1"),
        ParamDoc::new(
            "hystart",
            "RFC 9406 HyStart++ (Linux's hystart = 1 enables its own HyStart, not modelled)",
        ),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return err(format!("{field}.c"), format!("must be a positive number, got {}", self.c));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return err(format!("{field}.beta"), format!("must be in (0, 1), got {}", self.beta));
        }
        Ok(())
    }
}

/// `tcp-cubic`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-cubic",
    description: "CUBIC (RFC 9438, Linux tcp_cubic.c): W(t) = C (t - K)^3 + W_max, beta 0.7, fast convergence, Reno-friendly region; HyStart++ (RFC 9406) slow start; NewReno recovery",
    table: Some("cubic"),
    params: documented::<CubicParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: CubicParams = t.parse()?;
    Ok(tcp::endpoints(p, move || Box::new(Cubic::new(&c))))
}

/// RFC 9406's constants.
const N_RTT_SAMPLE: u32 = 8;
const MIN_RTT_THRESH: Time = 4_000_000;
const MAX_RTT_THRESH: Time = 16_000_000;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

/// HyStart++'s state (RFC 9406 4.2).
#[derive(Clone, Debug)]
struct HyStart {
    window_end: u64,
    last_round_min: Time,
    round_min: Time,
    samples: u32,
    /// In CSS: the baseline and the rounds spent there.
    css: Option<(Time, u32)>,
    /// Done: a loss, or CSS ended.
    done: bool,
}

/// The CUBIC window policy of one flow.
#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    /// W_max, and the window just before the last event (cwnd_prior).
    pub w_max: f64,
    cwnd_prior: f64,
    /// The epoch: its start, K (s), the origin W_max it aims at, and W_est.
    epoch: Option<Epoch>,
    hs: HyStart,
}

#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: Time,
    k: f64,
    origin: f64,
    w_est: f64,
}

impl Cubic {
    pub fn new(p: &CubicParams) -> Self {
        Cubic {
            p: p.clone(),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
            hs: HyStart {
                window_end: 0,
                last_round_min: Time::MAX,
                round_min: Time::MAX,
                samples: 0,
                css: None,
                done: !p.hystart,
            },
        }
    }

    /// W_cubic at `t` seconds into an epoch with K `k` and origin `w_max`.
    pub fn w_cubic(&self, t: f64, k: f64, w_max: f64) -> f64 {
        self.p.c * (t - k).powi(3) + w_max
    }

    /// K for a window `cwnd_epoch` at the epoch's start below `w_max`.
    pub fn k(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        ((w_max - cwnd_epoch).max(0.0) / self.p.c).cbrt()
    }

    fn alpha(&self, w_est: f64) -> f64 {
        if w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
        }
    }

    /// Congestion avoidance on an ACK of `n` packets (RFC 9438 4.2-4.5).
    fn avoid(&mut self, w: &mut Window, now: Time, n: f64, rtt: Time) {
        let e = match self.epoch {
            Some(e) => e,
            None => {
                let (k, origin) = if w.cwnd < self.w_max {
                    (self.k(self.w_max, w.cwnd), self.w_max)
                } else {
                    (0.0, w.cwnd)
                };
                Epoch {
                    start: now,
                    k,
                    origin,
                    w_est: w.cwnd,
                }
            }
        };
        let t = (now - e.start) as f64 / NS_PER_S as f64;
        let w_est = e.w_est + self.alpha(e.w_est) * n / w.cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        if self.p.reno_friendly && self.w_cubic(t, e.k, e.origin) < w_est {
            w.cwnd = w.cwnd.max(w_est);
            return;
        }
        let ahead = t + rtt as f64 / NS_PER_S as f64;
        let target = self.w_cubic(ahead, e.k, e.origin).clamp(w.cwnd, 1.5 * w.cwnd);
        w.cwnd += n * (target - w.cwnd) / w.cwnd;
    }

    /// HyStart++ per RTT sample and round (RFC 9406 4.2).
    fn hystart_sample(&mut self, w: &mut Window, s: &AckSeq) {
        let h = &mut self.hs;
        if s.ack >= h.window_end {
            // A new round.
            h.window_end = s.snd_nxt.max(s.ack);
            h.last_round_min = h.round_min;
            h.round_min = Time::MAX;
            h.samples = 0;
            if let Some((base, rounds)) = h.css {
                if rounds + 1 >= CSS_ROUNDS {
                    w.ssthresh = w.cwnd;
                    h.css = None;
                    h.done = true;
                    return;
                }
                h.css = Some((base, rounds + 1));
            }
        }
        h.round_min = h.round_min.min(s.rtt_ns);
        h.samples += 1;
        if h.samples < N_RTT_SAMPLE || h.round_min == Time::MAX || h.last_round_min == Time::MAX {
            return;
        }
        match h.css {
            None => {
                let thresh = (h.last_round_min / 8).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if h.round_min >= h.last_round_min.saturating_add(thresh) {
                    h.css = Some((h.round_min, 0));
                }
            }
            Some((base, _)) if h.round_min < base => h.css = None,
            Some(_) => {}
        }
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if w.cwnd < w.ssthresh {
            if self.hs.css.is_some() {
                w.cwnd += s.acked_pkts as f64 / CSS_GROWTH_DIVISOR;
            } else {
                slow_start(w, s.acked_pkts);
            }
            return;
        }
        self.avoid(w, s.now, s.acked_pkts as f64, s.srtt_ns);
    }

    /// RFC 9438 4.6-4.7: W_max (fast convergence), ssthresh = cwnd beta.
    fn ssthresh_after_loss(&mut self, w: &Window, _flight_pkts: u64) -> f64 {
        let cwnd = w.cwnd;
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.hs.css = None;
        self.hs.done = true;
        (cwnd * self.p.beta).max(2.0)
    }

    fn on_rto(&mut self, _w: &mut Window) {
        self.epoch = None;
    }

    fn wants_ack_seq(&self) -> bool {
        !self.hs.done
    }

    fn on_ack_seq(&mut self, w: &mut Window, s: &AckSeq) {
        if !self.hs.done && !s.in_recovery && w.cwnd < w.ssthresh {
            self.hystart_sample(w, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(now: Time, rtt: Time) -> AckSample {
        AckSample {
            now,
            acked_pkts: 1,
            rtt_ns: rtt,
            srtt_ns: rtt,
            min_rtt_ns: rtt,
            flight_pkts: 1,
        }
    }

    #[test]
    fn w_cubic_after_one_loss_by_hand() {
        // cwnd 100 at the loss: W_max 100, ssthresh 70, K = cbrt(100 x 0.3 /
        // 0.4) = cbrt(75) = 4.217163 s.
        let mut cc = Cubic::new(&CubicParams::default());
        let w = Window {
            cwnd: 100.0,
            ssthresh: f64::MAX,
        };
        assert!((cc.ssthresh_after_loss(&w, 100) - 70.0).abs() < 1e-12);
        assert_eq!(cc.w_max, 100.0);
        let k = cc.k(100.0, 70.0);
        assert!((k - 4.217_163_326_508_746).abs() < 1e-12);
        // W(0) = 70, W(K) = 100, W(K + 1) = 100.4, W(K - 1) = 99.6, W(K + 2) = 103.2.
        for (t, want) in [(0.0, 70.0), (k, 100.0), (k + 1.0, 100.4), (k - 1.0, 99.6), (k + 2.0, 103.2)] {
            assert!((cc.w_cubic(t, k, 100.0) - want).abs() < 1e-9, "W({t})");
        }
        // Fast convergence: a second loss at cwnd 90 < W_max 100 gives
        // W_max = 90 x 1.7 / 2 = 76.5 and ssthresh 63.
        let w = Window {
            cwnd: 90.0,
            ssthresh: 70.0,
        };
        assert!((cc.ssthresh_after_loss(&w, 90) - 63.0).abs() < 1e-12);
        assert!((cc.w_max - 76.5).abs() < 1e-12);
    }

    #[test]
    fn the_window_follows_w_cubic_on_a_long_rtt() {
        // After a loss at 100, with RTT 100 ms and one ACK per packet, the
        // window at t tracks W(t + RTT) (RFC 9438 4.4-4.5): near W_max at
        // t = K - RTT, and the Reno-friendly estimate (about 70 + 0.53 per
        // RTT: 92 at t = K) stays below W_cubic.
        let p = CubicParams {
            hystart: false,
            ..Default::default()
        };
        let mut cc = Cubic::new(&p);
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: f64::MAX,
        };
        w.ssthresh = cc.ssthresh_after_loss(&w, 100);
        w.cwnd = w.ssthresh;
        let rtt: Time = 100_000_000;
        let k = cc.k(100.0, 70.0);
        let mut now = 0;
        while (now as f64) < (k - 0.1) * 1e9 {
            let n = w.cwnd.floor() as u64;
            for i in 0..n {
                cc.on_ack(&mut w, &sample(now + rtt * i / n, rtt));
            }
            now += rtt;
        }
        assert!((w.cwnd - 100.0).abs() < 0.5, "cwnd {} at t = K", w.cwnd);
        let t = now as f64 / 1e9;
        let e = cc.epoch.unwrap();
        assert!(e.w_est < cc.w_cubic(t, k, 100.0));
    }

    #[test]
    fn the_reno_friendly_region_grows_by_alpha_per_rtt_on_a_short_rtt() {
        // RTT 1 ms: W_cubic barely moves in 20 ms, so cwnd = W_est, which grows
        // by alpha = 3 x 0.3 / 1.7 = 0.5294 per round trip (W_est < cwnd_prior).
        let mut cc = Cubic::new(&CubicParams {
            hystart: false,
            ..Default::default()
        });
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: f64::MAX,
        };
        w.ssthresh = cc.ssthresh_after_loss(&w, 100);
        w.cwnd = w.ssthresh;
        let rtt: Time = 1_000_000;
        for r in 0..20u64 {
            for i in 0..70u64 {
                cc.on_ack(&mut w, &sample(r * rtt + rtt * i / 70, rtt));
            }
        }
        // 1400 ACKs of alpha / cwnd each, cwnd from 70 to about 80.6: the
        // sum is alpha x 1400 / (mean cwnd), about 0.5294 x 1400 / 75.3.
        let alpha = 0.9 / 1.7;
        let mut west = 70.0f64;
        for _ in 0..1400 {
            west += alpha / west;
        }
        assert!((w.cwnd - west).abs() < 1e-9, "cwnd {} vs W_est {west}", w.cwnd);
    }

    #[test]
    fn hystart_enters_css_on_a_delay_rise_and_leaves_slow_start_after_five_rounds() {
        let mut cc = Cubic::new(&CubicParams::default());
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::MAX,
        };
        let mut ack = 0u64;
        let mut entered = None;
        let mut left = None;
        // Round r: cwnd ACKs, SND.NXT a window ahead of each; RTT 20 ms in
        // rounds 0-2, 25 ms from round 3 (RttThresh = clamp(20/8, 4, 16) = 4
        // ms: 25 >= 24 enters CSS once a round of 8 samples has only 25 ms).
        for r in 0..14u32 {
            let rtt: Time = if r < 3 { 20_000_000 } else { 25_000_000 };
            let n = w.cwnd as u64;
            for _ in 0..n {
                ack += 1;
                let s = AckSeq {
                    now: 0,
                    ack,
                    acked_pkts: 1,
                    snd_nxt: ack + w.cwnd as u64,
                    congestion_bit: false,
                    rtt_ns: rtt,
                    in_recovery: false,
                    rtt_sampled: true,
                };
                cc.on_ack_seq(&mut w, &s);
                cc.on_ack(&mut w, &sample(0, rtt));
                if cc.hs.css.is_some() && entered.is_none() {
                    entered = Some((r, w.cwnd));
                }
                if cc.hs.done && left.is_none() {
                    left = Some((r, w.cwnd));
                }
            }
        }
        // Slow start from 10 doubles per round: 80 at the end of round 2.
        let (r_in, w_in) = entered.expect("entered CSS");
        assert!((3..=4).contains(&r_in), "CSS from round {r_in}");
        // Five CSS rounds later slow start is over, with ssthresh = cwnd; in
        // CSS the window grows by a quarter per round, not double.
        let (r_out, w_out) = left.expect("left slow start");
        assert!((r_in + 4..=r_in + 6).contains(&r_out), "left in round {r_out}");
        assert!(w_out < w_in * 1.25f64.powi(6) + 1.0, "{w_out} from {w_in}");
        assert!((w.ssthresh - w_out).abs() < 0.01, "ssthresh {} vs {w_out}", w.ssthresh);
    }
}

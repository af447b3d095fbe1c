//! TCP Tarheel: NewReno with the RTT-fair scaling rules of Gavaletz & Kaur,
//! "Decomposing RTT-Unfairness in Transport Protocols" (2010), sections III
//! and IV. Every flow keeps the throughput a reference transfer REF (path RTT
//! `r_ref`, initial window `w0_ref`, threshold `SST_ref`) would have at the
//! same time and under the same queuing delay q.
//!
//! With r the flow's RTT without queuing and s = (r + q) / (r_ref + q)
//! (s = r / r_ref when q = 0):
//!
//! ```text
//! initial window   w0  = w0_ref s                 (eq. 7)
//! threshold        SST = SST_ref s                (eq. 11 and sec. III-D-1)
//! slow start       w' = w 2^s per round trip      (eqs. 9, 10, 15)
//! cong. avoidance  w' = w + s^2 per round trip    (eqs. 12, 13, 16)
//! queuing change   w' = w s(q') / s(q)            (the first factor of eqs. 15, 16)
//! loss             ssthresh = FlightSize / 2; RTO: cwnd = w0_ref s  (sec. III-C)
//! ```
//!
//! Per ACK (one round trip is one window of ACKs): slow start adds 2^s - 1
//! packets (after w ACKs the window is w 2^s; s = 1 is NewReno's +1), stopping
//! at ssthresh; congestion avoidance adds s^2 / cwnd. The factor s(q')/s(q) is
//! applied on every ACK with the newest q and r, so its product over a round
//! trip is the paper's per-round factor (r + q')(r_ref + q) / ((r + q)(r_ref + q'));
//! ssthresh is rescaled with it, which is the paper's SST = SST_ref (r + q) /
//! (r_ref + q) with the most recent q.
//!
//! Our readings where the paper leaves room:
//! - r is the smallest RTT sample so far (the paper assumes the first sample
//!   sees no queue; its footnote 5 takes q = RTT - RTT_min), or `base_rtt_ms`
//!   when given. With a handshake the SYN-ACK's sample sets w0 before the first
//!   data packet; without one (and without `base_rtt_ms`) the flow starts with
//!   w0_ref and scales by s at its first RTT sample.
//! - q (`queue_delay`): "oracle" is the true queuing delay on the flow's path
//!   when the ACK arrives, which the simulator writes into the ACK (the sum over
//!   the router ports of both directions of bytes waiting x 8 / rate:
//!   `net::packet::Header::path_queue_ns`), as the paper's NS-2 oracle; "end-to-end"
//!   is the latest RTT sample minus the smallest (the paper's footnote 5, what
//!   a real sender can measure); "none" keeps q = 0 (section III-A and III-B
//!   only).
//! - A window below one packet cannot be sent in packets: cwnd is held at one
//!   packet or more (a flow with w0_ref r / r_ref < 1 then starts above REF).
//! - Fast recovery is NewReno's (RFC 6582); the paper leaves FR/R's effect on
//!   fairness to future work (section V).

use super::{AckSample, CongestionControl, Recovery, Window, MAX_SCALED_WINDOW_PKTS};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::Time;
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.tarheel]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TarheelParams {
    /// r_ref, the reference transfer's RTT: 30 ms, the paper's Fig. 3.
    pub ref_rtt_ms: f64,
    /// SST_ref, the reference threshold in packets (None: unbounded, RFC 5681
    /// 3.1's arbitrarily high initial ssthresh; the paper's Figs. 2-3 use 100).
    pub ssthresh_ref_pkts: Option<f64>,
    /// Where q comes from: "oracle", "end-to-end" or "none".
    pub queue_delay: String,
    /// r given in advance (None: the smallest RTT sample).
    pub base_rtt_ms: Option<f64>,
}

impl Default for TarheelParams {
    fn default() -> Self {
        TarheelParams {
            ref_rtt_ms: 30.0,
            ssthresh_ref_pkts: None,
            queue_delay: "oracle".into(),
            base_rtt_ms: None,
        }
    }
}

impl Params for TarheelParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("ref_rtt_ms", "Gavaletz & Kaur 2010, Fig. 3 (r_ref = 30 ms)"),
        ParamDoc::derived("ssthresh_ref_pkts", "unbounded", "RFC 5681 3.1 (initial ssthresh arbitrarily high); the paper's Figs. 2-3 use 100"),
        ParamDoc::new("queue_delay", "Gavaletz & Kaur 2010 sec. IV: an oracle gives the queuing delay (\"end-to-end\": RTT - RTT_min, footnote 5; \"none\": q = 0)"),
        ParamDoc::derived("base_rtt_ms", "the smallest RTT sample", "Gavaletz & Kaur 2010 sec. III-D (r: the RTT with an empty queue)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        crate::config::duration_ms(&format!("{field}.ref_rtt_ms"), self.ref_rtt_ms, true)?;
        if let Some(x) = self.ssthresh_ref_pkts {
            if !(x.is_finite() && x >= 1.0) {
                return Err(ConfigError::new(
                    format!("{field}.ssthresh_ref_pkts"),
                    format!("must be a number of packets >= 1, got {x}"),
                ));
            }
        }
        if !matches!(self.queue_delay.as_str(), "oracle" | "end-to-end" | "none") {
            return Err(ConfigError::new(
                format!("{field}.queue_delay"),
                format!(
                    "must be \"oracle\", \"end-to-end\" or \"none\", got {:?}",
                    self.queue_delay
                ),
            ));
        }
        if let Some(x) = self.base_rtt_ms {
            crate::config::duration_ms(&format!("{field}.base_rtt_ms"), x, true)?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDelay {
    Oracle,
    EndToEnd,
    None,
}

/// One flow's Tarheel controller.
#[derive(Clone, Debug)]
pub struct Tarheel {
    /// r_ref, ns.
    r_ref: f64,
    w0_ref: f64,
    sst_ref: f64,
    mode: QueueDelay,
    /// r given in advance, ns.
    fixed_r: Option<f64>,
    /// r as known so far, ns (None before the first sample).
    r: Option<f64>,
    /// The latest queuing delay, ns.
    q: f64,
    /// The oracle's latest reading, ns.
    oracle_q: f64,
    /// The s the window was last scaled to (None: not scaled yet).
    s_applied: Option<f64>,
}

impl Tarheel {
    pub fn new(c: &TarheelParams, w0_ref: f64) -> Self {
        let mode = match c.queue_delay.as_str() {
            "oracle" => QueueDelay::Oracle,
            "end-to-end" => QueueDelay::EndToEnd,
            _ => QueueDelay::None,
        };
        let fixed_r = c.base_rtt_ms.map(|ms| ms * 1e6);
        Tarheel {
            r_ref: c.ref_rtt_ms * 1e6,
            w0_ref,
            sst_ref: c.ssthresh_ref_pkts.unwrap_or(f64::MAX),
            mode,
            fixed_r,
            r: fixed_r,
            q: 0.0,
            oracle_q: 0.0,
            s_applied: None,
        }
    }

    /// s = (r + q) / (r_ref + q), given r.
    pub fn s(&self, r: f64) -> f64 {
        (r + self.q) / (self.r_ref + self.q)
    }

    /// The scale the window currently has (1 before r is known).
    pub fn scale(&self) -> f64 {
        self.s_applied.unwrap_or(1.0)
    }

    /// The latest queuing delay used, ns.
    pub fn queue_delay_ns(&self) -> f64 {
        self.q
    }

    /// First scaling, once r is known: w0 = w0_ref s (eq. 7) if the window is
    /// still the initial one, else the window times s; SST = SST_ref s (eq. 11).
    fn first_scale(&mut self, w: &mut Window, initial: bool) {
        let Some(r) = self.r else { return };
        let s = self.s(r);
        w.cwnd = if initial { self.w0_ref * s } else { w.cwnd * s }.clamp(1.0, MAX_SCALED_WINDOW_PKTS);
        if self.sst_ref < f64::MAX && w.ssthresh == f64::MAX {
            w.ssthresh = (self.sst_ref * s).max(1.0);
        } else if w.ssthresh < f64::MAX {
            w.ssthresh = (w.ssthresh * s).max(1.0);
        }
        self.s_applied = Some(s);
    }
}

impl CongestionControl for Tarheel {
    fn on_established(&mut self, w: &mut Window, rtt_ns: Option<Time>) {
        if self.r.is_none() {
            self.r = rtt_ns.map(|x| x as f64);
        }
        if self.mode == QueueDelay::Oracle {
            self.q = self.oracle_q;
        }
        self.first_scale(w, true);
    }

    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        // r: the smallest RTT sample (or the given one); q: the newest reading.
        if self.fixed_r.is_none() {
            let m = s.min_rtt_ns as f64;
            self.r = Some(self.r.map_or(m, |r| r.min(m)));
        }
        self.q = match self.mode {
            QueueDelay::Oracle => self.oracle_q,
            QueueDelay::EndToEnd => s.rtt_ns.saturating_sub(s.min_rtt_ns) as f64,
            QueueDelay::None => 0.0,
        };
        let Some(r) = self.r else { return };
        let Some(prev) = self.s_applied else {
            // No handshake: scale now, from whatever the window grew to.
            self.first_scale(w, false);
            return;
        };
        // Persistent queuing (eqs. 15, 16): keep w / s constant as s moves.
        let sc = self.s(r);
        if sc != prev {
            let f = sc / prev;
            w.cwnd = (w.cwnd * f).clamp(1.0, MAX_SCALED_WINDOW_PKTS);
            if w.ssthresh < f64::MAX {
                w.ssthresh = (w.ssthresh * f).max(1.0);
            }
            self.s_applied = Some(sc);
        }
        if w.cwnd < w.ssthresh {
            // Eq. 9: x 2^s per round trip, 2^s - 1 per ACK, up to ssthresh.
            w.cwnd = (w.cwnd + sc.exp2() - 1.0).min(w.ssthresh.max(w.cwnd + 1.0));
        } else {
            // Eq. 12: + s^2 per round trip.
            w.cwnd += sc * sc / w.cwnd;
        }
        w.cwnd = w.cwnd.min(MAX_SCALED_WINDOW_PKTS);
    }

    /// Section III-C: halving keeps the scale (RFC 5681 eq. 4).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    /// Section III-C: a timeout goes back to the (scaled) initial window.
    fn on_rto(&mut self, w: &mut Window) {
        if let Some(s) = self.s_applied {
            w.cwnd = (self.w0_ref * s).clamp(1.0, MAX_SCALED_WINDOW_PKTS);
        }
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn wants_path_delay(&self) -> bool {
        self.mode == QueueDelay::Oracle
    }

    fn on_path_delay(&mut self, q_ns: f64) {
        self.oracle_q = q_ns.max(0.0);
    }
}

/// `tcp-tarheel`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-tarheel",
    description: "TCP Tarheel (Gavaletz & Kaur 2010): NewReno with the initial window, threshold, slow-start and congestion-avoidance growth scaled by s = (r + q)/(r_ref + q), q from a queuing-delay oracle",
    table: Some("tarheel"),
    params: documented::<TarheelParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: TarheelParams = t.parse()?;
    let cc = Tarheel::new(&c, p.init_cwnd_pkts);
    Ok(tcp::endpoints(p, move || Box::new(cc.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(ref_ms: f64, sst: Option<f64>, mode: &str) -> TarheelParams {
        TarheelParams {
            ref_rtt_ms: ref_ms,
            ssthresh_ref_pkts: sst,
            queue_delay: mode.into(),
            base_rtt_ms: None,
        }
    }

    fn sample(rtt_ms: f64, min_ms: f64) -> AckSample {
        let (r, m) = ((rtt_ms * 1e6) as Time, (min_ms * 1e6) as Time);
        AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: r,
            srtt_ns: r,
            min_rtt_ns: m,
            flight_pkts: 10,
        }
    }

    #[test]
    fn initial_window_and_threshold_are_equations_7_and_11() {
        // w0_ref = 10, SST_ref = 100, r_ref = 30 ms.
        for (r_ms, w0, sst) in [
            (30.0, 10.0, 100.0),
            (60.0, 20.0, 200.0),
            (15.0, 5.0, 50.0),
            (450.0, 150.0, 1500.0),
        ] {
            let mut cc = Tarheel::new(&params(30.0, Some(100.0), "none"), 10.0);
            let mut w = Window {
                cwnd: 10.0,
                ssthresh: f64::MAX,
            };
            cc.on_established(&mut w, Some((r_ms * 1e6) as Time));
            assert!((w.cwnd - w0).abs() < 1e-9, "w0 at r = {r_ms}: {}", w.cwnd);
            assert!((w.ssthresh - sst).abs() < 1e-9, "SST at r = {r_ms}: {}", w.ssthresh);
        }
    }

    #[test]
    fn slow_start_round_multiplies_by_two_to_the_s() {
        // r = 60 ms, r_ref = 30 ms: s = 2, each ACK adds 3; a round of w ACKs
        // takes w to 4 w (eq. 9).
        let mut cc = Tarheel::new(&params(30.0, None, "none"), 2.0);
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: f64::MAX,
        };
        cc.on_established(&mut w, Some(60_000_000));
        assert_eq!(w.cwnd, 4.0);
        for _ in 0..4 {
            cc.on_ack(&mut w, &sample(60.0, 60.0));
        }
        assert!((w.cwnd - 16.0).abs() < 1e-9);
        // Congestion avoidance: s^2 = 4 per window of ACKs, s^2 / cwnd each.
        w.ssthresh = 16.0;
        cc.on_ack(&mut w, &sample(60.0, 60.0));
        assert!((w.cwnd - 16.25).abs() < 1e-9);
    }

    #[test]
    fn queuing_delay_rescales_window_and_threshold() {
        // r = 90 ms, r_ref = 30 ms, q: 0 -> 30 ms: s goes from 3 to 120/60 = 2,
        // the window by 2/3 (the first factor of eq. 16).
        let mut cc = Tarheel::new(&params(30.0, Some(10.0), "oracle"), 1.0);
        assert!(cc.wants_path_delay());
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: f64::MAX,
        };
        cc.on_path_delay(0.0);
        cc.on_established(&mut w, Some(90_000_000));
        assert_eq!((w.cwnd, w.ssthresh), (3.0, 30.0));
        w.cwnd = 30.0; // in congestion avoidance
        cc.on_path_delay(30e6);
        cc.on_ack(&mut w, &sample(120.0, 90.0));
        assert!((w.ssthresh - 20.0).abs() < 1e-9);
        assert!((w.cwnd - (20.0 + 4.0 / 20.0)).abs() < 1e-9, "{}", w.cwnd);
        // The end-to-end estimate reads the same q from RTT - min RTT.
        let mut e = Tarheel::new(&params(30.0, Some(10.0), "end-to-end"), 1.0);
        assert!(!e.wants_path_delay());
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: f64::MAX,
        };
        e.on_established(&mut w, Some(90_000_000));
        w.cwnd = 30.0;
        e.on_ack(&mut w, &sample(120.0, 90.0));
        assert!((e.queue_delay_ns() - 30e6).abs() < 1.0);
        assert!((w.ssthresh - 20.0).abs() < 1e-9);
    }

    #[test]
    fn timeout_returns_to_the_scaled_initial_window() {
        let mut cc = Tarheel::new(&params(30.0, None, "none"), 2.0);
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: f64::MAX,
        };
        cc.on_established(&mut w, Some(150_000_000));
        w.cwnd = 1.0;
        cc.on_rto(&mut w);
        assert!((w.cwnd - 10.0).abs() < 1e-9);
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        let bad = [
            (
                TarheelParams {
                    ref_rtt_ms: 0.0,
                    ..Default::default()
                },
                "transport.tarheel.ref_rtt_ms",
            ),
            (
                TarheelParams {
                    ssthresh_ref_pkts: Some(0.5),
                    ..Default::default()
                },
                "transport.tarheel.ssthresh_ref_pkts",
            ),
            (
                TarheelParams {
                    queue_delay: "psychic".into(),
                    ..Default::default()
                },
                "transport.tarheel.queue_delay",
            ),
            (
                TarheelParams {
                    base_rtt_ms: Some(-1.0),
                    ..Default::default()
                },
                "transport.tarheel.base_rtt_ms",
            ),
        ];
        for (p, f) in bad {
            assert_eq!(p.validate("transport.tarheel").unwrap_err().field, f);
        }
    }
}

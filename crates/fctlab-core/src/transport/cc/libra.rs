//! TCP Libra (Marfia, Palazzi, Pau, Gerla, Sanadidi & Roccetti, "TCP Libra:
//! Exploring RTT-fairness for TCP", UCLA CSD TR-050037, 2005).
//!
//! Our reading (the report's full text was out of reach; the law as its
//! authors summarise it): slow start and loss recovery are NewReno's; in
//! congestion avoidance the window grows per round trip by
//!
//! ```text
//! alpha = k1 P T^2 / (T + T1),   P = exp(-k2 (T - T_min) / (T_max - T_min))
//! ```
//!
//! (cwnd += alpha / cwnd per ACK), T the smoothed RTT in seconds, T_min and
//! T_max the smallest and largest RTT samples (P = 1 while they are equal):
//! the T^2 makes the rate RTT-independent for T well below T1, T1 bounds
//! the growth of long-RTT flows, and the penalty P slows the increase as the
//! queue (T - T_min) grows. On a loss the window halves (RFC 5681 eq. 4).
//! k1 is in packets per second: the default makes alpha = 1 at T = 100 ms
//! with T1 = 1 s (Reno's increase at that RTT; chosen, the report scales k1
//! with the link); k2 = 2 and T1 = 1 s are our choices as well.

use super::{slow_start, AckSample, CongestionControl, Recovery, Window, MAX_SCALED_WINDOW_PKTS};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.libra]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LibraParams {
    /// k1, packets per second (110: alpha = 1 at T = 100 ms, T1 = 1 s).
    pub k1: f64,
    /// k2, the penalty's exponent.
    pub k2: f64,
    /// T1, ms.
    pub t1_ms: f64,
}

impl Default for LibraParams {
    fn default() -> Self {
        LibraParams {
            k1: 110.0,
            k2: 2.0,
            t1_ms: 1000.0,
        }
    }
}

impl Params for LibraParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("k1", "chosen: alpha = 1 packet per RTT at T = 100 ms with T1 = 1 s (Marfia et al. TR-050037 scale k1 with the link)"),
        ParamDoc::new("k2", "chosen: the penalty exp(-k2 (T - T_min)/(T_max - T_min)) of Marfia et al. TR-050037"),
        ParamDoc::new("t1_ms", "chosen: T1 of alpha = k1 P T^2/(T + T1), Marfia et al. TR-050037"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.k1.is_finite() && self.k1 > 0.0) {
            return Err(ConfigError::new(
                format!("{field}.k1"),
                format!("must be positive, got {}", self.k1),
            ));
        }
        crate::config::duration_ms(&format!("{field}.t1_ms"), self.t1_ms, true)?;
        if !(self.k2.is_finite() && self.k2 >= 0.0) {
            return Err(ConfigError::new(
                format!("{field}.k2"),
                format!("must be >= 0, got {}", self.k2),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Libra {
    k1: f64,
    k2: f64,
    /// T1, s.
    t1: f64,
    /// Largest RTT sample, ns.
    max_rtt: u64,
}

impl Libra {
    pub fn new(c: &LibraParams) -> Self {
        Libra {
            k1: c.k1,
            k2: c.k2,
            t1: c.t1_ms / 1e3,
            max_rtt: 0,
        }
    }

    /// alpha at smoothed RTT `t` s, with T_min and T_max in s.
    pub fn alpha(&self, t: f64, t_min: f64, t_max: f64) -> f64 {
        let p = if t_max > t_min {
            (-self.k2 * ((t - t_min) / (t_max - t_min)).clamp(0.0, 1.0)).exp()
        } else {
            1.0
        };
        self.k1 * p * t * t / (t + self.t1)
    }
}

impl CongestionControl for Libra {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        self.max_rtt = self.max_rtt.max(s.rtt_ns);
        if w.cwnd < w.ssthresh {
            slow_start(w, s.acked_pkts);
        } else {
            let a = self.alpha(
                s.srtt_ns as f64 / 1e9,
                s.min_rtt_ns as f64 / 1e9,
                self.max_rtt as f64 / 1e9,
            );
            w.cwnd = (w.cwnd + a / w.cwnd).min(MAX_SCALED_WINDOW_PKTS);
        }
    }

    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
}

/// `tcp-libra`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-libra",
    description: "TCP Libra (Marfia et al., UCLA TR-050037) as we read it: NewReno with the congestion-avoidance increase k1 P T^2/(T + T1) per round trip, P a queuing penalty",
    table: Some("libra"),
    params: documented::<LibraParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: LibraParams = t.parse()?;
    let cc = Libra::new(&c);
    Ok(tcp::endpoints(p, move || Box::new(cc.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_by_hand() {
        let l = Libra::new(&LibraParams::default());
        // 110 x 0.01 / 1.1 = 1; 110 x 0.25 / 1.5 = 18.33; no penalty while T_max = T_min.
        assert!((l.alpha(0.1, 0.1, 0.1) - 1.0).abs() < 1e-12);
        assert!((l.alpha(0.5, 0.5, 0.5) - 110.0 * 0.25 / 1.5).abs() < 1e-12);
        // Penalty: T halfway between T_min and T_max gives exp(-1).
        assert!((l.alpha(0.1, 0.05, 0.15) - (-1f64).exp()).abs() < 1e-12);
        let mut cc = Libra::new(&LibraParams::default());
        let s = AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: 100_000_000,
            srtt_ns: 100_000_000,
            min_rtt_ns: 100_000_000,
            flight_pkts: 10,
        };
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        cc.on_ack(&mut w, &s);
        assert!((w.cwnd - 10.1).abs() < 1e-12);
    }
}

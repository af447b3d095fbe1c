//! SRF TCP ("Square Root Fair" TCP; Fukuhara, Hirose, Hatano, Shigeno &
//! Okada, "SRF TCP: A TCP-friendly and fair congestion control method for
//! high-speed networks", OPODIS 2004, LNCS 3544, 2005), RTT-fair part only.
//!
//! Our reading (the paper's full text was out of reach; its abstract and
//! Gavaletz & Kaur 2010, section IV, describe it as correcting the RTT bias of
//! congestion avoidance only): slow start, loss recovery and the halving on a
//! loss are NewReno's; in congestion avoidance the window grows by
//! (T / T0)^2 packets per round trip, T the smoothed RTT and T0 a reference
//! RTT, i.e. cwnd += (T / T0)^2 / cwnd per ACK. With synchronised losses a
//! window halving every D seconds then reaches W = (T/T0)^2 D / (T / 2)
//! packets, a rate W / T = 2 D / T0^2 independent of T (the square of the RTT
//! undoes both the RTT-long probing and the RTT in W / T), and at T = T0 the
//! flow is TCP Reno, hence TCP-friendly. SRF's increase for large windows
//! (its high-speed part) is not modelled.

use super::{slow_start, AckSample, CongestionControl, Recovery, Window, MAX_SCALED_WINDOW_PKTS};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.srf]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SrfParams {
    /// T0: the RTT at which SRF grows as Reno (chosen: 100 ms).
    pub ref_rtt_ms: f64,
}

impl Default for SrfParams {
    fn default() -> Self {
        SrfParams { ref_rtt_ms: 100.0 }
    }
}

impl Params for SrfParams {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "ref_rtt_ms",
        "chosen: the RTT at which SRF grows as Reno (not given in the sources at hand)",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        crate::config::duration_ms(&format!("{field}.ref_rtt_ms"), self.ref_rtt_ms, true)?;
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Srf {
    /// T0, ns.
    t0: f64,
}

impl Srf {
    pub fn new(c: &SrfParams) -> Self {
        Srf { t0: c.ref_rtt_ms * 1e6 }
    }

    /// The increase per round trip at smoothed RTT `srtt_ns`.
    pub fn increase(&self, srtt_ns: f64) -> f64 {
        let x = srtt_ns / self.t0;
        x * x
    }
}

impl CongestionControl for Srf {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if w.cwnd < w.ssthresh {
            slow_start(w, s.acked_pkts);
        } else {
            w.cwnd = (w.cwnd + self.increase(s.srtt_ns as f64) / w.cwnd).min(MAX_SCALED_WINDOW_PKTS);
        }
    }

    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
}

/// `tcp-srf`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-srf",
    description: "SRF TCP (Fukuhara et al. 2005), RTT-fair part as we read it: NewReno with the congestion-avoidance increase (T/T0)^2 per round trip",
    table: Some("srf"),
    params: documented::<SrfParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: SrfParams = t.parse()?;
    let cc = Srf::new(&c);
    Ok(tcp::endpoints(p, move || Box::new(cc.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increase_is_rtt_squared_over_t0_squared() {
        let mut cc = Srf::new(&SrfParams { ref_rtt_ms: 100.0 });
        let s = |rtt_ms: f64| AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: (rtt_ms * 1e6) as u64,
            srtt_ns: (rtt_ms * 1e6) as u64,
            min_rtt_ns: 1,
            flight_pkts: 10,
        };
        // Reno at T0: +1/cwnd; at 2 T0: +4/cwnd; at T0/2: +1/4 per window.
        for (rtt, inc) in [(100.0, 1.0), (200.0, 4.0), (50.0, 0.25), (500.0, 25.0)] {
            let mut w = Window {
                cwnd: 10.0,
                ssthresh: 5.0,
            };
            cc.on_ack(&mut w, &s(rtt));
            assert!((w.cwnd - 10.0 - inc / 10.0).abs() < 1e-12, "T = {rtt}");
        }
        let mut w = Window {
            cwnd: 3.0,
            ssthresh: 5.0,
        };
        cc.on_ack(&mut w, &s(500.0));
        assert_eq!(w.cwnd, 4.0); // slow start is NewReno's
        assert_eq!(cc.ssthresh_after_loss(&w, 20), 10.0);
    }
}

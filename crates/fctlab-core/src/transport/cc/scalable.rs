//! Scalable TCP (Kelly, "Scalable TCP: Improving Performance in Highspeed Wide
//! Area Networks", ACM CCR 33(2), 2003): above a legacy window, a fixed
//! increase per ACK and a fixed fractional decrease per loss, so the time to
//! recover from a loss is a constant number of round trips whatever the window.
//!
//! ```text
//! congestion avoidance, cwnd > low_window:  cwnd += a          per ACK
//! loss,                 w    > low_window:  ssthresh = (1 - b) w   (at least 2)
//! at or below low_window:                   standard TCP (cwnd += 1/cwnd; w/2)
//! ```
//!
//! Defaults a = 0.01, b = 0.125 and legacy window 16 packets are Kelly's
//! (sec. 2: the scheme is used only above lwnd = 16, near where its response
//! function w = a/(b p) = 0.08/p crosses standard TCP's 1.2/sqrt(p)).
//! Linux `tcp_scalable.c` uses the same a and b (+1 per min(cwnd, 100) ACKs,
//! older kernels 50 "to account for delayed ack"; ssthresh = cwnd - cwnd/8)
//! but switches the increase at 100 packets, where a = 1/cwnd, and scales
//! every decrease by 7/8; set `low_window = 0` for Linux's decrease, and see
//! Kelly, "Scalable TCP", CCR 33(2), 2003.
//!
//! As for NewReno and HSTCP here, the decrease applies to FlightSize (RFC 5681
//! eq. 4), which equals cwnd when the sender is window-limited.

use super::{additive_increase, slow_start, AckSample, CongestionControl, Window};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.scalable]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableParams {
    /// Increase per ACK in packets: Kelly 2003, a = 0.01 (Linux: 1 per 100 ACKs).
    pub a: f64,
    /// Fractional decrease per loss: Kelly 2003, b = 0.125 (Linux: cwnd >> 3).
    pub b: f64,
    /// Legacy window: Kelly 2003, lwnd = 16 packets.
    pub low_window: f64,
}

impl Default for ScalableParams {
    fn default() -> Self {
        ScalableParams {
            a: 0.01,
            b: 0.125,
            low_window: 16.0,
        }
    }
}

fn bad<T>(key: &str, message: String) -> Result<T, ConfigError> {
    Err(ConfigError {
        field: format!("transport.scalable.{key}"),
        message,
    })
}

impl ScalableParams {
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return bad(
                "a",
                format!("must be an increase per ACK in (0, 1] packets, got {}", self.a),
            );
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return bad("b", format!("must be a fraction in (0, 1), got {}", self.b));
        }
        if !(self.low_window.is_finite() && self.low_window >= 0.0) {
            return bad(
                "low_window",
                format!("must be a number of packets >= 0, got {}", self.low_window),
            );
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    a: f64,
    b: f64,
    low_window: f64,
}

impl Scalable {
    pub fn new(p: &ScalableParams) -> Self {
        Scalable {
            a: p.a,
            b: p.b,
            low_window: p.low_window,
        }
    }
}

impl CongestionControl for Scalable {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if w.cwnd < w.ssthresh {
            slow_start(w, s.acked_pkts);
        } else if w.cwnd > self.low_window {
            w.cwnd += self.a;
        } else {
            additive_increase(w, 1.0);
        }
    }

    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        let f = flight_pkts as f64;
        let b = if f > self.low_window { self.b } else { 0.5 };
        ((1.0 - b) * f).max(2.0)
    }
}

impl Params for ScalableParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "a",
            "Kelly 2003 (increase per ACK); Linux tcp_scalable.c +1 per 100 ACKs",
        ),
        ParamDoc::new(
            "b",
            "Kelly 2003 (decrease per loss); Linux tcp_scalable.c cwnd - cwnd/8",
        ),
        ParamDoc::new(
            "low_window",
            "Kelly 2003 legacy window lwnd; standard TCP at or below it",
        ),
    ];
    fn validate(&self, _field: &str) -> Result<(), ConfigError> {
        self.check()
    }
}

/// `tcp-scalable`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-scalable",
    description: "Scalable TCP (Kelly 2003): above low_window +a per ACK, x(1-b) per loss; NewReno recovery",
    table: Some("scalable"),
    params: documented::<ScalableParams>,
    requires: None,
    factory,
};

/// Check `[transport.scalable]` and make the endpoints, one controller per flow.
fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: ScalableParams = t.parse()?;
    let cc = Scalable::new(&c);
    Ok(tcp::endpoints(p, move || Box::new(cc.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack() -> AckSample {
        AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: 1,
            srtt_ns: 1,
            min_rtt_ns: 1,
            flight_pkts: 1,
        }
    }

    #[test]
    fn increase_per_ack() {
        let mut s = Scalable::new(&ScalableParams::default());
        // Above the legacy window: +0.01 per ACK, so 100 ACKs add one packet
        // (0.01 is not exact in binary: compare within rounding).
        let mut w = Window {
            cwnd: 200.0,
            ssthresh: 100.0,
        };
        for _ in 0..100 {
            s.on_ack(&mut w, &ack());
        }
        assert!((w.cwnd - 201.0).abs() < 1e-9);
        // One round trip at w = 200 is 200 ACKs: w grows by 2 = 1% (Kelly's
        // constant-rate growth: w_{k+1} = (1 + a) w_k per RTT to first order).
        for _ in 0..100 {
            s.on_ack(&mut w, &ack());
        }
        assert!((w.cwnd - 202.0).abs() < 1e-9);
        // At or below 16 packets: standard +1/cwnd.
        let mut w = Window {
            cwnd: 16.0,
            ssthresh: 2.0,
        };
        s.on_ack(&mut w, &ack());
        assert_eq!(w.cwnd, 16.0625);
        // Just above: +0.01, less than 1/cwnd (Kelly's a < 1/w below w = 100).
        s.on_ack(&mut w, &ack());
        assert!((w.cwnd - 16.0725).abs() < 1e-12);
        // Slow start below ssthresh.
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: 60.0,
        };
        s.on_ack(&mut w, &ack());
        assert_eq!(w.cwnd, 51.0);
    }

    #[test]
    fn decrease_on_loss() {
        let mut s = Scalable::new(&ScalableParams::default());
        let w = Window {
            cwnd: 1.0,
            ssthresh: 1.0,
        };
        // 800 in flight -> 800 (7/8) = 700; 17 -> 14.875; 16 (legacy) -> 8.
        assert_eq!(s.ssthresh_after_loss(&w, 800), 700.0);
        assert_eq!(s.ssthresh_after_loss(&w, 17), 14.875);
        assert_eq!(s.ssthresh_after_loss(&w, 16), 8.0);
        assert_eq!(s.ssthresh_after_loss(&w, 3), 2.0);
        // low_window = 0: Linux's decrease, 7/8 at every window (floor 2).
        let mut s = Scalable::new(&ScalableParams {
            low_window: 0.0,
            ..Default::default()
        });
        assert_eq!(s.ssthresh_after_loss(&w, 8), 7.0);
        assert_eq!(s.ssthresh_after_loss(&w, 2), 2.0);
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        let cases = [
            (
                ScalableParams {
                    a: 0.0,
                    ..Default::default()
                },
                "transport.scalable.a",
            ),
            (
                ScalableParams {
                    a: f64::NAN,
                    ..Default::default()
                },
                "transport.scalable.a",
            ),
            (
                ScalableParams {
                    b: 1.0,
                    ..Default::default()
                },
                "transport.scalable.b",
            ),
            (
                ScalableParams {
                    b: -0.1,
                    ..Default::default()
                },
                "transport.scalable.b",
            ),
            (
                ScalableParams {
                    low_window: -1.0,
                    ..Default::default()
                },
                "transport.scalable.low_window",
            ),
        ];
        for (p, field) in cases {
            assert_eq!(p.check().unwrap_err().field, field);
        }
        assert!(ScalableParams::default().check().is_ok());
    }
}

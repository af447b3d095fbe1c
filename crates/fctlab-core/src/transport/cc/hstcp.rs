//! HighSpeed TCP (Floyd, RFC 3649, 2003): standard AIMD up to `low_window`
//! packets; above it a larger increase a(w) and a smaller decrease b(w), so one
//! flow can hold a large window at a low loss rate. The 2006 FCT paper
//! (Dukkipati and McKeown, Fig. 8-11) runs it with Low_Window 38, High_Window
//! 83000 and High_P 1e-7, the RFC's values, in ns-2.
//!
//! For Low_Window < w <= High_Window (RFC 3649 section 5):
//!
//! ```text
//! b(w) = (High_Decrease - 0.5) (ln w - ln Low_Window) / (ln High_Window - ln Low_Window) + 0.5
//! p(w) = exp(ln Low_P + (ln w - ln Low_Window) (ln High_P - ln Low_P) / (ln High_Window - ln Low_Window))
//! a(w) = w^2 p(w) 2 b(w) / (2 - b(w))
//! ```
//!
//! and per ACK in congestion avoidance `cwnd += a(w) / cwnd`; on a loss
//! `cwnd = (1 - b(w)) cwnd`. For w <= Low_Window a = 1 and b = 1/2 (standard
//! TCP). Above High_Window we hold a and b at their High_Window values (the RFC
//! gives no upper end; extrapolating b(w) would reach 0 near w = 567 000 with
//! the default constants, and Linux's `tcp_highspeed.c` likewise stops at its
//! table's last row, w = 89053).
//!
//! Low_P: ns-2 (`tcp.cc`, `windowOption_ 8`) sets Low_P = 1.5 / Low_Window^2,
//! the loss rate at which standard AIMD's deterministic response function
//! w = sqrt(1.5 / p) gives Low_Window; then a(Low_Window) = 1 exactly and the
//! increase is continuous at Low_Window. The RFC rounds this to 1e-3
//! (its w = 0.12 / p^0.835), which gives a(38) = 0.963. fctlab's default is
//! ns-2's, the simulator the 2006 paper used; `low_p` sets the RFC's.
//!
//! Cost per ACK: the logarithms of the constants are folded into four numbers
//! at construction (as ns-2's `hstcp_.dec1/dec2/p1/p2`), so a(w) above
//! Low_Window is one `ln` and one `exp`: b = dec1 + dec2 ln w and
//! w^2 p(w) = exp(p1 + (2 + p2) ln w).
//!
//! The decrease applies to FlightSize, as RFC 5681 (eq. 4) does for standard
//! TCP and fctlab's NewReno does: RFC 3649 writes cwnd, which equals FlightSize
//! when the sender is window-limited; with FlightSize the scheme coincides with
//! NewReno below Low_Window and an RTO during recovery does not see the
//! inflated window.

use super::{additive_increase, slow_start, AckSample, CongestionControl, Window};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.hstcp]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HstcpParams {
    /// RFC 3649 section 5, Low_Window = 38 packets (ns-2 `low_window_` 38).
    pub low_window: f64,
    /// RFC 3649 section 5, High_Window = 83000 packets (ns-2 `high_window_`).
    pub high_window: f64,
    /// RFC 3649 section 5, High_P = 1e-7 (ns-2 `high_p_`).
    pub high_p: f64,
    /// RFC 3649 section 5, High_Decrease = 0.1 (ns-2 `high_decrease_`).
    pub high_decrease: f64,
    /// Loss rate at Low_Window. Default (None): ns-2's 1.5 / low_window^2
    /// (1.0388e-3 at 38); RFC 3649 section 5 uses 1e-3.
    pub low_p: Option<f64>,
}

impl Default for HstcpParams {
    fn default() -> Self {
        HstcpParams {
            low_window: 38.0,
            high_window: 83000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
            low_p: None,
        }
    }
}

fn bad<T>(key: &str, message: String) -> Result<T, ConfigError> {
    Err(ConfigError {
        field: format!("transport.hstcp.{key}"),
        message,
    })
}

impl HstcpParams {
    /// Low_P, with ns-2's default.
    pub fn low_p(&self) -> f64 {
        self.low_p.unwrap_or(1.5 / (self.low_window * self.low_window))
    }

    /// Refuse values outside the ranges the response function is defined on.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !(self.low_window.is_finite() && self.low_window >= 1.0) {
            return bad(
                "low_window",
                format!("must be a number of packets >= 1, got {}", self.low_window),
            );
        }
        if !(self.high_window.is_finite() && self.high_window > self.low_window) {
            return bad(
                "high_window",
                format!(
                    "must be above low_window ({}), got {}",
                    self.low_window, self.high_window
                ),
            );
        }
        if let Some(lp) = self.low_p {
            if !(lp > 0.0 && lp < 1.0) {
                return bad("low_p", format!("must be a probability in (0, 1), got {lp}"));
            }
        }
        let lp = self.low_p();
        if !(self.high_p > 0.0 && self.high_p < lp) {
            return bad(
                "high_p",
                format!("must be in (0, low_p) = (0, {lp:.6e}), got {}", self.high_p),
            );
        }
        if !(self.high_decrease > 0.0 && self.high_decrease <= 0.5) {
            return bad(
                "high_decrease",
                format!(
                    "must be in (0, 0.5] (b falls from 0.5 at low_window to it), got {}",
                    self.high_decrease
                ),
            );
        }
        Ok(())
    }
}

/// HighSpeed TCP with its response-function constants precomputed.
#[derive(Clone, Debug)]
pub struct Hstcp {
    low_window: f64,
    high_window: f64,
    /// b(w) = dec1 + dec2 ln w.
    dec1: f64,
    dec2: f64,
    /// ln p(w) = p1 + p2 ln w.
    p1: f64,
    p2: f64,
    /// a and b at High_Window, held above it.
    a_high: f64,
    b_high: f64,
}

impl Hstcp {
    /// Build from checked parameters.
    pub fn new(p: &HstcpParams) -> Self {
        let (lw, hw) = (p.low_window.ln(), p.high_window.ln());
        let lp = p.low_p().ln();
        let span = hw - lw;
        let dec2 = (p.high_decrease - 0.5) / span;
        let p2 = (p.high_p.ln() - lp) / span;
        let mut h = Hstcp {
            low_window: p.low_window,
            high_window: p.high_window,
            dec1: 0.5 - lw * dec2,
            dec2,
            p1: lp - lw * p2,
            p2,
            a_high: 0.0,
            b_high: p.high_decrease,
        };
        h.a_high = h.a_between(p.high_window.ln());
        h
    }

    /// a(w) for Low_Window < w <= High_Window, given ln w.
    #[inline]
    fn a_between(&self, ln_w: f64) -> f64 {
        let b = self.dec1 + self.dec2 * ln_w;
        (self.p1 + (2.0 + self.p2) * ln_w).exp() * 2.0 * b / (2.0 - b)
    }

    /// The decrease factor b(w) (RFC 3649 section 5).
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            0.5
        } else if w >= self.high_window {
            self.b_high
        } else {
            self.dec1 + self.dec2 * w.ln()
        }
    }

    /// The loss rate p(w) of the HighSpeed response function (log-log linear).
    pub fn p(&self, w: f64) -> f64 {
        let w = w.clamp(self.low_window, self.high_window);
        (self.p1 + self.p2 * w.ln()).exp()
    }

    /// The increase a(w), packets per round trip (RFC 3649 section 5).
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            1.0
        } else if w >= self.high_window {
            self.a_high
        } else {
            self.a_between(w.ln())
        }
    }
}

impl CongestionControl for Hstcp {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if w.cwnd < w.ssthresh {
            slow_start(w, s.acked_pkts);
        } else {
            // RFC 3649 section 4: cwnd += a(cwnd) / cwnd per ACK.
            let a = self.a(w.cwnd);
            additive_increase(w, a);
        }
    }

    /// RFC 3649 section 4: w (1 - b(w)), on FlightSize (see the module notes),
    /// at least 2 packets (RFC 5681 eq. 4; Linux `hstcp_ssthresh`).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        let f = flight_pkts as f64;
        ((1.0 - self.b(f)) * f).max(2.0)
    }
}

impl Params for HstcpParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "low_window",
            "RFC 3649 sec. 5 Low_Window; ns-2 low_window_; the 2006 FCT paper, Fig. 8",
        ),
        ParamDoc::new(
            "high_window",
            "RFC 3649 sec. 5 High_Window; ns-2 high_window_; the 2006 FCT paper, Fig. 8",
        ),
        ParamDoc::new(
            "high_p",
            "RFC 3649 sec. 5 High_P; ns-2 high_p_; the 2006 FCT paper, Fig. 8",
        ),
        ParamDoc::new("high_decrease", "RFC 3649 sec. 5 High_Decrease; ns-2 high_decrease_"),
        ParamDoc::derived(
            "low_p",
            "1.5 / low_window^2 (1.0388e-3 at 38)",
            "ns-2 tcp.cc (a(Low_Window) = 1 exactly); RFC 3649 sec. 5 rounds it to 1e-3",
        ),
    ];
    fn validate(&self, _field: &str) -> Result<(), ConfigError> {
        self.check()
    }
}

/// `tcp-hstcp`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-hstcp",
    description: "HighSpeed TCP (RFC 3649): standard AIMD up to low_window, then increase a(w) and decrease b(w); NewReno recovery",
    table: Some("hstcp"),
    params: documented::<HstcpParams>,
    requires: None,
    factory,
};

/// Check `[transport.hstcp]` and make the endpoints, one controller per flow.
fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: HstcpParams = t.parse()?;
    let cc = Hstcp::new(&c);
    Ok(tcp::endpoints(p, move || Box::new(cc.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Hstcp {
        Hstcp::new(&HstcpParams::default())
    }

    /// RFC 3649 section 5 written out directly (no folded constants).
    fn rfc(w: f64, low_p: f64) -> (f64, f64) {
        let (lw, hw, hp, hd) = (38f64, 83000f64, 1e-7f64, 0.1f64);
        let x = (w.ln() - lw.ln()) / (hw.ln() - lw.ln());
        let b = (hd - 0.5) * x + 0.5;
        let p = (low_p.ln() + x * (hp.ln() - low_p.ln())).exp();
        (w * w * p * 2.0 * b / (2.0 - b), b)
    }

    #[test]
    fn standard_tcp_at_and_below_low_window() {
        let h = defaults();
        for w in [1.0, 10.0, 37.5, 38.0] {
            assert_eq!((h.a(w), h.b(w)), (1.0, 0.5));
        }
        // Just above: ns-2's Low_P = 1.5/38^2 makes a continuous, since
        // a(38) = 38^2 (1.5/38^2) (2 0.5)/(2 - 0.5) = 1.5 (2/3) = 1.
        assert!((h.a(38.0001) - 1.0).abs() < 1e-4);
        assert!((h.b(38.0001) - 0.5).abs() < 1e-5);
        assert!((h.p(38.0) - 1.5 / (38.0 * 38.0)).abs() < 1e-15);
        assert!((h.p(83000.0) - 1e-7).abs() < 1e-19);
    }

    #[test]
    fn matches_the_rfc_formulas() {
        let h = defaults();
        let lp = 1.5 / (38.0 * 38.0);
        for w in [39.0, 100.0, 118.0, 1000.0, 5036.0, 20000.0, 82999.0] {
            let (a, b) = rfc(w, lp);
            assert!((h.a(w) / a - 1.0).abs() < 1e-12, "a({w})");
            assert!((h.b(w) - b).abs() < 1e-12, "b({w})");
        }
        // By hand at w = 1000: ln(1000/38) = 3.27017, ln(83000/38) = 7.68902,
        // b = 0.5 - 0.4 (3.27017/7.68902) = 0.5 - 0.17012 = 0.32988.
        assert!((h.b(1000.0) - 0.32988).abs() < 1e-5);
        // b reaches High_Decrease at High_Window and is held above it.
        assert!((h.b(83000.0) - 0.1).abs() < 1e-12);
        assert_eq!(h.b(1e6), 0.1);
        // a(High_Window) = 83000^2 1e-7 (0.2 / 1.9) = 688.9 / 9.5 = 72.516.
        assert!((h.a(83000.0) - 688.9 / 9.5).abs() < 1e-9);
        assert_eq!(h.a(1e6), h.a(83000.0));
    }

    #[test]
    fn rfc_low_p_gives_its_response_function() {
        // With the RFC's Low_P = 1e-3 the response function is w = 0.12 / p^0.835
        // (RFC 3649 section 5, both constants rounded): p(w) within 3%.
        let p = HstcpParams {
            low_p: Some(1e-3),
            ..Default::default()
        };
        p.check().unwrap();
        let h = Hstcp::new(&p);
        for w in [100.0f64, 1000.0, 10000.0] {
            let p_rfc = (0.12 / w).powf(1.0 / 0.835);
            assert!((h.p(w) / p_rfc - 1.0).abs() < 0.03, "p({w}) = {} vs {p_rfc}", h.p(w));
        }
        // a(38) = 38^2 1e-3 (2/3) = 0.96267 on the low side.
        assert!((h.a(38.0 + 1e-9) - 1.444 * 2.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn table_rows_of_rfc_3649_appendix_b() {
        // (w, a, b) rows of RFC 3649 Appendix B as Linux tcp_highspeed.c
        // tabulates them (its b: md/256). The table's a are the integers the
        // formula passes near; with either Low_P the formula is within 5% of
        // them and b within 0.01 of the rounded b.
        let rows = [
            (38.0, 1.0, 0.50),
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (1058.0, 8.0, 0.33),
            (5036.0, 20.0, 0.25),
            (10661.0, 30.0, 0.21),
            (29557.0, 49.0, 0.15),
        ];
        for low_p in [None, Some(1e-3)] {
            let h = Hstcp::new(&HstcpParams {
                low_p,
                ..Default::default()
            });
            for (w, a, b) in rows {
                assert!(
                    (h.a(w) / a - 1.0).abs() < 0.05,
                    "a({w}) = {} vs {a} (low_p {low_p:?})",
                    h.a(w)
                );
                assert!((h.b(w) - b).abs() < 0.01, "b({w}) = {} vs {b}", h.b(w));
            }
        }
    }

    #[test]
    fn increase_per_ack_and_decrease_on_loss() {
        let mut h = defaults();
        let s = AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: 1,
            srtt_ns: 1,
            min_rtt_ns: 1,
            flight_pkts: 1000,
        };
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 500.0,
        };
        h.on_ack(&mut w, &s);
        assert_eq!(w.cwnd, 1000.0 + h.a(1000.0) / 1000.0);
        // Below Low_Window: NewReno's +1/cwnd.
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        h.on_ack(&mut w, &s);
        assert_eq!(w.cwnd, 20.05);
        // Slow start below ssthresh, whatever the window.
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 200.0,
        };
        h.on_ack(&mut w, &s);
        assert_eq!(w.cwnd, 101.0);
        // Decrease: 1000 in flight -> (1 - 0.32988) 1000 = 670.12; at or below
        // Low_Window halve as NewReno (30 -> 15); never below 2.
        let w = Window {
            cwnd: 1000.0,
            ssthresh: 1.0,
        };
        assert!((h.ssthresh_after_loss(&w, 1000) - 670.12).abs() < 0.01);
        assert_eq!(h.ssthresh_after_loss(&w, 30), 15.0);
        assert_eq!(h.ssthresh_after_loss(&w, 38), 19.0);
        assert_eq!(h.ssthresh_after_loss(&w, 3), 2.0);
        // Above High_Window: b = 0.1.
        assert_eq!(h.ssthresh_after_loss(&w, 100_000), 90_000.0);
    }

    #[test]
    fn growth_per_round_trip_is_a_of_w() {
        // One round trip at w = 1000 is 1000 ACKs, adding sum a(w_i)/w_i. To
        // first order that is a(w) (1 - e a(w) / (2 w)), where e is the
        // elasticity of a(w)/w: d ln(a/w)/d ln w = (1 + p2) + dec2 (1/b + 1/(2 - b)),
        // with p2 = (ln 1e-7 - ln(1.5/38^2)) / ln(83000/38) = -1.20281,
        // dec2 = -0.4 / 7.68901 = -0.052022 and b(1000) = 0.32988:
        // e = -0.20281 - 0.052022 (3.03141 + 0.59873) = -0.39166.
        // With a(1000) = 8.0337 the round adds 8.0337 (1 - 0.39166 x 4.0168 / 1000)
        // = 8.0211; second-order terms are ~(a/w)^2 = 6e-5 relative.
        let mut h = defaults();
        let s = AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: 1,
            srtt_ns: 1,
            min_rtt_ns: 1,
            flight_pkts: 1000,
        };
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 1.0,
        };
        for _ in 0..1000 {
            h.on_ack(&mut w, &s);
        }
        let a = h.a(1000.0);
        assert!((a - 8.0337).abs() < 1e-4, "a(1000) = {a}");
        let expect = a * (1.0 - 0.39166 * (a / 2.0) / 1000.0);
        assert!(
            ((w.cwnd - 1000.0) / expect - 1.0).abs() < 1e-4,
            "{} vs {expect}",
            w.cwnd - 1000.0
        );
    }

    #[test]
    fn bad_values_are_refused_naming_the_key() {
        let cases: [(HstcpParams, &str); 7] = [
            (
                HstcpParams {
                    low_window: 0.5,
                    ..Default::default()
                },
                "transport.hstcp.low_window",
            ),
            (
                HstcpParams {
                    high_window: 30.0,
                    ..Default::default()
                },
                "transport.hstcp.high_window",
            ),
            (
                HstcpParams {
                    high_p: 0.0,
                    ..Default::default()
                },
                "transport.hstcp.high_p",
            ),
            (
                HstcpParams {
                    high_p: 0.01,
                    ..Default::default()
                },
                "transport.hstcp.high_p",
            ),
            (
                HstcpParams {
                    high_decrease: 0.6,
                    ..Default::default()
                },
                "transport.hstcp.high_decrease",
            ),
            (
                HstcpParams {
                    high_decrease: 0.0,
                    ..Default::default()
                },
                "transport.hstcp.high_decrease",
            ),
            (
                HstcpParams {
                    low_p: Some(1.0),
                    ..Default::default()
                },
                "transport.hstcp.low_p",
            ),
        ];
        for (p, field) in cases {
            assert_eq!(p.check().unwrap_err().field, field);
        }
        assert!(HstcpParams::default().check().is_ok());
    }
}

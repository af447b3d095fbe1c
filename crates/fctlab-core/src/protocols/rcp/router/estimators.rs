//! The router's estimators: the rate equation, the average RTT d0, and the
//! arrival rate measured as a fluid (mode `ps`).

use super::RcpCfg;
use crate::sim::Time;

/// One rate update (eq. 2 of the paper, ns-2's form with γ): the new rate from
/// rate `r`, slot `t_s`, average RTT `d0_s`, input rate `y_bps`, queue `q_bytes`,
/// clipped to [min_rate, γC].
pub fn rate_update(c: &RcpCfg, link_bps: f64, r: f64, t_s: f64, d0_s: f64, y_bps: f64, q_bytes: f64) -> f64 {
    let gc = c.gamma * link_bps;
    let r = r * (1.0 + (t_s / d0_s) * (c.alpha * (gc - y_bps) - c.beta * q_bytes * 8.0 / d0_s) / gc);
    r.max(c.min_rate_bps).min(gc)
}

/// One d0 update from the slot's size-weighted RTT sample `s` (ns-2 `rcp.cc`):
/// the gain is T/d0 when the sample is at least d0, else (R/C)(s/d0)(T/d0).
pub fn d0_update(d0: f64, s: f64, t_s: f64, r: f64, link_bps: f64) -> f64 {
    let g = if s >= d0 {
        t_s / d0
    } else {
        (r / link_bps) * (s / d0) * (t_s / d0)
    };
    (1.0 - g) * d0 + g * s
}

/// A symmetric moving average step for mode `ps`: gain min(T/d0, 1) in both
/// directions (the 2006 paper: d0 is "the moving average of the RTT").
pub fn d0_update_sym(d0: f64, s: f64, t_s: f64) -> f64 {
    let g = (t_s / d0).min(1.0);
    (1.0 - g) * d0 + g * s
}

/// Arrivals measured as a fluid (mode `ps`): each packet's bytes are spread
/// evenly over its serialisation time at the link rate from its arrival, so
/// a slot shorter than a packet does not see 0 or many packets' worth.
#[derive(Default)]
pub(super) struct Fluid {
    /// End times of the packets still being spread.
    pub(super) ends: std::collections::BinaryHeap<std::cmp::Reverse<Time>>,
    /// Accumulated up to this time.
    at: Time,
    /// Bytes accumulated in the current slot.
    pub(super) bytes: f64,
}

impl Fluid {
    /// Accumulate up to `to` (bytes/ns = link_bps / 8e9 per packet being spread).
    pub(super) fn advance(&mut self, to: Time, bytes_per_ns: f64) {
        while let Some(&std::cmp::Reverse(e)) = self.ends.peek() {
            if e > to {
                break;
            }
            self.bytes += self.ends.len() as f64 * e.saturating_sub(self.at) as f64 * bytes_per_ns;
            self.at = self.at.max(e);
            self.ends.pop();
        }
        self.bytes += self.ends.len() as f64 * to.saturating_sub(self.at) as f64 * bytes_per_ns;
        self.at = self.at.max(to);
    }
}

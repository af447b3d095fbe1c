//! DUAL (Wang & Crowcroft, "Eliminating periodic packet losses in the 4.3-Tahoe
//! BSD TCP congestion control algorithm", ACM CCR 22(2), 1992): TCP Tahoe
//! (slow start, congestion avoidance, window 1 and go back N on a loss) plus
//! a delay check every two round trips: if the RTT exceeds
//! `(RTT_min + RTT_max) / 2`, the window is cut to 7/8 of itself. The two
//! extremes are the smallest and largest RTT the connection has measured, so
//! the midpoint estimates a half-full bottleneck queue; cutting there keeps
//! the queue from filling to the loss that Tahoe's probing otherwise causes
//! once per cycle.
//!
//! Readings (the paper's pseudo-code was not at hand): the RTT compared is
//! the sample of the ACK that ends the two-round-trip period; periods are
//! counted in sequence numbers as DECbit's ([`super::decbit::TwoWindows`]):
//! the window in flight after a check, then the next window. The check
//! runs in congestion avoidance only (cwnd >= ssthresh): before the first
//! loss RTT_max is still close to RTT_min and the midpoint says nothing of
//! the queue (checking in the first slow start cut the window to a few
//! packets within the first round trips); the loss that ends Tahoe's first
//! slow start fills the queue, so RTT_max then measures a full buffer, and
//! the later losses are the periodic ones the paper eliminates. The check
//! needs two different RTTs.

use super::decbit::TwoWindows;
use super::{AckSample, AckSeq, CongestionControl, Recovery, Tahoe, Window};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::Time;
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};

/// `[transport.dual]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DualParams {
    /// The window is multiplied by this when the RTT is above the midpoint.
    pub decrease_factor: f64,
}

impl Default for DualParams {
    fn default() -> Self {
        DualParams { decrease_factor: 0.875 }
    }
}

impl Params for DualParams {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "decrease_factor",
        "Wang & Crowcroft 1992: W x 7/8 when RTT > (RTT_min + RTT_max)/2",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.decrease_factor > 0.0 && self.decrease_factor < 1.0) {
            return err(
                format!("{field}.decrease_factor"),
                format!("must be in (0, 1), got {}", self.decrease_factor),
            );
        }
        Ok(())
    }
}

/// `dual`.
pub const ENTRY: SchemeEntry = Entry {
    name: "dual",
    description: "DUAL (Wang & Crowcroft 1992): TCP Tahoe plus, every two round trips, W x 7/8 if the RTT exceeds (RTT_min + RTT_max)/2",
    table: Some("dual"),
    params: documented::<DualParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: DualParams = t.parse()?;
    Ok(tcp::endpoints(p, move || Box::new(Dual::new(c.decrease_factor))))
}

/// The DUAL window policy.
pub struct Dual {
    factor: f64,
    clock: TwoWindows,
    min_rtt: Time,
    max_rtt: Time,
    /// Window cuts made by the delay check.
    pub cuts: u64,
}

impl Dual {
    pub fn new(factor: f64) -> Self {
        Dual {
            factor,
            clock: TwoWindows::new(),
            min_rtt: Time::MAX,
            max_rtt: 0,
            cuts: 0,
        }
    }
}

impl CongestionControl for Dual {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        Tahoe.on_ack(w, s);
    }

    fn ssthresh_after_loss(&mut self, w: &Window, flight_pkts: u64) -> f64 {
        self.clock.restart();
        Tahoe.ssthresh_after_loss(w, flight_pkts)
    }

    fn on_rto(&mut self, _w: &mut Window) {
        self.clock.restart();
    }

    fn recovery(&self) -> Recovery {
        Recovery::Tahoe
    }

    fn wants_ack_seq(&self) -> bool {
        true
    }

    fn on_ack_seq(&mut self, w: &mut Window, s: &AckSeq) {
        self.min_rtt = self.min_rtt.min(s.rtt_ns);
        self.max_rtt = self.max_rtt.max(s.rtt_ns);
        if !self.clock.on_ack(s, w.cwnd) {
            return;
        }
        // 2 RTT > RTT_min + RTT_max, in integers.
        if w.cwnd >= w.ssthresh
            && self.max_rtt > self.min_rtt
            && 2 * s.rtt_ns as u128 > self.min_rtt as u128 + self.max_rtt as u128
        {
            w.cwnd = (w.cwnd * self.factor).max(1.0);
            w.ssthresh = w.cwnd;
            self.cuts += 1;
        }
        self.clock.begin(s.ack, w.cwnd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(a: u64, rtt: Time) -> AckSeq {
        AckSeq {
            now: 0,
            ack: a,
            acked_pkts: 1,
            snd_nxt: 0,
            congestion_bit: false,
            rtt_ns: rtt,
            in_recovery: false,
            rtt_sampled: true,
        }
    }

    #[test]
    fn cuts_by_an_eighth_above_the_midpoint_every_other_window() {
        let mut cc = Dual::new(0.875);
        // Window held at 8 (as if in congestion avoidance with no growth).
        let mut w = Window {
            cwnd: 8.0,
            ssthresh: 8.0,
        };
        // Cycle from packet 0: window in flight 0..7, examined 8..15; the
        // check is on ACK 16. RTTs 10 then 30 make the midpoint 20.
        cc.on_ack_seq(&mut w, &ack(1, 10));
        for a in 2..16 {
            cc.on_ack_seq(&mut w, &ack(a, 30));
            assert_eq!(w.cwnd, 8.0, "no check before ACK 16");
        }
        // ACK 16 with RTT 21 > 20: cut to 7.
        cc.on_ack_seq(&mut w, &ack(16, 21));
        assert_eq!((w.cwnd, cc.cuts), (7.0, 1));
        // Next check: wait 17..23, examined 23..29 -> on ACK 30. RTT 20 is not above 20.
        for a in 17..30 {
            cc.on_ack_seq(&mut w, &ack(a, 15));
        }
        cc.on_ack_seq(&mut w, &ack(30, 20));
        assert_eq!((w.cwnd, cc.cuts), (7.0, 1));
    }

    #[test]
    fn no_check_in_slow_start() {
        let mut cc = Dual::new(0.875);
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: f64::MAX,
        };
        // Window 2 from packet 0: check on ACK 4; min 10, max 40, last 40,
        // but cwnd < ssthresh: no cut. The same in congestion avoidance cuts.
        for (a, r) in [(1, 10), (2, 40), (3, 40), (4, 40)] {
            cc.on_ack_seq(&mut w, &ack(a, r));
        }
        assert_eq!((w.cwnd, cc.cuts), (2.0, 0));
        let mut cc = Dual::new(0.875);
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: 2.0,
        };
        for (a, r) in [(1, 10), (2, 40), (3, 40), (4, 40)] {
            cc.on_ack_seq(&mut w, &ack(a, r));
        }
        assert_eq!((w.cwnd, w.ssthresh, cc.cuts), (1.75, 1.75, 1));
    }
}

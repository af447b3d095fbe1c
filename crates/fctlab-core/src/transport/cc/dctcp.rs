//! DCTCP (RFC 8257; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM
//! 2010), cross-checked against Linux `net/ipv4/tcp_dctcp.c`.
//!
//! - **Estimate.** The sender counts the packets acknowledged and those
//!   acknowledged by ACKs carrying ECE; once per window of data (on the ACK
//!   that reaches `window_end`, the SND.NXT of the last update, as Linux's
//!   `!before(snd_una, next_seq)`) it sets `alpha = (1 - g) alpha + g M`, M
//!   the fraction marked, and starts counting again (RFC 8257 3.3 steps 1-8).
//!   ACKs in loss recovery count too; duplicate ACKs do not (they acknowledge
//!   nothing; Linux counts one MSS for them).
//! - **Cut.** On an ACK carrying ECE, at most once per window of data (the
//!   sender's RFC 3168 machinery, see [`crate::transport::tcp`]):
//!   ssthresh = cwnd = max(cwnd (1 - alpha/2), 2) (RFC 8257 3.3; Linux
//!   `dctcp_ssthresh`). The cut uses alpha as it stood before the ACK that
//!   triggers it is counted.
//! - **Loss.** As standard TCP: ssthresh = max(FlightSize / 2, 2) (RFC 8257
//!   3.5; Linux `dctcp_react_to_loss`), NewReno recovery.
//! - **Growth.** RFC 5681 slow start and congestion avoidance (Linux runs
//!   DCTCP over Reno).
//! - **Receiver.** Every ACK echoes the CE bit of the last data packet; with
//!   delayed ACKs a change of that bit first sends the ACK held for the
//!   packets before it, with the old bit (RFC 8257 3.2).
//!
//! DCTCP is ECN-based: its data packets and its SYN are always ECN-capable
//! (ECT), whatever `transport.ecn` says (Linux `tcp_ecn_send_syn` with
//! `tcp_ca_needs_ecn`; ns-3 `DctcpEcn`); its pure ACKs are not (ns-3's are
//! not; Linux's are). It needs a queue that marks CE, such as
//! `ecn-threshold` (DCTCP's own) or `red-ecn`; on any other the run is
//! warned of, and DCTCP behaves as NewReno.

use super::{AckSample, AckSeq, CongestionControl, NewReno, Window};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::{EndpointBuilder, Receiver, SchemeEntry, Sender, TransportParams};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// `[transport.dctcp]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// The estimation gain g.
    pub g: f64,
    /// alpha at the start of a flow.
    pub init_alpha: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            g: 1.0 / 16.0,
            init_alpha: 1.0,
        }
    }
}

impl Params for DctcpParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new(
            "g",
            "RFC 8257 sec. 4.2 and Alizadeh et al. 2010 sec. 3.4: g = 1/16; Linux tcp_dctcp.c dctcp_shift_g = 4",
        ),
        ParamDoc::new(
            "init_alpha",
            "Linux tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA (1.0): the first marks cut by half",
        ),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return err(format!("{field}.g"), format!("must be in (0, 1], got {}", self.g));
        }
        if !(0.0..=1.0).contains(&self.init_alpha) {
            return err(
                format!("{field}.init_alpha"),
                format!("must be in [0, 1], got {}", self.init_alpha),
            );
        }
        Ok(())
    }
}

/// `tcp-dctcp`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-dctcp",
    description: "DCTCP (RFC 8257, Linux tcp_dctcp.c): alpha = EWMA (g 1/16) of the marked fraction per window, cwnd x (1 - alpha/2) once per window of marks; halving on loss; data always ECT; needs a marking queue (ecn-threshold, red-ecn)",
    table: Some("dctcp"),
    params: documented::<DctcpParams>,
    requires: None,
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: DctcpParams = t.parse()?;
    // DCTCP's packets are ECN-capable and its sender answers ECE.
    let p = Arc::new(TransportParams { ecn: true, ..p.clone() });
    Ok(Arc::new(move |id, size| {
        let cc = Box::new(Dctcp::new(&c));
        (
            Box::new(TcpSender::with_shared(id, size, p.clone(), cc)) as Box<dyn Sender>,
            Box::new(TcpReceiver::new(id, size, &p).with_dctcp_echo()) as Box<dyn Receiver>,
        )
    }))
}

/// The DCTCP window policy of one flow.
#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    /// The estimate of the fraction of packets marked.
    pub alpha: f64,
    /// The ACK that closes the current observation window.
    window_end: u64,
    /// Packets acknowledged in the window, and by ECE ACKs.
    acked: u64,
    marked: u64,
}

impl Dctcp {
    pub fn new(p: &DctcpParams) -> Self {
        Dctcp {
            g: p.g,
            alpha: p.init_alpha,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        NewReno.on_ack(w, s);
    }

    /// RFC 5681 eq. 4 (RFC 8257 3.5: a loss as conventional TCP).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    /// RFC 8257 3.3: cwnd (1 - alpha/2), at least 2 (Linux `dctcp_ssthresh`).
    /// Linux (`tcp_ca_needs_ecn`) and ns-3 (`DctcpEcn`) send DCTCP's SYN ECT.
    fn ect_syn(&self) -> bool {
        true
    }

    fn ssthresh_after_ece(&mut self, w: &Window, _flight_pkts: u64) -> f64 {
        (w.cwnd * (1.0 - self.alpha / 2.0)).max(2.0)
    }

    fn wants_ack_seq(&self) -> bool {
        true
    }

    fn model(&self, put: &mut dyn FnMut(&'static str, f64)) {
        put("model_alpha", self.alpha);
    }

    /// RFC 8257 3.3 steps 1-8: count, and once per window update alpha.
    fn on_ack_seq(&mut self, _w: &mut Window, s: &AckSeq) {
        self.acked += s.acked_pkts;
        if s.congestion_bit {
            self.marked += s.acked_pkts;
        }
        if s.ack < self.window_end {
            return;
        }
        let m = if self.acked > 0 {
            self.marked as f64 / self.acked as f64
        } else {
            0.0
        };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
        self.window_end = s.snd_nxt.max(s.ack);
        self.acked = 0;
        self.marked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(ack: u64, snd_nxt: u64, bit: bool) -> AckSeq {
        AckSeq {
            now: 0,
            ack,
            acked_pkts: 1,
            snd_nxt,
            congestion_bit: bit,
            rtt_ns: 1,
            in_recovery: false,
            rtt_sampled: true,
        }
    }

    /// Windows of 20 packets, one ACK each, `marked_per_window` of them with
    /// ECE; returns alpha after each window.
    fn windows(n: usize, marked_per_window: u64, init: f64) -> Vec<f64> {
        let mut cc = Dctcp::new(&DctcpParams {
            init_alpha: init,
            ..Default::default()
        });
        let mut w = Window {
            cwnd: 20.0,
            ssthresh: 1.0,
        };
        // Twenty packets in flight: the ACK of packet i is ack i + 1, sent
        // with SND.NXT i + 21; the first window ends at ack 20.
        cc.window_end = 20;
        let mut out = vec![];
        for k in 0..n as u64 {
            for i in 0..20 {
                let ack = 20 * k + i + 1;
                cc.on_ack_seq(&mut w, &seq(ack, ack + 20, i < marked_per_window));
            }
            out.push(cc.alpha);
        }
        out
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction_as_the_ewma_closed_form() {
        // M = 5/20 per window from alpha 1: alpha_n = M + (1 - M) (15/16)^n.
        let a = windows(100, 5, 1.0);
        for (n, &x) in a.iter().enumerate() {
            let expect = 0.25 + 0.75 * (15.0f64 / 16.0).powi(n as i32 + 1);
            assert!((x - expect).abs() < 1e-12, "window {n}: {x} vs {expect}");
        }
        assert!((a[99] - 0.25).abs() < 1.5e-3);
        // From 0 with every packet marked: 1 - (15/16)^n.
        let a = windows(10, 20, 0.0);
        assert!((a[9] - (1.0 - (15.0f64 / 16.0).powi(10))).abs() < 1e-12);
    }

    #[test]
    fn the_cut_is_alpha_over_two_and_a_loss_halves() {
        let mut cc = Dctcp::new(&DctcpParams::default());
        let w = Window {
            cwnd: 40.0,
            ssthresh: 1.0,
        };
        // alpha 1 (the initial value): half.
        assert_eq!(cc.ssthresh_after_ece(&w, 40), 20.0);
        cc.alpha = 0.25;
        assert_eq!(cc.ssthresh_after_ece(&w, 40), 35.0);
        cc.alpha = 0.0;
        assert_eq!(cc.ssthresh_after_ece(&w, 40), 40.0);
        let small = Window {
            cwnd: 2.5,
            ssthresh: 1.0,
        };
        cc.alpha = 1.0;
        assert_eq!(cc.ssthresh_after_ece(&small, 2), 2.0);
        // A loss: FlightSize / 2 whatever alpha.
        cc.alpha = 0.1;
        assert_eq!(cc.ssthresh_after_loss(&w, 30), 15.0);
    }

    #[test]
    fn bad_parameters_are_refused_naming_the_key() {
        let bad = |v: serde_json::Value| {
            Table::new(Some(&v), "transport.dctcp")
                .parse::<DctcpParams>()
                .unwrap_err()
                .field
        };
        assert_eq!(bad(serde_json::json!({"g": 0.0})), "transport.dctcp.g");
        assert_eq!(bad(serde_json::json!({"init_alpha": 1.5})), "transport.dctcp.init_alpha");
    }
}

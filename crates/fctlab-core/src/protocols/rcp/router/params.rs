//! The `[network.rcp]` table of RCP's router and its registry entry.

use super::Rcp;
use crate::config::{documented, duration_ms, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::queue::{PortParams, Queue, QueueBuilder, QueueEntry};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which router: the papers' rate equation with the start-up and flow
/// accounting described in the module documentation (`ps`, the default), or
/// the released ns-2 patch's router as it is (`ns2`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RcpMode {
    Ps,
    Ns2,
}

/// The `[network.rcp]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RcpCfg {
    /// `ps` (default) or `ns2`: see the module documentation.
    pub mode: RcpMode,
    /// Gain on spare capacity: 0.1, the paper's value that the patch's
    /// `run-rcp.pl` sets (the patch's ns-default.tcl has 0.4).
    pub alpha: f64,
    /// Gain on the queue: 1.0, the paper's value that `run-rcp.pl` sets (the
    /// patch's ns-default.tcl has 0.4).
    pub beta: f64,
    /// Target utilisation γ: the patch's default 1 (the rate is computed for γC).
    pub gamma: f64,
    /// Longest control slot: the patch's `upd_timeslot_` 10 ms.
    pub upd_timeslot_ms: f64,
    /// Initial rate as a fraction of C: the patch's `init_rate_fact_` 0.05.
    pub init_rate_fact: f64,
    /// Lowest rate a router offers, bits/s: 400 = the patch's `min_pprtt_`
    /// 0.01 packets of 1000 B per RTT at the initial d0 of 0.2 s
    /// (0.01·1000·8/0.2); the cleaned fork replaces that with a rate `min_rate_`.
    pub min_rate_bps: f64,
    /// Initial average RTT d0: the patch's `RTT` 0.2 s. In mode `ps` it holds
    /// only until the first slot with an RTT sample, which replaces it.
    pub initial_rtt_ms: f64,
    /// Mode `ps`: the rate never falls below `floor_fact`·γC/N, N the flows
    /// counted through this port (see the module documentation; fctlab's
    /// choice, measured in tests/rcp_ps.rs).
    pub floor_fact: f64,
}

impl Default for RcpCfg {
    fn default() -> Self {
        RcpCfg {
            mode: RcpMode::Ps,
            alpha: 0.1,
            beta: 1.0,
            gamma: 1.0,
            upd_timeslot_ms: 10.0,
            init_rate_fact: 0.05,
            min_rate_bps: 400.0,
            initial_rtt_ms: 200.0,
            floor_fact: 0.95,
        }
    }
}

impl RcpCfg {
    /// Check the values (`field` is the table's dotted key).
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let bad = |k: &str, m: String| {
            Err(ConfigError {
                field: format!("{field}.{k}"),
                message: m,
            })
        };
        for (k, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(k, format!("must be a gain >= 0, got {v}"));
            }
        }
        if !(self.gamma > 0.0 && self.gamma <= 1.0) {
            return bad(
                "gamma",
                format!("must be a target utilisation in (0, 1], got {}", self.gamma),
            );
        }
        if !(self.upd_timeslot_ms.is_finite() && self.upd_timeslot_ms >= 0.001) {
            return bad(
                "upd_timeslot_ms",
                format!("must be a time of at least 0.001 ms, got {}", self.upd_timeslot_ms),
            );
        }
        if !(self.init_rate_fact > 0.0 && self.init_rate_fact <= 1.0) {
            return bad(
                "init_rate_fact",
                format!(
                    "must be a fraction of the link rate in (0, 1], got {}",
                    self.init_rate_fact
                ),
            );
        }
        if !(self.min_rate_bps.is_finite() && self.min_rate_bps > 0.0) {
            return bad(
                "min_rate_bps",
                format!("must be a positive rate, got {}", self.min_rate_bps),
            );
        }
        if !(self.initial_rtt_ms.is_finite() && self.initial_rtt_ms >= 0.001) {
            return bad(
                "initial_rtt_ms",
                format!("must be a time of at least 0.001 ms, got {}", self.initial_rtt_ms),
            );
        }
        if !(self.floor_fact >= 0.0 && self.floor_fact <= 1.0) {
            return bad(
                "floor_fact",
                format!("must be a fraction in [0, 1], got {}", self.floor_fact),
            );
        }
        duration_ms(&format!("{field}.upd_timeslot_ms"), self.upd_timeslot_ms, true)?;
        duration_ms(&format!("{field}.initial_rtt_ms"), self.initial_rtt_ms, true)?;
        Ok(())
    }
}

impl Params for RcpCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("mode", "ps: the 2006 paper's rate equation, d0 from the first RTT samples, input measured as fluid, N = flows with data under way plus the announced (SYN) flows expected to join them (beyond the departures over the mean sending time, Little's law; without history, back-to-back SYNs) for a cap on SYNs and bursts (IWQoS 2005 N = C/R) and a floor; ns2: the released ns-2 RCP patch rcp.cc as it is"),
        ParamDoc::new("alpha", "Dukkipati & McKeown 2006 / ns-2 RCP patch run-rcp.pl (ns-default.tcl: 0.4; show both)"),
        ParamDoc::new("beta", "Dukkipati & McKeown 2006 / ns-2 RCP patch run-rcp.pl (ns-default.tcl: 0.4; show both)"),
        ParamDoc::new("gamma", "ns-2 RCP patch ns-default.tcl gamma_ 1 (target utilisation)"),
        ParamDoc::new("upd_timeslot_ms", "ns-2 RCP patch upd_timeslot_ 0.01 s; slot T = min(d0, this)"),
        ParamDoc::new("init_rate_fact", "ns-2 RCP patch init_rate_fact_ 0.05 (R0 = 0.05 C)"),
        ParamDoc::new("min_rate_bps", "ns-2 RCP patch min_pprtt_ 0.01 pkt (1000 B) per RTT at d0 = 0.2 s; the fork's min_rate_"),
        ParamDoc::new("initial_rtt_ms", "ns-2 RCP patch rcp.cc RTT 0.2 s (initial d0; mode ps: until the first RTT sample)"),
        ParamDoc::new("floor_fact", "fctlab (mode ps): rate floor floor_fact x gamma C / N over the counted flows; 0.95 drains a start-up queue while losing at most 5% of the link"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        RcpCfg::validate(self, field)
    }
}

/// `rcp` (the queue discipline).
pub const ENTRY: QueueEntry = Entry {
    name: "rcp",
    description: "RCP router (Dukkipati & McKeown 2006, ns-2 RCP patch): DropTail FIFO that updates one rate R per slot and stamps min(header, R) into SYN and data packets at dequeue",
    table: Some("rcp"),
    params: documented::<RcpCfg>,
    requires: None,
    factory,
};

/// Check `[network.rcp]` and make the builder.
fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: RcpCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(Rcp::new(&c, p.limit_pkts, p.rate_bps)) as Box<dyn Queue>
    }))
}

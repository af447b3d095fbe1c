//! RED's parameter table (`[network.red]`), its checks and registry
//! entries (`red`, `red-ecn`).

use super::Red;
use crate::config::{documented, ConfigError, Entry, ParamDoc, ParamInfo, Params, Table};
use crate::net::queue::{PortParams, Queue, QueueBuilder, QueueEntry};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The `[network.red]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedCfg {
    /// Minimum threshold in packets; 0 = automatic: max(5, target_delay·C/2)
    /// packets of `mean_pktsize` (ns-2 `thresh_` 0, Floyd et al. 2001).
    pub min_th: f64,
    /// Maximum threshold in packets; 0 = automatic: 3·min_th (ns-2 `maxthresh_` 0).
    pub max_th: f64,
    /// Drop probability at max_th (ns-2 `linterm_` 10, i.e. 1/10).
    pub max_p: f64,
    /// EWMA weight of the average queue; -1 = automatic:
    /// 1 − exp(−1/(10·RTT·ptc)), RTT = max(0.1 s, 3(link delay + 1/ptc)) (ns-2 `q_weight_` -1).
    pub q_weight: f64,
    /// Gentle RED: p rises from max_p to 1 between max_th and 2·max_th (ns-2 `gentle_` true).
    pub gentle: bool,
    /// Adaptive RED: adjust max_p every 0.5 s toward a target average queue
    /// (ns-2 `adaptive_` 0; Floyd, Gummadi & Shenker 2001).
    pub adaptive: bool,
    /// Target queueing delay for the automatic thresholds (ns-2 `targetdelay_` 0.005 s).
    pub target_delay_ms: f64,
    /// Mark ECN-capable packets (CE) instead of dropping them early (ns-2 `setbit_` false).
    pub ecn: bool,
    /// Mark only while the drop probability p_b is at most this; above it, drop
    /// even ECN-capable packets (ns-2 `mark_p_` 0.1 with `use_mark_p_` true).
    /// 1 marks every early drop.
    pub mark_p: f64,
    /// Uniform inter-drop spacing: p_a = p_b/(2 − count·p_b) and none while
    /// count·p_b < 1 (ns-2 `wait_` true).
    pub wait: bool,
    /// Byte mode: the queue is measured in bytes (in units of `mean_pktsize`)
    /// and p_a is scaled by size/mean_pktsize (ns-2 `bytes_`, `queue_in_bytes_`;
    /// fctlab default false: thresholds and the buffer count packets).
    pub byte_mode: bool,
    /// Mean packet size in bytes, for the packet time constant
    /// ptc = C/(8·mean_pktsize) and byte mode. Default: fctlab's default data
    /// packet on the wire (mss_bytes 1000 + header_bytes 40); ns-2's 500 goes
    /// with its 500-byte default packets.
    pub mean_pktsize: u32,
    /// Packets of the port's buffer that wait below RED in a device queue
    /// (0 or 1). 0: RED holds every waiting packet (ns-2). 1: ns-3's
    /// `RedQueueDisc` over a `PointToPointNetDevice` whose queue holds one
    /// packet: RED measures and limits the packets above that one (its
    /// limit is the buffer less 1), the device queue refills only after the
    /// arrivals of a departure's instant (so at that instant RED still counts
    /// the packet that just moved to the wire), and RED's idle time starts
    /// when the last packet starts its transmission (`DoDequeue` on an empty
    /// queue disc), not when the link goes idle.
    pub device_queue_pkts: u32,
    /// What a forced drop does to the count since the last drop: `"reset"`
    /// (ns-2 `red.cc` with `use_mark_p_`: above 2·max_th, or max_th without
    /// gentle, the early-drop path drops with probability 1, and a drop by the
    /// full buffer restarts the count); `"keep"` (ns-3 `RedQueueDisc::DoEnqueue`
    /// with `Ns1Compat` false: those arrivals are forced drops and, like drops
    /// by the full internal queue, leave the count running).
    pub forced_drop_count: String,
    /// Instantaneous mode, as HPCC's and DCQCN's ns-3 switches configure
    /// ECN (Kmin, Kmax, Pmax = min_th, max_th, max_p): each arrival is
    /// marked (ECN-capable, with `ecn`) or dropped with probability 0 while
    /// the queue it finds is at most min_th, max_p (q - min_th) / (max_th -
    /// min_th) up to max_th and 1 above, independently of the others; no
    /// average, no count since the last mark, no gentle region, no
    /// `mark_p`.
    pub instantaneous: bool,
}

impl Default for RedCfg {
    fn default() -> Self {
        RedCfg {
            min_th: 0.0,
            max_th: 0.0,
            max_p: 0.1,
            q_weight: -1.0,
            gentle: true,
            adaptive: false,
            target_delay_ms: 5.0,
            ecn: false,
            mark_p: 0.1,
            wait: true,
            byte_mode: false,
            mean_pktsize: 1040,
            device_queue_pkts: 0,
            forced_drop_count: "reset".into(),
            instantaneous: false,
        }
    }
}

impl RedCfg {
    /// Check the values (`field` is the table's dotted key).
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let bad = |k: &str, m: String| {
            Err(ConfigError {
                field: format!("{field}.{k}"),
                message: m,
            })
        };
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return bad("max_p", format!("must be in (0, 1], got {}", self.max_p));
        }
        if !(self.mark_p > 0.0 && self.mark_p <= 1.0) {
            return bad("mark_p", format!("must be in (0, 1], got {}", self.mark_p));
        }
        for (k, v) in [("min_th", self.min_th), ("max_th", self.max_th)] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(k, format!("must be a number of packets >= 0 (0 = automatic), got {v}"));
            }
        }
        if self.max_th > 0.0 && self.min_th == 0.0 {
            return bad(
                "max_th",
                "needs min_th as well (the automatic min_th depends on each port's rate)".into(),
            );
        }
        if self.max_th > 0.0 && self.min_th >= self.max_th {
            return bad(
                "min_th",
                format!(
                    "must be below max_th, got min_th {} and max_th {}",
                    self.min_th, self.max_th
                ),
            );
        }
        if !(self.q_weight == -1.0 || (self.q_weight > 0.0 && self.q_weight <= 1.0)) {
            return bad(
                "q_weight",
                format!("must be in (0, 1], or -1 for automatic, got {}", self.q_weight),
            );
        }
        crate::config::duration_ms(&format!("{field}.target_delay_ms"), self.target_delay_ms, true)?;
        if self.mean_pktsize == 0 {
            return bad("mean_pktsize", "must be at least 1 byte".into());
        }
        if self.device_queue_pkts > 1 {
            return bad("device_queue_pkts", format!("must be 0 (RED holds every waiting packet) or 1 (ns-3's one-packet device queue below RED), got {}", self.device_queue_pkts));
        }
        if self.device_queue_pkts > 0 && self.byte_mode {
            return bad(
                "device_queue_pkts",
                "counts packets: use it with byte_mode = false".into(),
            );
        }
        if !matches!(self.forced_drop_count.as_str(), "reset" | "keep") {
            return bad(
                "forced_drop_count",
                format!(
                    "must be \"reset\" (ns-2) or \"keep\" (ns-3), got {:?}",
                    self.forced_drop_count
                ),
            );
        }
        Ok(())
    }
}

impl Params for RedCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::derived("min_th", "automatic: max(5, target_delay x ptc / 2) packets, ptc = link rate / (8 mean_pktsize) pkt/s", "ns-2 red.cc thresh_ 0; Floyd, Gummadi & Shenker 2001"),
        ParamDoc::derived("max_th", "automatic: 3 x min_th", "ns-2 red.cc maxthresh_ 0"),
        ParamDoc::new("max_p", "ns-2 linterm_ 10"),
        ParamDoc::derived("q_weight", "automatic: 1 - exp(-1/(10 RTT ptc)), RTT = max(0.1 s, 3(link delay + 1/ptc))", "ns-2 q_weight_ -1"),
        ParamDoc::new("gentle", "ns-2 gentle_; Floyd 2000, 'Recommendation on using the gentle_ variant of RED'"),
        ParamDoc::new("adaptive", "ns-2 adaptive_ 0; every 0.5 s, max_p += min(0.01, max_p/4) or x 0.9, within [min(0.01, 80000 / link bps), 0.5]"),
        ParamDoc::new("target_delay_ms", "ns-2 targetdelay_ 0.005; the 2006 FCT paper's RED+ECN figures"),
        ParamDoc::derived("ecn", "red-ecn: true", "ns-2 setbit_ false; RFC 3168"),
        ParamDoc::new("mark_p", "ns-2 mark_p_ 0.1 (use_mark_p_): above this p_b, ECN-capable packets are dropped"),
        ParamDoc::new("wait", "ns-2 wait_ true: p_a = p_b / (2 - count p_b)"),
        ParamDoc::new("byte_mode", "ns-2 bytes_ / queue_in_bytes_ (on there); fctlab counts packets"),
        ParamDoc::new("mean_pktsize", "fctlab's default data packet (1000 + 40 B); ns-2 mean_pktsize_ 500 for its 500 B packets"),
        ParamDoc::new("device_queue_pkts", "0: ns-2 red.cc; 1: ns-3 RedQueueDisc over a one-packet PointToPointNetDevice queue (net-device-queue-interface.h, red-queue-disc.cc DoDequeue)"),
        ParamDoc::new("instantaneous", "off: RED's average; on: HPCC's ns-3 switch (SwitchMmu::ShouldSendCN: Kmin, Kmax, Pmax on the queue itself, one draw per packet; Li et al. 2019) and DCQCN's (Zhu et al. 2015)"),
        ParamDoc::new("forced_drop_count", "\"reset\": ns-2 red.cc (use_mark_p_, ns1_compat_ false); \"keep\": ns-3 RedQueueDisc::DoEnqueue (Ns1Compat false)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        RedCfg::validate(self, field)
    }
}

/// `red`.
pub const ENTRY: QueueEntry = Entry {
    name: "red",
    description: "RED (Floyd & Jacobson 1993) as ns-2 red.cc: gentle, automatic thresholds for a 5 ms target delay, optional adaptive max_p and ECN marking",
    table: Some("red"),
    params: documented::<RedCfg>,
    requires: None,
    factory: |t| factory(t, false),
};

/// `red-ecn`: `red` with `ecn` forced on.
pub const ENTRY_ECN: QueueEntry = Entry {
    name: "red-ecn",
    description:
        "RED with ecn = true: ECN-capable packets are marked CE instead of dropped early (needs transport.ecn to mark)",
    table: Some("red"),
    params: ecn_params,
    requires: None,
    factory: |t| factory(t, true),
};

fn ecn_params() -> Vec<ParamInfo> {
    let mut ps = documented::<RedCfg>();
    for p in ps.iter_mut().filter(|p| p.key == "ecn") {
        p.default = serde_json::Value::Bool(true);
    }
    ps
}

/// Check `[network.red]` and make the builder; `red-ecn` forces `ecn` on.
fn factory(t: Table, force_ecn: bool) -> Result<QueueBuilder, ConfigError> {
    let mut c: RedCfg = t.parse()?;
    if force_ecn {
        if t.get("ecn") == Some(&serde_json::Value::Bool(false)) {
            return Err(ConfigError::new(
                t.key("ecn"),
                "queue \"red-ecn\" always marks; use queue = \"red\" for RED without ECN",
            ));
        }
        c.ecn = true;
    }
    Ok(Arc::new(move |p: PortParams| {
        Box::new(Red::new(&c, p)) as Box<dyn Queue>
    }))
}

//! The fair queue's parameter table (`[network.fq]`) and registry entry.

use super::Fq;
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::queue::{PortParams, Queue, QueueBuilder, QueueEntry};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How packets are assigned to buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Classify {
    /// By flow id (modulo `buckets`): per-flow fairness. Ids are dense, so up
    /// to `buckets` consecutive flows never share a bucket.
    Flow,
    /// By route (modulo `buckets`): one bucket per (sending host, receiving
    /// host) pair and direction, i.e. per-source fairness on the dumbbell, as
    /// ns-2 `drr.cc` (source address) and `sfq.cc` (source + destination) classify.
    Path,
}

/// The order in which the per-flow queues are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discipline {
    /// Deficit Round Robin (Shreedhar & Varghese 1995).
    Drr,
    /// Fair Queueing as Demers, Keshav & Shenker (SIGCOMM 1989) define it:
    /// each packet gets the finish number F = max(F_prev, R(t)) + bytes of a
    /// bit-by-bit round robin whose round number R(t) grows at the line rate
    /// over the number of conversations active in it; the smallest F leaves
    /// first. A packet of an idle conversation gets a small F and leaves after
    /// the packet in service instead of waiting for a round.
    Dks,
}

/// The `[network.fq]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqCfg {
    /// Number of per-flow queues (the thesis: 1000).
    pub buckets: u32,
    /// DRR quantum in bytes (Linux `sch_sfq`: one MTU; here one default data
    /// packet on the wire, mss_bytes 1000 + header_bytes 40). A quantum below
    /// the largest packet is allowed but costs extra rounds.
    pub quantum_bytes: u32,
    /// "flow" (default) or "path".
    pub classify: Classify,
    /// "drr" (default) or "dks".
    pub discipline: Discipline,
}

impl Default for FqCfg {
    fn default() -> Self {
        FqCfg {
            buckets: 1000,
            quantum_bytes: 1040,
            classify: Classify::Flow,
            discipline: Discipline::Drr,
        }
    }
}

impl FqCfg {
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(1..=1_000_000).contains(&self.buckets) {
            return Err(ConfigError {
                field: format!("{field}.buckets"),
                message: format!("must be 1 to 1000000, got {}", self.buckets),
            });
        }
        if self.quantum_bytes == 0 {
            return Err(ConfigError {
                field: format!("{field}.quantum_bytes"),
                message: "must be at least 1 byte".into(),
            });
        }
        Ok(())
    }
}

impl Params for FqCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("buckets", "Mussmann 2012 sec. 4.1: flows spread over 1000 queues"),
        ParamDoc::new("quantum_bytes", "one default data packet (1000 + 40 B), as Linux sch_sfq's quantum = MTU; ns-2 drr.cc uses 250"),
        ParamDoc::new("discipline", "\"drr\": Deficit Round Robin (Mussmann 2012, Shreedhar & Varghese 1995); \"dks\": finish numbers of a bit-by-bit round robin (Demers, Keshav & Shenker 1989)"),
        ParamDoc::new("classify", "\"flow\": per flow id; \"path\": per host pair (ns-2 drr.cc hashes the source, sfq.cc source + destination)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        FqCfg::validate(self, field)
    }
}

/// `fq`.
pub const ENTRY: QueueEntry = Entry {
    name: "fq",
    description: "fair queueing (Mussmann 2012): DRR over 1000 per-flow queues, shared buffer, overflow drops the tail of the longest queue",
    table: Some("fq"),
    params: documented::<FqCfg>,
    requires: None,
    factory,
};

/// Check `[network.fq]` and make the builder.
fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: FqCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(Fq::for_port(&c, p.limit_pkts, p.rate_bps)) as Box<dyn Queue>
    }))
}

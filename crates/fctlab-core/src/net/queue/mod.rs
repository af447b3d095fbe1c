//! Queue disciplines of router ports, behind one trait, looked up by name.

pub mod decbit;
mod droptail;
pub mod ecn_threshold;
pub mod fq;
pub mod red;
pub mod sync_drop;

pub use droptail::DropTail;
pub use fq::{Classify, Fq, FqCfg};
pub use red::{Red, RedCfg, RedStats};

use super::Packet;
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::sim::Time;
use std::sync::Arc;

/// A port's queue discipline.
pub trait Queue: Send {
    /// Offer `pkt` to the queue. Returns the packet dropped because of it, if any
    /// (the arriving one, or another one for disciplines that push out).
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet>;
    /// Take the next packet to serialise.
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
    /// Packets waiting (not counting the one on the wire).
    fn len_pkts(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// The packet limit (None: unlimited).
    fn limit_pkts(&self) -> Option<usize>;
    /// Whether the discipline may hold packets while its link is idle
    /// (per-flow rate shaping): `dequeue` may then return `None` with packets
    /// waiting, and [`Queue::next_ready`] says when to ask again. Such a port
    /// never takes the idle-link shortcut (`pass_through`).
    fn shapes(&self) -> bool {
        false
    }
    /// For a shaping discipline whose `dequeue` returned `None` with packets
    /// waiting: the earliest time one of them may leave.
    fn next_ready(&self, _now: Time) -> Option<Time> {
        None
    }
    /// Whether [`Queue::pass_through`] always hands the packet back unchanged
    /// and touches no state (a plain FIFO with room for a packet), so that
    /// the engine may skip the call. Asked once, when the port is built.
    fn passes_idle(&self) -> bool {
        false
    }
    /// Offer `pkt` to an empty queue whose link is idle: the packet goes straight
    /// to the wire (`Ok`) or is dropped (`Err`). Equivalent to `enqueue` then
    /// `dequeue`; disciplines with nothing to do here skip the copy in and out.
    #[inline]
    fn pass_through(&mut self, now: Time, pkt: Packet) -> Result<Packet, Packet> {
        if let Some(d) = self.enqueue(now, pkt) {
            return Err(d);
        }
        Ok(self.dequeue(now).expect("an accepted packet can be dequeued"))
    }
}

/// Parameters every queue gets from the network it sits in.
#[derive(Clone, Copy, Debug)]
pub struct PortParams {
    /// The buffer: packets the port may hold besides the one on the wire.
    pub limit_pkts: usize,
    pub rate_bps: f64,
    pub delay_ns: Time,
    /// The run's seed and this port's random stream, for disciplines that draw
    /// random numbers (RED): `crate::sim::stream_rng(seed, stream)`.
    pub seed: u64,
    pub stream: u64,
}

impl PortParams {
    /// The random stream of the port on the link named `link`: an FNV-1a hash of
    /// the name with the top bit set, so it never meets a traffic generator's
    /// stream (those are small integers) and does not depend on link order.
    pub fn stream_of(link: &str) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in link.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h | (1 << 63)
    }
}

/// Makes one queue per router port, from parameters already checked.
pub type QueueBuilder = Arc<dyn Fn(PortParams) -> Box<dyn Queue> + Send + Sync>;

/// Checks a discipline's parameter table (`[network.<table>]`) and returns its builder.
pub type QueueFactory = fn(Table) -> Result<QueueBuilder, ConfigError>;

/// A registered queue discipline (see `crate::registry::QUEUES`).
pub type QueueEntry = Entry<QueueFactory>;

/// The `[network.droptail]` table.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DropTailCfg {
    /// When a departure leaves a full queue: `"immediate"`, the freed slot
    /// takes the next arrival, even one at the same instant; `"deferred"`,
    /// arrivals at that instant still find the queue full (ns-3's stopped
    /// device queue, woken by an event of the same time).
    pub full_wake: String,
}

impl Default for DropTailCfg {
    fn default() -> Self {
        DropTailCfg {
            full_wake: "immediate".into(),
        }
    }
}

impl Params for DropTailCfg {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "full_wake",
        "\"deferred\": ns-3's device queue (net-device-queue-interface.h: a full NetDeviceQueue is stopped, and PacketDequeued wakes it by an event scheduled for the same time, so packets arriving at that instant are dropped)",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        match self.full_wake.as_str() {
            "immediate" | "deferred" => Ok(()),
            other => Err(ConfigError::new(
                format!("{field}.full_wake"),
                format!("must be \"immediate\" or \"deferred\", got {other:?}"),
            )),
        }
    }
}

/// `droptail`.
pub const DROPTAIL: QueueEntry = Entry {
    name: "droptail",
    description: "FIFO with a packet limit; an arrival to a full queue is dropped",
    table: Some("droptail"),
    params: documented::<DropTailCfg>,
    requires: None,
    factory: |t| {
        let c: DropTailCfg = t.parse()?;
        if c.full_wake == "deferred" {
            Ok(Arc::new(|p: PortParams| {
                Box::new(DropTail::deferred_wake(p.limit_pkts)) as Box<dyn Queue>
            }))
        } else {
            Ok(Arc::new(|p: PortParams| {
                Box::new(DropTail::new(p.limit_pkts)) as Box<dyn Queue>
            }))
        }
    },
};

//! Queue disciplines of router ports, behind one trait, looked up by name.

mod droptail;
mod fq;
pub mod rcp;
mod red;
pub mod xcp;

pub use droptail::DropTail;
pub use fq::{Classify, Fq, FqCfg};
pub use red::{Red, RedCfg, RedStats};

use super::Packet;
use crate::scenario::{ConfigError, NetworkCfg};
use crate::sim::Time;
use crate::transport::cc::Param;
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
    /// The packet limit (`usize::MAX` when unlimited).
    fn limit_pkts(&self) -> usize;
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
pub type QueueFactory = fn(&NetworkCfg) -> Result<QueueBuilder, ConfigError>;

/// A registered queue discipline.
pub struct Discipline {
    pub name: &'static str,
    pub description: &'static str,
    /// Its parameter table under `[network]`, if it has parameters.
    pub table: Option<&'static str>,
    pub params: &'static [Param],
    pub factory: QueueFactory,
}

/// The queue-discipline registry: one entry per discipline file.
pub const QUEUES: &[Discipline] = &[
    Discipline {
        name: "droptail",
        description: "FIFO with a packet limit; an arrival to a full queue is dropped",
        table: None,
        params: &[],
        factory: |_| Ok(Arc::new(|p: PortParams| Box::new(DropTail::new(p.limit_pkts)) as Box<dyn Queue>)),
    },
    Discipline {
        name: "red",
        description: "RED (Floyd & Jacobson 1993) as ns-2 red.cc: gentle, automatic thresholds for a 5 ms target delay, optional adaptive max_p and ECN marking",
        table: Some("red"),
        params: red::PARAMS,
        factory: |n| red::factory(n, false),
    },
    Discipline {
        name: "red-ecn",
        description: "RED with ecn = true: ECN-capable packets are marked CE instead of dropped early (needs transport.ecn to mark)",
        table: Some("red"),
        params: red::PARAMS,
        factory: |n| red::factory(n, true),
    },
    Discipline {
        name: "fq",
        description: "fair queueing (Mussmann 2012): DRR over 1000 per-flow queues, shared buffer, overflow drops the tail of the longest queue",
        table: Some("fq"),
        params: fq::PARAMS,
        factory: fq::factory,
    },
    Discipline {
        name: "rcp",
        description: "RCP router (Dukkipati & McKeown 2006, ns-2 RCP patch): DropTail FIFO that updates one rate R per slot and stamps min(header, R) into SYN and data packets at dequeue",
        table: Some("rcp"),
        params: rcp::PARAMS,
        factory: rcp::factory,
    },
    Discipline {
        name: "xcp",
        description: "XCP router (Katabi et al. 2002, ns-2 xcpq.cc): DropTail FIFO running the efficiency and fairness controllers once per average RTT; writes min(header, per-packet feedback) into departing XCP data packets",
        table: Some("xcp"),
        params: xcp::PARAMS,
        factory: xcp::factory,
    },
];

/// Look up a queue discipline by name.
pub fn lookup(name: &str) -> Option<&'static Discipline> {
    QUEUES.iter().find(|q| q.name == name)
}

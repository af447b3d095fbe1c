//! Queue disciplines of router ports, behind one trait, looked up by name.

mod droptail;

pub use droptail::DropTail;

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
pub const QUEUES: &[Discipline] = &[Discipline {
    name: "droptail",
    description: "FIFO with a packet limit; an arrival to a full queue is dropped",
    table: None,
    params: &[],
    factory: |_| Ok(Arc::new(|p: PortParams| Box::new(DropTail::new(p.limit_pkts)) as Box<dyn Queue>)),
}];

/// Look up a queue discipline by name.
pub fn lookup(name: &str) -> Option<&'static Discipline> {
    QUEUES.iter().find(|q| q.name == name)
}

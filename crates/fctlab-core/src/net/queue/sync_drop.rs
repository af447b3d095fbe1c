//! `sync-drop`: DropTail that, when the buffer nears full, drops one data
//! packet of every flow it holds, so that all transfers see a loss at about
//! the same time. Gavaletz & Kaur 2010, section IV: "We ensure that all
//! transfers experience packet loss nearly simultaneously, by forcing packet
//! drops in each of the transfers when the bottleneck buffers approach
//! full-occupancy" (the synchronised-loss assumption of Chiu & Jain 1989 under
//! which AIMD is fair).
//!
//! When an arriving data packet would bring the queue to `threshold` x buffer
//! packets (rounded up) or more, the discipline triggers: that packet is
//! dropped, and each other flow with a data packet in the queue then owes one
//! drop, taken from its next arriving data packet. The trigger re-arms once
//! the queue has fallen to `rearm` x buffer packets or less (the debts still
//! owed are then forgiven), so one episode costs each flow one packet while
//! the senders react. ACKs are never taken. A full buffer drops arrivals as
//! DropTail does.

use super::droptail::DropTail;
use super::{PortParams, Queue, QueueBuilder, QueueEntry};
use crate::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::Packet;
use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// `[network.sync_drop]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyncDropCfg {
    /// Fraction of the buffer at which every flow loses a packet (chosen: 0.9;
    /// the paper says "approach full-occupancy").
    pub threshold: f64,
    /// Fraction of the buffer the queue must fall to before the next episode.
    pub rearm: f64,
}

impl Default for SyncDropCfg {
    fn default() -> Self {
        SyncDropCfg {
            threshold: 0.9,
            rearm: 0.5,
        }
    }
}

impl Params for SyncDropCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("threshold", "chosen; Gavaletz & Kaur 2010 sec. IV drop in every transfer \"when the bottleneck buffers approach full-occupancy\""),
        ParamDoc::new("rearm", "chosen: one episode per fill of the buffer"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(ConfigError::new(
                format!("{field}.threshold"),
                format!("must be a fraction of the buffer in (0, 1], got {}", self.threshold),
            ));
        }
        if !(self.rearm >= 0.0 && self.rearm < self.threshold) {
            return Err(ConfigError::new(
                format!("{field}.rearm"),
                format!(
                    "must be in [0, threshold) = [0, {}), got {}",
                    self.threshold, self.rearm
                ),
            ));
        }
        Ok(())
    }
}

pub struct SyncDrop {
    /// The packets waiting: a DropTail FIFO of `limit` packets.
    fifo: DropTail,
    limit: usize,
    /// Queue length (packets, the arrival included) that triggers an episode.
    trigger: usize,
    rearm: usize,
    armed: bool,
    /// Flows owing one drop in the current episode, ascending.
    owed: Vec<u32>,
    /// Episodes so far.
    pub episodes: u64,
}

impl SyncDrop {
    pub fn new(c: &SyncDropCfg, limit: usize) -> Self {
        let trigger = ((c.threshold * limit as f64).ceil() as usize).max(1);
        let rearm = (c.rearm * limit as f64).floor() as usize;
        SyncDrop {
            fifo: DropTail::new(limit),
            limit,
            trigger,
            rearm: rearm.min(trigger - 1),
            armed: true,
            owed: Vec::new(),
            episodes: 0,
        }
    }
}

impl Queue for SyncDrop {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        if pkt.is_data() {
            if let Ok(i) = self.owed.binary_search(&pkt.flow) {
                self.owed.remove(i);
                return Some(pkt);
            }
            if self.armed && self.fifo.len_pkts() + 1 >= self.trigger {
                self.armed = false;
                self.episodes += 1;
                let mut flows: Vec<u32> = self
                    .fifo
                    .iter()
                    .filter(|p| p.is_data() && p.flow != pkt.flow)
                    .map(|p| p.flow)
                    .collect();
                flows.sort_unstable();
                flows.dedup();
                self.owed = flows;
                return Some(pkt);
            }
        }
        self.fifo.enqueue(now, pkt)
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.fifo.dequeue(now)?;
        if !self.armed && self.fifo.len_pkts() <= self.rearm {
            self.armed = true;
            self.owed.clear();
        }
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn limit_pkts(&self) -> Option<usize> {
        Some(self.limit)
    }
}

/// `sync-drop`.
pub const ENTRY: QueueEntry = Entry {
    name: "sync-drop",
    description: "DropTail that drops one data packet of every flow in the queue when it reaches a fraction of the buffer (synchronised losses, Gavaletz & Kaur 2010)",
    table: Some("sync_drop"),
    params: documented::<SyncDropCfg>,
    requires: None,
    factory,
};

fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: SyncDropCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(SyncDrop::new(&c, p.limit_pkts)) as Box<dyn Queue>
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn data(flow: u32, seq: u64) -> Packet {
        Packet::new(flow, PacketKind::Data, 1040, seq, 0)
    }

    #[test]
    fn one_drop_per_flow_per_episode() {
        // Buffer 10, threshold 0.9: the 9th packet triggers; rearm at 5.
        let mut q = SyncDrop::new(&SyncDropCfg::default(), 10);
        for i in 0..8 {
            assert!(q.enqueue(0, data(i % 3, i as u64)).is_none());
        }
        // Flows 0, 1, 2 hold packets; flow 2's arrival triggers and is dropped.
        assert_eq!(q.enqueue(0, data(2, 100)).map(|p| p.seq), Some(100));
        assert_eq!(q.episodes, 1);
        // Flows 0 and 1 each lose their next data packet, once; ACKs pass.
        assert!(q.enqueue(0, Packet::new(0, PacketKind::Ack, 40, 0, 0)).is_none());
        assert_eq!(q.enqueue(0, data(1, 101)).map(|p| p.seq), Some(101));
        assert_eq!(q.enqueue(0, data(0, 102)).map(|p| p.seq), Some(102));
        assert!(q.enqueue(0, data(2, 103)).is_none()); // flow 2 already paid
        assert_eq!(q.len_pkts(), 10);
        assert!(q.enqueue(0, data(1, 104)).is_some()); // full: DropTail
                                                       // Full buffer: DropTail.
        let mut q = SyncDrop::new(
            &SyncDropCfg {
                threshold: 1.0,
                rearm: 0.5,
            },
            3,
        );
        for i in 0..2 {
            assert!(q.enqueue(0, data(0, i)).is_none());
        }
        assert!(q.enqueue(0, data(1, 2)).is_some()); // 3rd reaches the threshold: episode
        assert!(q.enqueue(0, data(0, 3)).is_some()); // flow 0 owed
        assert!(q.enqueue(0, data(0, 4)).is_none());
        assert!(q.enqueue(0, data(0, 5)).is_some()); // full
                                                     // Drain to the rearm level (1 packet) and a new episode can start.
        q.dequeue(0);
        q.dequeue(0);
        assert!(q.armed);
        assert!(q.enqueue(0, data(0, 6)).is_none());
        assert!(q.enqueue(0, data(1, 7)).is_some());
        assert_eq!(q.episodes, 2);
    }
}

//! The router half of e2e-ef (see [`super`]): the `fq` discipline (DRR over
//! per-flow queues, quantum one data packet) that stamps each departing
//! e2e-ef data packet with the rate it serves the packet's conversation at
//! and the conversation's queue.
//!
//! The rate is the round-robin share: the port's rate in packets of this
//! packet's size, divided by the conversations holding packets at the port
//! (this one included). It is what the conversation gets while it stays
//! backlogged, the quantity the packet-pair spacing measures. The packet
//! keeps the smaller of its stamp and this rate, and with it this port's
//! queue, so the receiver sees the bottleneck's.

use super::EfHeader;
use crate::config::{documented, ConfigError, Entry, Table};
use crate::net::queue::{Fq, FqCfg, PortParams, Queue, QueueBuilder, QueueEntry};
use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use std::sync::Arc;

/// `fq-ef`.
pub const ENTRY: QueueEntry = Entry {
    name: "fq-ef",
    description: "fq (DRR per-flow queues, shared buffer) that stamps e2e-ef data packets with the flow's round-robin service rate and its queue, keeping the path's smallest rate",
    table: Some("fq"),
    params: documented::<FqCfg>,
    requires: None,
    factory,
};

fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: FqCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(FqEf {
            fq: Fq::for_port(&c, p.limit_pkts, p.rate_bps),
            rate_bps: p.rate_bps,
        }) as Box<dyn Queue>
    }))
}

/// The stamping fair queue.
pub struct FqEf {
    pub fq: Fq,
    rate_bps: f64,
}

impl FqEf {
    pub fn new(c: &FqCfg, limit: usize, rate_bps: f64) -> Self {
        FqEf {
            fq: Fq::for_port(c, limit, rate_bps),
            rate_bps,
        }
    }

    /// Stamp a departing packet; `others` conversations besides its own hold packets.
    fn stamp(&self, p: &mut Packet, others: usize) {
        let h: EfHeader = p.hdr.get();
        if p.kind != PacketKind::Data || h.rate_pps <= 0.0 {
            return; // not an e2e-ef packet
        }
        let rate = self.rate_bps / (8.0 * p.size_bytes as f64) / (others + 1) as f64;
        if rate < h.rate_pps {
            p.hdr.set(EfHeader {
                rate_pps: rate,
                queue_pkts: self.fq.bucket_len(self.fq.bucket_of(p)) as f64,
            });
        }
    }
}

impl Queue for FqEf {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        self.fq.enqueue(now, pkt)
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let mut p = self.fq.dequeue(now)?;
        let b = self.fq.bucket_of(&p);
        let others = self.fq.backlogged() - (self.fq.bucket_len(b) > 0) as usize;
        self.stamp(&mut p, others);
        Some(p)
    }

    fn len_pkts(&self) -> usize {
        self.fq.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fq.len_bytes()
    }

    fn limit_pkts(&self) -> Option<usize> {
        self.fq.limit_pkts()
    }

    fn pass_through(&mut self, now: Time, pkt: Packet) -> Result<Packet, Packet> {
        let mut p = self.fq.pass_through(now, pkt)?;
        self.stamp(&mut p, 0);
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ef(p: &Packet) -> (f64, f64) {
        let h: EfHeader = p.hdr.get();
        (h.rate_pps, h.queue_pkts)
    }

    fn data(flow: u32, stamp: f64) -> Packet {
        let mut p = Packet::new(flow, PacketKind::Data, 500, 0, 0);
        p.hdr.set(EfHeader {
            rate_pps: stamp,
            queue_pkts: 0.0,
        });
        p
    }

    #[test]
    fn stamps_the_round_robin_share_and_the_flows_queue() {
        // 40 Mb/s, 500-byte packets: 10 000 packets/s.
        let c = FqCfg {
            quantum_bytes: 500,
            ..Default::default()
        };
        let mut q = FqEf::new(&c, 100, 40e6);
        // Alone on an idle port: the whole rate, nothing queued.
        let p = q.pass_through(0, data(0, f64::MAX)).unwrap();
        assert_eq!(ef(&p), (10_000.0, 0.0));
        // Flow 0 has 3 packets queued, flow 1 one: flow 0's first leaves with
        // both backlogged (5 000/s) and 2 of its own behind it.
        for _ in 0..3 {
            q.enqueue(0, data(0, f64::MAX));
        }
        q.enqueue(0, data(1, f64::MAX));
        let p = q.dequeue(0).unwrap();
        assert_eq!((p.flow, ef(&p).0, ef(&p).1), (0, 5_000.0, 2.0));
        // Flow 1's only packet: its bucket empties but it counts itself: 5 000/s.
        let p = q.dequeue(0).unwrap();
        assert_eq!((p.flow, ef(&p).0, ef(&p).1), (1, 5_000.0, 0.0));
        // Flow 0 alone now: 10 000/s, then one and none behind.
        assert_eq!(q.dequeue(0).map(|p| ef(&p)), Some((10_000.0, 1.0)));
        assert_eq!(q.dequeue(0).map(|p| ef(&p)), Some((10_000.0, 0.0)));
        // A smaller upstream stamp is kept, with its queue.
        let mut d = data(0, 1_000.0);
        d.hdr.set(EfHeader {
            rate_pps: 1_000.0,
            queue_pkts: 7.0,
        });
        q.enqueue(0, d);
        let p = q.dequeue(0).unwrap();
        assert_eq!(ef(&p), (1_000.0, 7.0));
        // Other schemes' packets (header 0) are left alone.
        let p = q.pass_through(0, data(2, 0.0)).unwrap();
        assert_eq!(p.hdr.get::<EfHeader>().rate_pps, 0.0);
    }
}

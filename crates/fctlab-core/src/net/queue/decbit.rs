//! The router half of DECbit (Ramakrishnan & Jain, "A binary feedback scheme
//! for congestion avoidance in computer networks", ACM TOCS 8(2), 1990,
//! section 4): a FIFO with a packet limit that sets the congestion bit of a
//! passing data packet when the average queue length at the port is at
//! least `threshold_pkts` (1 in the paper).
//!
//! The average is the area under the queue-length curve divided by its time
//! span, over the last regeneration cycle (a busy period and the idle period
//! after it) plus the current cycle so far. A cycle starts when a packet
//! reaches an empty port. The queue length counts every packet at the port,
//! the one being transmitted included (so a port that is always busy with
//! nothing waiting averages 1: the knee the threshold is set at). The
//! average is taken when a packet arrives, before it joins; the bit travels
//! as the packet's CE flag and the receiver copies it into its ACK (ECE),
//! where the DECbit source ([`crate::transport::cc::decbit`]) reads it.
//!
//! The port computes when the packet on the wire is done from the link rate
//! (as the link does), because the engine does not call a queue when its
//! last packet leaves.

use super::{PortParams, Queue, QueueBuilder, QueueEntry};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::{tx_time_ns, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// The `[network.decbit]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DecbitCfg {
    /// Set the bit when the average queue length (packets, the one in
    /// transmission included) is at least this.
    pub threshold_pkts: f64,
}

impl Default for DecbitCfg {
    fn default() -> Self {
        DecbitCfg { threshold_pkts: 1.0 }
    }
}

impl Params for DecbitCfg {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "threshold_pkts",
        "Ramakrishnan & Jain 1990 sec. 4: the bit is set when the average queue length is at least 1",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.threshold_pkts.is_finite() && self.threshold_pkts > 0.0) {
            return err(
                format!("{field}.threshold_pkts"),
                format!("must be a positive number of packets, got {}", self.threshold_pkts),
            );
        }
        Ok(())
    }
}

/// `decbit`.
pub const ENTRY: QueueEntry = Entry {
    name: "decbit",
    description: "DECbit router (Ramakrishnan & Jain 1990): FIFO that sets the congestion bit (CE) on data when the queue averaged over the last busy+idle cycle plus the current one is at least 1",
    table: Some("decbit"),
    params: documented::<DecbitCfg>,
    requires: None,
    factory,
};

fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: DecbitCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(Decbit::new(c.threshold_pkts, p.limit_pkts, p.rate_bps)) as Box<dyn Queue>
    }))
}

/// A DECbit port.
pub struct Decbit {
    q: VecDeque<Packet>,
    bytes: u64,
    limit: usize,
    rate_bps: f64,
    threshold: f64,
    /// The packet on the wire leaves at this time (valid while `serving`).
    busy_until: Time,
    serving: bool,
    /// When the port last became empty.
    idle_since: Time,
    /// Integration of the queue length: up to `last_t`.
    last_t: Time,
    /// Start of the current cycle and the area since then.
    cycle_start: Time,
    area_cur: f64,
    /// The previous cycle's area (packet-ns) and length (ns).
    area_prev: f64,
    len_prev: Time,
    /// Data packets marked.
    pub marked: u64,
}

impl Decbit {
    pub fn new(threshold: f64, limit: usize, rate_bps: f64) -> Self {
        Decbit {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            rate_bps,
            threshold,
            busy_until: 0,
            serving: false,
            idle_since: 0,
            last_t: 0,
            cycle_start: 0,
            area_cur: 0.0,
            area_prev: 0.0,
            len_prev: 0,
            marked: 0,
        }
    }

    /// Packets at the port, the one on the wire included.
    fn n(&self) -> usize {
        self.q.len() + self.serving as usize
    }

    /// Integrate the queue length up to `now`, noticing the wire going idle.
    fn advance(&mut self, now: Time) {
        if self.serving && self.q.is_empty() && self.busy_until <= now {
            self.area_cur += self.busy_until.saturating_sub(self.last_t) as f64;
            self.last_t = self.last_t.max(self.busy_until);
            self.serving = false;
            self.idle_since = self.busy_until;
        }
        self.area_cur += self.n() as f64 * now.saturating_sub(self.last_t) as f64;
        self.last_t = self.last_t.max(now);
    }

    /// The average queue length seen by a packet arriving at `now` (after
    /// `advance`): over the previous cycle and the current one so far. An
    /// arrival to a port that has been empty for some time starts a new
    /// cycle first; one that comes exactly as the last packet leaves (an
    /// idle period of length zero, as ACK-clocked packets do) continues the
    /// busy period.
    pub fn average(&mut self, now: Time) -> f64 {
        if self.n() == 0 && now > self.idle_since && now > self.cycle_start {
            self.area_prev = self.area_cur;
            self.len_prev = now - self.cycle_start;
            self.cycle_start = now;
            self.area_cur = 0.0;
        }
        let span = self.len_prev + (now - self.cycle_start);
        if span == 0 {
            0.0
        } else {
            (self.area_prev + self.area_cur) / span as f64
        }
    }

    fn arrive(&mut self, now: Time, pkt: &mut Packet) {
        self.advance(now);
        let avg = self.average(now);
        if pkt.kind == PacketKind::Data && avg >= self.threshold {
            pkt.flags |= flags::CE;
            self.marked += 1;
        }
    }

    fn start_service(&mut self, now: Time, pkt: &Packet) {
        self.serving = true;
        self.busy_until = now + tx_time_ns(pkt.size_bytes as u64, self.rate_bps);
    }
}

impl Queue for Decbit {
    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Option<Packet> {
        if self.q.len() >= self.limit {
            return Some(pkt);
        }
        self.arrive(now, &mut pkt);
        self.bytes += pkt.size_bytes as u64;
        self.q.push_back(pkt);
        None
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        // The packet on the wire (if any) left at `now`.
        self.advance(now);
        let p = self.q.pop_front();
        match &p {
            Some(p) => {
                self.bytes -= p.size_bytes as u64;
                self.start_service(now, p);
            }
            None => {
                if self.serving {
                    self.idle_since = now;
                }
                self.serving = false;
            }
        }
        p
    }

    fn len_pkts(&self) -> usize {
        self.q.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit_pkts(&self) -> Option<usize> {
        Some(self.limit)
    }

    fn pass_through(&mut self, now: Time, mut pkt: Packet) -> Result<Packet, Packet> {
        if self.limit == 0 {
            return Err(pkt);
        }
        self.arrive(now, &mut pkt);
        self.start_service(now, &pkt);
        Ok(pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64) -> Packet {
        Packet::new(0, PacketKind::Data, 1000, seq, 0)
    }

    #[test]
    fn average_over_the_last_cycle_and_the_current_one() {
        // 8 Mb/s: a 1000 B packet takes 1 ms = 1_000_000 ns.
        const MS: Time = 1_000_000;
        let mut q = Decbit::new(1.0, 100, 8e6);
        // t=0: first packet, empty history: average 0, not marked; on the wire until 1 ms.
        let p = q.pass_through(0, data(0)).unwrap();
        assert_eq!(p.flags & flags::CE, 0);
        // t=0.5 ms: a second packet waits (n was 1 over [0, 0.5]: average 1): marked.
        assert!(q.enqueue(MS / 2, data(1)).is_none());
        assert_eq!(q.marked, 1);
        // t=1 ms: it goes on the wire (until 2 ms). The port is idle from 2 ms.
        q.dequeue(MS).unwrap();
        assert!(q.dequeue(2 * MS).is_none());
        // t=4 ms: an arrival to the empty port starts cycle 2. Cycle 1 was
        // [0, 4 ms): area 1 x 0.5 + 2 x 0.5 + 1 x 1 = 2.5 packet-ms over
        // 4 ms: average 0.625 < 1, not marked.
        let mut a = data(2);
        q.arrive(4 * MS, &mut a);
        assert_eq!(a.flags & flags::CE, 0);
        assert!((q.average(4 * MS) - 0.625).abs() < 1e-12);
        q.start_service(4 * MS, &a);
        // t=5 ms, the wire just freed, a packet arrives: an idle period of
        // length zero, so the busy period [4, 5 ms) goes on: average over
        // [0, 5 ms) = (2.5 + 1) / 5 = 0.7, not marked.
        let mut b = data(3);
        q.arrive(5 * MS, &mut b);
        assert_eq!(b.flags & flags::CE, 0);
        assert!((q.average(5 * MS) - 0.7).abs() < 1e-12);
        q.start_service(5 * MS, &b);
        // Busy until 6 ms, then idle to 7 ms: the arrival at 7 ms starts
        // cycle 3; cycle 2 = [4, 7 ms) with area 2: average 2/3, not marked.
        let mut c = data(4);
        q.arrive(7 * MS, &mut c);
        assert_eq!(c.flags & flags::CE, 0);
        assert!((q.average(7 * MS) - 2.0 / 3.0).abs() < 1e-12);
        q.start_service(7 * MS, &c);
        // Three more arrive at 7.25, 7.5 and 7.75 ms while it is on the wire:
        // area since 7 ms: 1 x 0.25, then 2 x 0.25, then 3 x 0.25 = 1.5;
        // averages (2 + 0.25)/3.25 = 0.69, (2 + 0.75)/3.5 = 0.79, (2 + 1.5)/3.75 = 0.93:
        // none marked. The next at 8 ms (4 at the port over [7.75, 8]: area
        // 2.5 since 7 ms): (2 + 2.5)/4 = 1.125: marked.
        for (k, t) in [(5, 7 * MS + MS / 4), (6, 7 * MS + MS / 2), (7, 7 * MS + 3 * MS / 4)] {
            assert!(q.enqueue(t, data(k)).is_none());
        }
        assert_eq!(q.marked, 1);
        q.dequeue(8 * MS).unwrap();
        assert!(q.enqueue(8 * MS, data(8)).is_none());
        assert_eq!(q.marked, 2);
        // ACKs are never marked.
        let mut ack = Packet::new(0, PacketKind::Ack, 40, 0, 0);
        q.arrive(8 * MS + 1, &mut ack);
        assert_eq!(ack.flags & flags::CE, 0);
    }

    #[test]
    fn drops_beyond_the_limit() {
        let mut q = Decbit::new(1.0, 1, 8e6);
        q.pass_through(0, data(0)).unwrap();
        assert!(q.enqueue(1, data(1)).is_none());
        assert_eq!(q.enqueue(2, data(2)).map(|p| p.seq), Some(2));
        assert_eq!(q.len_pkts(), 1);
        let mut q0 = Decbit::new(1.0, 0, 8e6);
        assert!(q0.pass_through(0, data(0)).is_err());
        assert_eq!(
            DecbitCfg { threshold_pkts: 0.0 }
                .validate("network.decbit")
                .unwrap_err()
                .field,
            "network.decbit.threshold_pkts"
        );
    }
}

//! Ports and wires: a packet reaching a link's port goes straight onto an
//! idle wire or into the port's discipline; a finished transmission takes
//! the next one; a shaping port is woken when a packet may leave.

use super::Engine;
use crate::net::packet::flags;
use crate::net::queue::{DropTail, PortParams, Queue};
use crate::net::{Link, Packet, PacketKind};
use crate::scenario::Plan;
use crate::sim::{prefetch_block, Event, Time};

/// The run's links: router ports get the scenario's discipline; host NICs
/// are plain unlimited FIFOs.
pub(super) fn build_links(plan: &Plan) -> Vec<Link> {
    let link = |l: &crate::net::LinkSpec| {
        let queue: Box<dyn Queue> = match l.limit_pkts.filter(|_| l.router_port) {
            Some(limit) => (plan.queue_builder)(PortParams {
                limit_pkts: limit,
                rate_bps: l.rate_bps,
                delay_ns: l.delay_ns,
                seed: plan.seed,
                stream: PortParams::stream_of(&l.name),
            }),
            None => Box::new(DropTail::unlimited()),
        };
        Link::new(l.name.clone(), l.rate_bps, l.delay_ns, queue)
    };
    plan.topology.links.iter().map(link).collect()
}

impl Engine {
    /// Start loading the link of the next link event while this one is
    /// handled: on a fabric the link is seldom in the cache when its event
    /// comes. (Going further ahead, to the packet at the head of its wire or
    /// the link that packet goes on to, cost more than it saved.)
    #[inline(always)]
    pub(super) fn prefetch_next(&self) {
        if let Some(Event::Arrive(l) | Event::TxDone(l)) = self.q.next_in_wheel() {
            prefetch_block(&self.links[l as usize]);
        }
    }

    #[inline(always)]
    fn start_tx(&mut self, l: usize, pkt: Packet, now: Time) {
        let (arrive, first) = self.links[l].start_tx(pkt, now);
        if first {
            self.q.schedule(arrive, Event::Arrive(l as u32));
        }
        self.counters.packet_hops += 1;
    }

    /// A packet reaches the port of link `l`.
    #[inline(always)]
    pub(super) fn enqueue(&mut self, l: usize, pkt: Packet, now: Time) {
        let link = &mut self.links[l];
        if link.idle(now) {
            // Idle link, empty queue: straight to the wire.
            if link.passes_idle {
                return self.start_tx(l, pkt, now);
            }
            match link.queue.pass_through(now, pkt) {
                Ok(p) => self.start_tx(l, p, now),
                Err(d) => self.drop_packet(d),
            }
            return;
        }
        self.enqueue_busy(l, pkt, now);
    }

    /// A packet reaches the port of link `l`, which is busy or holds packets.
    #[inline(never)]
    fn enqueue_busy(&mut self, l: usize, pkt: Packet, now: Time) {
        let link = &mut self.links[l];
        if let Some(d) = link.queue.enqueue(now, pkt) {
            self.drop_packet(d);
        }
        let link = &mut self.links[l];
        if link.limited {
            let excess = link.queue.len_pkts() as i64 - link.queue.limit_pkts().unwrap_or(usize::MAX) as i64;
            self.counters.max_queue_excess = self.counters.max_queue_excess.max(excess);
        }
        if link.txdone_pending {
            return;
        }
        if link.busy_until <= now {
            match link.queue.dequeue(now) {
                Some(p) => self.start_tx(l, p, now),
                None if link.shaping => return self.arm_wake(l, now),
                None => {}
            }
        }
        let link = &mut self.links[l];
        if !link.txdone_pending && link.queue.len_pkts() > 0 {
            link.txdone_pending = true;
            self.q.schedule(link.busy_until, Event::TxDone(l as u32));
        }
    }

    /// A shaping port holds packets none of which may leave yet: wake it when
    /// the first may (keeping an earlier wake-up already pending).
    fn arm_wake(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        if link.queue.len_pkts() == 0 {
            return;
        }
        if let Some(t) = link.queue.next_ready(now) {
            let t = t.max(now + 1);
            if link.wake_at.is_none_or(|w| w <= now || t < w) {
                link.wake_at = Some(t);
                self.q.schedule(t, Event::Wake(l as u32));
            }
        }
    }

    /// A shaping port's wake-up: serve it if its wire is free.
    pub(super) fn wake(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        if link.wake_at != Some(now) {
            return; // superseded by an earlier wake-up
        }
        link.wake_at = None;
        if !link.txdone_pending && link.busy_until <= now {
            self.tx_done(l, now);
        }
    }

    pub(super) fn drop_packet(&mut self, p: Packet) {
        self.counters.packets_dropped += 1;
        if p.kind == PacketKind::Data {
            self.counters.data_dropped += 1;
        } else if p.kind == PacketKind::Syn && p.flags & flags::PURE_ACK == 0 {
            self.counters.syn_dropped += 1;
        }
        if let Some(r) = self.flows.rec(p.flow) {
            r.drops += 1;
        }
    }

    pub(super) fn tx_done(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        link.txdone_pending = false;
        if let Some(p) = link.queue.dequeue(now) {
            self.start_tx(l, p, now);
            let link = &mut self.links[l];
            if link.queue.len_pkts() > 0 {
                link.txdone_pending = true;
                self.q.schedule(link.busy_until, Event::TxDone(l as u32));
            }
        } else if link.shaping {
            self.arm_wake(l, now);
        }
    }
}

//! DropTail: a FIFO that drops arrivals once `limit` packets wait.
//!
//! With `deferred_wake` a departure from a full queue lets arrivals of the
//! same instant find it still full, as ns-3's device queues behave: a
//! `NetDeviceQueue` is stopped when an enqueue leaves no room for another
//! packet, and a dequeue wakes it only through an event scheduled for the
//! current time, after the events already scheduled for it, among them the
//! packets arriving then (ns-3 `src/network/utils/net-device-queue-interface.h`,
//! `PacketEnqueued` and `PacketDequeued`; the traffic-control layer drops
//! what reaches a stopped queue when no queue disc is installed,
//! `TrafficControlLayer::Send`).

use super::Queue;
use crate::net::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

pub struct DropTail {
    q: VecDeque<Packet>,
    bytes: u64,
    /// The packet limit; `usize::MAX` stands for none (see [`DropTail::unlimited`]).
    limit: usize,
    /// `deferred_wake`: the time of the last departure from a full queue.
    deferred_wake: bool,
    full_at: Option<Time>,
}

impl DropTail {
    /// A FIFO holding at most `limit` packets.
    pub fn new(limit: usize) -> Self {
        DropTail {
            q: VecDeque::new(),
            bytes: 0,
            limit,
            deferred_wake: false,
            full_at: None,
        }
    }

    /// A FIFO holding at most `limit` packets whose departures from a full
    /// queue make room only after the arrivals of the same instant.
    pub fn deferred_wake(limit: usize) -> Self {
        DropTail {
            deferred_wake: true,
            ..DropTail::new(limit)
        }
    }

    /// The packets waiting, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.q.iter()
    }

    /// A FIFO without a limit (host NICs).
    pub fn unlimited() -> Self {
        DropTail::new(usize::MAX)
    }
}

impl Queue for DropTail {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        if self.q.len() >= self.limit || self.full_at == Some(now) {
            return Some(pkt);
        }
        self.bytes += pkt.size_bytes as u64;
        self.q.push_back(pkt);
        None
    }
    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        if self.deferred_wake && self.q.len() >= self.limit {
            self.full_at = Some(now);
        }
        let p = self.q.pop_front()?;
        self.bytes -= p.size_bytes as u64;
        Some(p)
    }
    fn len_pkts(&self) -> usize {
        self.q.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn limit_pkts(&self) -> Option<usize> {
        (self.limit != usize::MAX).then_some(self.limit)
    }
    fn passes_idle(&self) -> bool {
        self.limit > 0
    }
    #[inline]
    fn pass_through(&mut self, _now: Time, pkt: Packet) -> Result<Packet, Packet> {
        // The queue is empty and the limit is at least one packet.
        if self.limit == 0 {
            Err(pkt)
        } else {
            Ok(pkt)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    #[test]
    fn drops_arrivals_beyond_limit_and_keeps_fifo_order() {
        let mut q = DropTail::new(2);
        let p = |s| Packet::new(0, PacketKind::Data, 100, s, 0);
        assert!(q.enqueue(0, p(0)).is_none());
        assert!(q.enqueue(0, p(1)).is_none());
        assert_eq!(q.enqueue(0, p(2)).map(|d| d.seq), Some(2));
        assert_eq!(q.len_bytes(), 200);
        assert_eq!(q.dequeue(0).map(|d| d.seq), Some(0));
        assert!(q.enqueue(0, p(3)).is_none());
        assert_eq!(q.dequeue(0).map(|d| d.seq), Some(1));
        assert_eq!(q.dequeue(0).map(|d| d.seq), Some(3));
        assert!(q.dequeue(0).is_none());
        assert_eq!(q.len_bytes(), 0);
    }

    #[test]
    fn deferred_wake_keeps_a_full_queue_full_for_the_instant() {
        let p = |s| Packet::new(0, PacketKind::Data, 100, s, 0);
        // Full queue of 2; a departure at t = 5.
        let mut q = DropTail::deferred_wake(2);
        assert!(q.enqueue(0, p(0)).is_none());
        assert!(q.enqueue(0, p(1)).is_none());
        assert_eq!(q.dequeue(5).map(|d| d.seq), Some(0));
        // An arrival at the same instant finds it full (ns-3's stopped device queue) ...
        assert_eq!(q.enqueue(5, p(2)).map(|d| d.seq), Some(2));
        assert_eq!(q.len_pkts(), 1);
        // ... one a nanosecond later does not.
        assert!(q.enqueue(6, p(3)).is_none());
        // A departure from a queue that was not full frees its slot at once.
        assert_eq!(q.dequeue(7).map(|d| d.seq), Some(1));
        assert_eq!(q.dequeue(8).map(|d| d.seq), Some(3));
        assert!(q.enqueue(8, p(4)).is_none());
        assert!(q.enqueue(8, p(5)).is_none());
        assert_eq!(q.enqueue(8, p(6)).map(|d| d.seq), Some(6));
        // Without the option the slot is free at once.
        let mut q = DropTail::new(2);
        assert!(q.enqueue(0, p(0)).is_none());
        assert!(q.enqueue(0, p(1)).is_none());
        q.dequeue(5);
        assert!(q.enqueue(5, p(2)).is_none());
    }
}

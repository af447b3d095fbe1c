//! DropTail: a FIFO that drops arrivals once `limit` packets wait.

use super::Queue;
use crate::net::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

pub struct DropTail {
    q: VecDeque<Packet>,
    bytes: u64,
    /// The packet limit; `usize::MAX` stands for none (see [`DropTail::unlimited`]).
    limit: usize,
}

impl DropTail {
    /// A FIFO holding at most `limit` packets.
    pub fn new(limit: usize) -> Self {
        DropTail { q: VecDeque::new(), bytes: 0, limit }
    }

    /// A FIFO without a limit (host NICs).
    pub fn unlimited() -> Self {
        DropTail::new(usize::MAX)
    }
}

impl Queue for DropTail {
    #[inline]
    fn enqueue(&mut self, _now: Time, pkt: Packet) -> Option<Packet> {
        if self.q.len() >= self.limit {
            return Some(pkt);
        }
        self.bytes += pkt.size_bytes as u64;
        self.q.push_back(pkt);
        None
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
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
        if self.limit == 0 { Err(pkt) } else { Ok(pkt) }
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
}

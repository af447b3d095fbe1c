//! Fair queueing as Demers, Keshav & Shenker (SIGCOMM 1989) define it
//! (`discipline = "dks"`): finish numbers of a bit-by-bit round robin, the
//! smallest leaving first.

use super::Fq;
use crate::net::Packet;
use crate::sim::Time;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The state of Demers, Keshav & Shenker's fair queueing: the round number
/// of the bit-by-bit round robin and the finish numbers.
pub(super) struct Dks {
    /// Bytes per ns of the line.
    bytes_per_ns: f64,
    /// Round number R at time `at`.
    pub(super) round: f64,
    at: Time,
    /// Conversations active in the bit-by-bit system (last finish number above R).
    pub(super) active: usize,
    /// Their last finish numbers (lazy: an entry is current if it equals `last[b]`).
    ends: BinaryHeap<Reverse<(Num, u32)>>,
    /// Last finish number of each bucket.
    last: Vec<f64>,
    /// Finish numbers of the queued packets, per bucket.
    pub(super) tags: Vec<VecDeque<f64>>,
    /// Queued heads by finish number, then arrival (lazy as `ends`).
    heads: BinaryHeap<Reverse<(Num, u64, u32)>>,
    arrivals: u64,
}

/// An f64 ordered for the heaps (finish numbers are finite).
/// Ordered as `f64`'s `partial_cmp` (so 0.0 and -0.0 tie, as the heaps have
/// always compared them), with `total_cmp` only for a NaN, which never occurs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Num(f64);
impl Eq for Num {}
impl PartialOrd for Num {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Num {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.partial_cmp(&o.0).unwrap_or_else(|| self.0.total_cmp(&o.0))
    }
}

impl Dks {
    /// A line of `rate_bps` shared by `buckets` conversations, all idle.
    pub(super) fn new(rate_bps: f64, buckets: usize) -> Dks {
        Dks {
            bytes_per_ns: rate_bps / 8e9,
            round: 0.0,
            at: 0,
            active: 0,
            ends: BinaryHeap::new(),
            last: vec![0.0; buckets],
            tags: (0..buckets).map(|_| VecDeque::new()).collect(),
            heads: BinaryHeap::new(),
            arrivals: 0,
        }
    }

    /// Advance R to `now`: it grows at bytes_per_ns / active, and each time it
    /// passes a conversation's last finish number that one leaves the
    /// bit-by-bit system (iterated deletion, as Demers, Keshav & Shenker).
    fn advance(&mut self, now: Time) {
        loop {
            // Drop stale entries, and retire conversations R has passed.
            while let Some(&Reverse((Num(f), b))) = self.ends.peek() {
                if self.last[b as usize] != f {
                    self.ends.pop();
                } else if f <= self.round {
                    self.ends.pop();
                    self.active -= 1;
                } else {
                    break;
                }
            }
            if self.at >= now {
                return;
            }
            let Some(&Reverse((Num(f), _))) = self.ends.peek() else {
                self.at = now; // nothing active: R waits
                return;
            };
            let rate = self.bytes_per_ns / self.active as f64;
            let dt = (now - self.at) as f64;
            if self.round + rate * dt < f {
                self.round += rate * dt;
                self.at = now;
            } else {
                // R reaches f before now (in whole ns, rounded up).
                let need = ((f - self.round) / rate).ceil().max(1.0) as Time;
                self.at = (self.at + need).min(now);
                self.round = f;
            }
        }
    }
}

impl Fq {
    pub(super) fn dks_enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        let b = self.bucket(&pkt);
        let d = self.queues[b].len();
        let size = pkt.size_bytes as u64;
        let x = self.dks.as_mut().expect("dks mode");
        x.advance(now);
        if x.last[b] <= x.round {
            x.active += 1;
        }
        let f = x.last[b].max(x.round) + size as f64;
        x.last[b] = f;
        x.ends.push(Reverse((Num(f), b as u32)));
        x.tags[b].push_back(f);
        x.arrivals += 1;
        if d == 0 {
            x.heads.push(Reverse((Num(f), x.arrivals, b as u32)));
        }
        self.bytes += size;
        self.queues[b].push_back(pkt);
        self.len += 1;
        self.moved(b, d);
        if self.len <= self.limit {
            return None;
        }
        // Overflow: the tail of the longest bucket, as in DRR mode. Its
        // finish number stays counted in the bit-by-bit system (the bits were
        // offered), so R is not disturbed.
        let (v, dropped) = self.drop_from_longest(b);
        self.dks.as_mut().expect("dks mode").tags[v].pop_back();
        Some(dropped)
    }

    pub(super) fn dks_dequeue(&mut self) -> Option<Packet> {
        let x = self.dks.as_mut().expect("dks mode");
        loop {
            let Reverse((Num(f), _, b)) = x.heads.pop()?;
            let b = b as usize;
            if x.tags[b].front() != Some(&f) {
                continue; // stale: that packet was dropped
            }
            x.tags[b].pop_front();
            if let Some(&g) = x.tags[b].front() {
                x.arrivals += 1;
                x.heads.push(Reverse((Num(g), x.arrivals, b as u32)));
            }
            let d = self.queues[b].len();
            let p = self.queues[b].pop_front().expect("a tag per packet");
            self.len -= 1;
            self.bytes -= p.size_bytes as u64;
            self.moved(b, d);
            return Some(p);
        }
    }
}

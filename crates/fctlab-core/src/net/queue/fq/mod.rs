//! Fair queueing as the 2012 thesis (Mussmann, "Making short flows finish
//! faster with TCP", sec. 4.1) uses it: packets are spread over `buckets`
//! per-flow queues (1000 there), served by Deficit Round Robin (Shreedhar &
//! Varghese 1995), with one buffer of `limit_pkts` shared by all of them. When
//! an arrival overfills the buffer, "the last packet in the longest queue is
//! dropped" (the thesis; ns-2 `drr.cc` and Linux `sch_sfq` also push out from
//! the longest queue, from its head and tail respectively).
//!
//! Cost per packet is O(1): DRR with a quantum of at least one packet sends at
//! least one packet per turn, and the longest queue is found through per-depth
//! lists of buckets, as Linux `sch_sfq` does (a bucket's depth changes by one
//! per enqueue or dequeue, so the maximum depth is tracked exactly).

mod dks;
mod params;

pub use params::{Classify, Discipline, FqCfg, ENTRY};

use super::Queue;
use crate::net::Packet;
use crate::sim::Time;
use dks::Dks;
use std::collections::VecDeque;

const NIL: u32 = u32::MAX;

/// A DRR fair queue with a shared buffer and longest-queue drop.
pub struct Fq {
    queues: Vec<VecDeque<Packet>>,
    deficit: Vec<u64>,
    /// Non-empty buckets in round-robin order; the front is being served.
    active: VecDeque<u32>,
    /// Per-depth doubly linked lists of buckets: `dep_head[d]` is a bucket
    /// holding d packets; `next`/`prev` link buckets of equal depth.
    dep_head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    max_depth: usize,
    len: usize,
    bytes: u64,
    limit: usize,
    quantum: u64,
    classify: Classify,
    /// Packets already queued that were pushed out by an arrival.
    pub pushed_out: u64,
    /// Buckets holding packets.
    nonempty: usize,
    dks: Option<Box<Dks>>,
}

impl Fq {
    pub fn new(c: &FqCfg, limit_pkts: usize) -> Fq {
        let n = c.buckets as usize;
        Fq {
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            deficit: vec![0; n],
            active: VecDeque::new(),
            dep_head: vec![NIL; 2],
            next: vec![NIL; n],
            prev: vec![NIL; n],
            max_depth: 0,
            len: 0,
            bytes: 0,
            limit: limit_pkts,
            quantum: c.quantum_bytes as u64,
            classify: c.classify,
            pushed_out: 0,
            nonempty: 0,
            dks: None,
        }
    }

    /// A port's fair queue: `discipline = "dks"` needs the line's rate.
    pub fn for_port(c: &FqCfg, limit_pkts: usize, rate_bps: f64) -> Fq {
        let mut q = Fq::new(c, limit_pkts);
        if c.discipline == Discipline::Dks {
            q.dks = Some(Box::new(Dks::new(rate_bps, c.buckets as usize)));
        }
        q
    }

    fn bucket(&self, p: &Packet) -> usize {
        let key = match self.classify {
            Classify::Flow => p.flow,
            Classify::Path => p.path,
        };
        key as usize % self.queues.len()
    }

    fn unlink(&mut self, b: usize, depth: usize) {
        let (p, n) = (self.prev[b], self.next[b]);
        if p == NIL {
            self.dep_head[depth] = n
        } else {
            self.next[p as usize] = n
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
    }

    fn link(&mut self, b: usize, depth: usize) {
        if depth >= self.dep_head.len() {
            self.dep_head.resize(depth + 1, NIL);
        }
        let h = self.dep_head[depth];
        self.next[b] = h;
        self.prev[b] = NIL;
        if h != NIL {
            self.prev[h as usize] = b as u32;
        }
        self.dep_head[depth] = b as u32;
    }

    /// Bucket `b` went from depth `from` to `from ± 1` (its queue already changed).
    fn moved(&mut self, b: usize, from: usize) {
        let to = self.queues[b].len();
        if from == 0 && to > 0 {
            self.nonempty += 1;
        } else if from > 0 && to == 0 {
            self.nonempty -= 1;
        }
        if from > 0 {
            self.unlink(b, from);
        }
        if to > 0 {
            self.link(b, to);
        }
        // Depths move by one, so the maximum either rises to `to` or, when the
        // last bucket at the maximum shrank, falls to it.
        if to > self.max_depth || (from == self.max_depth && self.dep_head[from] == NIL) {
            self.max_depth = to;
        }
    }

    /// Current number of packets in the longest bucket.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// Packets queued in bucket `b`.
    pub fn bucket_len(&self, b: usize) -> usize {
        self.queues[b].len()
    }

    /// The bucket `p` is queued in.
    pub fn bucket_of(&self, p: &Packet) -> usize {
        self.bucket(p)
    }

    /// Buckets holding packets (those in the round).
    pub fn backlogged(&self) -> usize {
        self.nonempty
    }

    /// On overflow: drop the last packet of the longest bucket (the arrival's
    /// own bucket `b` when it is among the longest); returns the bucket and
    /// the packet.
    fn drop_from_longest(&mut self, b: usize) -> (usize, Packet) {
        let v = if self.queues[b].len() == self.max_depth {
            b
        } else {
            self.dep_head[self.max_depth] as usize
        };
        let dv = self.queues[v].len();
        let dropped = self.queues[v].pop_back().expect("the longest bucket holds a packet");
        self.len -= 1;
        self.bytes -= dropped.size_bytes as u64;
        self.moved(v, dv);
        if v != b {
            self.pushed_out += 1;
        }
        (v, dropped)
    }
}

impl Queue for Fq {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        if self.dks.is_some() {
            return self.dks_enqueue(now, pkt);
        }
        let b = self.bucket(&pkt);
        let d = self.queues[b].len();
        if d == 0 {
            // A newly active bucket joins the end of the round with a full
            // quantum (Linux sch_drr; the same decisions as the paper's DC = 0
            // then DC += quantum at the start of its turn).
            self.active.push_back(b as u32);
            self.deficit[b] = self.quantum;
        }
        self.bytes += pkt.size_bytes as u64;
        self.queues[b].push_back(pkt);
        self.len += 1;
        self.moved(b, d);
        if self.len <= self.limit {
            return None;
        }
        // Overflow: drop the last packet of the longest bucket, the arrival's
        // own bucket when it is among the longest.
        let (v, dropped) = self.drop_from_longest(b);
        if self.queues[v].is_empty() {
            // Only when every bucket held at most one packet, so v is the
            // arrival's bucket, activated above at the back of the round.
            debug_assert_eq!(self.active.back(), Some(&(v as u32)));
            self.active.pop_back();
        }
        Some(dropped)
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        if self.dks.is_some() {
            return self.dks_dequeue();
        }
        loop {
            let b = *self.active.front()? as usize;
            let size = self.queues[b].front().expect("active buckets are not empty").size_bytes as u64;
            if size <= self.deficit[b] {
                self.deficit[b] -= size;
                let d = self.queues[b].len();
                let p = self.queues[b].pop_front().expect("checked above");
                self.len -= 1;
                self.bytes -= size;
                self.moved(b, d);
                if self.queues[b].is_empty() {
                    self.active.pop_front();
                    self.deficit[b] = 0;
                }
                return Some(p);
            }
            // Turn over: the next turn's quantum, and to the back of the round.
            self.deficit[b] += self.quantum;
            self.active.rotate_left(1);
        }
    }

    fn len_pkts(&self) -> usize {
        self.len
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn limit_pkts(&self) -> Option<usize> {
        Some(self.limit)
    }

    #[inline]
    fn pass_through(&mut self, now: Time, pkt: Packet) -> Result<Packet, Packet> {
        if self.dks.is_some() {
            // The packet still takes its finish number in the bit-by-bit system.
            if let Some(d) = self.dks_enqueue(now, pkt) {
                return Err(d);
            }
            return Ok(self.dks_dequeue().expect("just queued"));
        }
        // An empty queue on an idle link: DRR would send it at once and keep no state.
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

    fn p(flow: u32, size: u32, seq: u64) -> Packet {
        Packet::new(flow, PacketKind::Data, size, seq, 0)
    }
    fn cfg(buckets: u32, quantum: u32) -> FqCfg {
        FqCfg {
            buckets,
            quantum_bytes: quantum,
            classify: Classify::Flow,
            discipline: Discipline::Drr,
        }
    }

    #[test]
    fn drr_hand_trace() {
        // Quantum 500 B. Flow A: 4 × 200 B, flow B: 2 × 600 B, flow C: 3 × 300 B,
        // all queued before the first dequeue; round order A, B, C.
        //   round 1: A DC 500: A0 (300 left), A1 (100 left), A2 200 > 100: turn over, DC 600
        //            B DC 500: B0 600 > 500: turn over, DC 1000
        //            C DC 500: C0 (200 left), C1 300 > 200: turn over, DC 700
        //   round 2: A DC 600: A2 (400), A3 (200), A empty: leaves, DC 0
        //            B DC 1000: B0 (400), B1 600 > 400: turn over, DC 900
        //            C DC 700: C1 (400), C2 (100), C empty
        //   round 3: B DC 900: B1, empty.
        let mut q = Fq::new(&cfg(10, 500), 100);
        for s in 0..4 {
            q.enqueue(0, p(0, 200, s));
        }
        for s in 0..2 {
            q.enqueue(0, p(1, 600, s));
        }
        for s in 0..3 {
            q.enqueue(0, p(2, 300, s));
        }
        let order: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue(0)).map(|x| (x.flow, x.seq)).collect();
        assert_eq!(
            order,
            vec![(0, 0), (0, 1), (2, 0), (0, 2), (0, 3), (1, 0), (2, 1), (2, 2), (1, 1)]
        );
        assert_eq!((q.len_pkts(), q.len_bytes(), q.max_depth()), (0, 0, 0));
    }

    #[test]
    fn a_newly_active_flow_joins_the_end_of_the_round() {
        // Quantum 1000, 1000 B packets: one packet per turn. A has 3, B has 1.
        // A0 leaves (A's turn is used up but A is still at the front); then C
        // arrives and is appended behind B. A's turn ends, A goes behind C:
        // B0, C0, A1, A2 (the paper's ActiveList order).
        let mut q = Fq::new(&cfg(10, 1000), 100);
        for s in 0..3 {
            q.enqueue(0, p(0, 1000, s));
        }
        q.enqueue(0, p(1, 1000, 0));
        assert_eq!(q.dequeue(0).map(|x| (x.flow, x.seq)), Some((0, 0)));
        q.enqueue(0, p(2, 1000, 0));
        let order: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue(0)).map(|x| (x.flow, x.seq)).collect();
        assert_eq!(order, vec![(1, 0), (2, 0), (0, 1), (0, 2)]);
    }

    #[test]
    fn a_pairs_acks_leave_a_busy_port_in_one_turn() {
        // Two-way traffic on a 40 Mb/s port, quantum one 500 B packet: reverse
        // data of flows 1 and 2 (500 B, 100 us each) is backlogged. ACK 1 of
        // flow 0 (40 B) arrives; its bucket joins the end of the round, behind
        // one turn of flow 1 and one of flow 2 (200 us). ACK 2 arrives 100 us
        // later (the pair's spacing at a forward bottleneck serving one packet
        // per 100 us), before ACK 1's turn, so both leave in that turn, back to
        // back: 8 us apart on the line instead of 100 us. This is what turns
        // packet-pair's estimate into the reverse line's rate under two-way
        // traffic (kanakia1991 Table 4.6).
        let mut q = Fq::new(&cfg(10, 500), 100);
        for s in 0..3 {
            q.enqueue(0, p(1, 500, s));
            q.enqueue(0, p(2, 500, s));
        }
        let mut a1 = p(0, 40, 1);
        a1.kind = PacketKind::Ack;
        let mut a2 = p(0, 40, 2);
        a2.kind = PacketKind::Ack;
        q.enqueue(0, a1);
        let first = q.dequeue(0).map(|x| (x.flow, x.seq)); // 0-100 us
        q.enqueue(100_000, a2);
        let rest: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue(0))
            .take(3)
            .map(|x| (x.flow, x.seq))
            .collect();
        assert_eq!(first, Some((1, 0)));
        assert_eq!(
            rest,
            vec![(2, 0), (0, 1), (0, 2)],
            "the two ACKs leave one after the other"
        );
    }

    #[test]
    fn under_dks_fair_queueing_a_pairs_acks_keep_their_spacing() {
        // The same arrivals as above under Demers, Keshav & Shenker's fair
        // queueing on a 40 Mb/s port (5 bytes per us). At 0: flows 1 and 2
        // queue three 500 B packets each (R = 0, finish numbers 500, 1000,
        // 1500 each); flow 1's first leaves (0-100 us). ACK 1 (40 B) arrives at
        // 50 us: R has grown at 5/2 bytes per us to 125, so F = 165 < 500: it
        // leaves next (100-108 us), then flow 2's first (108-208 us). ACK 2
        // arrives at 150 us: R reached 165 at 74 us (three conversations: 5/3
        // per us), when ACK 1's conversation left the bit-by-bit system, then
        // grew at 5/2 per us to 355; F = 395 < 1000: it leaves at 208 us,
        // 108 us after ACK 1 (DRR: 8 us).
        let c = FqCfg {
            discipline: Discipline::Dks,
            ..cfg(10, 500)
        };
        let mut q = Fq::for_port(&c, 100, 40e6);
        for s in 0..3 {
            q.enqueue(0, p(1, 500, s));
            q.enqueue(0, p(2, 500, s));
        }
        let mut a1 = p(0, 40, 1);
        a1.kind = PacketKind::Ack;
        let mut a2 = p(0, 40, 2);
        a2.kind = PacketKind::Ack;
        let mut order = vec![q.dequeue(0)];
        q.enqueue(50_000, a1);
        assert!((q.dks.as_ref().unwrap().round - 125.0).abs() < 1e-9);
        order.push(q.dequeue(100_000));
        order.push(q.dequeue(108_000));
        q.enqueue(150_000, a2);
        // 355 up to the whole-ns rounding of the moment R reached 165.
        assert!(
            (q.dks.as_ref().unwrap().round - 355.0).abs() < 0.01,
            "{}",
            q.dks.as_ref().unwrap().round
        );
        order.push(q.dequeue(208_000));
        let order: Vec<(u32, u64)> = order.into_iter().map(|x| x.map(|x| (x.flow, x.seq)).unwrap()).collect();
        assert_eq!(order, vec![(1, 0), (0, 1), (2, 0), (0, 2)]);
        // The rest by finish number (ties by arrival): 1000, 1000, 1500, 1500.
        let rest: Vec<(u32, u64)> = std::iter::from_fn(|| q.dequeue(0)).map(|x| (x.flow, x.seq)).collect();
        assert_eq!(rest, vec![(1, 1), (2, 1), (1, 2), (2, 2)]);
        assert_eq!((q.len_pkts(), q.len_bytes(), q.backlogged()), (0, 0, 0));
    }

    #[test]
    fn dks_conserves_packets_and_keeps_its_counts_under_random_load() {
        use rand::{Rng, SeedableRng};
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let c = FqCfg {
            discipline: Discipline::Dks,
            ..cfg(16, 700)
        };
        let mut q = Fq::for_port(&c, 40, 10e6);
        let (mut now, mut inn, mut out, mut dropped) = (0, 0u64, 0u64, 0u64);
        for i in 0..20_000u64 {
            now += r.random_range(0..2_000_000);
            if r.random_bool(0.55) {
                let f = r.random_range(0..24);
                inn += 1;
                dropped += q.enqueue(now, p(f, r.random_range(40..1500), i)).is_some() as u64;
            } else {
                out += q.dequeue(now).is_some() as u64;
            }
            assert!(q.len_pkts() <= 40);
            assert_eq!(q.len_pkts() as u64, inn - out - dropped);
            assert_eq!(q.backlogged(), (0..16).filter(|&b| q.bucket_len(b) > 0).count());
            let x = q.dks.as_ref().unwrap();
            assert!(x.active <= 16 && (0..16).all(|b| x.tags[b].len() == q.bucket_len(b)));
        }
    }

    #[test]
    fn overflow_drops_the_tail_of_the_longest_bucket() {
        // Limit 5: flow 0 holds 3, flow 1 holds 2. A packet of flow 2 arrives:
        // flow 0's last packet (seq 2) goes, flow 2's packet stays.
        let mut q = Fq::new(&cfg(10, 1040), 5);
        for s in 0..3 {
            assert!(q.enqueue(0, p(0, 1040, s)).is_none());
        }
        for s in 0..2 {
            assert!(q.enqueue(0, p(1, 1040, s)).is_none());
        }
        let d = q.enqueue(0, p(2, 1040, 0)).unwrap();
        assert_eq!((d.flow, d.seq), (0, 2));
        assert_eq!(
            (
                q.len_pkts(),
                q.bucket_len(0),
                q.bucket_len(1),
                q.bucket_len(2),
                q.pushed_out
            ),
            (5, 2, 2, 1, 1)
        );
        // Now 2, 2, 1: flow 1's arrival ties with flow 0 at the new maximum 3 and is itself dropped.
        let d = q.enqueue(0, p(1, 1040, 2)).unwrap();
        assert_eq!((d.flow, d.seq), (1, 2));
        assert_eq!(q.max_depth(), 2);
        // Drain: every bucket empties and the depth lists with them.
        let mut n = 0;
        while q.dequeue(0).is_some() {
            n += 1;
        }
        assert_eq!((n, q.max_depth(), q.len_bytes()), (5, 0, 0));
    }

    #[test]
    fn one_packet_per_bucket_overflow_drops_the_arrival() {
        let mut q = Fq::new(&cfg(10, 1040), 2);
        q.enqueue(0, p(0, 100, 0));
        q.enqueue(0, p(1, 100, 0));
        let d = q.enqueue(0, p(2, 100, 0)).unwrap();
        assert_eq!(d.flow, 2);
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(0)).map(|x| x.flow).collect();
        assert_eq!(order, vec![0, 1]);
        // Limit 0 drops everything.
        let mut q = Fq::new(&cfg(10, 1040), 0);
        assert!(q.enqueue(0, p(0, 100, 0)).is_some());
        assert!(q.dequeue(0).is_none());
        assert!(q.pass_through(0, p(0, 100, 0)).is_err());
    }

    #[test]
    fn flows_share_buckets_modulo_and_paths_classify_by_route() {
        let mut q = Fq::new(&cfg(4, 1040), 100);
        q.enqueue(0, p(1, 100, 0));
        q.enqueue(0, p(5, 100, 0));
        assert_eq!(q.bucket_len(1), 2);
        let c = FqCfg {
            buckets: 4,
            quantum_bytes: 1040,
            classify: Classify::Path,
            discipline: Discipline::Drr,
        };
        let mut q = Fq::new(&c, 100);
        let mut a = p(1, 100, 0);
        a.path = 2;
        let mut b = p(7, 100, 0);
        b.path = 2;
        q.enqueue(0, a);
        q.enqueue(0, b);
        assert_eq!(q.bucket_len(2), 2);
    }

    #[test]
    fn longest_tracking_matches_a_scan_under_random_load() {
        use rand::{Rng, SeedableRng};
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut q = Fq::new(&cfg(16, 700), 40);
        for i in 0..20_000u64 {
            if r.random_bool(0.55) {
                let f = r.random_range(0..24);
                q.enqueue(0, p(f, r.random_range(40..1500), i));
            } else {
                q.dequeue(0);
            }
            let scan = (0..16).map(|b| q.bucket_len(b)).max().unwrap();
            assert_eq!(q.max_depth(), scan);
            assert!(q.len_pkts() <= 40);
            assert_eq!(q.len_pkts(), (0..16).map(|b| q.bucket_len(b)).sum::<usize>());
            assert_eq!(q.active.len(), (0..16).filter(|&b| q.bucket_len(b) > 0).count());
        }
    }

    #[test]
    fn config_checks() {
        assert!(FqCfg::default().validate("network.fq").is_ok());
        assert_eq!(
            FqCfg {
                buckets: 0,
                ..Default::default()
            }
            .validate("network.fq")
            .unwrap_err()
            .field,
            "network.fq.buckets"
        );
        assert_eq!(
            FqCfg {
                quantum_bytes: 0,
                ..Default::default()
            }
            .validate("network.fq")
            .unwrap_err()
            .field,
            "network.fq.quantum_bytes"
        );
    }
}

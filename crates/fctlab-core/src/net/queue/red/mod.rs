//! RED: Random Early Detection (Floyd & Jacobson 1993) with the details of
//! ns-2's `queue/red.cc`: the average is updated on every arrival and decays
//! over idle time; drops are spread by the count since the last one (`wait_`);
//! the gentle region between max_th and 2·max_th (Floyd 2000); optional byte
//! mode; automatic thresholds from a target delay and an automatic queue
//! weight (Floyd, Gummadi & Shenker 2001, "Adaptive RED"); optional adaptive
//! max_p; and ECN marking instead of early drops (RFC 3168, ns-2 `setbit_`).
//! Two options model ns-3's `RedQueueDisc` (`src/traffic-control/model/
//! red-queue-disc.cc`, a port of `red.cc`) where it differs: a device queue
//! of one packet below RED (`device_queue_pkts`) and a count since the last
//! drop that forced drops leave running (`forced_drop_count`).
//!
//! Every default below is ns-2's (`tcl/lib/ns-default.tcl`, `red.cc`) unless
//! the comment says otherwise.

mod formulas;
mod params;

pub use formulas::{auto_thresholds, auto_weight, p_a, p_b, ptc};
pub use params::{RedCfg, ENTRY, ENTRY_ECN};

use super::{DropTail, PortParams, Queue};
use crate::net::packet::flags;
use crate::net::Packet;
use crate::sim::{stream_rng, tx_time_ns, Rng, Time, NS_PER_S};
use rand::Rng as _;

/// Adaptive RED constants (ns-2 `interval_` 0.5 s, `alpha_` 0.01, `beta_` 0.9,
/// `top_` 0.5; `bottom_` 0 = automatic, min(0.01, 80000/C)).
const ADAPT_INTERVAL_NS: Time = NS_PER_S / 2;
const ADAPT_ALPHA: f64 = 0.01;
const ADAPT_BETA: f64 = 0.9;
const ADAPT_TOP: f64 = 0.5;

/// What RED did, for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Early (probabilistic) drops; with `forced_drop_count = "keep"` also
    /// the forced drops above 2·max_th (max_th without gentle).
    pub early_drops: u64,
    /// Arrivals to a full buffer.
    pub forced_drops: u64,
    /// Packets marked CE instead of dropped.
    pub marks: u64,
}

/// A RED queue on one port.
pub struct Red {
    /// The packets waiting: a DropTail FIFO.
    fifo: DropTail,
    rate_bps: f64,
    // Parameters, resolved for this port.
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w: f64,
    pub ptc: f64,
    bottom: f64,
    gentle: bool,
    adaptive: bool,
    wait: bool,
    byte_mode: bool,
    ecn: bool,
    mark_p: f64,
    mean_pktsize: f64,
    /// `device_queue_pkts` = 1.
    device_queue: bool,
    /// `forced_drop_count` = "keep".
    keep_count: bool,
    /// `instantaneous`.
    instantaneous: bool,
    // State.
    /// The average queue (packets, or bytes / mean_pktsize in byte mode).
    pub avg: f64,
    /// Arrivals since the last early drop or mark (ns-2 `count`, `count_bytes`).
    count: u64,
    count_bytes: u64,
    /// Whether the average was above min_th at the last arrival (ns-2 `old`).
    old: bool,
    /// When the link went idle (finished sending the last queued packet).
    idle_since: Option<Time>,
    last_set: Time,
    /// With `device_queue`: when the last packet left for the wire.
    last_dequeue: Option<Time>,
    rng: Rng,
    pub stats: RedStats,
}

impl Red {
    /// A RED queue for a port, from a checked table.
    pub fn new(c: &RedCfg, p: PortParams) -> Red {
        let ptc = ptc(p.rate_bps, c.mean_pktsize);
        let (mut min_th, mut max_th) = (c.min_th, c.max_th);
        if min_th == 0.0 {
            (min_th, max_th) = auto_thresholds(ptc, c.target_delay_ms / 1e3);
        } else if max_th == 0.0 {
            max_th = 3.0 * min_th;
        }
        let w = if c.q_weight == -1.0 {
            auto_weight(ptc, p.delay_ns as f64 / 1e9)
        } else {
            c.q_weight
        };
        Red {
            fifo: DropTail::new(p.limit_pkts),
            rate_bps: p.rate_bps,
            min_th,
            max_th,
            max_p: c.max_p,
            w,
            ptc,
            bottom: f64::min(0.01, 80_000.0 / p.rate_bps),
            gentle: c.gentle,
            adaptive: c.adaptive,
            wait: c.wait,
            byte_mode: c.byte_mode,
            ecn: c.ecn,
            mark_p: c.mark_p,
            mean_pktsize: c.mean_pktsize as f64,
            device_queue: c.device_queue_pkts == 1,
            keep_count: c.forced_drop_count == "keep",
            instantaneous: c.instantaneous,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: Some(0),
            last_set: 0,
            last_dequeue: None,
            rng: stream_rng(p.seed, p.stream),
            stats: RedStats::default(),
        }
    }

    /// The packets RED holds at `now`: all that wait, or with `device_queue`
    /// those above the device queue's packet. A departure empties the device
    /// queue, and it takes the next packet only after the arrivals of that
    /// instant (ns-3 `NetDeviceQueue::PacketDequeued` wakes the queue disc by
    /// an event scheduled for now), so at that instant RED holds them all.
    fn red_pkts(&self, now: Time) -> usize {
        let n = self.fifo.len_pkts();
        if self.device_queue && self.last_dequeue != Some(now) {
            n.saturating_sub(1)
        } else {
            n
        }
    }

    /// The queue as RED measures it.
    fn measure(&self, now: Time) -> f64 {
        if self.byte_mode {
            self.fifo.len_bytes() as f64 / self.mean_pktsize
        } else {
            self.red_pkts(now) as f64
        }
    }

    /// Update the average for an arrival at `now` (ns-2 `estimator`): after an
    /// idle period, decay as if m = ⌊ptc·t_idle⌋ empty-queue arrivals happened.
    fn update_avg(&mut self, now: Time) {
        let mut m = 0.0;
        if let Some(t) = self.idle_since.take() {
            if now > t {
                m = (self.ptc * (now - t) as f64 / 1e9).floor();
            }
        }
        let decay = libm::pow(1.0 - self.w, m + 1.0);
        self.avg = self.avg * decay + self.w * self.measure(now);
        if self.adaptive && now > self.last_set + ADAPT_INTERVAL_NS {
            self.adapt(now);
        }
    }

    /// Adaptive RED (Floyd, Gummadi & Shenker 2001, fig. 2; ns-2 `updateMaxP`):
    /// steer the average into [min + 0.4(max−min), max − 0.4(max−min)].
    fn adapt(&mut self, now: Time) {
        let part = 0.4 * (self.max_th - self.min_th);
        if self.avg < self.min_th + part && self.max_p > self.bottom {
            self.max_p *= ADAPT_BETA;
            self.last_set = now;
        } else if self.avg > self.max_th - part && self.max_p < ADAPT_TOP {
            self.max_p += f64::min(ADAPT_ALPHA, self.max_p / 4.0);
            self.last_set = now;
        }
    }
}

impl Red {
    /// `instantaneous`: mark or drop with probability 0 up to min_th, linear
    /// to max_p at max_th, 1 above, on the queue the arrival finds (HPCC's
    /// `SwitchMmu::ShouldSendCN`), one independent draw per packet.
    fn enqueue_instantaneous(&mut self, now: Time, mut pkt: Packet) -> Option<Packet> {
        let q = self.measure(now);
        let hit = if q > self.max_th {
            true
        } else if q > self.min_th {
            let p = self.max_p * (q - self.min_th) / (self.max_th - self.min_th);
            self.rng.random::<f64>() < p
        } else {
            false
        };
        if hit {
            if self.ecn && pkt.flags & flags::ECT != 0 {
                pkt.flags |= flags::CE;
                self.stats.marks += 1;
            } else {
                self.stats.early_drops += 1;
                return Some(pkt);
            }
        }
        let dropped = self.fifo.enqueue(now, pkt);
        if dropped.is_some() {
            self.stats.forced_drops += 1;
        }
        dropped
    }
}

impl Queue for Red {
    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Option<Packet> {
        if self.instantaneous {
            return self.enqueue_instantaneous(now, pkt);
        }
        self.update_avg(now);
        self.count += 1;
        self.count_bytes += pkt.size_bytes as u64;
        let qlen = self.red_pkts(now);
        if self.avg >= self.min_th && qlen > 1 {
            let forced = if self.gentle {
                self.avg >= 2.0 * self.max_th
            } else {
                self.avg >= self.max_th
            };
            if self.keep_count && forced {
                // ns-3: a forced drop, checked first, and the count runs on.
                self.stats.early_drops += 1;
                return Some(pkt);
            }
            if !self.old {
                // The average just crossed min_th: start counting (ns-2).
                self.old = true;
                self.count = 1;
                self.count_bytes = pkt.size_bytes as u64;
            } else {
                let pb = p_b(self.avg, self.min_th, self.max_th, self.max_p, self.gentle);
                let (count, ratio) = if self.byte_mode {
                    (
                        (self.count_bytes as f64 / self.mean_pktsize).floor(),
                        pkt.size_bytes as f64 / self.mean_pktsize,
                    )
                } else {
                    (self.count as f64, 1.0)
                };
                let pa = p_a(pb, count, self.wait, ratio);
                if self.rng.random::<f64>() < pa {
                    self.count = 0;
                    self.count_bytes = 0;
                    if self.ecn && pkt.flags & flags::ECT != 0 && pb <= self.mark_p {
                        pkt.flags |= flags::CE;
                        self.stats.marks += 1;
                    } else {
                        self.stats.early_drops += 1;
                        return Some(pkt);
                    }
                }
            }
        } else {
            self.old = false;
        }
        // A full buffer always drops the arrival, marked or not. With the
        // device queue RED's own limit is the buffer less that packet.
        let dropped = if self.device_queue && qlen >= self.fifo.limit_pkts().unwrap_or(usize::MAX).saturating_sub(1) {
            Some(pkt)
        } else {
            self.fifo.enqueue(now, pkt)
        };
        if dropped.is_some() {
            self.stats.forced_drops += 1;
            if !self.keep_count {
                self.count = 0;
                self.count_bytes = 0;
            }
        }
        dropped
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.fifo.dequeue(now)?;
        if self.device_queue {
            self.last_dequeue = Some(now);
        }
        if self.fifo.len_pkts() == 0 {
            self.idle_since = Some(if self.device_queue {
                // ns-3: the empty queue disc is asked for a packet as soon as
                // this one leaves the device queue for the wire.
                now
            } else {
                // The link goes idle once this packet is serialised.
                now + tx_time_ns(p.size_bytes as u64, self.rate_bps)
            });
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
        self.fifo.limit_pkts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn port(rate_bps: f64, delay_ns: Time, limit: usize) -> PortParams {
        PortParams {
            limit_pkts: limit,
            rate_bps,
            delay_ns,
            seed: 1,
            stream: 9,
        }
    }
    fn pkt(seq: u64) -> Packet {
        Packet::new(0, PacketKind::Data, 1040, seq, 0)
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn probability_formulas() {
        // min 5, max 15, max_p 0.1: halfway, p_b = 0.05.
        assert!(close(p_b(10.0, 5.0, 15.0, 0.1, true), 0.05));
        assert_eq!(p_b(4.99, 5.0, 15.0, 0.1, true), 0.0);
        // Gentle: at max_th p_b = max_p; halfway to 2·max_th it is (1 + max_p)/2; 1 from 2·max_th on.
        assert!(close(p_b(15.0, 5.0, 15.0, 0.1, true), 0.1));
        assert!(close(p_b(22.5, 5.0, 15.0, 0.1, true), 0.55));
        assert_eq!(p_b(30.0, 5.0, 15.0, 0.1, true), 1.0);
        assert_eq!(p_b(40.0, 5.0, 15.0, 0.1, true), 1.0);
        // Not gentle: 1 at and above max_th.
        assert_eq!(p_b(15.0, 5.0, 15.0, 0.1, false), 1.0);
        // wait_: nothing while count·p_b < 1; then p_b / (2 − count·p_b); 1 from count·p_b = 2.
        assert_eq!(p_a(0.05, 19.0, true, 1.0), 0.0);
        assert!(close(p_a(0.05, 20.0, true, 1.0), 0.05));
        assert!(close(p_a(0.05, 30.0, true, 1.0), 0.1));
        assert_eq!(p_a(0.05, 40.0, true, 1.0), 1.0);
        // Without wait_: p_b / (1 − count·p_b).
        assert!(close(p_a(0.05, 10.0, false, 1.0), 0.1));
        assert_eq!(p_a(0.05, 20.0, false, 1.0), 1.0);
        // Byte mode scales by size / mean size.
        assert!(close(p_a(0.05, 10.0, false, 0.5), 0.05));
    }

    #[test]
    fn automatic_thresholds_and_weight() {
        // 10 Mb/s, 1040 B: ptc = 1e7 / 8320 = 1201.92 pkts/s; target 5 ms gives
        // 6.0096 pkts; half is 3.0 < 5, so min 5, max 15.
        let q = Red::new(&RedCfg::default(), port(10e6, 10_000_000, 100));
        assert!(close(q.ptc, 1e7 / 8320.0));
        assert_eq!((q.min_th, q.max_th), (5.0, 15.0));
        // RTT = max(0.1, 3(0.01 + 1/ptc)) = 0.1: w = 1 − exp(−1/(10 · 0.1 · ptc)).
        assert!(close(q.w, 1.0 - (-8320.0f64 / 1e7).exp()));
        // 1 Gb/s: ptc = 1e9/8320 = 120192.3; min = 0.005 · ptc / 2 = 300.48, max 901.44.
        let q = Red::new(&RedCfg::default(), port(1e9, 50_000_000, 10_000));
        assert!(close(q.min_th, 0.005 * 1e9 / 8320.0 / 2.0));
        assert!(close(q.max_th, 3.0 * 0.005 * 1e9 / 8320.0 / 2.0));
        // Delay 50 ms: RTT = 3(0.05 + 1/ptc) > 0.1.
        let rtt = 3.0 * (0.05 + 8320.0 / 1e9);
        assert!(close(q.w, 1.0 - (-1.0f64 / (10.0 * rtt * 1e9 / 8320.0)).exp()));
        // min_th given alone: max = 3 min.
        let c = RedCfg {
            min_th: 7.0,
            q_weight: 0.002,
            ..Default::default()
        };
        let q = Red::new(&c, port(10e6, 0, 100));
        assert_eq!((q.min_th, q.max_th, q.w), (7.0, 21.0, 0.002));
    }

    #[test]
    fn average_is_an_ewma_of_arrivals_and_decays_when_idle() {
        let c = RedCfg {
            min_th: 50.0,
            max_th: 90.0,
            q_weight: 0.25,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(8.32e6, 0, 100)); // 1 ms per 1040 B packet: ptc = 1000/s
                                                        // Arrivals at t = 0 see queues 0, 1, 2, 3 (nothing leaves).
        let mut want = 0.0;
        for i in 0..4 {
            assert!(q.enqueue(0, pkt(i)).is_none());
            want = 0.75 * want + 0.25 * i as f64;
            assert!(close(q.avg, want));
        }
        // Drain: the last packet leaves at 10 ms and is serialised by 11 ms.
        for _ in 0..4 {
            q.dequeue(10_000_000);
        }
        // An arrival at 11 ms + 7.5 ms: m = ⌊1000 · 0.0075⌋ = 7, so avg·0.75^8 + 0.25 · 0.
        q.enqueue(18_500_000, pkt(9));
        assert!(
            close(q.avg, want * 0.75f64.powi(8)),
            "{} vs {}",
            q.avg,
            want * 0.75f64.powi(8)
        );
        // A busy link gives no decay: the next arrival sees queue 1.
        let before = q.avg;
        q.enqueue(18_600_000, pkt(10));
        assert!(close(q.avg, 0.75 * before + 0.25));
    }

    #[test]
    fn early_drop_rate_follows_p_a_and_ecn_marks_instead() {
        // Hold the average at 10 (min 5, max 15, max_p 0.1: p_b = 0.05) with
        // w = 1 and a queue kept at 10 packets, and count the early drops.
        let run = |ecn: bool, ect: bool| {
            let c = RedCfg {
                min_th: 5.0,
                max_th: 15.0,
                q_weight: 1.0,
                ecn,
                ..Default::default()
            };
            let mut q = Red::new(&c, port(10e6, 0, 1000));
            for i in 0..10 {
                q.enqueue(0, pkt(i));
            }
            let n = 200_000;
            for i in 0..n {
                let mut p = pkt(i);
                if ect {
                    p.flags |= flags::ECT;
                }
                if let Some(d) = q.enqueue(0, p) {
                    assert_eq!(d.flags & flags::CE, 0);
                    continue;
                }
                // Keep the queue at 10 packets; the one leaving is the oldest.
                q.dequeue(0);
            }
            (q.stats, n)
        };
        // The k-th arrival after a drop is dropped with p_a = 0 for k·p_b < 1 and
        // p_b/(2 − k·p_b) for 1 <= k·p_b < 2: survival to k telescopes to
        // (2 − (k+1)p_b)/(2 − 20 p_b), so the gap is uniform on {20, ..., 39}
        // (Floyd & Jacobson 1993 sec. 7): mean 29.5 arrivals per drop. Over
        // ~6800 gaps of sd 5.8 the fraction's relative error is ~0.25%; allow 2%.
        let mean_gap = (20..40).map(|k| k as f64).sum::<f64>() / 20.0;
        let (s, n) = run(false, true);
        let frac = s.early_drops as f64 / n as f64;
        assert_eq!(s.marks, 0);
        assert!(
            (frac * mean_gap - 1.0).abs() < 0.02,
            "drop fraction {frac}, expected {}",
            1.0 / mean_gap
        );
        // With ECN on and ECT packets, the same decisions become marks (p_b 0.05 <= mark_p 0.1).
        let (s, _) = run(true, true);
        assert_eq!(s.early_drops, 0);
        assert!((s.marks as f64 / n as f64 * mean_gap - 1.0).abs() < 0.02);
        // Non-ECT packets are still dropped.
        let (s, _) = run(true, false);
        assert_eq!(s.marks, 0);
        assert!(s.early_drops > 0);
    }

    #[test]
    fn full_buffer_always_drops_even_with_ecn() {
        let c = RedCfg {
            min_th: 50.0,
            max_th: 90.0,
            ecn: true,
            mark_p: 1.0,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(10e6, 0, 3));
        let mut p = pkt(0);
        p.flags |= flags::ECT;
        for _ in 0..3 {
            assert!(q.enqueue(0, p).is_none());
        }
        assert!(q.enqueue(0, p).is_some());
        assert_eq!(
            q.stats,
            RedStats {
                early_drops: 0,
                forced_drops: 1,
                marks: 0
            }
        );
        assert_eq!(q.len_pkts(), 3);
    }

    #[test]
    fn above_mark_p_ecn_capable_packets_are_dropped() {
        // Average pinned at 2·max_th (w = 1, 8 packets queued): p_b = 1 > mark_p
        // 0.1 and p_a = 1 whatever the count, so the ECN-capable arrival is dropped.
        let c = RedCfg {
            min_th: 2.0,
            max_th: 4.0,
            q_weight: 1.0,
            ecn: true,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(10e6, 0, 100));
        let mut i = 0;
        while q.len_pkts() < 8 {
            q.enqueue(0, pkt(i));
            i += 1;
        }
        let before = q.stats;
        let mut p = pkt(99);
        p.flags |= flags::ECT;
        assert!(q.enqueue(0, p).is_some());
        assert_eq!(q.stats.early_drops, before.early_drops + 1);
        assert_eq!(q.stats.marks, before.marks);
    }

    #[test]
    fn adaptive_red_moves_max_p() {
        let c = RedCfg {
            min_th: 5.0,
            max_th: 15.0,
            q_weight: 1.0,
            adaptive: true,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(10e6, 0, 1000));
        // First arrival after 0.5 s, empty queue (avg 0 < min + 0.4(max − min) = 9): max_p × 0.9.
        let t0 = NS_PER_S / 2 + 1;
        q.enqueue(t0, pkt(0));
        assert!(close(q.max_p, 0.09));
        q.dequeue(t0);
        // Within 0.5 s of that change nothing moves: 12 arrivals at 0.6 s bring
        // the average to 11 (no early drop: count·p_b stays below 1).
        for i in 0..12 {
            assert!(q.enqueue(NS_PER_S * 6 / 10, pkt(i)).is_none());
        }
        assert!(close(q.max_p, 0.09));
        // At 1.1 s the average is 12 > max − 0.4(max − min) = 11: max_p += min(0.01, max_p/4).
        q.enqueue(NS_PER_S * 11 / 10, pkt(12));
        assert!(close(q.avg, 12.0));
        assert!(close(q.max_p, 0.1));
    }

    #[test]
    fn device_queue_hides_one_packet_except_at_a_departure_instant() {
        // ns-3: RED over a device queue of one packet. Buffer 5 = RED's 4 + 1.
        // q_weight 1, so the average is the last arrival's measure.
        let c = RedCfg {
            min_th: 50.0,
            max_th: 90.0,
            q_weight: 1.0,
            device_queue_pkts: 1,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(8.32e6, 0, 5));
        // p0 reaches the idle link and goes straight on (in at 0, out at 0).
        assert!(q.enqueue(0, pkt(0)).is_none());
        q.dequeue(0);
        // At t = 1 ns, p1 fills the device queue (RED sees 0 before it), p2 sees
        // 0 in RED (p1 is below it), p3 sees 1, p4 2, p5 3.
        for (i, seen) in [(1, 0.0), (2, 0.0), (3, 1.0), (4, 2.0), (5, 3.0)] {
            assert!(q.enqueue(1, pkt(i)).is_none(), "arrival {i}");
            assert_eq!(q.avg, seen, "arrival {i}");
        }
        // Five wait (one below RED, four in it): RED is full at its limit 4.
        assert_eq!(q.len_pkts(), 5);
        assert!(q.enqueue(1, pkt(6)).is_some());
        assert_eq!(q.avg, 4.0);
        // A departure at t = 2: the device queue's packet goes to the wire, and
        // RED refills it only after this instant's arrivals, which find RED
        // still holding its 4 (the arrival is dropped) ...
        q.dequeue(2);
        assert!(q.enqueue(2, pkt(7)).is_some());
        assert_eq!(q.avg, 4.0);
        // ... while a later arrival finds 3 in RED and a slot.
        assert!(q.enqueue(3, pkt(8)).is_none());
        assert_eq!(q.avg, 3.0);
        assert_eq!(q.stats.forced_drops, 2);
        // Without the device queue the same port holds 5 in RED.
        let c0 = RedCfg {
            device_queue_pkts: 0,
            ..c
        };
        let mut q0 = Red::new(&c0, port(8.32e6, 0, 5));
        for i in 0..5 {
            assert!(q0.enqueue(1, pkt(i)).is_none());
            assert_eq!(q0.avg, i as f64);
        }
        assert!(q0.enqueue(1, pkt(5)).is_some());
    }

    #[test]
    fn device_queue_starts_the_idle_time_when_the_last_packet_leaves_for_the_wire() {
        // ptc = 1000 packets/s (1040 B at 8.32 Mb/s, 1 ms each); w = 0.25.
        let run = |dev: u32| {
            let c = RedCfg {
                min_th: 50.0,
                max_th: 90.0,
                q_weight: 0.25,
                device_queue_pkts: dev,
                ..Default::default()
            };
            let mut q = Red::new(&c, port(8.32e6, 0, 100));
            for i in 0..4 {
                q.enqueue(0, pkt(i));
            }
            let before = q.avg;
            // The last packet leaves the queue at 10 ms (serialised by 11 ms).
            for _ in 0..4 {
                q.dequeue(10_000_000);
            }
            q.enqueue(17_500_000, pkt(9));
            (before, q.avg)
        };
        // ns-2: idle from 11 ms, m = floor(1000 x 0.0065) = 6: avg x 0.75^7.
        let (b, a) = run(0);
        assert!(close(a, b * 0.75f64.powi(7)));
        // ns-3 (device queue): idle from 10 ms, m = floor(1000 x 0.0075) = 7: avg x 0.75^8.
        // The averages before differ (RED saw one packet fewer), so compare each to its own.
        let (b, a) = run(1);
        assert!(close(a, b * 0.75f64.powi(8)));
        // Before the idle period: with the device queue the four arrivals at
        // t = 0 saw 0, 0, 1, 2 (the first packet sits below RED, nothing has left).
        let want = [0.0, 0.0, 1.0, 2.0].iter().fold(0.0, |avg, x| 0.75 * avg + 0.25 * x);
        assert!(close(b, want));
    }

    #[test]
    fn forced_drops_keep_the_count_running_as_ns3() {
        // Not gentle: min 2, max 10, max_p 0.1, w = 1, nothing leaves. The
        // average is the queue an arrival finds; from 10 on every arrival is
        // dropped (ns-2: p_b = 1 on the early-drop path; ns-3: a forced drop).
        let run = |keep: &str| {
            let c = RedCfg {
                min_th: 2.0,
                max_th: 10.0,
                q_weight: 1.0,
                gentle: false,
                forced_drop_count: keep.into(),
                ..Default::default()
            };
            let mut q = Red::new(&c, port(10e6, 0, 100));
            let mut dropped = 0;
            for i in 0..40 {
                dropped += q.enqueue(0, pkt(i)).is_some() as u32;
            }
            // 10 packets wait; 30 arrivals were dropped.
            assert_eq!((q.len_pkts(), dropped), (10, 30));
            // One leaves: the next arrival finds 9, p_b = 0.1 x 7/8 = 0.0875.
            q.dequeue(0);
            q.enqueue(0, pkt(99)).is_some()
        };
        // ns-2 restarted the count at each of those drops: count 1, 1 x 0.0875 < 1, no drop.
        assert!(!run("reset"));
        // ns-3 counted on: count 31 (from 1 at the arrival that found 2), 31 x 0.0875 >= 2: p_a = 1.
        assert!(run("keep"));
    }

    #[test]
    fn overflow_drops_keep_the_count_running_as_ns3() {
        // Buffer 4, min 2, max 50, max_p 0.1; a weight so small that the
        // average stays where it is put: 2.5, so p_b = 0.1 x 0.5/48 = 0.00104.
        let run = |keep: &str| {
            let c = RedCfg {
                min_th: 2.0,
                max_th: 50.0,
                q_weight: 1e-12,
                forced_drop_count: keep.into(),
                ..Default::default()
            };
            let mut q = Red::new(&c, port(10e6, 0, 4));
            q.avg = 2.5;
            // The arrival finding 2 starts the count (1), the one finding 3
            // counts 2; then 900 arrivals find the buffer full, the count
            // staying below 1/p_b = 960 (no early drop).
            for i in 0..904 {
                q.enqueue(0, pkt(i));
            }
            assert_eq!(
                q.stats,
                RedStats {
                    early_drops: 0,
                    forced_drops: 900,
                    marks: 0
                }
            );
            // The average now rises to 10 (p_b = 0.1 x 8/48 = 0.0167) and a slot frees.
            q.avg = 10.0;
            q.dequeue(0);
            q.enqueue(0, pkt(2000)).is_some()
        };
        // ns-2: each overflow restarted the count: count 1, 0.0167 < 1, no early drop.
        assert!(!run("reset"));
        // ns-3: count 903, 903 x 0.0167 >= 2: p_a = 1.
        assert!(run("keep"));
    }

    #[test]
    fn config_checks() {
        let ok = RedCfg::default();
        assert!(ok.validate("network.red").is_ok());
        let e = RedCfg {
            max_p: 0.0,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.max_p");
        let e = RedCfg {
            max_p: 1.5,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.max_p");
        let e = RedCfg {
            min_th: 20.0,
            max_th: 10.0,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.min_th");
        let e = RedCfg {
            q_weight: 0.0,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.q_weight");
        let e = RedCfg {
            max_th: 10.0,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.max_th");
        let e = RedCfg {
            device_queue_pkts: 2,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.device_queue_pkts");
        let e = RedCfg {
            device_queue_pkts: 1,
            byte_mode: true,
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.device_queue_pkts");
        let e = RedCfg {
            forced_drop_count: "drop".into(),
            ..Default::default()
        }
        .validate("network.red")
        .unwrap_err();
        assert_eq!(e.field, "network.red.forced_drop_count");
    }

    #[test]
    fn instantaneous_mode_marks_with_the_linear_probability_of_the_queue_itself() {
        // Kmin 5, Kmax 15, Pmax 0.2; the queue held at 10 packets at every
        // arrival: p = 0.2 (10 - 5) / 10 = 0.1 per packet, independently.
        let c = RedCfg {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.2,
            ecn: true,
            instantaneous: true,
            ..Default::default()
        };
        let mut q = Red::new(&c, port(10e9, 1000, 1000));
        let ect = |s| {
            let mut p = pkt(s);
            p.flags |= flags::ECT;
            p
        };
        // Up to Kmin nothing is marked (arrivals find 0..=5 waiting).
        for s in 0..6 {
            q.enqueue(0, ect(s));
        }
        assert_eq!(q.stats.marks, 0);
        for s in 6..11 {
            q.enqueue(0, ect(s));
        }
        // 11 wait; each round a departure leaves 10 for the arrival to find.
        let before = q.stats.marks;
        let n = 20_000;
        for s in 0..n {
            q.dequeue(0);
            assert!(q.enqueue(0, ect(100 + s)).is_none());
        }
        let f = (q.stats.marks - before) as f64 / n as f64;
        // Binomial(20000, 0.1): standard deviation 0.0021.
        assert!((f - 0.1).abs() < 0.01, "marked fraction {f}");
        assert_eq!(q.stats.early_drops, 0);
        // Above Kmax every ECN-capable arrival is marked, others dropped.
        for s in 0..5 {
            q.enqueue(0, ect(50_000 + s));
        }
        assert_eq!(q.len_pkts(), 16);
        let m = q.stats.marks;
        assert!(q.enqueue(0, ect(60_000)).is_none());
        assert_eq!(q.stats.marks, m + 1);
        assert!(q.enqueue(0, pkt(60_001)).is_some());
        assert_eq!(q.stats.early_drops, 1);
    }
}

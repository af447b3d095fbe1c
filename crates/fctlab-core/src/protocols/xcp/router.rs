//! XCP's router half (Katabi, Handley & Rohrs, SIGCOMM 2002): a DropTail FIFO
//! whose port runs the efficiency and fairness controllers once per control
//! interval and writes per-packet feedback into departing data packets.
//!
//! The control law is the rate form of ns-2's `xcp/xcpq.cc` (all rates in
//! bytes per second, times in seconds), which is the paper's window form
//! divided by the control interval d:
//!
//! - on every arrival, dropped or not: `input += size`; for an XCP data packet
//!   with H_rtt > 0: `Σx += x`, `Σ(rtt·x) += min(rtt, max_rtt)·x`, where
//!   x = H_rtt / H_cwnd (seconds per packet: the inverse of the flow's packet
//!   rate, so Σ over an interval is Σ_flows d/rtt·rtt/cwnd·cwnd/rtt… = the
//!   paper's Σ rtt·s/cwnd divided by the packet size);
//! - at the end of each estimation interval Te:
//!   d = Σ(rtt·x)/Σx (50 ms if no sample), y = input/Te,
//!   φ = α(C − y) − βQ/d, h = max(0, γy − |φ|) (both 0 if nothing arrived),
//!   res⁺ = max(φ, 0) + h, res⁻ = max(−φ, 0) + h,
//!   Cp = res⁺/Σx, Cn = res⁻/input, and the next Te = max(d, min_interval);
//! - at the end of each queue interval Tq: the persistent queue Q = the
//!   minimum queue (bytes) seen during the interval, and the next
//!   Tq = max(2 ms, (d − q/C)/2) with q the queue now;
//! - at each departure of an XCP data packet (H_rtt > 0):
//!   p = min(res⁺, Cp·x), n = min(res⁻, Cn·size), fb = p − n; if
//!   H_feedback ≥ fb this hop controls: H_feedback = fb; otherwise the packet
//!   keeps the smaller upstream value and this hop re-balances how much of its
//!   positive and negative budget the packet used (n = min(res⁻, n + fb − H),
//!   p = H + n); then res⁺ −= p, res⁻ −= n (floored at 0), and a spent residue
//!   zeroes its Cp or Cn. An XCP packet with H_rtt = 0 (no RTT sample yet)
//!   gets H_feedback = 0.
//!
//! Packets that are not XCP data (TCP data has an all-zero header, ACKs, SYNs)
//! count toward the input rate only, as in ns-2.
//!
//! **No timers.** The engine gives a queue no wake-ups, so interval
//! boundaries are caught up lazily: every `enqueue` and `dequeue` first runs
//! each Te and Tq boundary that has passed, in time order, at its own
//! scheduled time. This is exact, not an approximation: between two calls no
//! packet arrives or leaves, so the counters and the queue length a boundary
//! would have seen are the ones held at the next call. An idle port catches up
//! its empty intervals (each 50 ms long, since d falls back to 50 ms) on its
//! next packet.
//!
//! Deviations from ns-2, deliberate: the first boundaries fall at exactly
//! Te = Tq = 50 ms (ns-2 draws them from N(Te, 0.2·Te) so routers do not
//! synchronise; fctlab stays deterministic without a random stream), and the
//! persistent queue is the true minimum of the queue over the interval
//! (sampled after every departure), where ns-2 samples before each departure
//! and so never sees a queue below one packet while the link is busy.
//!
//! The header: [`XcpHeader`], written by [`super::host`].

pub use super::XcpHeader;
use crate::config::{documented, duration_ms, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::queue::{DropTail, PortParams, Queue, QueueBuilder, QueueEntry};
use crate::net::{Packet, PacketKind};
use crate::sim::{Time, NS_PER_S};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The `[network.xcp]` table.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct XcpCfg {
    /// Efficiency-controller gain on spare bandwidth (paper §3.5 and ns-2
    /// `XCPQueue::ALPHA_` 0.4; stable for 0 < α < π/(4√2)).
    pub alpha: f64,
    /// Efficiency-controller gain on the persistent queue (paper and ns-2
    /// `BETA_` 0.226 = α²√2).
    pub beta: f64,
    /// Shuffled fraction of the input rate (paper and ns-2 `GAMMA_` 0.1).
    pub gamma: f64,
    /// Lower bound of the control interval (ns-2 `XCP_MIN_INTERVAL` 1 ms).
    pub min_interval_ms: f64,
    /// RTTs above this count as this in the average-RTT estimate (ns-2
    /// `XCP_MAX_INTERVAL` 1 s).
    pub max_rtt_ms: f64,
    /// The first Te and Tq, and d when an interval had no RTT sample (ns-2
    /// `INITIAL_Te_VALUE` 0.05 s).
    pub init_interval_ms: f64,
    /// Lower bound of the persistent-queue interval Tq (ns-2 `Tq_timeout`: 2 ms).
    pub min_tq_ms: f64,
}

impl Default for XcpCfg {
    fn default() -> Self {
        XcpCfg {
            alpha: 0.4,
            beta: 0.226,
            gamma: 0.1,
            min_interval_ms: 1.0,
            max_rtt_ms: 1000.0,
            init_interval_ms: 50.0,
            min_tq_ms: 2.0,
        }
    }
}

impl XcpCfg {
    /// Check the values (`field` is the table's dotted key).
    pub fn validate(&self, field: &str) -> Result<(), ConfigError> {
        let bad = |k: &str, m: String| {
            Err(ConfigError {
                field: format!("{field}.{k}"),
                message: m,
            })
        };
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            return bad(
                "alpha",
                format!(
                    "must be in (0, 1] (the paper's stability region is 0 < alpha < 0.555), got {}",
                    self.alpha
                ),
            );
        }
        if !(self.beta.is_finite() && self.beta >= 0.0 && self.beta <= 1.0) {
            return bad("beta", format!("must be in [0, 1], got {}", self.beta));
        }
        if !(self.gamma.is_finite() && (0.0..=1.0).contains(&self.gamma)) {
            return bad("gamma", format!("must be in [0, 1], got {}", self.gamma));
        }
        for (k, v) in [
            ("min_interval_ms", self.min_interval_ms),
            ("max_rtt_ms", self.max_rtt_ms),
            ("init_interval_ms", self.init_interval_ms),
            ("min_tq_ms", self.min_tq_ms),
        ] {
            duration_ms(&format!("{field}.{k}"), v, true)?;
        }
        Ok(())
    }
}

impl Params for XcpCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("alpha", "Katabi et al. 2002 §3.5; ns-2 xcpq.cc ALPHA_"),
        ParamDoc::new("beta", "Katabi et al. 2002 §3.5 (alpha^2 sqrt 2); ns-2 xcpq.cc BETA_"),
        ParamDoc::new("gamma", "Katabi et al. 2002 §3.5 (shuffling); ns-2 xcpq.cc GAMMA_"),
        ParamDoc::new("min_interval_ms", "ns-2 xcpq.cc XCP_MIN_INTERVAL .001 s"),
        ParamDoc::new(
            "max_rtt_ms",
            "ns-2 xcpq.cc XCP_MAX_INTERVAL 1 s (RTT cap in the average)",
        ),
        ParamDoc::new(
            "init_interval_ms",
            "ns-2 xcpq.h INITIAL_Te_VALUE 0.05 s (first Te and Tq)",
        ),
        ParamDoc::new("min_tq_ms", "ns-2 xcpq.cc Tq_timeout: Tq = max(0.002, (d - q/C)/2)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        XcpCfg::validate(self, field)
    }
}

/// `xcp` (the queue discipline).
pub const ENTRY: QueueEntry = Entry {
    name: "xcp",
    description: "XCP router (Katabi et al. 2002, ns-2 xcpq.cc): DropTail FIFO running the efficiency and fairness controllers once per average RTT; writes min(header, per-packet feedback) into departing XCP data packets",
    table: Some("xcp"),
    params: documented::<XcpCfg>,
    requires: None,
    factory,
};

/// Check `[network.xcp]` and make the builder.
fn factory(t: Table) -> Result<QueueBuilder, ConfigError> {
    let c: XcpCfg = t.parse()?;
    Ok(Arc::new(move |p: PortParams| {
        Box::new(Xcp::new(&c, p)) as Box<dyn Queue>
    }))
}

fn ms_ns(ms: f64) -> Time {
    (ms * 1e6).round().max(1.0) as Time
}

/// The outcome of one estimation interval (for tests and tracing).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Control {
    /// Average RTT d, seconds.
    pub d_s: f64,
    /// Input rate y, bytes/s.
    pub y: f64,
    /// Aggregate feedback φ, bytes/s.
    pub phi: f64,
    /// Shuffled traffic h, bytes/s.
    pub h: f64,
    pub cp: f64,
    pub cn: f64,
}

/// The estimation-interval arithmetic, on its own so tests can feed it a
/// hand-made interval. `c` is the capacity and `q` the persistent queue, in
/// bytes/s and bytes; `te_s` the interval's length.
pub fn control(cfg: &XcpCfg, c: f64, q: f64, te_s: f64, input_bytes: f64, sum_x: f64, sum_rtt_x: f64) -> Control {
    let d_s = if sum_x != 0.0 {
        sum_rtt_x / sum_x
    } else {
        cfg.init_interval_ms / 1e3
    };
    let y = input_bytes / te_s;
    let (mut phi, mut h) = (0.0, 0.0);
    if input_bytes > 0.0 {
        phi = cfg.alpha * (c - y) - cfg.beta * q / d_s;
        h = (cfg.gamma * y - phi.abs()).max(0.0);
    }
    let (pos, neg) = (phi.max(0.0) + h, (-phi).max(0.0) + h);
    let (cp, cn) = if input_bytes > 0.0 {
        (pos / if sum_x == 0.0 { 1.0 } else { sum_x }, neg / input_bytes)
    } else {
        (0.0, 0.0)
    };
    Control { d_s, y, phi, h, cp, cn }
}

/// One XCP router port.
pub struct Xcp {
    cfg: XcpCfg,
    /// The packets waiting: a DropTail FIFO.
    fifo: DropTail,
    /// Link capacity, bytes/s.
    c: f64,
    // Estimation interval.
    te_start: Time,
    te_end: Time,
    input_bytes: f64,
    sum_x: f64,
    sum_rtt_x: f64,
    d_s: f64,
    cp: f64,
    cn: f64,
    res_pos: f64,
    res_neg: f64,
    last: Control,
    // Queue interval.
    tq_end: Time,
    running_min: u64,
    /// Persistent queue Q, bytes.
    pq: f64,
}

impl Xcp {
    pub fn new(cfg: &XcpCfg, p: PortParams) -> Self {
        let init = ms_ns(cfg.init_interval_ms);
        Xcp {
            cfg: cfg.clone(),
            fifo: DropTail::new(p.limit_pkts),
            c: p.rate_bps / 8.0,
            te_start: 0,
            te_end: init,
            input_bytes: 0.0,
            sum_x: 0.0,
            sum_rtt_x: 0.0,
            d_s: cfg.init_interval_ms / 1e3,
            cp: 0.0,
            cn: 0.0,
            res_pos: 0.0,
            res_neg: 0.0,
            last: Control::default(),
            tq_end: init,
            running_min: 0,
            pq: 0.0,
        }
    }

    /// The last estimation interval's result.
    pub fn last_control(&self) -> Control {
        self.last
    }

    /// The persistent queue Q in bytes.
    pub fn persistent_queue_bytes(&self) -> f64 {
        self.pq
    }

    /// Run every interval boundary at or before `now`, in time order. Once
    /// the state is one that further boundaries leave as it is (nothing has
    /// arrived since the last ones; see `idle_fixed_point`), the remaining
    /// boundaries are stepped over at once: a long idle gap, or intervals
    /// far shorter than the time between packets, never loop.
    fn catch_up(&mut self, now: Time) {
        while self.te_end <= now || self.tq_end <= now {
            if self.te_end <= now && self.idle_fixed_point() {
                // end_te would change nothing but the boundary (the queue
                // intervals between are stepped over below).
                let te = ms_ns((self.d_s * 1e3).max(self.cfg.min_interval_ms));
                self.te_end += (now - self.te_end) / te * te;
                self.te_start = self.te_end - te;
            }
            let inst = self.fifo.len_bytes();
            if self.pq == inst as f64 && self.running_min == inst && self.tq_end < self.te_end {
                // Queue intervals on an unchanged queue, before the next
                // estimation boundary (which may change d): each would set
                // the same persistent queue and the same length again.
                let tq = self.tq_len(inst);
                let last = now.min(self.te_end - 1);
                if self.tq_end <= last {
                    self.tq_end += (last - self.tq_end) / tq * tq;
                }
            }
            if self.te_end <= self.tq_end {
                self.end_te();
            } else {
                self.end_tq();
            }
        }
    }

    /// Whether the next interval boundaries would leave the state as it is:
    /// an estimation interval without arrivals has ended (`control` gave
    /// d = the initial interval and no feedback, whatever the interval's
    /// length and the queue), two queue intervals have ended on the queue
    /// as it is now, and nothing has come since. Between two events at this
    /// port nothing enters or leaves it, so from there every boundary up to
    /// the next event repeats the same state.
    fn idle_fixed_point(&self) -> bool {
        let inst = self.fifo.len_bytes();
        self.input_bytes == 0.0
            && self.sum_x == 0.0
            && self.sum_rtt_x == 0.0
            && self.pq == inst as f64
            && self.running_min == inst
            && self.res_pos == 0.0
            && self.res_neg == 0.0
            && {
                let idle = control(&self.cfg, self.c, 0.0, 1.0, 0.0, 0.0, 0.0);
                self.last == idle && self.d_s == idle.d_s
            }
    }

    fn end_te(&mut self) {
        let te_s = (self.te_end - self.te_start) as f64 / NS_PER_S as f64;
        let k = control(
            &self.cfg,
            self.c,
            self.pq,
            te_s,
            self.input_bytes,
            self.sum_x,
            self.sum_rtt_x,
        );
        self.d_s = k.d_s;
        self.res_pos = k.phi.max(0.0) + k.h;
        self.res_neg = (-k.phi).max(0.0) + k.h;
        self.cp = k.cp;
        self.cn = k.cn;
        self.last = k;
        self.input_bytes = 0.0;
        self.sum_x = 0.0;
        self.sum_rtt_x = 0.0;
        let next = (k.d_s * 1e3).max(self.cfg.min_interval_ms);
        self.te_start = self.te_end;
        self.te_end += ms_ns(next);
    }

    fn end_tq(&mut self) {
        let inst = self.fifo.len_bytes();
        self.pq = self.running_min as f64;
        self.running_min = inst;
        self.tq_end += self.tq_len(inst);
    }

    /// The next queue interval on a queue of `inst` bytes: ns-2's
    /// Tq = max(min_tq, (d - q/C)/2).
    fn tq_len(&self, inst: u64) -> Time {
        let tq_s = ((self.d_s - inst as f64 / self.c) / 2.0).max(self.cfg.min_tq_ms / 1e3);
        ms_ns(tq_s * 1e3)
    }

    /// The packet's XCP header, if it is an XCP data packet.
    fn xcp(p: &Packet) -> Option<XcpHeader> {
        let h: XcpHeader = p.hdr.get();
        (p.kind == PacketKind::Data && h.cwnd_pkts > 0.0).then_some(h)
    }

    /// Write this hop's feedback into a departing packet.
    fn stamp(&mut self, p: &mut Packet) {
        let Some(mut hdr) = Self::xcp(p) else {
            return;
        };
        if hdr.rtt_s <= 0.0 {
            hdr.feedback = 0.0;
            p.hdr.set(hdr);
            return;
        }
        let x = hdr.rtt_s / hdr.cwnd_pkts;
        let mut pos = self.res_pos.min(self.cp * x);
        let mut neg = self.res_neg.min(self.cn * p.size_bytes as f64);
        let fb = pos - neg;
        let h = hdr.feedback;
        if h >= fb {
            hdr.feedback = fb;
            p.hdr.set(hdr);
        } else {
            // An upstream hop allowed less: use only what the packet will carry.
            neg = self.res_neg.min(neg + (fb - h));
            pos = h + neg;
        }
        self.res_pos = (self.res_pos - pos).max(0.0);
        self.res_neg = (self.res_neg - neg).max(0.0);
        if self.res_pos == 0.0 {
            self.cp = 0.0;
        }
        if self.res_neg == 0.0 {
            self.cn = 0.0;
        }
    }
}

impl Queue for Xcp {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        self.catch_up(now);
        self.input_bytes += pkt.size_bytes as f64;
        if let Some(h) = Self::xcp(&pkt).filter(|h| h.rtt_s > 0.0) {
            let x = h.rtt_s / h.cwnd_pkts;
            self.sum_x += x;
            self.sum_rtt_x += h.rtt_s.min(self.cfg.max_rtt_ms / 1e3) * x;
        }
        self.fifo.enqueue(now, pkt)
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.catch_up(now);
        let mut p = self.fifo.dequeue(now)?;
        self.running_min = self.running_min.min(self.fifo.len_bytes());
        self.stamp(&mut p);
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

    fn port(rate_bps: f64) -> Xcp {
        Xcp::new(
            &XcpCfg::default(),
            PortParams {
                limit_pkts: 100,
                rate_bps,
                delay_ns: 0,
                seed: 0,
                stream: 0,
            },
        )
    }

    fn data(cwnd: f64, rtt_s: f64, fb: f64) -> Packet {
        let mut p = Packet::new(0, PacketKind::Data, 1000, 0, 0);
        p.hdr.set(XcpHeader {
            cwnd_pkts: cwnd,
            rtt_s,
            feedback: fb,
        });
        p
    }

    #[test]
    fn one_interval_by_hand() {
        // C = 1e6 B/s, Te = 0.1 s, 90 000 B arrived (y = 9e5 B/s), Q = 5000 B.
        // Two flows' samples: flow A rtt 0.1 s, cwnd 10 -> x = 0.01, counted 9
        // times; flow B rtt 0.2, cwnd 20 -> x = 0.01, 9 times. Σx = 0.18,
        // Σ(rtt·x) = 9·0.001 + 9·0.002 = 0.027, d = 0.15 s.
        // φ = 0.4 (1e6 − 9e5) − 0.226 · 5000 / 0.15 = 40 000 − 7533.33 = 32 466.67
        // h = max(0, 0.1 · 9e5 − 32 466.67) = 57 533.33
        // Cp = (32 466.67 + 57 533.33) / 0.18 = 500 000; Cn = 57 533.33 / 90 000 = 0.63926
        let k = control(&XcpCfg::default(), 1e6, 5000.0, 0.1, 90_000.0, 0.18, 0.027);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(k.d_s, 0.15), "{k:?}");
        assert!(close(k.y, 9e5));
        assert!(close(k.phi, 40_000.0 - 0.226 * 5000.0 / 0.15));
        assert!(close(k.h, 90_000.0 - k.phi));
        assert!(close(k.cp, 90_000.0 / 0.18));
        assert!(close(k.cn, (90_000.0 - k.phi) / 90_000.0));
        // Overload: y = 1.2e6 > C, Q = 0: φ = 0.4 (−2e5) = −80 000 and
        // γy = 120 000, so h = 40 000; res⁺ = 40 000, res⁻ = 120 000.
        let k = control(&XcpCfg::default(), 1e6, 0.0, 0.1, 120_000.0, 0.18, 0.027);
        assert!(close(k.phi, -80_000.0) && close(k.h, 40_000.0));
        assert!(close(k.cp, 40_000.0 / 0.18) && close(k.cn, 1.0));
        // Nothing arrived: no feedback at all, d falls back to 50 ms.
        let k = control(&XcpCfg::default(), 1e6, 0.0, 0.1, 0.0, 0.0, 0.0);
        assert_eq!((k.phi, k.h, k.cp, k.cn, k.d_s), (0.0, 0.0, 0.0, 0.0, 0.05));
    }

    #[test]
    fn per_packet_feedback_and_residues() {
        // A port of C = 8e6 b/s = 1e6 B/s. First 50 ms interval: ten 1000 B
        // packets of one flow, cwnd 5, rtt 0.1 s (x = 0.02) arrive and leave.
        // At t = 50 ms: input 10 000 B over 0.05 s -> y = 2e5; Σx = 0.2,
        // Σ(rtt·x) = 0.02, d = 0.1 s; Q = 0 (the queue emptied after each
        // departure). φ = 0.4 (1e6 − 2e5) = 320 000, γy = 20 000 < |φ| so h = 0;
        // res⁺ = 320 000, Cp = 320 000 / 0.2 = 1.6e6, Cn = 0.
        let mut q = port(8e6);
        for i in 0..10 {
            assert!(q.enqueue(i * 1000, data(5.0, 0.1, 1e24)).is_none());
            let p = q.dequeue(i * 1000 + 1).unwrap();
            // Before the first boundary Cp = Cn = 0: zero feedback.
            assert_eq!(p.hdr.get::<XcpHeader>().feedback, 0.0);
        }
        assert!(q.enqueue(50_000_000, data(5.0, 0.1, 1e24)).is_none());
        let k = q.last_control();
        assert!((k.phi - 320_000.0).abs() < 1e-6 && k.h == 0.0, "{k:?}");
        assert!((k.cp - 1.6e6).abs() < 1e-3 && k.cn == 0.0);
        // The packet's feedback: min(res⁺, Cp·x) = 1.6e6 · 0.02 = 32 000 B/s.
        let p = q.dequeue(50_000_000).unwrap();
        assert!((p.hdr.get::<XcpHeader>().feedback - 32_000.0).abs() < 1e-6);
        // A packet whose header already says less (an upstream hop's 10 000):
        // the header keeps 10 000 and only 10 000 of res⁺ is used.
        q.enqueue(50_000_001, data(5.0, 0.1, 10_000.0));
        let p = q.dequeue(50_000_001).unwrap();
        assert_eq!(p.hdr.get::<XcpHeader>().feedback, 10_000.0);
        assert!((q.res_pos - (320_000.0 - 32_000.0 - 10_000.0)).abs() < 1e-6);
        // Nine more full packets use 9 · 32 000 = 288 000 of 278 000 left: the
        // last gets the remaining 278 000 − 8 · 32 000 = 22 000, then Cp = 0.
        let mut got = Vec::new();
        for i in 0..10 {
            q.enqueue(50_000_010 + i, data(5.0, 0.1, 1e24));
            got.push(q.dequeue(50_000_010 + i).unwrap().hdr.get::<XcpHeader>().feedback);
        }
        for g in &got[..8] {
            assert!((g - 32_000.0).abs() < 1e-6);
        }
        assert!((got[8] - 22_000.0).abs() < 1e-6, "{got:?}");
        assert_eq!(got[9], 0.0);
        assert_eq!(q.cp, 0.0);
    }

    #[test]
    fn feedback_is_the_minimum_over_two_hops() {
        // Hop 1 is a fast, idle link with a large positive budget; hop 2 a
        // slow one in overload that gives negative feedback. Whatever the
        // order, the header leaves with the smaller of the two values.
        let warm = |q: &mut Xcp, n: u64, gap: Time| {
            for i in 0..n {
                q.enqueue(i * gap, data(10.0, 0.05, 1e24));
                q.dequeue(i * gap);
            }
        };
        // Hop 1: C = 1.25e7 B/s; 5 packets of 1000 B in the first 50 ms:
        // y = 1e5, x = 0.005, Σx = 0.025, d = 0.05; φ = 0.4 (1.25e7 − 1e5)
        // = 4.96e6, h = 0, Cp = 4.96e6 / 0.025 = 1.984e8 -> per packet
        // min(4.96e6, 1.984e8 · 0.005 = 992 000) = 992 000 B/s.
        let mut fast = port(1e8);
        warm(&mut fast, 5, 10_000_000);
        // Hop 2: C = 1e4 B/s (8e4 b/s); 5 packets arrive in 50 ms: y = 1e5,
        // φ = 0.4 (1e4 − 1e5) − 0 = −36 000, γy = 10 000 < 36 000 so h = 0,
        // Cn = 36 000 / 5000 = 7.2 -> per packet −7.2 · 1000 = −7200 B/s.
        let mut slow = port(8e4);
        warm(&mut slow, 5, 10_000_000);
        let t = 50_000_000;
        let mut p = data(10.0, 0.05, 1e24);
        fast.enqueue(t, p);
        p = fast.dequeue(t).unwrap();
        assert!(
            (p.hdr.get::<XcpHeader>().feedback - 992_000.0).abs() < 1e-3,
            "{:?}",
            p.hdr
        );
        slow.enqueue(t, p);
        p = slow.dequeue(t).unwrap();
        assert!((p.hdr.get::<XcpHeader>().feedback + 7200.0).abs() < 1e-6, "{:?}", p.hdr);
        // The other order: the slow hop's −7200 (its res⁻ still holds
        // 36 000 − 7200) survives the fast hop, whose own value is larger.
        let mut p = data(10.0, 0.05, 1e24);
        slow.enqueue(t + 1, p);
        p = slow.dequeue(t + 1).unwrap();
        assert!((p.hdr.get::<XcpHeader>().feedback + 7200.0).abs() < 1e-6);
        fast.enqueue(t + 1, p);
        p = fast.dequeue(t + 1).unwrap();
        assert!((p.hdr.get::<XcpHeader>().feedback + 7200.0).abs() < 1e-6);
    }

    #[test]
    fn persistent_queue_is_the_minimum_over_tq() {
        // C = 1e6 B/s. Three 1000 B packets queue at t = 1 ms and one leaves
        // at 2 ms: the queue holds 2000 B from then on. At the first
        // Tq boundary (50 ms) Q = the minimum since t = 0, which was 0 (the
        // running minimum starts empty); the next Tq = max(2 ms, (0.05 −
        // 2000/1e6)/2) = 24 ms. A fourth packet arrives at 50 ms and one
        // leaves at 60 ms (3000 -> 2000 B), so at 74 ms Q = 2000.
        let mut q = port(8e6);
        for _ in 0..3 {
            q.enqueue(1_000_000, data(1.0, 0.0, 0.0));
        }
        q.dequeue(2_000_000);
        q.enqueue(50_000_000, data(1.0, 0.0, 0.0)); // runs the 50 ms boundary
        assert_eq!(q.persistent_queue_bytes(), 0.0);
        q.dequeue(60_000_000);
        q.enqueue(74_000_000, data(1.0, 0.0, 0.0));
        assert_eq!(q.persistent_queue_bytes(), 2000.0);
    }

    #[test]
    fn bad_values_are_refused() {
        for (k, v) in [
            ("alpha", -0.1),
            ("alpha", 0.0),
            ("beta", -1.0),
            ("gamma", 1.5),
            ("min_interval_ms", 0.0),
            ("init_interval_ms", f64::NAN),
        ] {
            let mut c = XcpCfg::default();
            match k {
                "alpha" => c.alpha = v,
                "beta" => c.beta = v,
                "gamma" => c.gamma = v,
                "min_interval_ms" => c.min_interval_ms = v,
                _ => c.init_interval_ms = v,
            }
            let e = c.validate("network.xcp").unwrap_err();
            assert_eq!(e.field, format!("network.xcp.{k}"));
        }
        assert!(XcpCfg::default().validate("network.xcp").is_ok());
    }
}

//! RCP's router half (Dukkipati & McKeown 2006, "Why flow-completion time is
//! the right metric for congestion control", eq. 2; ns-2 RCP patch `rcp.cc`,
//! `queue_timeout` mode 0): a DropTail FIFO that keeps one rate R for all flows
//! and stamps it into packets.
//!
//! Every control slot of length T = min(d0, `upd_timeslot`):
//!
//! ```text
//! R <- R · [1 + (T/d0)·(α(γC − y) − β·q/d0) / (γC)],   clipped to [min_rate, γC]
//! ```
//!
//! with y the bytes that arrived in the slot divided by T (counted at enqueue,
//! for every packet kind, before the drop decision, as ns-2 `rcp.cc` does),
//! q the bytes queued at the slot boundary, C the link rate
//! (both in bits/s here), and d0 a moving average of the RTTs that packets
//! carry in their RTT field. Only packets with rtt > 0 feed d0: hosts put −1
//! in ACKs and probes (ns-2 lets them count; a later fix of the patch excludes them). Per slot the sample is
//! s = Σ rtt·size / Σ size over such arrivals, and
//! d0 <- (1 − g)d0 + g·s with g = T/d0 if s ≥ d0, else g = (R/C)(s/d0)(T/d0)
//! (ns-2 `rcp.cc`; R after this slot's update). A slot without any RTT-bearing
//! arrival leaves d0 unchanged (ns-2 re-uses the previous slot's sample;
//! we do not). The rate is updated first with the slot's T and d0,
//! then d0, then the next slot's T.
//!
//! Stamping happens at dequeue, for SYN (also the hosts' rate probes, which
//! are SYN-kind packets, see `transport::rcp`) and DATA: if the rate field is
//! negative ("infinity") or above R it becomes R. ACKs and SYN-ACKs carry the
//! echoed rate back and are never stamped.
//!
//! **No timer: lazy slots.** The queue has no timer of its own. Slot
//! boundaries are fixed on the simulation clock (the first at T0 = min(0.2 s,
//! upd_timeslot) after t = 0; ns-2 draws the first one at random around T).
//! At every enqueue and dequeue, before anything else, the queue applies every
//! boundary that has passed, in order: the first with the bytes counted since
//! the previous boundary, each further (idle) one with y = 0; q is the queue's
//! length at each boundary, which is the current length since the queue only
//! changes at enqueue and dequeue. The result is exactly what a periodic timer
//! would compute, whenever packets happen to come. (A packet straddling a slot
//! end is not split by serialization time as in ns-2; it counts in the slot
//! where it arrives.)
//!
//! **Mode `ps` (the default).** The rate equation above is kept; around it
//! fctlab adds what the papers leave open, each measured in
//! `tests/rcp_ps.rs` (N equal flows started together within 10 % of PS):
//! - d0: the first slot with RTT samples sets d0 to its sample (a fixed
//!   initial 0.2 s, averaged down with gain (R/C)(s/d0)(T/d0), kept a 1 ms
//!   path at d0 ≈ 0.2 s for seconds, so R grew by 0.5 % per 10 ms slot);
//!   after that d0 <- (1 − g)d0 + g·s with g = min(T/d0, 1) both ways (the
//!   paper: d0 is a moving average of the RTTs).
//! - y as a fluid: each arrival's bytes are spread over its serialisation
//!   time at the link rate, across slot boundaries (ns-2 splits a packet
//!   over two slots the same way; counting it whole in one slot makes a
//!   slot shorter than a packet see 0 or several packets, and R, updated
//!   multiplicatively, drifts down).
//! - Flows counted: a flow's first data packet carrying an RTT estimate
//!   adds it (the first packet, or while the flow is announced any copy or
//!   later packet: a packet sent with the SYN carries none, and the flow
//!   waits for the SYN-ACK's rate after it), the first copy of its last
//!   (marked by the host) removes it: N_d, the flows with data under way,
//!   the N of processor sharing. A SYN (not a probe) announces a flow (so
//!   does a first data packet without an RTT estimate if its SYN did not
//!   come through), kept by flow id with the time of its first
//!   SYN until its first data packet passes (a copy of a SYN is the same
//!   flow; once d0 is measured, an announcement older than 2·d0 plus twice
//!   the queue's drain time is forgotten). Announced flows are about to
//!   send, but not all of them will send together: N = N_d + E, with E the
//!   announced flows expected to join those under way. With history (a
//!   flow has left): of the B flows announced within the last w and the D
//!   flows that left within it, E = B − D − ⌊√(B + D)⌋, at least 1 while any
//!   flow is announced, where w = N̄_d/λ̄ is the mean time a flow sends here
//!   (Little's law over slot averages of N_d and of the departure rate, gain
//!   min(T/d0, 1)); under steady arrivals the flows about to start replace
//!   those about to finish and B − D is noise of standard deviation about
//!   √(B + D) (two Poisson counts), while a burst of SYNs is not matched by
//!   departures. Without history: E = the largest run of
//!   announcements each within one SYN transmission time (at this link) of
//!   the one before: SYNs that come back to back, faster than the link
//!   could carry them, are a burst whose flows will send together; flows
//!   announced one by one are not assumed to overlap. Then: on each SYN,
//!   R <- min(R, γC/N) (the IWQoS 2005 estimate N = C/R read backwards: an
//!   idle link whose R grew to C would otherwise give C to every SYN of a
//!   burst); while E > 0, R stays at most γC/N (the input does not show
//!   those flows yet); SYNs are stamped at most γC/N; and R never falls
//!   below `floor_fact`·γC/N (after a burst the queue term drove R to its
//!   minimum and α = 0.1 climbed back over tens of RTTs with the link idle;
//!   with the floor the queue drains at (1 − floor_fact)·C and a departing
//!   flow's share is handed out at once).
//!   Counting every announced flow in N instead (N_d + all announced) held
//!   R near C/(λ·RTT) when flows arrive at a rate λ of many per RTT (the
//!   2006 paper's Fig. 12 workload: λ·RTT ≈ 1000 at 2.4 Gb/s), which left
//!   the link partly idle, so the flows under way grew in number (to over
//!   1400 within 5 s, the link about 60 % busy) and flows of 100-999
//!   packets took about 8x PS: `tests/rcp_ps.rs` checks a scaled version.
//!
//! **Mode `ns2`**: the router above exactly as the released patch has it.
//!
//! Header fields: see [`super`].

mod estimators;
mod params;

pub use super::{rtt_of, RcpData, LAST};
pub use estimators::{d0_update, d0_update_sym, rate_update};
pub use params::{RcpCfg, RcpMode, ENTRY};

use crate::net::packet::flags;
use crate::net::queue::{DropTail, Queue};
use crate::net::{Packet, PacketKind};
use crate::sim::{Time, NS_PER_S};
use estimators::Fluid;

/// An RCP router port.
pub struct Rcp {
    cfg: RcpCfg,
    /// The packets waiting: a DropTail FIFO.
    fifo: DropTail,
    link_bps: f64,
    /// The rate R offered to every flow, bits/s.
    rate_bps: f64,
    /// Average RTT d0, seconds.
    d0_s: f64,
    /// Mode `ps`: whether d0 has had a sample (before that it is `initial_rtt_ms`).
    d0_measured: bool,
    /// The current slot's length and its end.
    slot_ns: Time,
    next_update_ns: Time,
    /// Bytes that arrived in the current slot.
    arrived_bytes: u64,
    /// Mode `ps`: arrivals as a fluid.
    fluid: Fluid,
    /// Σ rtt·size and Σ size over RTT-bearing arrivals of the current slot.
    rtt_weighted: f64,
    rtt_bytes: f64,
    /// Mode `ps`: flows whose first data packet with an RTT estimate has left
    /// this port and the first copy of whose last has not.
    flows: u64,
    /// Mode `ps`: the flows counted in `flows`.
    sending: std::collections::BTreeSet<u32>,
    /// Mode `ps`: flows announced by a SYN that have sent no data here yet,
    /// with when their first SYN came (a copy of a SYN already here is the
    /// same flow and keeps the first time).
    pending: std::collections::BTreeMap<u32, Time>,
    /// The same announcements ordered by time.
    pending_at: std::collections::BTreeSet<(Time, u32)>,
    /// Mode `ps`: when counted flows left (the first copy of their last
    /// packet passed), over the last `horizon_ns`; and how many in this slot.
    departed: std::collections::VecDeque<Time>,
    departed_slot: u64,
    /// Mode `ps`: averages over slots (gain min(T/d0, 1)) of the flows
    /// counted and of the departures per second. Their ratio is the mean
    /// time a flow sends here (Little's law); no departure yet means no
    /// history.
    flows_avg: f64,
    departures_avg: f64,
    /// Mode `ps`: the SYN's size, for the back-to-back test.
    syn_bytes: u32,
    /// Mode `ps`: N = flows counted + the announced flows expected to join
    /// them (see [`Rcp::recount`]), recomputed at every SYN, data packet and slot.
    n_hat: u64,
}

impl Rcp {
    pub fn new(cfg: &RcpCfg, limit: usize, link_bps: f64) -> Self {
        let d0_s = cfg.initial_rtt_ms / 1e3;
        let slot_ns = Self::slot_of(cfg, d0_s);
        Rcp {
            cfg: cfg.clone(),
            fifo: DropTail::new(limit),
            link_bps,
            rate_bps: (cfg.init_rate_fact * link_bps)
                .max(cfg.min_rate_bps)
                .min(cfg.gamma * link_bps),
            d0_s,
            d0_measured: false,
            slot_ns,
            next_update_ns: slot_ns,
            arrived_bytes: 0,
            fluid: Fluid::default(),
            rtt_weighted: 0.0,
            rtt_bytes: 0.0,
            flows: 0,
            sending: std::collections::BTreeSet::new(),
            pending: std::collections::BTreeMap::new(),
            pending_at: std::collections::BTreeSet::new(),
            departed: std::collections::VecDeque::new(),
            departed_slot: 0,
            flows_avg: 0.0,
            departures_avg: 0.0,
            syn_bytes: 40,
            n_hat: 0,
        }
    }

    /// T = min(d0, upd_timeslot), in whole nanoseconds (at least 1).
    fn slot_of(cfg: &RcpCfg, d0_s: f64) -> Time {
        let t = d0_s.min(cfg.upd_timeslot_ms / 1e3);
        ((t * NS_PER_S as f64).round() as Time).max(1)
    }

    fn ps(&self) -> bool {
        self.cfg.mode == RcpMode::Ps
    }

    /// The rate R kept by the rate equation (after the updates due by the last call).
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// The rate stamped now: R, in mode `ps` at least the floor.
    pub fn offered_bps(&self) -> f64 {
        self.rate_bps.max(self.floor_bps())
    }

    pub fn d0_s(&self) -> f64 {
        self.d0_s
    }

    /// Flows counted (mode `ps`): with data under way, and announced by a
    /// SYN and not yet sending.
    pub fn counted_flows(&self) -> (u64, usize) {
        (self.flows, self.pending.len())
    }

    /// Mode `ps`: N, the flows with data under way plus the announced flows
    /// expected to join them (see [`Rcp::recount`]).
    pub fn n_hat(&self) -> u64 {
        self.n_hat
    }

    /// γC / N (N >= 1), or γC when none.
    fn share_bps(&self) -> f64 {
        self.cfg.gamma * self.link_bps / self.n_hat.max(1) as f64
    }

    /// Mode `ps`: `floor_fact`·γC/N (0 when N = 0).
    fn floor_bps(&self) -> f64 {
        if !self.ps() || self.n_hat == 0 {
            return 0.0;
        }
        (self.cfg.floor_fact * self.share_bps()).max(self.cfg.min_rate_bps)
    }

    /// Forget departures older than `horizon_ns`, and announced flows whose
    /// data has not come within it (a SYN answered by nothing); the latter
    /// only once d0 is measured.
    fn expire(&mut self, now: Time) {
        let w = self.horizon_ns();
        while self.departed.front().is_some_and(|&t| t.saturating_add(w) < now) {
            self.departed.pop_front();
        }
        if !self.d0_measured {
            return;
        }
        let pending_at = &mut self.pending_at;
        self.pending.retain(|f, t| {
            let keep = t.saturating_add(w) >= now;
            if !keep {
                pending_at.remove(&(*t, *f));
            }
            keep
        });
    }

    /// How long an announcement and a departure are kept: 2·d0 plus twice
    /// the time this queue takes to drain (a SYN and then the flow's first
    /// data packet may both wait in it).
    fn horizon_ns(&self) -> Time {
        ((2.0 * self.d0_s + 2.0 * self.fifo.len_bytes() as f64 * 8.0 / self.link_bps) * NS_PER_S as f64) as Time
    }

    /// The mean time a flow sends here, N̄/λ̄ (Little's law: the average
    /// number of flows counted over their departure rate), at most the
    /// horizon; `None` before any flow has left (no history).
    fn window_ns(&self) -> Option<Time> {
        (self.departures_avg > 0.0)
            .then(|| ((self.flows_avg / self.departures_avg * NS_PER_S as f64) as Time).min(self.horizon_ns()))
    }

    /// N = flows with data under way + the announced flows expected to join
    /// them when they start one RTT from now. With history (window w, the
    /// mean time a flow sends): of the B flows announced within the last w
    /// and the D flows that left within it, B - D - floor(sqrt(B + D)), and
    /// at least 1 while any flow is announced (at a steady arrival rate the
    /// flows about to start replace those about to finish, Little's law, and
    /// B - D is noise of standard deviation about sqrt(B + D); a burst of
    /// SYNs is not matched by departures). Without history: the
    /// largest run of announcements each within one SYN transmission time at
    /// this link of the one before (SYNs that come back to back, faster than
    /// this link could carry them, belong to flows that will send together;
    /// flows announced one by one are not assumed to overlap).
    fn recount(&mut self, now: Time) {
        if !self.ps() {
            return;
        }
        let excess = match self.window_ns() {
            Some(w) => {
                let from = now.saturating_sub(w);
                let b = self.pending_at.range((from, 0)..).count() as u64;
                let d = self.departed.iter().rev().take_while(|&&t| t >= from).count() as u64;
                // Beyond the noise of two Poisson counts (standard deviation
                // of B - D: sqrt(B + D)); the newest announced flow at least.
                b.saturating_sub(d + ((b + d) as f64).sqrt() as u64)
                    .max(u64::from(b > 0))
            }
            None => {
                let gap = self.syn_bytes as f64 * 8.0 * NS_PER_S as f64 / self.link_bps;
                let (mut best, mut run, mut last) = (0u64, 0u64, None::<Time>);
                for &(t, _) in &self.pending_at {
                    run = match last {
                        Some(l) if (t - l) as f64 <= gap => run + 1,
                        _ => 1,
                    };
                    best = best.max(run);
                    last = Some(t);
                }
                best
            }
        };
        self.n_hat = self.flows + excess;
    }

    /// Apply every slot boundary at or before `now`.
    pub fn catch_up(&mut self, now: Time) {
        let per_ns = self.link_bps / 8e9;
        while self.next_update_ns <= now {
            let t_s = self.slot_ns as f64 / NS_PER_S as f64;
            let bytes = if self.ps() {
                self.fluid.advance(self.next_update_ns, per_ns);
                std::mem::take(&mut self.fluid.bytes)
            } else {
                self.arrived_bytes as f64
            };
            let y = bytes * 8.0 / t_s;
            self.rate_bps = rate_update(
                &self.cfg,
                self.link_bps,
                self.rate_bps,
                t_s,
                self.d0_s,
                y,
                self.fifo.len_bytes() as f64,
            );
            if self.ps() {
                self.expire(self.next_update_ns);
                let g = (t_s / self.d0_s).min(1.0);
                self.flows_avg += g * (self.flows as f64 - self.flows_avg);
                self.departures_avg += g * (self.departed_slot as f64 / t_s - self.departures_avg);
                self.departed_slot = 0;
                self.recount(self.next_update_ns);
                // Flows expected to join: the input does not show them yet,
                // so R may not grow above their share.
                if self.n_hat > self.flows {
                    self.rate_bps = self.rate_bps.min(self.share_bps());
                }
                self.rate_bps = self.rate_bps.max(self.floor_bps());
            }
            if self.rtt_bytes > 0.0 {
                let s = self.rtt_weighted / self.rtt_bytes;
                self.d0_s = match (self.cfg.mode, self.d0_measured) {
                    (RcpMode::Ns2, _) => d0_update(self.d0_s, s, t_s, self.rate_bps, self.link_bps),
                    (RcpMode::Ps, false) => s,
                    (RcpMode::Ps, true) => d0_update_sym(self.d0_s, s, t_s),
                };
                self.d0_measured = true;
            }
            self.arrived_bytes = 0;
            self.rtt_weighted = 0.0;
            self.rtt_bytes = 0.0;
            self.slot_ns = Self::slot_of(&self.cfg, self.d0_s);
            self.next_update_ns += self.slot_ns;
        }
        if self.ps() {
            self.fluid.advance(now, per_ns);
        }
    }
}

impl Queue for Rcp {
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Option<Packet> {
        self.catch_up(now);
        // Counted before the drop decision, every kind (ns-2).
        self.arrived_bytes += pkt.size_bytes as u64;
        if self.ps() {
            let ser = ((pkt.size_bytes as f64 * 8e9 / self.link_bps).round() as Time).max(1);
            self.fluid.ends.push(std::cmp::Reverse(now.saturating_add(ser)));
        }
        let rtt = rtt_of(&pkt);
        if rtt > 0.0 && rtt.is_finite() {
            self.rtt_weighted += rtt * pkt.size_bytes as f64;
            self.rtt_bytes += pkt.size_bytes as f64;
        }
        // A new flow's SYN (not a probe, whose rtt is < 0) is announced, N is
        // recounted, and R becomes at most γC/N (IWQoS 2005: N = C/R). A
        // copy of a SYN already announced is the same flow.
        let syn = self.ps() && pkt.kind == PacketKind::Syn && rtt >= 0.0;
        let (flow, size) = (pkt.flow, pkt.size_bytes);
        let d = self.fifo.enqueue(now, pkt);
        if syn && d.is_none() {
            if let std::collections::btree_map::Entry::Vacant(e) = self.pending.entry(flow) {
                e.insert(now);
                self.pending_at.insert((now, flow));
            }
            self.syn_bytes = size;
            self.recount(now);
            self.rate_bps = self.rate_bps.min(self.share_bps()).max(self.cfg.min_rate_bps);
        }
        d
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.catch_up(now);
        let mut p = self.fifo.dequeue(now)?;
        if self.ps() && p.kind == PacketKind::Data {
            let (f, retx, h) = (p.flow, p.flags & flags::RETX != 0, p.hdr.get::<RcpData>());
            // The flow sends from its first data packet that carries an RTT
            // estimate (one sent with the SYN carries none, and the flow
            // waits for the SYN-ACK's rate after it): the first packet, or
            // a copy of it or a later one while the flow is still announced.
            if h.rtt_s > 0.0 && !self.sending.contains(&f) && (self.pending.contains_key(&f) || (p.seq == 0 && !retx)) {
                self.sending.insert(f);
                if let Some(t) = self.pending.remove(&f) {
                    self.pending_at.remove(&(t, f));
                }
            } else if p.seq == 0
                && !retx
                && h.rtt_s <= 0.0
                && !self.sending.contains(&f)
                && !self.pending.contains_key(&f)
            {
                // Sent with the SYN, whose first copy this port did not take.
                self.pending.insert(f, now);
                self.pending_at.insert((now, f));
            }
            if h.is_last() && !retx {
                let left = self.sending.remove(&f)
                    || self
                        .pending
                        .remove(&f)
                        .map(|t| self.pending_at.remove(&(t, f)))
                        .is_some();
                if left {
                    self.departed.push_back(now);
                    self.departed_slot += 1;
                }
            }
            self.flows = self.sending.len() as u64;
            self.recount(now);
        }
        if matches!(p.kind, PacketKind::Syn | PacketKind::Data) {
            let mut rate = self.offered_bps();
            if self.ps() && p.kind == PacketKind::Syn {
                rate = rate.min(self.share_bps());
            }
            let mut h: RcpData = p.hdr.get();
            if h.rate_bps < 0.0 || h.rate_bps > rate {
                h.rate_bps = rate;
                p.hdr.set(h);
            }
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
    use super::super::rate_of;
    use super::*;

    const C: f64 = 10e6;

    /// These tests derive the patch's router (mode ns2) by hand.
    fn ns2() -> RcpCfg {
        RcpCfg {
            mode: RcpMode::Ns2,
            ..RcpCfg::default()
        }
    }

    /// A packet with RCP's rate and RTT fields (in the same words whatever the kind).
    fn pkt(kind: PacketKind, bytes: u32, rate: f64, rtt: f64) -> Packet {
        let mut p = Packet::new(0, kind, bytes, 0, 0);
        p.hdr.set(RcpData {
            rate_bps: rate,
            rtt_s: rtt,
            last: 0.0,
        });
        p
    }

    #[test]
    fn one_slot_by_hand() {
        // C = 10 Mb/s, γ = 1, α = 0.1, β = 1, T = 10 ms, d0 = 0.1 s, R = 1 Mb/s,
        // y = 8 Mb/s, q = 5000 B = 40 kbit:
        // α(γC − y) = 0.1·2e6 = 2e5; β q/d0 = 4e4/0.1 = 4e5; difference −2e5;
        // ·T/d0 = ·0.1 -> −2e4; /γC -> −0.002; R' = 1e6·0.998 = 998 000.
        let c = ns2();
        let r = rate_update(&c, C, 1e6, 0.01, 0.1, 8e6, 5000.0);
        assert!((r - 998_000.0).abs() < 1e-6, "{r}");
        // γ = 0.5: γC = 5e6, α(γC − y) = 0.1·(−3e6) = −3e5, minus 4e5 = −7e5,
        // ·0.1 = −7e4, /5e6 = −0.014 -> 986 000.
        let c2 = RcpCfg { gamma: 0.5, ..ns2() };
        let r = rate_update(&c2, C, 1e6, 0.01, 0.1, 8e6, 5000.0);
        assert!((r - 986_000.0).abs() < 1e-6, "{r}");
    }

    #[test]
    fn the_rate_is_clipped_to_min_rate_and_gamma_c() {
        let c = ns2();
        // An empty link at R = γC would grow by (T/d0)α = 0.1·0.1 = 1 %: clipped to C.
        assert_eq!(rate_update(&c, C, C, 0.01, 0.1, 0.0, 0.0), C);
        // A huge queue (1 MB = 8 Mbit over d0 0.1 s = 80 Mb/s to drain) drives
        // the factor below zero: clipped to min_rate.
        assert_eq!(rate_update(&c, C, 1e6, 0.01, 0.1, 10e6, 1e6 * 10.0), c.min_rate_bps);
    }

    #[test]
    fn d0_moves_fast_up_and_slowly_down() {
        // s ≥ d0: g = T/d0 = 0.01/0.2 = 0.05; d0' = 0.95·0.2 + 0.05·0.4 = 0.21.
        assert!((d0_update(0.2, 0.4, 0.01, 1e6, C) - 0.21).abs() < 1e-12);
        // s < d0: g = (R/C)(s/d0)(T/d0) = 0.1·0.5·0.05 = 0.0025;
        // d0' = 0.9975·0.2 + 0.0025·0.1 = 0.19975.
        assert!((d0_update(0.2, 0.1, 0.01, 1e6, C) - 0.19975).abs() < 1e-12);
    }

    #[test]
    fn lazy_catch_up_over_idle_slots_equals_single_updates() {
        let c = ns2();
        let mut q = Rcp::new(&c, 100, C);
        // Initial: R = 0.05 C = 500 kb/s, d0 = 0.2 s, T = 10 ms, first boundary at 10 ms.
        assert_eq!(q.rate_bps(), 500e3);
        // 1040 B arrive at 5 ms and leave at once (q = 0 at every boundary).
        assert!(q.enqueue(5_000_000, pkt(PacketKind::Data, 1040, -1.0, 0.0)).is_none());
        q.dequeue(5_000_000).unwrap();
        // Nothing more until 45 ms: boundaries at 10, 20, 30, 40 ms.
        q.catch_up(45_000_000);
        let mut r = rate_update(&c, C, 500e3, 0.01, 0.2, 1040.0 * 8.0 / 0.01, 0.0);
        for _ in 0..3 {
            r = rate_update(&c, C, r, 0.01, 0.2, 0.0, 0.0);
        }
        assert!((q.rate_bps() - r).abs() < 1e-9, "{} vs {r}", q.rate_bps());
        // The idle-slot factor is 1 + (T/d0)·α = 1.005.
        let r1 = 500e3 * (1.0 + 0.05 * 0.1 * (C - 832e3) / C);
        assert!((r - r1 * 1.005f64.powi(3)).abs() < 1e-6);
        assert_eq!(q.d0_s(), 0.2, "no RTT-bearing packet: d0 unchanged");
    }

    #[test]
    fn the_queue_at_a_boundary_counts_and_rtt_feeds_d0() {
        let c = ns2();
        let mut q = Rcp::new(&c, 100, C);
        // Two packets wait over the 10 ms boundary; they carry rtt 0.3 s and 0.1 s
        // (sizes 1000 and 3000): s = (0.3·1000 + 0.1·3000)/4000 = 0.15 < d0.
        // An ACK with rtt −1 does not count in s but counts in y.
        q.enqueue(1_000_000, pkt(PacketKind::Data, 1000, -1.0, 0.3));
        q.enqueue(1_000_000, pkt(PacketKind::Data, 3000, -1.0, 0.1));
        q.enqueue(1_000_000, pkt(PacketKind::Ack, 40, 7.0, -1.0));
        q.catch_up(10_000_000);
        let r = rate_update(&c, C, 500e3, 0.01, 0.2, 4040.0 * 8.0 / 0.01, 4040.0);
        assert!((q.rate_bps() - r).abs() < 1e-9);
        let d0 = d0_update(0.2, 0.15, 0.01, r, C);
        assert!((q.d0_s() - d0).abs() < 1e-15);
    }

    #[test]
    fn stamps_at_dequeue_the_minimum_of_header_and_rate() {
        let c = ns2();
        let mut q = Rcp::new(&c, 10, C);
        let r0 = 500e3;
        q.enqueue(0, pkt(PacketKind::Syn, 40, -1.0, 0.0)); // infinity -> R
        q.enqueue(0, pkt(PacketKind::Data, 1040, 1e6, 0.1)); // above R -> R
        q.enqueue(0, pkt(PacketKind::Data, 1040, 1e5, 0.1)); // below R: kept
        q.enqueue(0, pkt(PacketKind::Ack, 40, 9e6, -1.0)); // ACK: never stamped
        q.enqueue(0, pkt(PacketKind::SynAck, 40, -1.0, -1.0)); // SYN-ACK: never stamped
        assert_eq!(rate_of(&q.dequeue(0).unwrap()), r0);
        assert_eq!(rate_of(&q.dequeue(0).unwrap()), r0);
        assert_eq!(rate_of(&q.dequeue(0).unwrap()), 1e5);
        assert_eq!(rate_of(&q.dequeue(0).unwrap()), 9e6);
        assert_eq!(rate_of(&q.dequeue(0).unwrap()), -1.0);
        // Stamped with the rate at dequeue, not at enqueue: a packet enqueued
        // at 0 and dequeued after the 10 ms boundary gets the updated rate.
        q.enqueue(0, pkt(PacketKind::Data, 1040, -1.0, 0.0));
        let p = q.dequeue(10_000_000).unwrap();
        assert!(rate_of(&p) > r0 && rate_of(&p) == q.rate_bps());
    }

    #[test]
    fn drops_beyond_the_limit_but_counts_the_arrival() {
        let c = ns2();
        let mut q = Rcp::new(&c, 1, C);
        assert!(q.enqueue(0, pkt(PacketKind::Data, 1000, -1.0, 0.0)).is_none());
        assert!(q.enqueue(0, pkt(PacketKind::Data, 1000, -1.0, 0.0)).is_some());
        q.catch_up(10_000_000);
        // y = 2000 B / 10 ms = 1.6 Mb/s, q = 1000 B.
        let r = rate_update(&c, C, 500e3, 0.01, 0.2, 1.6e6, 1000.0);
        assert!((q.rate_bps() - r).abs() < 1e-9);
    }

    fn ps_pkt(flow: u32, kind: PacketKind, seq: u64, last: bool, rtt: f64) -> Packet {
        let bytes = if kind == PacketKind::Data { 1040 } else { 40 };
        let mut p = Packet::new(flow, kind, bytes, seq, 0);
        p.hdr.set(RcpData {
            rate_bps: -1.0,
            rtt_s: rtt,
            last: if last { LAST } else { 0.0 },
        });
        p
    }

    /// Mode ps, a fresh port (no flow has left yet, so no history): four
    /// SYNs back to back are four flows that will send together, N = 4;
    /// SYNs that come one by one, further apart than a SYN's transmission
    /// time (40 B at 10 Mb/s = 32 us), are not assumed to overlap, N = 1.
    #[test]
    fn ps_without_history_counts_back_to_back_syns_as_one_burst() {
        let c = RcpCfg::default();
        let mut q = Rcp::new(&c, 100, C);
        for f in 0..4 {
            assert!(q.enqueue(1_000, ps_pkt(f, PacketKind::Syn, 0, false, 0.0)).is_none());
        }
        assert_eq!((q.n_hat(), q.counted_flows()), (4, (0, 4)));
        // R = min(0.05 C, C/4) = 500 kb/s; the floor 0.95 C/4 = 2.375 Mb/s is
        // above it, and below the SYN's cap C/4: every SYN carries 2.375 Mb/s.
        for _ in 0..4 {
            assert!((rate_of(&q.dequeue(1_000).unwrap()) - 2.375e6).abs() < 1e-6);
        }
        // One by one, 1 ms apart: each SYN is its own run, N = 1, 0.95 C.
        let mut q = Rcp::new(&c, 100, C);
        for f in 0..4u32 {
            let t = 1_000_000 * (f as Time + 1);
            q.enqueue(t, ps_pkt(f, PacketKind::Syn, 0, false, 0.0));
            assert_eq!(q.n_hat(), 1);
            assert!((rate_of(&q.dequeue(t).unwrap()) - 9.5e6).abs() < 1e-6);
        }
        assert_eq!(q.counted_flows(), (0, 4));
    }

    /// Mode ps with history: the window is the mean time a flow sends here,
    /// N̄/λ̄ from the slot averages, and of the B announcements and D
    /// departures within it only B − D − ⌊√(B + D)⌋ count, at least 1. By
    /// hand (C = 10 Mb/s, T = 10 ms): flows 1 and 5 send their first packets
    /// at 2 and 3 ms (rtt 0.1 s); at the 10 ms boundary 2 flows are counted,
    /// gain T/d0 = 0.01/0.2 = 0.05 (d0 is still the initial 0.2 s; it becomes
    /// 0.1 s after): N̄ = 0.1, λ̄ = 0. Flow 1 leaves at 12 ms. At 20 ms, gain
    /// 0.01/0.1 = 0.1: N̄ = 0.1 + 0.1 (1 − 0.1) = 0.19, λ̄ = 0.1 · (1 / 0.01 s)
    /// = 10/s, window 19 ms. Flow 5 leaves at 20.5 ms: D = 2 within [2, 21]
    /// ms. SYNs at 21 ms, one after another: B = 4 gives 4 − 2 − ⌊√6⌋ = 0,
    /// so N = 1 (the newest); B = 6 gives 6 − 2 − 2 = 2; B = 8 gives
    /// 8 − 2 − ⌊√10⌋ = 3, and the SYNs carry C/3 (a fresh port would count 8).
    #[test]
    fn ps_with_history_counts_announcements_beyond_departures_over_the_mean_sending_time() {
        let c = RcpCfg::default();
        let mut q = Rcp::new(&c, 100, C);
        let pass = |q: &mut Rcp, t: Time, p: Packet| {
            assert!(q.enqueue(t, p).is_none());
            q.dequeue(t).unwrap()
        };
        pass(&mut q, 1_000_000, ps_pkt(1, PacketKind::Syn, 0, false, 0.0));
        pass(&mut q, 1_000_000, ps_pkt(5, PacketKind::Syn, 0, false, 0.0));
        pass(&mut q, 2_000_000, ps_pkt(1, PacketKind::Data, 0, false, 0.1));
        pass(&mut q, 3_000_000, ps_pkt(5, PacketKind::Data, 0, false, 0.1));
        assert_eq!(q.counted_flows(), (2, 0));
        pass(&mut q, 12_000_000, ps_pkt(1, PacketKind::Data, 1, true, 0.1));
        assert_eq!(q.d0_s(), 0.1);
        q.catch_up(20_000_000);
        assert!((q.flows_avg - 0.19).abs() < 1e-12 && (q.departures_avg - 10.0).abs() < 1e-9);
        assert_eq!(q.window_ns(), Some(19_000_000));
        pass(&mut q, 20_500_000, ps_pkt(5, PacketKind::Data, 1, true, 0.1));
        assert_eq!(q.counted_flows(), (0, 0));
        // R is at least the floor of one flow (0.95 C) from the 20 ms boundary.
        assert!(q.rate_bps() >= 9.5e6);
        let mut n = vec![];
        for f in [2, 3, 4, 6, 7, 8, 9, 10] {
            assert!(q
                .enqueue(21_000_000, ps_pkt(f, PacketKind::Syn, 0, false, 0.0))
                .is_none());
            n.push(q.n_hat());
        }
        // B = 1..8: B − 2 − ⌊√(B + 2)⌋ = −2, −2, −1, 0, 1, 2, 2, 3; at least 1.
        assert_eq!(n, vec![1, 1, 1, 1, 1, 2, 2, 3]);
        for _ in 0..8 {
            assert!((rate_of(&q.dequeue(21_000_000).unwrap()) - 10e6 / 3.0).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_values_name_the_key() {
        for (k, v) in [
            ("alpha", -1.0),
            ("gamma", 0.0),
            ("gamma", 1.5),
            ("upd_timeslot_ms", 0.0),
            ("init_rate_fact", 0.0),
            ("min_rate_bps", 0.0),
            ("initial_rtt_ms", f64::NAN),
        ] {
            let mut c = RcpCfg::default();
            match k {
                "alpha" => c.alpha = v,
                "gamma" => c.gamma = v,
                "upd_timeslot_ms" => c.upd_timeslot_ms = v,
                "init_rate_fact" => c.init_rate_fact = v,
                "min_rate_bps" => c.min_rate_bps = v,
                _ => c.initial_rtt_ms = v,
            }
            assert_eq!(c.validate("network.rcp").unwrap_err().field, format!("network.rcp.{k}"));
        }
    }
}

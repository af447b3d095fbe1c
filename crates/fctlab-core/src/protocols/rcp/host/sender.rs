//! The RCP sender: paced at the path's rate, with SYN retransmission,
//! rate probes (mode `ns2`) and loss recovery rounds (see [`super`]).

use super::RcpHostCfg;
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::protocols::rcp::router::RcpMode;
use crate::protocols::rcp::{RcpAck, RcpData, LAST};
use crate::sim::{Time, NS_PER_S};
use crate::transport::{FlowSize, Sender};
use rangemap::RangeSet;
use std::collections::BTreeSet;

fn ms(v: f64) -> Time {
    (v * 1e6).round() as Time
}

/// Rates are kept within [1 b/s, 1 Tb/s] so an interval is always finite and
/// at least a few nanoseconds (a rate of −1 echoed back means no router
/// stamped the packet; the scenario check makes that impossible on a path
/// with an `rcp` bottleneck).
fn sane_rate(r: f64) -> f64 {
    if r.is_nan() || r < 0.0 {
        1e12
    } else {
        r.clamp(1.0, 1e12)
    }
}

/// An RCP sender.
pub struct RcpSender {
    flow: u32,
    size: FlowSize,
    mss: u32,
    hdr: u32,
    cfg: RcpHostCfg,
    established: bool,
    done: bool,
    /// The rate the path allows, bits/s (0 until the SYN-ACK).
    rate_bps: f64,
    srtt_ns: Option<f64>,
    /// Cumulative ACK: every packet below it has arrived.
    snd_una: u64,
    /// Next packet never sent.
    snd_nxt: u64,
    /// Packets acknowledged above `snd_una`, as runs (a flow of 10^6
    /// packets with one early hole holds one run, not 10^6 entries).
    pub(super) sacked: RangeSet<u64>,
    /// In a recovery round: the next sequence number to consider resending.
    resend: Option<u64>,
    /// Mode `ps`: holes with three packets acknowledged above them, to resend
    /// before new data; and how far holes have been looked for.
    lost: BTreeSet<u64>,
    scan: u64,
    last_send: Option<Time>,
    next_send: Option<Time>,
    syn_at: Option<Time>,
    /// SYNs sent so far.
    syns: u32,
    probe_at: Option<Time>,
    recovery_at: Option<Time>,
    retransmits: u64,
    probes: u64,
}

/// The third-highest packet in `set` (None with fewer than three).
pub(super) fn third_highest(set: &RangeSet<u64>) -> Option<u64> {
    let mut skip = 2;
    for r in set.iter().rev() {
        let len = r.end - r.start;
        if len > skip {
            return Some(r.end - 1 - skip);
        }
        skip -= len;
    }
    None
}

impl RcpSender {
    pub fn new(flow: u32, size: FlowSize, mss: u32, hdr: u32, cfg: RcpHostCfg) -> Self {
        RcpSender {
            flow,
            size,
            mss,
            hdr,
            cfg,
            established: false,
            done: false,
            rate_bps: 0.0,
            srtt_ns: None,
            snd_una: 0,
            snd_nxt: 0,
            sacked: RangeSet::new(),
            resend: None,
            lost: BTreeSet::new(),
            scan: 0,
            last_send: None,
            next_send: None,
            syn_at: None,
            syns: 0,
            probe_at: None,
            recovery_at: None,
            retransmits: 0,
            probes: 0,
        }
    }

    /// The current rate, bits/s.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// Rate probes sent.
    pub fn probes(&self) -> u64 {
        self.probes
    }

    /// The pacing interval (mss + header)·8/R, ns.
    pub fn interval_ns(&self) -> Time {
        (((self.mss + self.hdr) as f64 * 8.0 / self.rate_bps) * NS_PER_S as f64)
            .round()
            .max(1.0) as Time
    }

    fn rtt_sample(&mut self, rtt: Time) {
        let r = rtt as f64;
        // RFC 6298 SRTT gain 1/8.
        self.srtt_ns = Some(match self.srtt_ns {
            None => r,
            Some(s) => s + (r - s) / 8.0,
        });
    }

    /// A SYN asking for a rate (infinite so far), with RTT field `rtt_s`
    /// (0: announces the flow to routers in mode `ps`; -1: a rate request only).
    fn syn(&self, now: Time, rtt_s: f64) -> Packet {
        let mut p = Packet::new(self.flow, PacketKind::Syn, self.hdr, 0, now);
        p.hdr.set(RcpData {
            rate_bps: -1.0,
            rtt_s,
            last: 0.0,
        });
        p
    }

    /// The next packet to send: the next unacknowledged one of a recovery
    /// round, else the next new one.
    fn next_seq(&mut self) -> Option<u64> {
        if let Some(mut c) = self.resend {
            c = c.max(self.snd_una);
            if let Some(r) = self.sacked.get(&c) {
                c = r.end;
            }
            if c < self.snd_nxt {
                self.resend = Some(c);
                return Some(c);
            }
            self.resend = None;
        }
        while let Some(&h) = self.lost.first() {
            if h < self.snd_una || self.sacked.contains(&h) {
                self.lost.pop_first();
            } else {
                return Some(h);
            }
        }
        (self.snd_nxt < self.size.end_seq()).then_some(self.snd_nxt)
    }

    /// Reschedule the next send (last_send + interval, or now) and the probe
    /// and recovery timers after anything changed.
    fn reschedule(&mut self, now: Time) {
        if self.done || !self.established {
            return;
        }
        let rtt = self.srtt_ns.unwrap_or(0.0);
        if self.next_seq().is_some() {
            self.recovery_at = None;
            self.next_send = Some(match self.last_send {
                Some(l) => (l + self.interval_ns()).max(now),
                None => now,
            });
        } else {
            self.next_send = None;
            if self.recovery_at.is_none() {
                let wait = (self.cfg.recovery_rtts * rtt).round() as Time;
                self.recovery_at = Some(self.last_send.unwrap_or(now) + wait.max(1));
            }
        }
        // Stuck at a tiny rate: probe while the interval exceeds the RTT.
        if self.cfg.mode == RcpMode::Ns2 && self.next_send.is_some() && self.interval_ns() as f64 > rtt {
            if self.probe_at.is_none() {
                self.probe_at = Some(now + self.probe_gap());
            }
        } else {
            self.probe_at = None;
        }
    }

    /// When the next SYN is due after the `syns`-th: every `syn_retx_ms`
    /// (ns2), or from `syn_first_retx_ms` doubling up to it, spread by a
    /// factor in [1, 2) drawn from the flow id and the attempt (ps).
    fn syn_gap(&self) -> Time {
        if self.cfg.mode == RcpMode::Ns2 {
            return ms(self.cfg.syn_retx_ms);
        }
        let k = self.syns.saturating_sub(1).min(40);
        let base = (self.cfg.syn_first_retx_ms * 2f64.powi(k as i32)).min(self.cfg.syn_retx_ms);
        let mut z = ((self.flow as u64) << 32 | k as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let u = (z >> 11) as f64 / (1u64 << 53) as f64;
        ms(base * (1.0 + u)).max(1)
    }

    fn probe_gap(&self) -> Time {
        ms(self.cfg.max_probe_interval_ms)
            .min(self.srtt_ns.unwrap_or(f64::MAX).round() as Time)
            .max(1)
    }

    fn send_data(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(seq) = self.next_seq() else { return };
        let bytes = self.size.payload_of(seq, self.mss) + self.hdr;
        let mut p = Packet::new(self.flow, PacketKind::Data, bytes, seq, now);
        p.hdr.set(RcpData {
            rate_bps: -1.0,
            rtt_s: self.srtt_ns.unwrap_or(0.0) / NS_PER_S as f64,
            last: if seq + 1 == self.size.end_seq() { LAST } else { 0.0 },
        });
        if seq < self.snd_nxt {
            self.retransmits += 1;
            p.flags |= flags::RETX;
            let round = self.resend.is_some();
            self.lost.remove(&seq);
            if round {
                self.resend = Some(seq + 1);
            }
        } else {
            self.snd_nxt += 1;
        }
        out.push(p);
        self.last_send = Some(now);
    }

    fn on_rate(&mut self, rate: f64) {
        self.rate_bps = sane_rate(rate);
    }
}

impl Sender for RcpSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        out.push(self.syn(now, 0.0));
        self.syns = 1;
        self.syn_at = Some(now + self.syn_gap());
        if self.cfg.data_with_syn {
            // The first data packet goes with the SYN: it carries no RTT yet
            // and no router rate has been learned; the rest waits for the
            // SYN-ACK as without the option.
            self.send_data(now, out);
        }
    }

    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.done {
            return;
        }
        match pkt.kind {
            PacketKind::SynAck => {
                self.rtt_sample(now.saturating_sub(pkt.ts));
                self.on_rate(pkt.hdr.get::<RcpAck>().rate_bps);
                if !self.established {
                    self.established = true;
                    self.syn_at = None;
                    // The first data packet leaves at once.
                    self.send_data(now, out);
                }
                self.reschedule(now);
            }
            PacketKind::Ack if self.established => {
                self.rtt_sample(now.saturating_sub(pkt.ts));
                let h: RcpAck = pkt.hdr.get();
                self.on_rate(h.rate_bps);
                if pkt.seq > self.snd_una {
                    self.snd_una = pkt.seq;
                    self.sacked.remove(0..self.snd_una);
                }
                if let Some(s) = h.acked().filter(|&s| s >= self.snd_una) {
                    self.sacked.insert(s..s + 1);
                }
                // Mode ps: a hole with three packets acknowledged above it
                // is resent before new data (each at most once this way).
                if self.cfg.mode == RcpMode::Ps {
                    if let Some(hi) = third_highest(&self.sacked) {
                        let lo = self.scan.max(self.snd_una);
                        if lo < hi {
                            for gap in self.sacked.gaps(&(lo..hi)) {
                                self.lost.extend(gap);
                            }
                        }
                        self.scan = self.scan.max(hi);
                    }
                }
                if self.snd_una >= self.size.end_seq() {
                    self.done = true;
                    self.next_send = None;
                    self.probe_at = None;
                    self.recovery_at = None;
                    return;
                }
                self.reschedule(now);
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.done {
            return;
        }
        if let Some(t) = self.syn_at.filter(|&t| t <= now) {
            let _ = t;
            // With data_with_syn the first SYN or data packet has announced
            // the flow to the routers already (mode ps keeps it announced
            // until a data packet with an RTT estimate passes): a resent SYN
            // is a rate request only, as a probe (rtt < 0), so it is not
            // announced again.
            let rtt_s = if self.cfg.data_with_syn { -1.0 } else { 0.0 };
            let mut p = self.syn(now, rtt_s);
            p.flags |= flags::RETX;
            out.push(p);
            self.syns += 1;
            self.syn_at = Some(now + self.syn_gap());
        }
        if self.recovery_at.is_some_and(|t| t <= now) {
            self.recovery_at = None;
            self.resend = Some(self.snd_una);
            self.reschedule(now);
        }
        if self.next_send.is_some_and(|t| t <= now) {
            self.send_data(now, out);
            self.reschedule(now);
        }
        if self.probe_at.is_some_and(|t| t <= now) {
            // A probe: a rate request that announces nothing.
            out.push(self.syn(now, -1.0));
            self.probes += 1;
            self.probe_at = Some(now + self.probe_gap());
        }
    }

    fn next_timer(&self) -> Option<Time> {
        if self.done {
            return None;
        }
        [self.syn_at, self.next_send, self.probe_at, self.recovery_at]
            .into_iter()
            .flatten()
            .min()
    }

    fn done(&self) -> bool {
        self.done
    }

    fn retransmits(&self) -> u64 {
        self.retransmits
    }

    fn cwnd_pkts(&self) -> f64 {
        match self.srtt_ns {
            Some(s) => self.rate_bps * (s / NS_PER_S as f64) / ((self.mss + self.hdr) as f64 * 8.0),
            None => 0.0,
        }
    }

    fn srtt_ns(&self) -> Option<Time> {
        self.srtt_ns.map(|s| s.round() as Time)
    }
}

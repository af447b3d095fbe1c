//! RCP end hosts (Dukkipati & McKeown 2006; ns-2 RCP patch `rcp-host.cc`).
//! The router half is [`super::router`]; the header layout is in [`super`].
//!
//! Sender:
//! 1. At start, a SYN of `header_bytes` with rate = −1 ("infinity") and
//!    rtt = 0; resent every `syn_retx_ms` (ns-2 `SYN_DELAY` 0.5 s) until a
//!    SYN-ACK comes. RCP always handshakes (the SYN learns the first rate),
//!    whatever `transport.handshake` says.
//! 2. On the SYN-ACK: an RTT sample (now − echoed timestamp), R = the echoed
//!    stamped rate, and the first data packet leaves at once; after that one
//!    packet every interval = (mss + header)·8/R seconds (ns-2 uses the
//!    full-size interval for every packet, so do we).
//! 3. Every ACK echoes a rate: R changes, and the next send is rescheduled to
//!    last_send + interval, or now if that has passed.
//! 4. Data packets carry rate −1 and the sender's smoothed RTT (seconds) in the
//!    RTT field, which routers average into d0; ACKs and probes carry rtt −1
//!    (ns-2's RCP agents put their RTT in every packet; a later fix of the
//!    patch keeps ACKs and probes out of the routers' average).
//! 5. Stuck at a tiny rate (interval > smoothed RTT): rate probes every
//!    min(`max_probe_interval_ms`, RTT) (ns-2 RCP patch REF
//!    packets). A probe is modelled as a SYN-kind packet of `header_bytes`
//!    (routers stamp SYNs at dequeue exactly as they would a REF; the receiver
//!    answers any SYN with a SYN-ACK echoing the rate, as REFACK), so no new
//!    packet kind is needed. A probe's answer updates R and reschedules the
//!    next send, which is how a flow leaves the stuck state (the course
//!    reproduction's "rate falls to 0, no mechanism to recover").
//!
//! Loss recovery (ns-2: resend the unacknowledged packets 2·RTT after the
//! FIN; we keep the idea and make it explicit): the receiver acknowledges
//! every data packet with the cumulative ACK (next sequence expected) and, in
//! [`RcpAck::acks`], the sequence number of the packet that triggered it. The sender
//! keeps the set of packets acknowledged above the cumulative ACK. Once every
//! packet has been sent (the first time or in a recovery round), if the flow
//! is not fully acknowledged `recovery_rtts`·RTT (default 2) after the last
//! send, a recovery round resends, paced at the current rate, every packet
//! neither cumulatively nor individually acknowledged, in order; and again
//! after that round if needed. There is no other retransmission timer: an RCP
//! flow is paced by its rate, not clocked by ACKs.
//!
//! Data packets carry [`super::LAST`] in [`RcpData::last`] on the flow's last
//! packet (routers in mode `ps` count flows with it); resent SYNs carry RETX.
//!
//! **Mode `ps` (the default)** changes three things, each measured in
//! `tests/rcp_ps.rs`: the SYN is resent after `syn_first_retx_ms`·(1 + u),
//! doubling each time up to `syn_retx_ms`, u in [0, 1) drawn from the flow id
//! and the attempt (the patch's fixed 0.5 s made every flow whose SYN a full
//! buffer dropped wait 0.5 s, and all came back in step); a hole with three
//! packets acknowledged above it is resent once before new data (the patch
//! waits for the end of the flow, costing ~3 RTTs per loss); no rate probes
//! (with many flows at C/N the interval exceeds the RTT, and a probe every
//! RTT from each filled the link; the routers' floor keeps flows from being
//! stuck). **Mode `ns2`**: the patch's hosts as described above.
//!
//! **`data_with_syn`** (off by default): the first data packet leaves right
//! behind the SYN instead of on the SYN-ACK, as TCP Fast Open (RFC 7413)
//! carries data in the SYN; the rest waits for the SYN-ACK's rate. Resent
//! SYNs then carry rtt −1, as probes do, so routers in mode `ps` do not
//! announce the flow a second time; they count it as sending from its first
//! packet with an RTT estimate (the one sent with the SYN carries none). A
//! one-packet flow then ends half an RTT after it starts instead of one and a
//! half; a longer flow gains one packet interval.
//!
//! `cwnd_pkts` reports R·RTT / ((mss + header)·8).

use super::router::RcpMode;
use super::{RcpAck, RcpData, LAST};
use crate::config::{documented, duration_ms, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::{Time, NS_PER_S};
use crate::transport::{EndpointBuilder, FlowSize, Receiver, SchemeEntry, Sender, TransportParams};
use rangemap::RangeSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// `rcp` (the scheme).
pub const ENTRY: SchemeEntry = Entry {
    name: "rcp",
    description: "RCP (Dukkipati & McKeown 2006, ns-2 RCP patch): routers stamp one rate per link, senders pace at the path's rate; needs queue = \"rcp\"",
    table: Some("rcp"),
    params: documented::<RcpHostCfg>,
    requires: Some("rcp"),
    factory,
};

/// `[transport.rcp]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RcpHostCfg {
    /// `ps` (default): SYNs resent with exponential back-off from
    /// `syn_first_retx_ms`, spread per flow, and no rate probes; `ns2`: the
    /// patch's hosts (SYN every `syn_retx_ms`, probes).
    pub mode: RcpMode,
    /// Mode `ps`: the first SYN retransmission, ×(1 + u), u in [0, 1) drawn
    /// from the flow id; each next one doubles, up to `syn_retx_ms`.
    pub syn_first_retx_ms: f64,
    /// SYN retransmission interval: ns-2 RCP patch `rcp-host.cc` SYN_DELAY 0.5 s.
    pub syn_retx_ms: f64,
    /// Longest interval between rate probes: ns-2 RCP patch, min(0.5 s, RTT).
    pub max_probe_interval_ms: f64,
    /// RTTs after the last send before unacknowledged packets are resent:
    /// ns-2 RCP patch, 2·RTT after the FIN.
    pub recovery_rtts: f64,
    /// Send the first data packet with the SYN (right behind it, at start)
    /// instead of after the SYN-ACK, as TCP Fast Open (RFC 7413) puts data
    /// in the SYN: a one-packet flow then ends half an RTT after it starts.
    pub data_with_syn: bool,
}

impl Default for RcpHostCfg {
    fn default() -> Self {
        RcpHostCfg {
            mode: RcpMode::Ps,
            syn_first_retx_ms: 10.0,
            syn_retx_ms: 500.0,
            max_probe_interval_ms: 500.0,
            recovery_rtts: 2.0,
            data_with_syn: false,
        }
    }
}

impl RcpHostCfg {
    pub fn check(&self) -> Result<(), ConfigError> {
        for (k, v) in [
            ("syn_first_retx_ms", self.syn_first_retx_ms),
            ("syn_retx_ms", self.syn_retx_ms),
            ("max_probe_interval_ms", self.max_probe_interval_ms),
            ("recovery_rtts", self.recovery_rtts),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError {
                    field: format!("transport.rcp.{k}"),
                    message: format!("must be a positive number, got {v}"),
                });
            }
        }
        duration_ms("transport.rcp.syn_retx_ms", self.syn_retx_ms, true)?;
        duration_ms("transport.rcp.syn_first_retx_ms", self.syn_first_retx_ms, true)?;
        duration_ms("transport.rcp.max_probe_interval_ms", self.max_probe_interval_ms, true)?;
        if self.recovery_rtts > 1e3 {
            return Err(ConfigError::new(
                "transport.rcp.recovery_rtts",
                format!("must be at most 1000 RTTs, got {}", self.recovery_rtts),
            ));
        }
        Ok(())
    }
}

impl Params for RcpHostCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("mode", "ps: SYN back-off spread per flow, no rate probes (a burst of SYNs larger than the buffer gets through; probes from many slow flows would fill the link); ns2: the released ns-2 RCP patch rcp-host.cc"),
        ParamDoc::new("syn_first_retx_ms", "fctlab (mode ps): first SYN retransmission, doubling up to syn_retx_ms"),
        ParamDoc::new("syn_retx_ms", "ns-2 RCP patch rcp-host.cc SYN_DELAY 0.5 s"),
        ParamDoc::new("max_probe_interval_ms", "ns-2 RCP patch: REF probes every min(0.5 s, RTT) while interval > RTT"),
        ParamDoc::new("recovery_rtts", "ns-2 RCP patch: resend unacknowledged packets 2 RTT after the FIN"),
        ParamDoc::new("data_with_syn", "send the first data packet right behind the SYN, as TCP Fast Open (RFC 7413) carries data in the SYN; false: the first data leaves on the SYN-ACK"),
    ];
    fn validate(&self, _field: &str) -> Result<(), ConfigError> {
        self.check()
    }
}

/// Check `[transport.rcp]` and make the endpoint builder.
fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: RcpHostCfg = t.parse()?;
    let (mss, hdr) = (p.mss_bytes, p.header_bytes);
    Ok(Arc::new(move |id, size| {
        (
            Box::new(RcpSender::new(id, size, mss, hdr, c.clone())) as Box<dyn Sender>,
            Box::new(RcpReceiver::new(id, size, hdr)) as Box<dyn Receiver>,
        )
    }))
}

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
    sacked: RangeSet<u64>,
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
fn third_highest(set: &RangeSet<u64>) -> Option<u64> {
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

/// An RCP receiver: echoes the stamped rate in a SYN-ACK for every SYN (and
/// probe) and in an ACK for every data packet; counts what has arrived.
pub struct RcpReceiver {
    flow: u32,
    size: FlowSize,
    hdr: u32,
    /// Next sequence number expected (cumulative ACK).
    rcv_nxt: u64,
    /// Packets held above `rcv_nxt`, as runs.
    ooo: RangeSet<u64>,
    finished: Option<Time>,
}

impl RcpReceiver {
    pub fn new(flow: u32, size: FlowSize, hdr: u32) -> Self {
        RcpReceiver {
            flow,
            size,
            hdr,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            finished: None,
        }
    }
}

impl Receiver for RcpReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let kind = match pkt.kind {
            PacketKind::Syn => PacketKind::SynAck,
            PacketKind::Data => {
                if pkt.seq == self.rcv_nxt {
                    self.rcv_nxt += 1;
                    if let Some(r) = self.ooo.first().filter(|r| r.start == self.rcv_nxt).cloned() {
                        self.rcv_nxt = r.end;
                        self.ooo.remove(r);
                    }
                } else if pkt.seq > self.rcv_nxt {
                    self.ooo.insert(pkt.seq..pkt.seq + 1);
                }
                if self.finished.is_none() && self.rcv_nxt >= self.size.end_seq() {
                    self.finished = Some(now);
                }
                PacketKind::Ack
            }
            _ => return,
        };
        let mut a = Packet::new(
            self.flow,
            kind,
            self.hdr,
            if kind == PacketKind::Ack { self.rcv_nxt } else { 0 },
            pkt.ts,
        );
        a.hdr.set(RcpAck {
            rate_bps: pkt.hdr.get::<RcpData>().rate_bps,
            rtt_s: -1.0,
            acks: if kind == PacketKind::Ack { pkt.seq as f64 } else { -1.0 },
        });
        out.push(a);
    }

    fn on_timer(&mut self, _now: Time, _out: &mut Vec<Packet>) {}

    fn next_timer(&self) -> Option<Time> {
        None
    }

    fn finished_at(&self) -> Option<Time> {
        self.finished
    }

    fn in_order_pkts(&self) -> u64 {
        self.rcv_nxt
    }
}

#[cfg(test)]
mod tests {
    use super::super::{rate_of, rtt_of};
    use super::*;

    /// The patch's hosts (mode ns2), derived by hand below.
    fn sender(pkts: u64) -> RcpSender {
        RcpSender::new(
            0,
            FlowSize::from_bytes(pkts * 1000, 1000),
            1000,
            40,
            RcpHostCfg {
                mode: RcpMode::Ns2,
                ..RcpHostCfg::default()
            },
        )
    }

    fn ps_sender(flow: u32, pkts: u64) -> RcpSender {
        RcpSender::new(
            flow,
            FlowSize::from_bytes(pkts * 1000, 1000),
            1000,
            40,
            RcpHostCfg::default(),
        )
    }

    #[test]
    fn ps_syns_back_off_from_the_first_gap_spread_per_flow() {
        // Gaps k = 0, 1, 2, ...: 10·2^k ms, at most 500 ms, times a factor in
        // [1, 2); resent copies carry RETX.
        for flow in 0..20 {
            let mut s = ps_sender(flow, 3);
            let mut out = vec![];
            s.start(0, &mut out);
            let mut t = 0;
            for k in 0..8 {
                let next = s.next_timer().unwrap();
                let base = (10.0 * 2f64.powi(k)).min(500.0) * 1e6;
                let gap = (next - t) as f64;
                assert!(gap >= base && gap < 2.0 * base, "flow {flow} gap {k}: {gap}");
                out.clear();
                s.on_timer(next, &mut out);
                assert_eq!(
                    (out[0].kind, out[0].flags & flags::RETX),
                    (PacketKind::Syn, flags::RETX)
                );
                t = next;
            }
        }
        // Two flows do not resend in step.
        let (mut a, mut b) = (ps_sender(1, 3), ps_sender(2, 3));
        a.start(0, &mut vec![]);
        b.start(0, &mut vec![]);
        assert_ne!(a.next_timer(), b.next_timer());
    }

    #[test]
    fn ps_resends_a_hole_with_three_packets_acknowledged_above_it_before_new_data() {
        let mut s = ps_sender(0, 10);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 10 ms, R = 8.32 Mb/s: interval 1 ms.
        s.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        for k in 1..6 {
            s.on_timer(10_000_000 + k * 1_000_000, &mut out);
        }
        assert_eq!(out.iter().filter(|p| p.kind == PacketKind::Data).count(), 6);
        out.clear();
        // Packet 1 lost: ACKs for 0, 2, 3 (two above the hole: not yet), then 4.
        s.on_packet(20_000_000, &ack(10_000_000, 1, 0, 8.32e6), &mut out);
        s.on_packet(22_000_000, &ack(12_000_000, 1, 2, 8.32e6), &mut out);
        s.on_packet(23_000_000, &ack(13_000_000, 1, 3, 8.32e6), &mut out);
        s.on_timer(23_000_000, &mut out);
        assert_eq!(out.last().unwrap().seq, 6, "two above the hole: new data");
        s.on_packet(24_000_000, &ack(14_000_000, 1, 4, 8.32e6), &mut out);
        s.on_timer(s.next_timer().unwrap(), &mut out);
        let p = out.last().unwrap();
        assert_eq!((p.seq, p.flags & flags::RETX), (1, flags::RETX));
        assert_eq!(s.retransmits(), 1);
        s.on_timer(s.next_timer().unwrap(), &mut out);
        assert_eq!(out.last().unwrap().seq, 7, "then new data again");
    }

    fn synack(ts: Time, rate: f64) -> Packet {
        let mut p = Packet::new(0, PacketKind::SynAck, 40, 0, ts);
        p.hdr.set(RcpAck {
            rate_bps: rate,
            ..RcpAck::default()
        });
        p
    }

    fn ack(ts: Time, cum: u64, seq: u64, rate: f64) -> Packet {
        let mut p = Packet::new(0, PacketKind::Ack, 40, cum, ts);
        p.hdr.set(RcpAck {
            rate_bps: rate,
            rtt_s: 0.0,
            acks: seq as f64,
        });
        p
    }

    #[test]
    fn syn_carries_infinite_rate_and_is_resent_every_half_second() {
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].kind, out[0].size_bytes, rate_of(&out[0])),
            (PacketKind::Syn, 40, -1.0)
        );
        assert_eq!(s.next_timer(), Some(500_000_000));
        out.clear();
        s.on_timer(500_000_000, &mut out);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.next_timer(), Some(1_000_000_000));
    }

    #[test]
    fn pacing_interval_by_hand_and_first_packet_at_once() {
        // R = 500 kb/s: (1000 + 40)·8 / 5e5 = 16.64 ms.
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        out.clear();
        s.on_packet(30_000_000, &synack(0, 500e3), &mut out);
        assert_eq!(s.interval_ns(), 16_640_000);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].kind, out[0].seq, rate_of(&out[0])), (PacketKind::Data, 0, -1.0));
        // The data packet carries the RTT estimate (30 ms) for the routers.
        assert!((rtt_of(&out[0]) - 0.03).abs() < 1e-12);
        assert_eq!(s.next_timer(), Some(46_640_000));
        out.clear();
        s.on_timer(46_640_000, &mut out);
        assert_eq!(out[0].seq, 1);
        assert_eq!(s.next_timer(), Some(63_280_000));
        // An ACK raising R to 1.04 Mb/s (interval 8 ms) moves the next send to
        // last_send + 8 ms = 54.64 ms.
        out.clear();
        s.on_packet(50_000_000, &ack(30_000_000, 1, 0, 1.04e6), &mut out);
        assert!(out.is_empty());
        assert_eq!(s.interval_ns(), 8_000_000);
        assert_eq!(s.next_timer(), Some(54_640_000));
        // An ACK arriving after that time: the send happens now.
        s.on_packet(60_000_000, &ack(46_640_000, 2, 1, 1.04e6), &mut out);
        assert_eq!(s.next_timer(), Some(60_000_000));
        s.on_timer(60_000_000, &mut out);
        assert_eq!(out.last().unwrap().seq, 2);
        // cwnd = R·srtt / (1040·8).
        let srtt = s.srtt_ns().unwrap() as f64 / 1e9;
        assert!((s.cwnd_pkts() - 1.04e6 * srtt / 8320.0).abs() < 1e-6);
    }

    #[test]
    fn receiver_echoes_the_stamped_rate() {
        let mut r = RcpReceiver::new(0, FlowSize::from_bytes(2000, 1000), 40);
        let mut out = vec![];
        let mut syn = Packet::new(0, PacketKind::Syn, 40, 0, 5);
        syn.hdr.set(RcpData {
            rate_bps: 123.0,
            ..RcpData::default()
        });
        r.on_packet(10, &syn, &mut out);
        assert_eq!(
            (out[0].kind, rate_of(&out[0]), out[0].ts, rtt_of(&out[0])),
            (PacketKind::SynAck, 123.0, 5, -1.0)
        );
        let mut d = Packet::new(0, PacketKind::Data, 1040, 1, 7);
        d.hdr.set(RcpData {
            rate_bps: 456.0,
            rtt_s: 0.03,
            last: 0.0,
        });
        r.on_packet(20, &d, &mut out);
        // Out of order: cumulative ACK 0, acknowledges seq 1.
        assert_eq!(
            (
                out[1].kind,
                out[1].seq,
                rate_of(&out[1]),
                out[1].hdr.get::<RcpAck>().acks,
                rtt_of(&out[1])
            ),
            (PacketKind::Ack, 0, 456.0, 1.0, -1.0)
        );
        assert_eq!(r.finished_at(), None);
        d.seq = 0;
        r.on_packet(30, &d, &mut out);
        assert_eq!(out[2].seq, 2);
        assert_eq!(r.finished_at(), Some(30));
    }

    #[test]
    fn a_hole_below_many_packets_costs_one_run_not_one_entry_per_packet() {
        // Packet 0 lost, 1..=100000 arrive: the receiver holds one run and
        // ACKs 0 throughout; the sender's acknowledged set is one run too.
        let n = 100_000u64;
        let mut r = RcpReceiver::new(0, FlowSize::from_bytes((n + 1) * 1000, 1000), 40);
        let mut s = sender(n + 1);
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_packet(10_000_000, &synack(0, 1e9), &mut out);
        for seq in 1..=n {
            out.clear();
            r.on_packet(20_000_000, &Packet::new(0, PacketKind::Data, 1040, seq, 0), &mut out);
            assert_eq!(out[0].seq, 0);
            let ack = out[0];
            s.on_packet(20_000_000, &ack, &mut vec![]);
        }
        assert_eq!((r.ooo.len(), s.sacked.len()), (1, 1));
        assert_eq!(third_highest(&s.sacked), Some(n - 2));
        // The hole filled: everything is delivered in one step.
        out.clear();
        r.on_packet(30_000_000, &Packet::new(0, PacketKind::Data, 1040, 0, 0), &mut out);
        assert_eq!((out[0].seq, r.ooo.len(), r.finished_at()), (n + 1, 0, Some(30_000_000)));
    }

    #[test]
    fn third_highest_counts_packets_across_runs() {
        let mut set = RangeSet::new();
        assert_eq!(third_highest(&set), None);
        set.insert(10..11);
        set.insert(20..21);
        assert_eq!(third_highest(&set), None);
        set.insert(5..7);
        // {5, 6, 10, 20}: the third highest is 6.
        assert_eq!(third_highest(&set), Some(6));
        set.insert(30..40);
        assert_eq!(third_highest(&set), Some(37));
    }

    #[test]
    fn recovery_resends_only_the_unacknowledged_after_two_rtts() {
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 10 ms; R = 1.04 Mb/s: interval 8 ms.
        s.on_packet(10_000_000, &synack(0, 1.04e6), &mut out);
        s.on_timer(18_000_000, &mut out);
        s.on_timer(26_000_000, &mut out);
        out.clear();
        // Packet 1 lost: ACKs for 0 and 2.
        s.on_packet(20_000_000, &ack(10_000_000, 1, 0, 1.04e6), &mut out);
        s.on_packet(36_000_000, &ack(26_000_000, 1, 2, 1.04e6), &mut out);
        // srtt stays 10 ms; recovery at last send (26 ms) + 2·10 ms = 46 ms.
        assert_eq!(s.next_timer(), Some(46_000_000));
        s.on_timer(46_000_000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].flags & flags::RETX), (1, flags::RETX));
        assert_eq!(s.retransmits(), 1);
        // Nothing else to resend (2 was acknowledged): next recovery at 66 ms.
        assert_eq!(s.next_timer(), Some(66_000_000));
        s.on_packet(56_000_000, &ack(46_000_000, 3, 1, 1.04e6), &mut out);
        assert!(s.done() && s.next_timer().is_none());
    }

    #[test]
    fn a_tiny_rate_starts_probes_and_a_probe_answer_ends_them() {
        let mut s = sender(100);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 100 ms, R = 400 b/s: interval 20.8 s > RTT: probe every min(0.5 s, 0.1 s).
        s.on_packet(100_000_000, &synack(0, 400.0), &mut out);
        assert_eq!(s.next_timer(), Some(200_000_000));
        out.clear();
        s.on_timer(200_000_000, &mut out);
        assert_eq!(
            (out[0].kind, out[0].size_bytes, rate_of(&out[0]), rtt_of(&out[0])),
            (PacketKind::Syn, 40, -1.0, -1.0)
        );
        assert_eq!(s.probes(), 1);
        // The answer: 8.32 Mb/s, interval 1 ms < RTT: probing stops and the
        // next data packet goes at last_send (100 ms) + 1 ms, i.e. now.
        s.on_packet(300_000_000, &synack(200_000_000, 8.32e6), &mut out);
        assert_eq!(s.interval_ns(), 1_000_000);
        assert_eq!(s.next_timer(), Some(300_000_000));
        out.clear();
        s.on_timer(300_000_000, &mut out);
        assert_eq!((out.len(), out[0].kind, out[0].seq), (1, PacketKind::Data, 1));
        assert_eq!(s.next_timer(), Some(301_000_000));
    }

    #[test]
    fn data_with_syn_sends_the_first_packet_behind_the_syn() {
        let cfg = RcpHostCfg {
            data_with_syn: true,
            ..RcpHostCfg::default()
        };
        let mut s = RcpSender::new(0, FlowSize::from_bytes(3000, 1000), 1000, 40, cfg);
        let mut out = vec![];
        s.start(0, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.seq, p.size_bytes, p.flags & flags::RETX))
            .collect();
        assert_eq!(got, vec![(PacketKind::Syn, 0, 40, 0), (PacketKind::Data, 0, 1040, 0)]);
        // No RTT estimate yet: routers leave the packet out of their average.
        assert_eq!((rate_of(&out[1]), rtt_of(&out[1])), (-1.0, 0.0));
        out.clear();
        // SYN-ACK after 10 ms at 8.32 Mb/s (interval 1 ms): packet 1 at once, packet 2 one interval later.
        s.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        assert_eq!(
            out.iter().map(|p| (p.kind, p.seq)).collect::<Vec<_>>(),
            vec![(PacketKind::Data, 1)]
        );
        assert_eq!(s.next_timer(), Some(11_000_000));
        // A one-packet flow has nothing left to send after the SYN-ACK.
        let mut one = RcpSender::new(1, FlowSize::from_bytes(1000, 1000), 1000, 40, cfg_with_syn());
        let mut out = vec![];
        one.start(0, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out[1].hdr.get::<RcpData>().is_last());
        out.clear();
        one.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        assert!(out.is_empty());
        one.on_packet(10_000_001, &ack(0, 1, 0, 8.32e6), &mut out);
        assert!(one.done());
    }

    fn cfg_with_syn() -> RcpHostCfg {
        RcpHostCfg {
            data_with_syn: true,
            ..RcpHostCfg::default()
        }
    }
}

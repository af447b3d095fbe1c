//! Packet-pair flow control (Keshav, "A control-theoretic approach to flow
//! control", SIGCOMM 1991), with the inverse-exponential increase that the
//! 1991 benchmark (Kanakia, Keshav & Mishra, "A comparison of reactive
//! host-based flow control schemes in reservationless networks") describes
//! for its runs.
//!
//! The routers serve conversations round robin (fair queueing: `fq` with a
//! quantum of one data packet, so each conversation gets one packet per
//! round). A source sends its data in pairs of back-to-back packets; at the
//! bottleneck the second packet of a pair waits one round behind the first,
//! so the spacing of the pair's ACKs is the conversation's service time
//! there, and one over it is the estimated service rate `mu` (packets per
//! second). Once per round trip the source sets its target rate
//!
//! ```text
//! lambda* = mu + (B - n_b) / RTT,     n_b = outstanding - mu x RTT_min
//! ```
//!
//! where `B` is the set point (packets of its own it wants queued at the
//! bottleneck) and `n_b` estimates how many it has there (packets in flight
//! beyond those the pipe holds at rate `mu`). The rate falls to a lower
//! target at once and rises toward a higher one by `increase_gain` of the
//! gap per round trip (0.5: the gap halves each RTT), the inverse-exponential
//! increase the benchmark added so that a new source does not jump to its
//! rate on one probe. Pairs leave every 2 / lambda seconds.
//!
//! Readings (Keshav's estimator is a fuzzy-logic filter and his set point
//! and loss handling are not given in the benchmark paper): `mu` is the
//! smallest pair estimate of the last round trip (a pair that met no
//! competing packet sees the line rate, so the smallest is the safe one); `B` defaults to 5 packets (chosen); the first pair goes
//! out at the start and the rate starts at two packets per RTT once it is
//! acknowledged; losses (neither text gives the source's loss handling,
//! chosen, `recovery`): the receiver acknowledges every packet cumulatively;
//! with "go-back" (default) three duplicate ACKs or a retransmission timeout
//! (RFC 6298 timer) resend the first unacknowledged packet at once and go
//! back N: the packets after it
//! are sent again in pairs at the current rate (cumulative ACKs skip those
//! that had arrived), they no longer count as outstanding in `n_b`, and the
//! rate is recomputed on the next ACK that advances. (Resending one hole per
//! round trip, as NewReno does, left a source that lost a burst of a few
//! thousand packets repairing them for minutes, its once-per-RTT update
//! waiting for the ACK of the last packet sent before the loss.) With
//! "newreno" three duplicate ACKs resend the hole and each partial ACK the
//! next (RFC 6582), the timer restarted on the first partial ACK only (RFC
//! 3782 sec. 4), and a timeout goes back N as above. ACKs echo the pair's
//! tags from the data header words.

use super::rtt::RttEstimator;
use super::tcp::TcpReceiver;
use super::{EndpointBuilder, FlowSize, Receiver, SchemeEntry, Sender, TransportParams};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::packet::{flags, Layout};
use crate::net::{Packet, PacketKind};
use crate::protocols::e2e_ef::EfHeader;
use crate::sim::{Time, NS_PER_S};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The pair's tags on a data packet (a layout of `Packet::hdr`), echoed on
/// its ACK by the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairTag {
    /// 1 or 2 for the first or second packet of a pair, 0 otherwise.
    pub pos: f64,
    /// The pair's number.
    pub pair: f64,
}

/// The first two words; the third is left as it is.
impl Layout for PairTag {
    fn read(w: &[f64; 3]) -> Self {
        PairTag { pos: w[0], pair: w[1] }
    }

    fn write(self, w: &mut [f64; 3]) {
        w[0] = self.pos;
        w[1] = self.pair;
    }
}

/// What the source does on a loss (neither Keshav 1991 nor the benchmark
/// paper gives it).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Recovery {
    /// Three duplicate ACKs or a timeout: resend the first unacknowledged
    /// packet and go back N at the current rate.
    GoBack,
    /// Three duplicate ACKs resend the hole, each partial ACK the next one
    /// (NewReno, RFC 6582), the timer restarted on the first partial ACK only
    /// (the "Impatient" variant, RFC 3782 sec. 4); a timeout goes back N.
    Newreno,
}

/// `[transport.packet_pair]`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PacketPairParams {
    /// B: packets the source aims to keep queued at the bottleneck.
    pub setpoint_pkts: f64,
    /// Fraction of the gap to a higher target closed per round trip.
    pub increase_gain: f64,
    /// Loss handling: "go-back" or "newreno".
    pub recovery: Recovery,
}

impl Default for PacketPairParams {
    fn default() -> Self {
        PacketPairParams {
            setpoint_pkts: 5.0,
            increase_gain: 0.5,
            recovery: Recovery::GoBack,
        }
    }
}

impl Params for PacketPairParams {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("setpoint_pkts", "Keshav 1991 set point B (value chosen: the benchmark paper does not give it)"),
        ParamDoc::new("increase_gain", "Kanakia, Keshav & Mishra 1991: inverse-exponential increase to the target rate; 0.5 halves the gap per RTT (chosen)"),
        ParamDoc::new("recovery", "loss handling (chosen; the papers do not give it): \"go-back\" at the rate on 3 duplicate ACKs or a timeout, or \"newreno\" (RFC 6582 hole by hole, RFC 3782 sec. 4 Impatient timer)"),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.setpoint_pkts.is_finite() && self.setpoint_pkts >= 0.0) {
            return err(
                format!("{field}.setpoint_pkts"),
                format!("must be a number of packets >= 0, got {}", self.setpoint_pkts),
            );
        }
        if !(self.increase_gain > 0.0 && self.increase_gain <= 1.0) {
            return err(
                format!("{field}.increase_gain"),
                format!("must be in (0, 1] (1: jump to the target), got {}", self.increase_gain),
            );
        }
        Ok(())
    }
}

/// `packet-pair`.
pub const ENTRY: SchemeEntry = Entry {
    name: "packet-pair",
    description: "packet-pair (Keshav 1991): rate-based; the bottleneck service rate from the spacing of a pair's ACKs over round-robin fair queueing; rate -> mu + (B - n_b)/RTT, rising inverse-exponentially; needs queue = \"fq\"",
    table: Some("packet_pair"),
    params: documented::<PacketPairParams>,
    requires: Some("fq"),
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: PacketPairParams = t.parse()?;
    // One ACK per packet: the pair's spacing is read from two ACKs.
    let p = TransportParams {
        delayed_ack: false,
        ecn: false,
        ..p.clone()
    };
    Ok(Arc::new(move |id, size| {
        (
            Box::new(PacketPairSender::new(id, size, p.clone(), c.clone())) as Box<dyn Sender>,
            Box::new(TcpReceiver::new(id, size, &p)) as Box<dyn Receiver>,
        )
    }))
}

/// The packet-pair source.
pub struct PacketPairSender {
    flow: u32,
    size: FlowSize,
    end_seq: u64,
    p: TransportParams,
    c: PacketPairParams,
    rtt: RttEstimator,
    established: bool,
    snd_una: u64,
    snd_nxt: u64,
    high_data: u64,
    dupacks: u32,
    recover: u64,
    /// A partial ACK has restarted the timer in this recovery (`newreno`).
    partial_seen: bool,
    backoff: u32,
    rto_deadline: Option<Time>,
    retransmits: u64,
    done: bool,
    /// Sending rate, packets per second (0 until the first pair is measured).
    pub rate_pps: f64,
    /// Estimated service rate at the bottleneck, packets per second: the
    /// smallest sample of the last round trip.
    pub mu_pps: Option<f64>,
    /// The smallest sample since the last control update.
    mu_round: Option<f64>,
    /// Arrival time of the ACK of a pair's first packet, by pair number.
    first_ack: Option<(u64, Time)>,
    pairs: u64,
    next_send: Option<Time>,
    /// The next control update happens on the ACK that reaches this.
    update_at: u64,
    /// Explicit feedback (`e2e-ef`): mu and the queue come from the routers'
    /// stamps (`crate::protocols::e2e_ef`) instead of the pair spacing.
    explicit: bool,
    /// The flow's own queue at the bottleneck, as last stamped (explicit mode).
    fb_queue: f64,
}

impl PacketPairSender {
    pub fn new(flow: u32, size: FlowSize, p: TransportParams, c: PacketPairParams) -> Self {
        let rtt = RttEstimator::new(p.initial_rto_ns, p.min_rto_ns, p.max_rto_ns);
        PacketPairSender {
            flow,
            size,
            end_seq: size.end_seq(),
            p,
            c,
            rtt,
            established: false,
            snd_una: 0,
            snd_nxt: 0,
            high_data: 0,
            dupacks: 0,
            recover: 0,
            partial_seen: false,
            backoff: 0,
            rto_deadline: None,
            retransmits: 0,
            done: false,
            rate_pps: 0.0,
            mu_pps: None,
            mu_round: None,
            first_ack: None,
            pairs: 0,
            next_send: None,
            update_at: 0,
            explicit: false,
            fb_queue: 0.0,
        }
    }

    /// The same source driven by explicit router feedback (`e2e-ef`).
    pub fn explicit(flow: u32, size: FlowSize, p: TransportParams, c: PacketPairParams) -> Self {
        PacketPairSender {
            explicit: true,
            ..Self::new(flow, size, p, c)
        }
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
    }

    fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    fn send_seq(&mut self, now: Time, seq: u64, pos: u8, out: &mut Vec<Packet>) {
        let bytes = self.size.payload_of(seq, self.p.mss_bytes) + self.p.header_bytes;
        let mut pkt = Packet::new(self.flow, PacketKind::Data, bytes, seq, now);
        if self.explicit {
            // Routers lower the rate to theirs and put their queue beside it
            // (hbh's read the same words as `HbhData`).
            pkt.hdr.set(EfHeader {
                rate_pps: f64::MAX,
                queue_pkts: 0.0,
            });
        } else {
            pkt.hdr.set(PairTag {
                pos: pos as f64,
                pair: self.pairs as f64,
            });
        }
        if seq < self.high_data {
            self.retransmits += 1;
            pkt.flags |= flags::RETX;
        }
        self.high_data = self.high_data.max(seq + 1);
        out.push(pkt);
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    /// Send the next pair (or the last single packet) if the receiver's
    /// window allows, and schedule the next one at the current rate.
    fn send_pair(&mut self, now: Time, out: &mut Vec<Packet>) {
        let room = |s: &Self| s.snd_nxt < s.end_seq && (s.outstanding() as f64) + 1.0 <= s.p.max_cwnd_pkts + 1e-9;
        if !room(self) {
            // Nothing to send now; try again a pair interval later.
            self.next_send = (self.snd_una < self.end_seq && self.rate_pps > 0.0).then(|| now + self.pair_gap());
            return;
        }
        self.pairs += 1;
        let two = self.snd_nxt + 1 < self.end_seq && (self.outstanding() as f64) + 2.0 <= self.p.max_cwnd_pkts + 1e-9;
        let first = self.snd_nxt;
        self.snd_nxt += 1;
        self.send_seq(now, first, if two { 1 } else { 0 }, out);
        if two {
            let second = self.snd_nxt;
            self.snd_nxt += 1;
            self.send_seq(now, second, 2, out);
        }
        self.next_send = (self.rate_pps > 0.0).then(|| now + self.pair_gap());
    }

    /// Time between pairs: two packets at the current rate.
    fn pair_gap(&self) -> Time {
        ((2.0 * NS_PER_S as f64 / self.rate_pps).round() as Time).max(1)
    }

    /// The target rate from the latest estimates (packets per second).
    pub fn target_pps(&self, mu: f64, srtt_ns: Time, min_rtt_ns: Time) -> f64 {
        // Own packets beyond those the pipe holds at rate mu. With explicit
        // feedback the stamped queue (half a round trip old) is a lower bound.
        let in_flight = (self.outstanding() as f64 - mu * min_rtt_ns as f64 / NS_PER_S as f64).max(0.0);
        let n_b = if self.explicit {
            in_flight.max(self.fb_queue)
        } else {
            in_flight
        };
        mu + (self.c.setpoint_pkts - n_b) / (srtt_ns.max(1) as f64 / NS_PER_S as f64)
    }

    /// A new estimate of the service rate.
    fn mu_sample(&mut self, x: f64) {
        self.mu_round = Some(self.mu_round.map_or(x, |m| m.min(x)));
        if self.mu_pps.is_none() {
            self.mu_pps = Some(x);
        }
    }

    /// Once per round trip: move the rate toward the target.
    fn control(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some(m) = self.mu_round.take() {
            self.mu_pps = Some(m);
        }
        let (Some(mu), Some(srtt), Some(min_rtt)) = (self.mu_pps, self.rtt.srtt(), self.rtt.min_rtt()) else {
            return;
        };
        let floor = NS_PER_S as f64 / srtt.max(1) as f64;
        let target = self.target_pps(mu, srtt, min_rtt).max(floor);
        let first = self.rate_pps == 0.0;
        if first {
            // The first measurement: two packets per RTT, then up by the rule.
            self.rate_pps = (2.0 * floor).min(target);
        } else if target < self.rate_pps {
            self.rate_pps = target;
        } else {
            self.rate_pps += self.c.increase_gain * (target - self.rate_pps);
        }
        self.update_at = self.snd_nxt.max(self.snd_una + 1);
        if first || self.next_send.is_none() {
            self.send_pair(now, out);
        }
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        self.rtt.sample(now.saturating_sub(pkt.ts));
        // The pair's spacing, or the routers' stamps.
        let PairTag { pos, pair } = pkt.hdr.get();
        let pair = pair as u64;
        if self.explicit {
            let r: EfHeader = pkt.hdr.get();
            if r.rate_pps > 0.0 && r.rate_pps < f64::MAX {
                self.mu_sample(r.rate_pps);
                self.fb_queue = r.queue_pkts;
            }
        } else if pos == 1.0 {
            self.first_ack = Some((pair, now));
        } else if pos == 2.0 {
            if let Some((p1, t1)) = self.first_ack {
                if p1 == pair && now > t1 {
                    self.mu_sample(NS_PER_S as f64 / (now - t1) as f64);
                }
            }
        }
        let ack = pkt.seq;
        if ack > self.snd_una {
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.dupacks = 0;
            self.backoff = 0;
            if self.snd_una >= self.end_seq {
                self.done = true;
                self.rto_deadline = None;
                self.next_send = None;
                return;
            }
            if self.c.recovery == Recovery::Newreno && ack < self.recover && self.snd_una < self.high_data {
                // A partial ACK (RFC 6582): the next hole is lost too; resend
                // it at once. The timer restarts on the first partial ACK only
                // (RFC 3782 sec. 4, "Impatient"), so a burst of losses ends in
                // a timeout's go-back at the rate rather than one hole per RTT.
                let una = self.snd_una;
                self.send_seq(now, una, 0, out);
                if !self.partial_seen {
                    self.partial_seen = true;
                    self.arm_rto(now);
                }
            } else {
                self.arm_rto(now);
            }
        } else if ack == self.snd_una && self.outstanding() > 0 {
            self.dupacks += 1;
            if self.dupacks == self.p.dupack_threshold && self.snd_una >= self.recover {
                self.recover = self.high_data;
                match self.c.recovery {
                    Recovery::GoBack => self.go_back(now, out),
                    Recovery::Newreno => {
                        self.partial_seen = false;
                        let una = self.snd_una;
                        self.send_seq(now, una, 0, out);
                    }
                }
                self.arm_rto(now);
            }
        }
        if self.mu_pps.is_some() && (self.rate_pps == 0.0 || ack >= self.update_at) {
            self.control(now, out);
        }
    }

    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        self.backoff += 1;
        if !self.established {
            out.push(Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now));
            self.arm_rto(now);
            return;
        }
        self.recover = self.high_data;
        self.dupacks = 0;
        self.go_back(now, out);
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    /// A loss (a timeout, or `dupack_threshold` duplicate ACKs): go back to
    /// the first unacknowledged packet, resend it at once, and send the rest
    /// again in pairs at the current rate. The packets beyond it no longer
    /// count as outstanding, so `n_b` is estimated from those sent since, and
    /// the rate is recomputed on the next ACK that advances (a marker left at
    /// the old `snd_nxt` would not be reached until the whole loss is
    /// repaired, and the rate would stay frozen meanwhile).
    fn go_back(&mut self, now: Time, out: &mut Vec<Packet>) {
        let una = self.snd_una;
        self.snd_nxt = una + 1;
        self.update_at = una + 1;
        self.send_seq(now, una, 0, out);
        if self.rate_pps > 0.0 {
            self.next_send = Some(now + self.pair_gap());
        } else {
            // Still probing: resend the probe pair's remainder with it.
            self.next_send = Some(now);
        }
    }
}

impl Sender for PacketPairSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.p.handshake {
            out.push(Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now));
            self.arm_rto(now);
        } else {
            self.established = true;
            self.send_pair(now, out);
        }
    }

    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.done {
            return;
        }
        match pkt.kind {
            PacketKind::SynAck if !self.established => {
                self.established = true;
                self.rtt.sample(now.saturating_sub(pkt.ts));
                self.backoff = 0;
                self.rto_deadline = None;
                self.send_pair(now, out);
            }
            PacketKind::Ack if self.established => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.done {
            return;
        }
        if self.rto_deadline.is_some_and(|d| now >= d) {
            self.on_rto(now, out);
        }
        if self.next_send.is_some_and(|t| now >= t) {
            self.next_send = None;
            self.send_pair(now, out);
        }
    }

    fn next_timer(&self) -> Option<Time> {
        if self.done {
            return None;
        }
        match (self.rto_deadline, self.next_send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn done(&self) -> bool {
        self.done
    }

    fn retransmits(&self) -> u64 {
        self.retransmits
    }

    fn cwnd_pkts(&self) -> f64 {
        self.rate_pps * self.rtt.srtt().unwrap_or(0) as f64 / NS_PER_S as f64
    }

    fn srtt_ns(&self) -> Option<Time> {
        self.rtt.srtt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> TransportParams {
        TransportParams {
            mss_bytes: 460,
            header_bytes: 40,
            init_cwnd_pkts: 1.0,
            handshake: false,
            delayed_ack: false,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: false,
            tcp: Default::default(),
        }
    }

    fn ack(seq: u64, ts: Time, pos: f64, pair: u64) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, 40, seq, ts);
        a.hdr.set(PairTag { pos, pair: pair as f64 });
        a
    }

    #[test]
    fn rate_estimate_from_the_spacing_of_a_pairs_acks() {
        let mut s = PacketPairSender::new(0, FlowSize::of_pkts(1000, 460), params(), PacketPairParams::default());
        let mut out = Vec::new();
        s.start(0, &mut out);
        // The probe pair: packets 0 and 1 back to back, tagged 1 and 2 of pair 1.
        assert_eq!(out.len(), 2);
        assert_eq!(
            (
                out[0].hdr.get::<PairTag>().pos,
                out[1].hdr.get::<PairTag>().pos,
                out[1].hdr.get::<PairTag>().pair
            ),
            (1.0, 2.0, 1.0)
        );
        assert_eq!(s.next_timer(), s.rto_deadline, "no rate yet: nothing paced");
        // ACKs 40 ms and 40.1 ms later: mu = 1 / 100 us = 10 000 packets/s
        // (a 40 Mb/s bottleneck serving 500-byte packets).
        out.clear();
        s.on_packet(40_000_000, &ack(1, 0, 1.0, 1), &mut out);
        assert!(s.mu_pps.is_none());
        s.on_packet(40_100_000, &ack(2, 0, 2.0, 1), &mut out);
        assert!((s.mu_pps.unwrap() - 10_000.0).abs() < 1e-9);
        // First rate: two packets per smoothed RTT (RFC 6298 after samples of
        // 40 and 40.1 ms: 40 + 0.1/8 = 40.0125 ms).
        assert_eq!(s.rtt.srtt(), Some(40_012_500));
        let srtt = 0.0400125;
        assert!(
            (s.rate_pps - 2.0 / srtt).abs() < 1e-6,
            "{} vs {}",
            s.rate_pps,
            2.0 / srtt
        );
        // And the next pair goes out at once.
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn target_rate_is_mu_plus_the_setpoint_error_over_the_rtt() {
        let mut s = PacketPairSender::new(0, FlowSize::of_pkts(1000, 460), params(), PacketPairParams::default());
        // 30 packets outstanding; mu 10 000/s; RTT_min 2 ms holds 20 in the
        // pipe: n_b = 10; B = 5: target = 10 000 + (5 - 10)/0.0025 = 8 000/s
        // with srtt 2.5 ms.
        s.snd_nxt = 30;
        assert!((s.target_pps(10_000.0, 2_500_000, 2_000_000) - 8_000.0).abs() < 1e-6);
        // 10 outstanding: n_b = 0 (clamped): 10 000 + 5/0.0025 = 12 000.
        s.snd_nxt = 10;
        assert!((s.target_pps(10_000.0, 2_500_000, 2_000_000) - 12_000.0).abs() < 1e-6);
    }

    /// A source mid-transfer: 500 packets sent, 100 acknowledged, rate 100
    /// packets/s, mu 10 000/s, one RTT sample of 40 ms (srtt = RTT_min = 40 ms),
    /// and the next rate update due when packet 500 is acknowledged.
    fn mid_transfer() -> PacketPairSender {
        let mut s = PacketPairSender::new(0, FlowSize::of_pkts(1000, 460), params(), PacketPairParams::default());
        s.established = true;
        s.rtt.sample(40_000_000);
        s.snd_una = 100;
        s.snd_nxt = 500;
        s.high_data = 500;
        s.update_at = 500;
        s.rate_pps = 100.0;
        s.mu_pps = Some(10_000.0);
        s
    }

    /// After the loss the ACK of the resent packet 100 arrives (sent at 1.0 s,
    /// acknowledged 40 ms later, so srtt stays 40 ms). Nothing is outstanding,
    /// so n_b = 0 and target = mu + B / srtt = 10 000 + 5 / 0.04 = 10 125/s;
    /// the rate rises by half the gap: 100 + 0.5 x (10 125 - 100) = 5 112.5/s.
    fn ack_of_the_resend(s: &mut PacketPairSender) {
        let mut out = Vec::new();
        s.on_packet(1_040_000_000, &ack(101, 1_000_000_000, 0.0, 0), &mut out);
        assert!(
            (s.rate_pps - 5_112.5).abs() < 1e-6,
            "rate {} (the update must not wait for packet 500)",
            s.rate_pps
        );
    }

    #[test]
    fn three_duplicate_acks_go_back_and_the_rate_is_recomputed() {
        let mut s = mid_transfer();
        let mut out = Vec::new();
        for _ in 0..3 {
            s.on_packet(1_000_000_000, &ack(100, 960_000_000, 0.0, 0), &mut out);
        }
        // Packet 100 resent at once; the packets after it no longer count as
        // outstanding and will follow at the rate (a pair every 2 / 100 s).
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![100]);
        assert_eq!((s.snd_nxt, s.outstanding()), (101, 1));
        assert_eq!(s.next_send, Some(1_000_000_000 + 20_000_000));
        ack_of_the_resend(&mut s);
        // The next pair resends 101 and 102 (cumulative ACKs skip what arrived).
        out.clear();
        s.on_timer(s.next_send.unwrap(), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![101, 102]);
    }

    #[test]
    fn newreno_recovery_resends_hole_by_hole_and_restarts_the_timer_once() {
        let c = PacketPairParams {
            recovery: Recovery::Newreno,
            ..Default::default()
        };
        let mut s = PacketPairSender { c, ..mid_transfer() };
        let mut out = Vec::new();
        for _ in 0..3 {
            s.on_packet(1_000_000_000, &ack(100, 960_000_000, 0.0, 0), &mut out);
        }
        // Only the hole is resent; the rest stays outstanding.
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![100]);
        assert_eq!((s.snd_nxt, s.recover), (500, 500));
        // Partial ACKs 150 and 200: each resends the next hole; the first
        // restarts the timer (one RTO from 1.04 s), the second does not.
        out.clear();
        s.on_packet(1_040_000_000, &ack(150, 1_000_000_000, 0.0, 0), &mut out);
        let due = s.rto_deadline;
        assert_eq!(due, Some(1_040_000_000 + s.rtt.backed_off(0)));
        s.on_packet(1_080_000_000, &ack(200, 1_040_000_000, 0.0, 0), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![150, 200]);
        assert_eq!(s.rto_deadline, due);
    }

    #[test]
    fn a_timeout_goes_back_and_the_rate_is_recomputed() {
        let mut s = mid_transfer();
        let mut out = Vec::new();
        s.on_rto(1_000_000_000, &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![100]);
        assert_eq!((s.snd_nxt, s.outstanding()), (101, 1));
        ack_of_the_resend(&mut s);
    }
}

//! The TCP sender and receiver machinery shared by every window-based scheme:
//! optional SYN / SYN-ACK handshake, ACK clocking, duplicate-ACK counting, fast
//! retransmit and recovery (Tahoe, Reno, or NewReno per RFC 6582), and the
//! retransmission timer (RFC 6298) with exponential back-off and go-back-N.
//!
//! Sequence numbers count packets (segments), starting at 0. An ACK carries the
//! cumulative acknowledgement: the next sequence number the receiver expects.

use super::cc::{AckSample, CongestionControl, Recovery, Window};
use super::rtt::RttEstimator;
use super::{FlowSize, Receiver, Sender, TcpParams};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use std::collections::BTreeSet;

/// A TCP sender for one flow.
pub struct TcpSender {
    flow: u32,
    size: FlowSize,
    p: TcpParams,
    cc: Box<dyn CongestionControl>,
    recovery_style: Recovery,
    pub w: Window,
    rtt: RttEstimator,
    established: bool,
    started: bool,
    /// Oldest unacknowledged sequence number.
    snd_una: u64,
    /// Next sequence number to send.
    snd_nxt: u64,
    /// One past the highest sequence number ever sent ("HighData" + 1).
    high_data: u64,
    /// NewReno's `recover` (RFC 6582): high_data when recovery was entered.
    recover: u64,
    in_recovery: bool,
    /// Whether the RTO timer was already reset by a partial ACK in this recovery.
    partial_reset: bool,
    dupacks: u32,
    backoff: u32,
    rto_deadline: Option<Time>,
    retransmits: u64,
    done: bool,
}

impl TcpSender {
    pub fn new(flow: u32, size: FlowSize, p: TcpParams, cc: Box<dyn CongestionControl>) -> Self {
        let recovery_style = cc.recovery();
        let rtt = RttEstimator::new(p.initial_rto_ns, p.min_rto_ns, p.max_rto_ns);
        TcpSender {
            flow,
            size,
            w: Window { cwnd: p.init_cwnd_pkts, ssthresh: f64::MAX },
            p,
            cc,
            recovery_style,
            rtt,
            established: false,
            started: false,
            snd_una: 0,
            snd_nxt: 0,
            high_data: 0,
            recover: 0,
            in_recovery: false,
            partial_reset: false,
            dupacks: 0,
            backoff: 0,
            rto_deadline: None,
            retransmits: 0,
            done: false,
        }
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
    }

    fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    fn data_packet(&self, now: Time, seq: u64) -> Packet {
        let bytes = self.size.payload_of(seq, self.p.mss_bytes) + self.p.header_bytes;
        let mut pkt = Packet::new(self.flow, PacketKind::Data, bytes, seq, now);
        if self.p.ecn {
            pkt.flags |= flags::ECT;
        }
        pkt
    }

    fn send_seq(&mut self, now: Time, seq: u64, out: &mut Vec<Packet>) {
        let mut pkt = self.data_packet(now, seq);
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

    /// Send new (or, after a timeout, re-sent) data while the window allows.
    fn send_window(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = self.w.cwnd.min(self.p.max_cwnd_pkts);
        while self.snd_nxt < self.size.pkts && (self.outstanding() as f64) + 1.0 <= wnd + 1e-9 {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.send_seq(now, seq, out);
        }
    }

    fn syn(&self, now: Time) -> Packet {
        Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now)
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, ts: Time, out: &mut Vec<Packet>) {
        let acked = ack - self.snd_una;
        let flight = self.outstanding();
        let rtt = now.saturating_sub(ts);
        self.rtt.sample(rtt);
        self.backoff = 0;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            // Go-back-N after a timeout: the receiver already had these.
            self.snd_nxt = ack;
        }
        if self.in_recovery {
            match self.recovery_style {
                Recovery::NewReno if ack < self.recover => {
                    // Partial ACK (RFC 6582 3.2 step 5): retransmit the first
                    // unacknowledged segment, deflate by the amount acknowledged
                    // and add back one segment; reset the timer on the first one.
                    self.send_seq(now, ack, out);
                    self.w.cwnd = (self.w.cwnd - acked as f64 + 1.0).max(1.0);
                    if !self.partial_reset {
                        self.partial_reset = true;
                        self.arm_rto(now);
                    }
                }
                Recovery::NewReno => {
                    // Full ACK (step 6, option 1): min(ssthresh, max(FlightSize, SMSS) + SMSS).
                    let flight_now = self.high_data - ack;
                    self.w.cwnd = self.w.ssthresh.min(flight_now.max(1) as f64 + 1.0);
                    self.in_recovery = false;
                }
                _ => {
                    // Reno (RFC 5681 3.2 step 6): deflate to ssthresh on the first new ACK.
                    self.w.cwnd = self.w.ssthresh;
                    self.in_recovery = false;
                }
            }
        } else {
            let s = AckSample {
                now,
                acked_pkts: acked,
                rtt_ns: rtt,
                srtt_ns: self.rtt.srtt().unwrap_or(rtt),
                min_rtt_ns: self.rtt.min_rtt().unwrap_or(rtt),
                flight_pkts: flight,
            };
            self.cc.on_ack(&mut self.w, &s);
        }
        self.dupacks = 0;
        if self.snd_una >= self.size.pkts {
            self.done = true;
            self.rto_deadline = None;
            return;
        }
        // RFC 6298 5.3: restart the timer when new data is acknowledged (inside
        // NewReno recovery only the first partial ACK does, above).
        if !self.in_recovery {
            self.arm_rto(now);
        }
        self.send_window(now, out);
    }

    fn on_dupack(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        if self.in_recovery {
            // RFC 5681 3.2 step 4: inflate by one segment per further dupACK.
            self.w.cwnd += 1.0;
            self.send_window(now, out);
            return;
        }
        if self.dupacks != self.p.dupack_threshold {
            return;
        }
        // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more than
        // `recover` (no false fast retransmits after a timeout).
        if self.recovery_style == Recovery::NewReno && self.snd_una < self.recover {
            return;
        }
        let flight = self.outstanding();
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        self.recover = self.high_data;
        match self.recovery_style {
            Recovery::Tahoe => {
                self.w.cwnd = 1.0;
                self.snd_nxt = self.snd_una;
                self.send_window(now, out);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.in_recovery = true;
                self.partial_reset = false;
                let una = self.snd_una;
                self.send_seq(now, una, out);
                self.w.cwnd = self.w.ssthresh + self.p.dupack_threshold as f64;
                self.arm_rto(now);
                self.send_window(now, out);
            }
        }
    }

    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        if !self.established {
            // SYN lost: resend it with back-off.
            self.backoff += 1;
            out.push(self.syn(now));
            self.arm_rto(now);
            return;
        }
        // RFC 5681 eq. 4, but hold ssthresh when a retransmission is itself lost.
        let flight = self.high_data.max(self.snd_nxt) - self.snd_una;
        if self.backoff == 0 {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
        self.w.cwnd = 1.0;
        self.cc.on_rto(&mut self.w);
        self.backoff += 1;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_data;
        self.snd_nxt = self.snd_una;
        self.send_window(now, out);
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }
}

impl Sender for TcpSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started = true;
        if self.p.handshake {
            out.push(self.syn(now));
            self.arm_rto(now);
        } else {
            self.established = true;
            self.send_window(now, out);
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
                self.send_window(now, out);
            }
            PacketKind::Ack if self.established => {
                if pkt.seq > self.snd_una {
                    self.on_new_ack(now, pkt.seq, pkt.ts, out);
                } else if pkt.seq == self.snd_una && self.snd_nxt > self.snd_una {
                    self.on_dupack(now, out);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some(d) = self.rto_deadline {
            if now >= d {
                self.on_rto(now, out);
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        if self.done { None } else { self.rto_deadline }
    }

    fn done(&self) -> bool {
        self.done
    }

    fn retransmits(&self) -> u64 {
        self.retransmits
    }

    fn cwnd_pkts(&self) -> f64 {
        self.w.cwnd
    }

    fn srtt_ns(&self) -> Option<Time> {
        self.rtt.srtt()
    }
}

/// A TCP receiver: cumulative ACKs, out-of-order buffering, optional delayed ACKs.
pub struct TcpReceiver {
    flow: u32,
    size: FlowSize,
    header_bytes: u32,
    delayed_ack: bool,
    delack_timeout: Time,
    rcv_nxt: u64,
    ooo: BTreeSet<u64>,
    /// A segment received in order and not yet acknowledged (delayed ACK):
    /// the timestamp to echo.
    pending: Option<Time>,
    delack_deadline: Option<Time>,
    finished: Option<Time>,
    ecn_echo: bool,
}

impl TcpReceiver {
    pub fn new(flow: u32, size: FlowSize, p: &TcpParams) -> Self {
        TcpReceiver {
            flow,
            size,
            header_bytes: p.header_bytes,
            delayed_ack: p.delayed_ack,
            delack_timeout: p.delack_timeout_ns,
            rcv_nxt: 0,
            ooo: BTreeSet::new(),
            pending: None,
            delack_deadline: None,
            finished: None,
            ecn_echo: false,
        }
    }

    fn ack(&mut self, ts: Time, out: &mut Vec<Packet>) {
        let mut a = Packet::new(self.flow, PacketKind::Ack, self.header_bytes, self.rcv_nxt, ts);
        if self.ecn_echo {
            a.flags |= flags::ECE;
            self.ecn_echo = false;
        }
        out.push(a);
        self.pending = None;
        self.delack_deadline = None;
    }
}

impl Receiver for TcpReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::Syn => {
                out.push(Packet::new(self.flow, PacketKind::SynAck, self.header_bytes, 0, pkt.ts));
            }
            PacketKind::Data => {
                if pkt.flags & flags::CE != 0 {
                    self.ecn_echo = true;
                }
                let seq = pkt.seq;
                let in_order = seq == self.rcv_nxt;
                let had_holes = !self.ooo.is_empty();
                if in_order {
                    self.rcv_nxt += 1;
                    while self.ooo.remove(&self.rcv_nxt) {
                        self.rcv_nxt += 1;
                    }
                } else if seq > self.rcv_nxt {
                    self.ooo.insert(seq);
                }
                if self.finished.is_none() && self.rcv_nxt >= self.size.pkts {
                    self.finished = Some(now);
                }
                // RFC 5681 4.2: ACK at once for out-of-order or hole-filling data,
                // at least every second full segment, else within the timeout.
                if !self.delayed_ack || !in_order || had_holes || self.finished.is_some() {
                    let ts = self.pending.unwrap_or(pkt.ts);
                    self.ack(ts, out);
                } else if let Some(ts) = self.pending {
                    self.ack(ts, out);
                } else {
                    self.pending = Some(pkt.ts);
                    self.delack_deadline = Some(now + self.delack_timeout);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let (Some(d), Some(ts)) = (self.delack_deadline, self.pending) {
            if now >= d {
                self.ack(ts, out);
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        self.delack_deadline
    }

    fn finished_at(&self) -> Option<Time> {
        self.finished
    }
}

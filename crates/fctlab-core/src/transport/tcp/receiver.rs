//! The TCP receiver: cumulative ACKs, out-of-order buffering, optional
//! delayed ACKs, the ECN echo, the teardown's FIN; and with SACK, the blocks.

use crate::net::packet::{flags, Header};
use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use crate::transport::sack::SackReport;
use crate::transport::tcp::options::Delack;
use crate::transport::{FlowSize, Receiver, TransportParams};
use rangemap::RangeSet;

/// A [`TcpReceiver`] whose ACKs carry SACK blocks (RFC 2018), in their header
/// words ([`crate::net::packet::SackBlocks`]).
pub struct TcpSackReceiver {
    inner: TcpReceiver,
    report: SackReport,
}

impl TcpSackReceiver {
    /// Up to `blocks` SACK blocks per ACK.
    pub fn new(inner: TcpReceiver, blocks: usize) -> Self {
        TcpSackReceiver {
            inner,
            report: SackReport::new(blocks),
        }
    }

    /// The SACK option on the ACKs the receiver just added to `out`.
    fn stamp(&self, out: &mut [Packet]) {
        let option = self.report.option(self.inner.rcv_nxt);
        for a in out.iter_mut().filter(|p| p.kind == PacketKind::Ack) {
            a.hdr.set(option);
        }
    }
}

impl Receiver for TcpSackReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let n = out.len();
        self.inner.on_packet(now, pkt, out);
        if pkt.kind == PacketKind::Data {
            self.report.on_data(pkt.seq, self.inner.rcv_nxt);
        }
        self.stamp(&mut out[n..]);
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let n = out.len();
        self.inner.on_timer(now, out);
        self.stamp(&mut out[n..]);
    }

    fn next_timer(&self) -> Option<Time> {
        self.inner.next_timer()
    }

    fn finished_at(&self) -> Option<Time> {
        self.inner.finished_at()
    }

    fn in_order_pkts(&self) -> u64 {
        self.inner.rcv_nxt
    }
}

/// What the next ACK echoes of the CE marks seen (one byte of per-flow state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Echo {
    /// RFC 3168 form: no mark since the last ACK.
    Clear,
    /// RFC 3168 form: a mark since the last ACK; the next ACK carries ECE.
    Set,
    /// DCTCP (RFC 8257 3.2): every ACK echoes the CE bit of the last data
    /// packet, here clear ...
    DctcpClear,
    /// ... or set.
    DctcpSet,
}

/// A TCP receiver: cumulative ACKs, out-of-order buffering, optional delayed ACKs.
///
/// ECN echo: the ACK that follows a CE-marked data packet carries ECE (with
/// delayed ACKs, the next ACK sent). RFC 3168 (and ns-2's `TcpSink`) instead
/// repeat ECE on every ACK until a data packet with CWR arrives; the sender's
/// answer is the same either way (one reduction per window of data, decided by
/// the sender's own state) unless every ECE ACK of a window is lost, and this
/// form needs no CWR bit.
pub struct TcpReceiver {
    flow: u32,
    /// `size.end_seq()`, kept for the per-packet checks.
    end_seq: u64,
    header_bytes: u32,
    /// A SYN-ACK's bytes: the header and the SYN's options (`syn_option_bytes`).
    synack_bytes: u32,
    /// `fin_exchange`: a FIN follows the ACK of the last data.
    fin: bool,
    /// `fin_rst`: and a pure ACK follows the FIN.
    ack_after_fin: bool,
    delayed_ack: bool,
    delack_timeout: Time,
    rcv_nxt: u64,
    /// Packets held above `rcv_nxt`, as runs (memory per hole, not per packet).
    ooo: RangeSet<u64>,
    /// A segment received in order and not yet acknowledged (delayed ACK):
    /// the timestamp to echo.
    pending: Option<Time>,
    delack_deadline: Option<Time>,
    finished: Option<Time>,
    ecn_echo: Echo,
    /// Router-assisted schemes: the last data packet's header, feedback
    /// summed over the data packets not yet acknowledged; echoed in the ACK.
    echo_hdr: Header,
    /// Linux's delayed ACKs (`delack = "linux"`; boxed, so a flow without
    /// them pays one word).
    linux: Option<Box<LinuxAcks>>,
}

/// Linux's delayed-ACK state (`struct inet_connection_sock_ack`: `quick`,
/// `ato`, `lrcvtime`), in ns instead of jiffies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxAcks {
    /// Immediate ACKs left in quickack mode.
    pub quick: u32,
    /// The delayed-ACK timeout (0: no data yet).
    pub ato: Time,
    /// When the last in-order segment came.
    pub last: Time,
    /// The most quick ACKs: min(16, receiver window / 2), at least 2.
    max_quick: u32,
    /// The receiver's RTO (its initial RTO: it takes no RTT samples).
    rto: Time,
}

const MS: Time = 1_000_000;
/// `TCP_ATO_MIN` (HZ/25) and `TCP_DELACK_MIN`.
const ATO_MIN: Time = 40 * MS;
/// `TCP_DELACK_MAX` (HZ/5).
const DELACK_MAX: Time = 200 * MS;
/// `TCP_MAX_QUICKACKS`.
const MAX_QUICKACKS: u32 = 16;

impl LinuxAcks {
    fn new(p: &TransportParams) -> Self {
        let wnd_half = (p.max_cwnd_pkts / 2.0).min(MAX_QUICKACKS as f64) as u32;
        LinuxAcks {
            quick: 0,
            ato: 0,
            last: 0,
            max_quick: if wnd_half == 0 { 2 } else { wnd_half },
            rto: p.initial_rto_ns,
        }
    }

    /// `tcp_incr_quickack`.
    fn incr_quickack(&mut self) {
        self.quick = self.quick.max(self.max_quick);
    }

    /// `tcp_enter_quickack_mode`.
    fn enter_quickack(&mut self) {
        self.incr_quickack();
        self.ato = ATO_MIN;
    }

    /// `tcp_event_data_recv`: an in-order segment at `now`.
    fn on_data(&mut self, now: Time) {
        if self.ato == 0 {
            self.enter_quickack();
        } else {
            let m = now.saturating_sub(self.last);
            if m <= ATO_MIN / 2 {
                self.ato = self.ato / 2 + ATO_MIN / 2;
            } else if m < self.ato {
                self.ato = (self.ato / 2 + m).min(self.rto);
            } else if m > self.rto {
                self.incr_quickack();
            }
        }
        self.last = now;
    }

    /// `tcp_dec_quickack_mode`: an ACK went out.
    fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN;
            }
        }
    }

    /// `tcp_send_delayed_ack`: the timer's delay.
    fn delay(&self) -> Time {
        self.ato.min(DELACK_MAX)
    }

    /// `tcp_delack_timer_handler`: the timer fired (not in pingpong mode).
    fn on_timer(&mut self) {
        self.ato = (self.ato * 2).min(self.rto);
    }
}

impl TcpReceiver {
    pub fn new(flow: u32, size: FlowSize, p: &TransportParams) -> Self {
        TcpReceiver {
            flow,
            end_seq: size.end_seq(),
            header_bytes: p.header_bytes,
            synack_bytes: p.header_bytes + p.tcp.syn_option_bytes,
            fin: p.tcp.fin_exchange,
            ack_after_fin: p.tcp.fin_exchange && p.tcp.fin_rst,
            delayed_ack: p.delayed_ack || p.tcp.delack == Delack::Linux,
            delack_timeout: p.delack_timeout_ns,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            pending: None,
            delack_deadline: None,
            finished: None,
            ecn_echo: Echo::Clear,
            echo_hdr: Header::default(),
            linux: (p.tcp.delack == Delack::Linux).then(|| Box::new(LinuxAcks::new(p))),
        }
    }

    /// Linux's delayed-ACK state, with `delack = "linux"`.
    pub fn linux_acks(&self) -> Option<&LinuxAcks> {
        self.linux.as_deref()
    }

    /// DCTCP's receiver (RFC 8257 3.2): every ACK echoes the CE bit of the
    /// last data packet; with delayed ACKs a change of that bit first sends
    /// the ACK held for the packets before it, with the old bit.
    pub fn with_dctcp_echo(mut self) -> Self {
        self.ecn_echo = Echo::DctcpClear;
        self
    }

    fn ack(&mut self, ts: Time, out: &mut Vec<Packet>) {
        let mut a = Packet::new(self.flow, PacketKind::Ack, self.header_bytes, self.rcv_nxt, ts);
        match self.ecn_echo {
            Echo::Set => {
                a.flags |= flags::ECE;
                self.ecn_echo = Echo::Clear;
            }
            Echo::DctcpSet => a.flags |= flags::ECE,
            Echo::Clear | Echo::DctcpClear => {}
        }
        a.hdr = std::mem::take(&mut self.echo_hdr);
        out.push(a);
        self.pending = None;
        self.delack_deadline = None;
        if let Some(l) = self.linux.as_mut() {
            l.on_ack_sent();
        }
    }
}

impl Receiver for TcpReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match pkt.kind {
            PacketKind::Syn if pkt.flags & flags::PURE_ACK != 0 => {}
            PacketKind::Syn => {
                out.push(Packet::new(self.flow, PacketKind::SynAck, self.synack_bytes, 0, pkt.ts));
            }
            PacketKind::Data => {
                let ce = pkt.flags & flags::CE != 0;
                match self.ecn_echo {
                    Echo::Clear | Echo::Set if ce => self.ecn_echo = Echo::Set,
                    Echo::Clear | Echo::Set => {}
                    dctcp => {
                        if ce != (dctcp == Echo::DctcpSet) {
                            // RFC 8257 3.2: the CE state changes; a delayed ACK
                            // for what came before leaves now, with the old state.
                            if let Some(ts) = self.pending {
                                self.ack(ts, out);
                            }
                            self.ecn_echo = if ce { Echo::DctcpSet } else { Echo::DctcpClear };
                        }
                    }
                }
                self.echo_hdr = self.echo_hdr.echoed_with(pkt.hdr);
                let was_finished = self.finished.is_some();
                let seq = pkt.seq;
                let in_order = seq == self.rcv_nxt;
                let had_holes = !self.ooo.is_empty();
                if in_order {
                    self.rcv_nxt += 1;
                    if let Some(r) = self.ooo.first().filter(|r| r.start == self.rcv_nxt).cloned() {
                        self.rcv_nxt = r.end;
                        self.ooo.remove(r);
                    }
                } else if seq > self.rcv_nxt {
                    self.ooo.insert(seq..seq + 1);
                }
                if self.finished.is_none() && self.rcv_nxt >= self.end_seq {
                    self.finished = Some(now);
                }
                let quick = match self.linux.as_mut() {
                    Some(l) if in_order => {
                        l.on_data(now);
                        l.quick > 0
                    }
                    Some(l) if seq < self.rcv_nxt => {
                        // A duplicate: tcp_data_queue forces quickack mode.
                        l.enter_quickack();
                        true
                    }
                    _ => false,
                };
                // RFC 5681 4.2: ACK at once for out-of-order or hole-filling data,
                // at least every second full segment, else within the timeout.
                if !self.delayed_ack || !in_order || had_holes || self.finished.is_some() || quick {
                    let ts = self.pending.unwrap_or(pkt.ts);
                    self.ack(ts, out);
                } else if let Some(ts) = self.pending {
                    self.ack(ts, out);
                } else {
                    self.pending = Some(pkt.ts);
                    let delay = self.linux.as_deref().map_or(self.delack_timeout, LinuxAcks::delay);
                    self.delack_deadline = Some(now + delay);
                }
                if self.fin && !was_finished && self.finished.is_some() {
                    // The application has read everything and closes: its FIN
                    // follows the ACK of the last data (the sender's FIN rode on it).
                    let mut f = Packet::new(self.flow, PacketKind::Ack, self.header_bytes, self.rcv_nxt, pkt.ts);
                    f.flags |= flags::FIN;
                    out.push(f);
                    if self.ack_after_fin {
                        let mut a = Packet::new(self.flow, PacketKind::Ack, self.header_bytes, self.rcv_nxt, pkt.ts);
                        a.flags |= flags::AFTER_FIN;
                        out.push(a);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let (Some(d), Some(ts)) = (self.delack_deadline, self.pending) {
            if now >= d {
                if let Some(l) = self.linux.as_mut() {
                    l.on_timer();
                }
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

    fn in_order_pkts(&self) -> u64 {
        self.rcv_nxt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::FlowSize;

    fn receiver(delayed_ack: bool) -> TcpReceiver {
        let p = TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake: false,
            delayed_ack,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: true,
            tcp: Default::default(),
        };
        TcpReceiver::new(0, FlowSize::LongLived, &p).with_dctcp_echo()
    }

    /// Feed data packets 0, 1, ... with the given CE bits; the ACKs sent, as
    /// (cumulative ACK, ECE).
    fn acks(r: &mut TcpReceiver, ce: &[bool]) -> Vec<(u64, bool)> {
        let mut out = vec![];
        for (s, &c) in ce.iter().enumerate() {
            let mut p = Packet::new(0, PacketKind::Data, 1040, s as u64, 0);
            p.flags |= flags::ECT | if c { flags::CE } else { 0 };
            r.on_packet(s as u64, &p, &mut out);
        }
        out.iter().map(|a| (a.seq, a.flags & flags::ECE != 0)).collect()
    }

    #[test]
    fn dctcp_echo_without_delayed_acks_copies_each_packets_ce() {
        let mut r = receiver(false);
        let got = acks(&mut r, &[false, true, true, false, true]);
        assert_eq!(got, [(1, false), (2, true), (3, true), (4, false), (5, true)]);
    }

    #[test]
    fn dctcp_echo_with_delayed_acks_follows_rfc8257_state_machine() {
        // RFC 8257 3.2: one ACK per two packets; a CE change with an ACK held
        // sends that ACK at once with the old state.
        let mut r = receiver(true);
        // 0: held. 1 (no change): ACK 2, ECE 0. 2 (CE): nothing held, state 1,
        // held. 3 (CE): ACK 4, ECE 1. 4 (no CE): nothing held; state 0, held.
        // 5 (CE): held ACK 5 leaves with ECE 0; state 1; 5 held. 6 (CE): ACK 7, ECE 1.
        let got = acks(&mut r, &[false, false, true, true, false, true, true]);
        assert_eq!(got, [(2, false), (4, true), (5, false), (7, true)]);
    }
}

//! The TCP sender and receiver machinery shared by every window-based scheme:
//! optional SYN / SYN-ACK handshake, ACK clocking, duplicate-ACK counting, fast
//! retransmit and recovery (Tahoe, Reno, or NewReno per RFC 6582; or, with
//! SACK, RFC 6675 recovery on a scoreboard: see [`super::sack`]), and the
//! retransmission timer (RFC 6298) with exponential back-off and go-back-N.
//!
//! Sequence numbers count packets (segments), starting at 0. An ACK carries the
//! cumulative acknowledgement: the next sequence number the receiver expects.
//!
//! ECN (RFC 3168, when `TransportParams::ecn`): data packets carry ECT; the receiver
//! sets ECE on the ACK sent after each CE-marked packet arrives (see
//! [`TcpReceiver`]); the sender answers an ECE ACK as it would a loss, without
//! retransmitting: ssthresh = the controller's `ssthresh_after_loss`, cwnd =
//! ssthresh, no window growth on that ACK (RFC 3168 6.1.2), and then ignores
//! ECE until the data outstanding at the reduction is acknowledged (once per
//! window of data). ECE during fast recovery is ignored (the loss already
//! reduced the window), and a loss detected within a window already reduced
//! for ECE keeps ssthresh (6.1.2: not decreased twice within a round trip).

use super::cc::{AckSample, AckSeq, CongestionControl, Recovery, Window};
use super::rtt::RttEstimator;
use super::sack::{Rule, SackReport, Scoreboard};
use super::{EndpointBuilder, FlowSize, Receiver, Sender, TransportParams};
use crate::net::packet::flags;
use crate::net::packet::SackBlocks;
use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use rangemap::RangeSet;
use std::collections::VecDeque;
use std::sync::Arc;

/// A TCP sender for one flow.
pub struct TcpSender {
    flow: u32,
    size: FlowSize,
    /// `size.end_seq()`, kept for the per-packet checks.
    end_seq: u64,
    /// The run's settings, shared by every flow of the scheme (one copy
    /// instead of one per flow keeps the flows in progress smaller).
    p: Arc<TransportParams>,
    cc: Box<dyn CongestionControl>,
    recovery_style: Recovery,
    /// The controller's `wants_ack_seq`, asked once.
    ack_seq: bool,
    /// The controller's `wants_path_delay`, asked once.
    path_delay: bool,
    pub w: Window,
    rtt: RttEstimator,
    established: bool,
    started: bool,
    /// When the first SYN was sent (`TcpModel::time_first_syn`).
    first_syn_at: Time,
    /// Oldest unacknowledged sequence number.
    snd_una: u64,
    /// Next sequence number to send.
    snd_nxt: u64,
    /// One past the highest sequence number ever sent ("HighData" + 1).
    high_data: u64,
    /// NewReno's `recover` (RFC 6582): high_data when recovery was entered.
    recover: u64,
    /// `TcpModel::timeout_exit_beyond_recover`: a timeout's recovery is
    /// under way (ns-3's `CA_LOSS`) until an ACK reaches `recover`.
    in_loss: bool,
    in_recovery: bool,
    /// ECN (RFC 3168): high_data at the last reduction for ECE; an ECE ACK
    /// starts a new reduction only once it acknowledges beyond this.
    ecn_recover: u64,
    /// Window reductions made in answer to ECE.
    ecn_reductions: u64,
    /// Whether the RTO timer was already reset by a partial ACK in this recovery.
    partial_reset: bool,
    dupacks: u32,
    backoff: u32,
    rto_deadline: Option<Time>,
    retransmits: u64,
    done: bool,
    /// With SACK ([`TcpSackSender`]): the scoreboard. Loss recovery is then
    /// RFC 6675's, whatever the controller's recovery style.
    sack: Option<Box<Scoreboard>>,
    /// Karn's rule (`TcpModel::karn`): the segments sent and not yet
    /// acknowledged since the last timeout, as (seq, first sent, retransmitted),
    /// in sequence order (ns-3's `m_history`).
    rtt_history: VecDeque<(u64, Time, bool)>,
    /// RFC 3042: new segments sent on duplicate ACKs since the last new ACK.
    lt_sent: u64,
    /// `TcpModel::ssthresh_from_pipe`: the segments ns-3 takes as having left
    /// the network on duplicate ACKs (its `TcpTxBuffer::AddRenoSack`), always
    /// the ones just above snd_una; emptied on a timeout.
    reno_sacked: u64,
    /// `TcpModel::pipe_window`: snd_una is marked lost (ns-3's `m_lost` on
    /// the head of its sent list) ...
    head_lost: bool,
    /// ... and has been retransmitted since (`m_retrans`).
    head_resent: bool,
    /// `TcpModel::fin_exchange`: all data is acknowledged and the sender
    /// waits for the receiver's FIN.
    fin_wait: bool,
    /// `TcpModel::fin_rst`: the FIN is answered and the sender waits for
    /// the receiver's ACK behind it, to reset.
    rst_wait: bool,
}

/// The endpoints of a window-based TCP: a [`TcpSender`] driven by a fresh
/// controller from `cc` per flow, and a [`TcpReceiver`].
pub fn endpoints(
    p: &TransportParams,
    cc: impl Fn() -> Box<dyn CongestionControl> + Send + Sync + 'static,
) -> EndpointBuilder {
    let p = Arc::new(p.clone());
    Arc::new(move |id, size| {
        (
            Box::new(TcpSender::with_shared(id, size, p.clone(), cc())) as Box<dyn Sender>,
            Box::new(TcpReceiver::new(id, size, &p)) as Box<dyn Receiver>,
        )
    })
}

/// The endpoints of a window-based TCP with SACK: the receiver reports up to
/// `blocks` SACK blocks per ACK, the sender recovers by RFC 6675 (`rescue`:
/// with NextSeg rule 4); `cc` gives the window policy.
pub fn sack_endpoints(
    p: &TransportParams,
    blocks: usize,
    rescue: bool,
    cc: impl Fn() -> Box<dyn CongestionControl> + Send + Sync + 'static,
) -> EndpointBuilder {
    let p = Arc::new(p.clone());
    Arc::new(move |id, size| {
        (
            Box::new(TcpSackSender::new(
                TcpSender::with_shared(id, size, p.clone(), cc()),
                rescue,
            )) as Box<dyn Sender>,
            Box::new(TcpSackReceiver::new(TcpReceiver::new(id, size, &p), blocks)) as Box<dyn Receiver>,
        )
    })
}

impl TcpSender {
    pub fn new(flow: u32, size: FlowSize, p: TransportParams, cc: Box<dyn CongestionControl>) -> Self {
        Self::with_shared(flow, size, Arc::new(p), cc)
    }

    /// [`TcpSender::new`] with settings shared with other flows.
    pub fn with_shared(flow: u32, size: FlowSize, p: Arc<TransportParams>, cc: Box<dyn CongestionControl>) -> Self {
        let recovery_style = cc.recovery();
        let ack_seq = cc.wants_ack_seq();
        let path_delay = cc.wants_path_delay();
        let rtt = RttEstimator::new(p.initial_rto_ns, p.min_rto_ns, p.max_rto_ns);
        TcpSender {
            flow,
            size,
            end_seq: size.end_seq(),
            w: Window {
                cwnd: p.init_cwnd_pkts,
                ssthresh: p.model.init_ssthresh_pkts,
            },
            p,
            cc,
            recovery_style,
            ack_seq,
            path_delay,
            rtt,
            established: false,
            started: false,
            first_syn_at: 0,
            snd_una: 0,
            snd_nxt: 0,
            high_data: 0,
            recover: 0,
            in_loss: false,
            in_recovery: false,
            ecn_recover: 0,
            ecn_reductions: 0,
            partial_reset: false,
            dupacks: 0,
            backoff: 0,
            rto_deadline: None,
            retransmits: 0,
            done: false,
            sack: None,
            rtt_history: VecDeque::new(),
            lt_sent: 0,
            reno_sacked: 0,
            head_lost: false,
            head_resent: false,
            fin_wait: false,
            rst_wait: false,
        }
    }

    /// All data is acknowledged: the flow is over, or with
    /// `TcpModel::fin_exchange` it waits for the receiver's FIN (at most one
    /// RTO; a lost FIN is not waited for).
    fn all_acked(&mut self, now: Time) {
        if self.p.model.fin_exchange {
            self.fin_wait = true;
            self.backoff = 0;
            self.arm_rto(now);
        } else {
            self.done = true;
            self.rto_deadline = None;
        }
    }

    /// While waiting for the receiver's FIN: acknowledge it with a pure ACK
    /// (ns-3's sender in FIN_WAIT_2 answering the FIN), and the flow is over.
    /// With `TcpModel::fin_rst` it then waits for the receiver's ACK that
    /// follows the FIN and answers it with a reset, and the flow is over.
    fn on_fin(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let answer = if self.rst_wait {
            pkt.kind == PacketKind::Ack && pkt.flags & flags::AFTER_FIN != 0
        } else {
            pkt.kind == PacketKind::Ack && pkt.flags & flags::FIN != 0
        };
        if answer {
            let mut a = Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now);
            a.flags |= flags::PURE_ACK;
            out.push(a);
            if self.p.model.fin_rst && !self.rst_wait {
                self.rst_wait = true;
                self.backoff = 0;
                self.arm_rto(now);
                return;
            }
            self.fin_wait = false;
            self.rst_wait = false;
            self.done = true;
            self.rto_deadline = None;
        }
    }

    /// Arm the SYN's timer: the connection timeout when one is set
    /// (`TcpModel::syn_rto_ns`), doubled per retry, else the RTO.
    fn arm_syn_timer(&mut self, now: Time) {
        let t = match self.p.model.syn_rto_ns {
            Some(t) => t
                .saturating_mul(1u64 << self.backoff.min(30))
                .min(self.p.max_rto_ns.max(t)),
            None => self.rtt.backed_off(self.backoff),
        };
        self.rto_deadline = Some(now + t);
    }

    /// The RTT sample an ACK of new data up to `ack` gives, echoing send time
    /// `ts`: with Karn's rule (ns-3's `TcpSocketBase::EstimateRtt`), the time
    /// since the oldest segment it acknowledges was sent, unless that segment
    /// was retransmitted; else the echoed time.
    fn rtt_sample(&mut self, now: Time, ack: u64, ts: Time) -> Option<Time> {
        if !self.p.model.karn {
            return Some(now.saturating_sub(ts));
        }
        let sample = match self.rtt_history.front() {
            Some(&(seq, sent, retx)) if ack > seq && !retx => Some(now.saturating_sub(sent)),
            _ => None,
        };
        while self.rtt_history.front().is_some_and(|&(seq, _, _)| seq < ack) {
            self.rtt_history.pop_front();
        }
        sample
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rtt.backed_off(self.backoff));
    }

    fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// Whether the sender runs ns-3's window rule (`TcpModel::pipe_window`).
    fn pipe_mode(&self) -> bool {
        self.p.model.pipe_window && self.sack.is_none() && self.recovery_style == Recovery::NewReno
    }

    /// ns-3's `BytesInFlight` in segments: sent since the last timeout and
    /// not acknowledged, less the segments counted as left and a head marked
    /// lost and not yet resent.
    fn pipe(&self) -> u64 {
        let lost = (self.head_lost && !self.head_resent) as u64;
        self.outstanding().saturating_sub(self.reno_sacked + lost)
    }

    /// ns-3's `SendPendingData` without SACK: while the window minus the pipe
    /// leaves a segment, a head marked lost first, then data from snd_nxt.
    fn send_window_pipe(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = self.w.cwnd.min(self.p.max_cwnd_pkts);
        while (self.pipe() as f64) + 1.0 <= wnd + 1e-9 {
            if self.head_lost && !self.head_resent && self.snd_nxt > self.snd_una {
                self.head_resent = true;
                let una = self.snd_una;
                self.send_seq(now, una, out);
            } else if self.snd_nxt < self.end_seq {
                let seq = self.snd_nxt;
                self.snd_nxt += 1;
                self.send_seq(now, seq, out);
            } else {
                break;
            }
        }
    }

    /// ns-3's `TcpTxBuffer::DiscardUpTo` for an ACK of `acked` new segments:
    /// the counted segments it covers leave the count; if the new head was
    /// one of them its mark moves to the next segment and the head is marked
    /// lost (ns-3 takes a counted head for a wrong guess).
    fn discard_acked(&mut self, acked: u64) {
        self.head_lost = false;
        self.head_resent = false;
        let left = self.reno_sacked.saturating_sub(acked - 1);
        self.reno_sacked = 0;
        if left > 0 {
            self.reno_sacked = left - 1;
            self.reno_sack();
            self.head_lost = true;
        }
    }

    /// ns-3's `EnterRecovery` without SACK (`TcpClassicRecovery`): one more
    /// segment counted as left, the head marked lost, ssthresh from the pipe
    /// plus one segment, cwnd = ssthresh (no inflation: the counted segments
    /// open the window instead), the head retransmitted.
    fn enter_recovery_pipe(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.reno_sack();
        self.head_lost = true;
        self.head_resent = false;
        self.recover = self.high_data;
        let flight = if self.p.model.ssthresh_from_pipe {
            self.pipe() + 1
        } else {
            self.outstanding() - self.lt_sent
        };
        if self.snd_una >= self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
        self.w.cwnd = self.w.ssthresh;
        self.in_recovery = true;
        self.partial_reset = false;
        self.head_resent = true;
        let una = self.snd_una;
        self.send_seq(now, una, out);
        if !self.p.model.keep_timer_on_fast_retransmit {
            self.arm_rto(now);
        }
        self.send_window_pipe(now, out);
    }

    /// A duplicate ACK counts one more segment as having left the network
    /// (ns-3's `AddRenoSack`: the first not yet counted above snd_una; never
    /// snd_una itself).
    fn reno_sack(&mut self) {
        self.reno_sacked = (self.reno_sacked + 1).min(self.outstanding().saturating_sub(1));
    }

    fn data_packet(&self, now: Time, seq: u64) -> Packet {
        let bytes = self.size.payload_of(seq, self.p.mss_bytes) + self.p.header_bytes;
        let mut pkt = Packet::new(self.flow, PacketKind::Data, bytes, seq, now);
        if let Some(h) = self.cc.data_header(&self.w, self.rtt.srtt()) {
            pkt.hdr = h;
        }
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
            if self.p.model.karn {
                if let Ok(i) = self.rtt_history.binary_search_by_key(&seq, |e| e.0) {
                    self.rtt_history[i].2 = true;
                }
            }
        } else if self.p.model.karn {
            self.rtt_history.push_back((seq, now, false));
        }
        self.high_data = self.high_data.max(seq + 1);
        out.push(pkt);
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    /// Send new (or, after a timeout, re-sent) data while the window allows.
    fn send_window(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.pipe_mode() {
            self.send_window_pipe(now, out);
            return;
        }
        let wnd = self.w.cwnd.min(self.p.max_cwnd_pkts);
        while self.snd_nxt < self.end_seq && (self.outstanding() as f64) + 1.0 <= wnd + 1e-9 {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.send_seq(now, seq, out);
        }
    }

    fn syn(&self, now: Time) -> Packet {
        Packet::new(
            self.flow,
            PacketKind::Syn,
            self.p.header_bytes + self.p.model.syn_option_bytes,
            0,
            now,
        )
    }

    /// RFC 3168 6.1.2: the answer to an ACK carrying ECE (cumulative ACK `ack`).
    /// Returns whether the window was reduced.
    fn on_ece(&mut self, ack: u64) -> bool {
        if !self.p.ecn || self.in_recovery || ack <= self.ecn_recover {
            return false;
        }
        let flight = self.outstanding();
        self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        self.w.cwnd = self.w.ssthresh.max(1.0);
        self.ecn_recover = self.high_data;
        self.ecn_reductions += 1;
        true
    }

    /// Window reductions made in answer to ECN echoes.
    pub fn ecn_reductions(&self) -> u64 {
        self.ecn_reductions
    }

    #[allow(clippy::too_many_arguments)] // one ACK struct in the TCP rework
    fn on_new_ack(
        &mut self,
        now: Time,
        ack: u64,
        ts: Time,
        ece_reduced: bool,
        hdr: &[f64; 3],
        bit: bool,
        out: &mut Vec<Packet>,
    ) {
        let acked = ack - self.snd_una;
        // ns-3 leaving `CA_LOSS`: only the segments beyond recover grow the window.
        let mut grow_pkts = acked;
        if self.in_loss && ack >= self.recover {
            self.in_loss = false;
            grow_pkts = ack - self.recover;
        }
        let flight = self.outstanding();
        let rtt = match self.rtt_sample(now, ack, ts) {
            Some(r) => {
                self.rtt.sample(r);
                r
            }
            None => self.rtt.srtt().unwrap_or(0),
        };
        if self.ack_seq {
            let s = AckSeq {
                now,
                ack,
                acked_pkts: acked,
                congestion_bit: bit,
                rtt_ns: rtt,
                in_recovery: self.in_recovery,
            };
            self.cc.on_ack_seq(&mut self.w, &s);
        }
        self.backoff = 0;
        self.lt_sent = 0;
        // The counted segments are the ones just above the old snd_una: those
        // now acknowledged leave the count (ns-3's `DiscardUpTo` moves the
        // mark off a new snd_una that carried one).
        let pipe_mode = self.pipe_mode();
        let was_in_recovery = self.in_recovery;
        if pipe_mode {
            self.discard_acked(acked);
        } else {
            self.reno_sacked = self.reno_sacked.saturating_sub(acked - 1);
        }
        self.snd_una = ack;
        if self.snd_nxt < ack {
            // Go-back-N after a timeout: the receiver already had these.
            self.snd_nxt = ack;
        }
        if pipe_mode && self.in_recovery {
            if ack < self.recover {
                // ns-3's partial ACK: the head marked lost and retransmitted at
                // once; cwnd stays ssthresh; the timer restarts on the first.
                self.head_lost = true;
                self.head_resent = true;
                self.send_seq(now, ack, out);
                if !self.partial_reset {
                    self.partial_reset = true;
                    self.arm_rto(now);
                }
            } else {
                self.w.cwnd = if self.p.model.exit_to_ssthresh {
                    self.w.ssthresh
                } else {
                    self.w.ssthresh.min((self.high_data - ack).max(1) as f64 + 1.0)
                };
                self.in_recovery = false;
            }
        }
        if pipe_mode && self.in_recovery {
            // Handled above.
        } else if self.in_recovery {
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
                    // Full ACK (step 6): option 1, min(ssthresh, max(FlightSize,
                    // SMSS) + SMSS); or option 2, ssthresh (`TcpModel::exit_to_ssthresh`).
                    let flight_now = self.high_data - ack;
                    self.w.cwnd = if self.p.model.exit_to_ssthresh {
                        self.w.ssthresh
                    } else {
                        self.w.ssthresh.min(flight_now.max(1) as f64 + 1.0)
                    };
                    self.in_recovery = false;
                }
                _ => {
                    // Reno (RFC 5681 3.2 step 6): deflate to ssthresh on the first new ACK.
                    self.w.cwnd = self.w.ssthresh;
                    self.in_recovery = false;
                }
            }
        }
        // ns-3 grows the window on the ACK that ends recovery too.
        let grow = if pipe_mode { !self.in_recovery } else { !was_in_recovery };
        if grow && !ece_reduced && grow_pkts > 0 {
            // RFC 3168 6.1.2: no window growth on the ACK that carried ECE.
            let s = AckSample {
                now,
                acked_pkts: grow_pkts,
                rtt_ns: rtt,
                srtt_ns: self.rtt.srtt().unwrap_or(rtt),
                min_rtt_ns: self.rtt.min_rtt().unwrap_or(rtt),
                flight_pkts: flight,
            };
            self.cc.on_ack(&mut self.w, &s);
            self.cc.on_router_feedback(&mut self.w, &s, hdr);
        }
        self.dupacks = 0;
        if self.snd_una >= self.end_seq {
            self.all_acked(now);
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
        if self.pipe_mode() {
            self.on_dupack_pipe(now, out);
            return;
        }
        if self.in_recovery {
            self.reno_sack();
            // RFC 5681 3.2 step 4: inflate by one segment per further dupACK.
            self.w.cwnd += 1.0;
            self.send_window(now, out);
            return;
        }
        if self.dupacks < self.p.dupack_threshold && self.p.model.limited_transmit {
            // ns-3 counts these only with limited transmit, and none after a
            // timeout (it ignores duplicate ACKs until `recover` is acknowledged).
            if self.snd_una >= self.recover {
                self.reno_sack();
            }
            self.limited_transmit(now, out);
        }
        if self.dupacks != self.p.dupack_threshold {
            return;
        }
        // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more than
        // `recover` (no false fast retransmits after a timeout).
        if self.recovery_style == Recovery::NewReno && self.snd_una < self.recover {
            return;
        }
        // RFC 5681 3.2 step 2: segments sent by limited transmit are not
        // part of the FlightSize that sets ssthresh. With
        // `TcpModel::ssthresh_from_pipe`, ns-3's `EnterRecovery`: one more
        // segment counted as left, the head as lost, plus one segment.
        let flight = if self.p.model.ssthresh_from_pipe && self.sack.is_none() {
            self.reno_sack();
            self.outstanding() - self.reno_sacked
        } else {
            self.outstanding() - self.lt_sent
        };
        // RFC 3168 6.1.2: ssthresh is not decreased twice in a round trip, so a
        // loss in a window already reduced for ECE keeps it.
        if self.snd_una >= self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
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
                if !self.p.model.keep_timer_on_fast_retransmit {
                    self.arm_rto(now);
                }
                self.send_window(now, out);
            }
        }
    }

    /// A duplicate ACK under ns-3's window rule (`TcpSocketBase::DupAck`).
    fn on_dupack_pipe(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.in_recovery && self.snd_una < self.recover {
            // After a timeout ns-3 ignores duplicate ACKs until `recover` is
            // acknowledged (CA_LOSS).
            return;
        }
        if self.in_recovery {
            self.reno_sack();
            self.send_window_pipe(now, out);
            return;
        }
        // DupThresh duplicate ACKs, or a head marked lost below a counted
        // segment (`TcpTxBuffer::IsLost`), start recovery.
        if self.dupacks == self.p.dupack_threshold || (self.head_lost && self.reno_sacked > 0) {
            self.enter_recovery_pipe(now, out);
        } else if self.p.model.limited_transmit {
            // Limited transmit: the segment counted as left makes room.
            self.reno_sack();
            self.send_window_pipe(now, out);
        }
    }

    /// RFC 3042: on each of the first DupThresh - 1 duplicate ACKs, one new
    /// segment, if the receiver's window allows and FlightSize stays within
    /// cwnd plus the duplicate ACKs; cwnd unchanged. Not while data sent
    /// before a timeout is unacknowledged (ns-3 ignores duplicate ACKs then).
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        if self.snd_una < self.recover || self.snd_nxt < self.high_data || self.snd_nxt >= self.end_seq {
            return;
        }
        let wnd = (self.w.cwnd + self.dupacks as f64).min(self.p.max_cwnd_pkts);
        if (self.outstanding() as f64) + 1.0 <= wnd + 1e-9 {
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.lt_sent += 1;
            self.send_seq(now, seq, out);
        }
    }

    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.rto_deadline = None;
        if !self.established {
            // SYN lost: resend it with back-off.
            self.backoff += 1;
            out.push(self.syn(now));
            self.arm_syn_timer(now);
            return;
        }
        // Karn's rule: nothing sent before the timeout is timed.
        self.rtt_history.clear();
        self.lt_sent = 0;
        if self.p.model.ssthresh_from_pipe && self.sack.is_none() {
            // ns-3's `ReTxTimeout`: half its estimate of the data in the
            // network, on every timeout. Sent since the last timeout (all of
            // it outside go-back-N), less the segments counted as left; a
            // head marked lost in recovery is already retransmitted.
            let pipe = self.pipe();
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, pipe);
        } else if self.backoff == 0 {
            // RFC 5681 eq. 4, but hold ssthresh when a retransmission is itself lost.
            let flight = self.high_data.max(self.snd_nxt) - self.snd_una;
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
        self.reno_sacked = 0;
        self.head_lost = false;
        self.head_resent = false;
        self.w.cwnd = 1.0;
        self.cc.on_rto(&mut self.w);
        self.backoff += 1;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.high_data;
        self.in_loss = self.p.model.timeout_exit_beyond_recover;
        self.snd_nxt = self.snd_una;
        if let Some(sb) = self.sack.as_mut() {
            // RFC 2018 sections 5 and 5.1: SACKs from before the timeout
            // no longer decide what is resent (see `super::sack`).
            sb.clear();
            self.send_window_sack(now, out);
        } else {
            self.send_window(now, out);
        }
        if self.rto_deadline.is_none() {
            self.arm_rto(now);
        }
    }

    // ---- SACK (RFC 2018) and RFC 6675 loss recovery; see `super::sack`. ----

    /// An ACK, with SACK (RFC 6675 section 5).
    fn on_sack_ack(&mut self, now: Time, pkt: &Packet, ece_reduced: bool, out: &mut Vec<Packet>) {
        let ack = pkt.seq;
        if ack < self.snd_una {
            return; // an old ACK (paths are FIFO: it cannot happen)
        }
        let Some(sb) = self.sack.as_mut() else { return };
        // Update (): the scoreboard takes the cumulative ACK and the blocks.
        let newly_sacked = sb.update(ack, SackBlocks::from_words(&pkt.hdr).blocks(ack), self.high_data);
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            let flight = self.outstanding();
            let rtt = match self.rtt_sample(now, ack, pkt.ts) {
                Some(r) => {
                    self.rtt.sample(r);
                    r
                }
                None => self.rtt.srtt().unwrap_or(0),
            };
            self.backoff = 0;
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            // "If the incoming ACK is a cumulative acknowledgment, the TCP
            // MUST reset DupAcks to zero."
            self.dupacks = 0;
            if self.snd_una >= self.end_seq {
                self.all_acked(now);
                return;
            }
            // RFC 6298 5.3, in recovery too.
            self.arm_rto(now);
            if self.in_recovery {
                if ack >= self.recover {
                    // (A): the cumulative ACK covers RecoveryPoint. cwnd has
                    // been ssthresh since recovery began.
                    self.in_recovery = false;
                }
            } else if !ece_reduced {
                let s = AckSample {
                    now,
                    acked_pkts: acked,
                    rtt_ns: rtt,
                    srtt_ns: self.rtt.srtt().unwrap_or(rtt),
                    min_rtt_ns: self.rtt.min_rtt().unwrap_or(rtt),
                    flight_pkts: flight,
                };
                // The header words carry the SACK option, not router
                // feedback: no `on_router_feedback`.
                self.cc.on_ack(&mut self.w, &s);
            }
        }
        if self.in_recovery {
            // (B) and (C).
            self.sack_transmit(now, out);
            return;
        }
        if newly_sacked > 0 {
            // A duplicate ACK as RFC 6675 section 2 defines it: it SACKs
            // packets not SACKed before. Steps (1) and (2): DupThresh of them,
            // or IsLost (HighACK + 1), start recovery, unless data sent before
            // the last recovery or timeout is still unacknowledged (RFC 6675
            // section 5.1; RFC 6582's recover).
            self.dupacks += 1;
            let lost = self.dupacks >= self.p.dupack_threshold
                || self.sack.as_ref().is_some_and(|sb| sb.is_lost(self.snd_una));
            if lost && self.snd_una >= self.recover {
                self.enter_sack_recovery(now, out);
                return;
            }
        }
        self.send_window_sack(now, out);
    }

    /// RFC 6675 section 5 step (4).
    fn enter_sack_recovery(&mut self, now: Time, out: &mut Vec<Packet>) {
        let flight = self.outstanding();
        // (4.2) ssthresh = cwnd = max(FlightSize / 2, 2) (RFC 5681 eq. 4), but
        // not decreased twice in a window already reduced for ECE (RFC 3168 6.1.2).
        if self.snd_una >= self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
        self.w.cwnd = self.w.ssthresh.max(1.0);
        // (4.1) RecoveryPoint = HighData.
        self.recover = self.high_data;
        self.in_recovery = true;
        // (4.3) Retransmit HighACK + 1; HighRxt = RescueRxt = it. The timer
        // restarts, as for the other schemes' fast retransmit.
        let una = self.snd_una;
        if let Some(sb) = self.sack.as_mut() {
            sb.start_recovery(una);
        }
        self.send_seq(now, una, out);
        if !self.p.model.keep_timer_on_fast_retransmit {
            self.arm_rto(now);
        }
        // (4.4) SetPipe and (4.5) step (C).
        self.sack_transmit(now, out);
    }

    /// RFC 6675 section 5 steps (B.2) and (C): SetPipe, then while cwnd -
    /// pipe >= 1 send what NextSeg picks.
    fn sack_transmit(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(mut sb) = self.sack.take() else { return };
        let cwnd = self.w.cwnd.min(self.p.max_cwnd_pkts);
        let mut pipe = sb.pipe(self.snd_una, self.high_data);
        while cwnd - pipe as f64 >= 1.0 - 1e-9 {
            // Rule (2) needs unsent data and room in the receiver's window.
            let new_data = self.high_data < self.end_seq
                && ((self.high_data - self.snd_una) as f64) + 1.0 <= self.p.max_cwnd_pkts + 1e-9;
            let Some((seq, rule)) = sb.next_seg(self.snd_una, self.high_data, new_data) else {
                break;
            };
            // (C.2) HighRxt, or rule 4's RescueRxt; (C.3) HighData in send_seq.
            sb.sent(seq, rule, self.recover);
            self.send_seq(now, seq, out);
            if rule == Rule::New {
                self.snd_nxt = self.high_data;
            }
            // (C.4)
            pipe += 1;
        }
        self.sack = Some(sb);
    }

    /// Outside recovery: send while the window allows (RFC 5681, FlightSize
    /// against cwnd), skipping packets the receiver has SACKed (which, after
    /// a timeout, go-back-N would otherwise resend).
    fn send_window_sack(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = self.w.cwnd.min(self.p.max_cwnd_pkts);
        loop {
            if let Some(sb) = self.sack.as_ref() {
                self.snd_nxt = sb.first_unsacked_from(self.snd_nxt);
            }
            if !(self.snd_nxt < self.end_seq && (self.outstanding() as f64) + 1.0 <= wnd + 1e-9) {
                break;
            }
            let seq = self.snd_nxt;
            self.snd_nxt += 1;
            self.send_seq(now, seq, out);
        }
    }
}

impl Sender for TcpSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started = true;
        self.first_syn_at = now;
        if self.p.handshake {
            out.push(self.syn(now));
            self.arm_syn_timer(now);
        } else {
            self.established = true;
            self.cc.on_established(&mut self.w, None);
            self.send_window(now, out);
        }
    }

    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        if self.done {
            return;
        }
        if self.fin_wait {
            self.on_fin(now, pkt, out);
            return;
        }
        if self.path_delay {
            self.cc.on_path_delay(pkt.hdr[crate::net::packet::PATH_QUEUE_WORD]);
        }
        match pkt.kind {
            PacketKind::SynAck if !self.established => {
                self.established = true;
                // Karn's rule: a retransmitted SYN gives no sample; ns-3
                // times the SYN-ACK from the first SYN (`TcpModel::time_first_syn`).
                let sample = if self.p.model.time_first_syn && self.backoff > 0 {
                    Some(now.saturating_sub(self.first_syn_at))
                } else {
                    (!self.p.model.karn || self.backoff == 0).then(|| now.saturating_sub(pkt.ts))
                };
                if let Some(r) = sample {
                    self.rtt.sample(r);
                }
                self.backoff = 0;
                self.rto_deadline = None;
                self.cc.on_established(&mut self.w, sample);
                if self.p.model.handshake_ack {
                    // RFC 793's third segment of the handshake, ahead of the data.
                    let mut a = Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now);
                    a.flags |= flags::PURE_ACK;
                    out.push(a);
                }
                self.send_window(now, out);
            }
            PacketKind::Ack if self.established => {
                let ece = pkt.flags & flags::ECE != 0 && self.on_ece(pkt.seq);
                if pkt.seq > self.snd_una {
                    self.on_new_ack(now, pkt.seq, pkt.ts, ece, &pkt.hdr, pkt.flags & flags::ECE != 0, out);
                } else if pkt.seq == self.snd_una && self.snd_nxt > self.snd_una {
                    self.on_dupack(now, out);
                }
                if self.fin_wait {
                    // The FIN came with the acknowledgement of the last data.
                    self.on_fin(now, pkt, out);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if let Some(d) = self.rto_deadline {
            if now >= d && self.fin_wait {
                self.fin_wait = false;
                self.rst_wait = false;
                self.done = true;
                self.rto_deadline = None;
            } else if now >= d {
                self.on_rto(now, out);
            }
        }
    }

    fn next_timer(&self) -> Option<Time> {
        if self.done {
            None
        } else {
            self.rto_deadline
        }
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

    fn wants_path_delay(&self) -> bool {
        self.path_delay
    }
}

/// A [`TcpSender`] with SACK: its ACKs drive RFC 6675 loss recovery on a
/// scoreboard ([`super::sack`]). A type of its own, so that the other schemes'
/// ACK path carries no SACK test.
pub struct TcpSackSender(pub TcpSender);

impl TcpSackSender {
    /// `rescue`: NextSeg rule 4.
    pub fn new(mut s: TcpSender, rescue: bool) -> Self {
        s.sack = Some(Box::new(Scoreboard::new(s.p.dupack_threshold, rescue)));
        // A SACK ACK's header words hold its blocks: no room for the path delay.
        s.path_delay = false;
        TcpSackSender(s)
    }
}

impl Sender for TcpSackSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.0.start(now, out)
    }

    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let s = &mut self.0;
        if pkt.kind == PacketKind::Ack && s.established && !s.done && !s.fin_wait {
            let ece = pkt.flags & flags::ECE != 0 && s.on_ece(pkt.seq);
            s.on_sack_ack(now, pkt, ece, out);
            if s.fin_wait {
                s.on_fin(now, pkt, out);
            }
        } else {
            s.on_packet(now, pkt, out);
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.0.on_timer(now, out)
    }

    fn next_timer(&self) -> Option<Time> {
        self.0.next_timer()
    }

    fn done(&self) -> bool {
        self.0.done()
    }

    fn retransmits(&self) -> u64 {
        self.0.retransmits()
    }

    fn cwnd_pkts(&self) -> f64 {
        self.0.cwnd_pkts()
    }

    fn srtt_ns(&self) -> Option<Time> {
        self.0.srtt_ns()
    }
}

/// A [`TcpReceiver`] whose ACKs carry SACK blocks (RFC 2018), in their header
/// words ([`SackBlocks`]).
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
        let words = self.report.option(self.inner.rcv_nxt).words();
        for a in out.iter_mut().filter(|p| p.kind == PacketKind::Ack) {
            a.hdr = words;
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
    /// A SYN-ACK's bytes: the header and the SYN's options (`TcpModel::syn_option_bytes`).
    synack_bytes: u32,
    /// `TcpModel::fin_exchange`: a FIN follows the ACK of the last data.
    fin: bool,
    /// `TcpModel::fin_rst`: and a pure ACK follows the FIN.
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
    ecn_echo: bool,
    /// Router-assisted schemes: the last data packet's header, feedback
    /// summed over the data packets not yet acknowledged; echoed in the ACK.
    echo_hdr: [f64; 3],
}

impl TcpReceiver {
    pub fn new(flow: u32, size: FlowSize, p: &TransportParams) -> Self {
        TcpReceiver {
            flow,
            end_seq: size.end_seq(),
            header_bytes: p.header_bytes,
            synack_bytes: p.header_bytes + p.model.syn_option_bytes,
            fin: p.model.fin_exchange,
            ack_after_fin: p.model.fin_exchange && p.model.fin_rst,
            delayed_ack: p.delayed_ack,
            delack_timeout: p.delack_timeout_ns,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            pending: None,
            delack_deadline: None,
            finished: None,
            ecn_echo: false,
            echo_hdr: [0.0; 3],
        }
    }

    fn ack(&mut self, ts: Time, out: &mut Vec<Packet>) {
        let mut a = Packet::new(self.flow, PacketKind::Ack, self.header_bytes, self.rcv_nxt, ts);
        if self.ecn_echo {
            a.flags |= flags::ECE;
            self.ecn_echo = false;
        }
        a.hdr = std::mem::take(&mut self.echo_hdr);
        out.push(a);
        self.pending = None;
        self.delack_deadline = None;
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
                if pkt.flags & flags::CE != 0 {
                    self.ecn_echo = true;
                }
                self.echo_hdr = [pkt.hdr[0], pkt.hdr[1], self.echo_hdr[2] + pkt.hdr[2]];
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
mod ecn_tests {
    //! RFC 3168 6.1.2, traced by hand on a sender fed crafted ACKs.
    use super::*;
    use crate::transport::cc::NewReno;

    fn params(ecn: bool) -> TransportParams {
        TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake: false,
            delayed_ack: false,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn,
            model: Default::default(),
        }
    }

    fn sender(ecn: bool) -> (TcpSender, Vec<Packet>) {
        let mut s = TcpSender::new(
            0,
            FlowSize::Finite {
                bytes: 1_000_000,
                pkts: 1000,
            },
            params(ecn),
            Box::new(NewReno),
        );
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, ece: bool) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, 40, seq, 0);
        if ece {
            a.flags |= flags::ECE;
        }
        a
    }

    #[test]
    fn data_is_ect_only_with_ecn() {
        let (_, out) = sender(true);
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|p| p.flags & flags::ECT != 0));
        let (_, out) = sender(false);
        assert!(out.iter().all(|p| p.flags & flags::ECT == 0));
    }

    #[test]
    fn one_reduction_per_window_without_retransmitting() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // Packets 0..9 out (IW 10). ACK 1 with ECE: FlightSize 10 -> ssthresh
        // max(10/2, 2) = 5, cwnd 5, no growth on this ACK; 9 outstanding > 5, so
        // nothing is sent and nothing is retransmitted.
        s.on_packet(1, &ack(1, true), &mut out);
        assert_eq!((s.w.ssthresh, s.w.cwnd, s.ecn_reductions()), (5.0, 5.0, 1));
        assert!(out.is_empty());
        // ACKs 2..=10 with ECE echo marks on data sent before the reduction
        // (high_data was 10): no further reduction; congestion avoidance grows
        // cwnd by 1/cwnd per ACK.
        let mut cwnd = 5.0;
        for a in 2..=10 {
            s.on_packet(a, &ack(a, true), &mut out);
            cwnd += 1.0 / cwnd;
            assert_eq!(s.w.ssthresh, 5.0);
            assert!((s.w.cwnd - cwnd).abs() < 1e-9);
        }
        assert_eq!(s.ecn_reductions(), 1);
        assert!(out.iter().all(|p| p.flags & flags::RETX == 0 && p.seq >= 10));
        // ACK 11 acknowledges packet 10, sent after the reduction: a new window,
        // so ECE reduces again: FlightSize = high_data - 10.
        let flight = s.high_data - 10;
        s.on_packet(12, &ack(11, true), &mut out);
        assert_eq!(s.ecn_reductions(), 2);
        assert_eq!(s.w.ssthresh, (flight as f64 / 2.0).max(2.0));
        assert_eq!(s.w.cwnd, s.w.ssthresh);
        assert_eq!(s.retransmits(), 0);
    }

    #[test]
    fn ece_is_ignored_in_fast_recovery_and_without_ecn() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // Packet 0 lost: three dupACKs of 0 -> ssthresh 5, cwnd 5 + 3.
        for t in 1..=3 {
            s.on_packet(t, &ack(0, false), &mut out);
        }
        assert_eq!((s.w.ssthresh, s.w.cwnd), (5.0, 8.0));
        // A fourth dupACK carrying ECE: only the usual inflation by one.
        s.on_packet(4, &ack(0, true), &mut out);
        assert_eq!((s.w.ssthresh, s.w.cwnd, s.ecn_reductions()), (5.0, 9.0, 0));
        // ECN off: ECE means nothing.
        let (mut s, _) = sender(false);
        s.on_packet(1, &ack(1, true), &mut out);
        assert_eq!((s.w.ssthresh, s.w.cwnd, s.ecn_reductions()), (f64::MAX, 11.0, 0));
    }

    #[test]
    fn a_loss_in_a_window_already_reduced_keeps_ssthresh() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // ECE on ACK 1: ssthresh 5, cwnd 5 (9 outstanding). Packet 1 is lost:
        // three dupACKs of 1 start fast retransmit, but ssthresh stays 5
        // (it would be max(9/2, 2) = 4.5), cwnd = 5 + 3.
        s.on_packet(1, &ack(1, true), &mut out);
        for t in 2..=4 {
            s.on_packet(t, &ack(1, false), &mut out);
        }
        assert_eq!((s.w.ssthresh, s.w.cwnd), (5.0, 8.0));
        assert_eq!(
            out.iter().filter(|p| p.seq == 1).count(),
            1,
            "packet 1 retransmitted once"
        );
    }

    #[test]
    fn receiver_echoes_ce_on_the_next_ack() {
        let p = params(true);
        let mut r = TcpReceiver::new(
            0,
            FlowSize::Finite {
                bytes: 10_000,
                pkts: 10,
            },
            &p,
        );
        let mut out = Vec::new();
        let mut d = Packet::new(0, PacketKind::Data, 1040, 0, 0);
        d.flags = flags::ECT | flags::CE;
        r.on_packet(0, &d, &mut out);
        let mut d = Packet::new(0, PacketKind::Data, 1040, 1, 0);
        d.flags = flags::ECT;
        r.on_packet(0, &d, &mut out);
        assert_eq!(out.len(), 2);
        assert_ne!(out[0].flags & flags::ECE, 0);
        assert_eq!(out[1].flags & flags::ECE, 0);
    }
}

#[cfg(test)]
mod sack_tests {
    //! RFC 6675 steps that the end-to-end traces (tests/sack.rs) do not reach,
    //! traced by hand on a sender fed crafted ACKs: IsLost (HighACK + 1)
    //! starting recovery on the first duplicate ACK, and the timeout (section
    //! 5.1).
    use super::*;
    use crate::transport::cc::NewReno;

    fn sender() -> (TcpSackSender, Vec<Packet>) {
        let p = TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake: false,
            delayed_ack: false,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: false,
            model: Default::default(),
        };
        let mut s = TcpSackSender::new(
            TcpSender::new(
                0,
                FlowSize::Finite {
                    bytes: 20_000,
                    pkts: 20,
                },
                p,
                Box::new(NewReno),
            ),
            true,
        );
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, blocks: &[(u64, u64)]) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, 40, seq, 0);
        a.hdr = SackBlocks::new(seq, blocks.iter().copied()).words();
        a
    }

    fn seqs(out: &[Packet]) -> Vec<(u64, bool)> {
        out.iter().map(|p| (p.seq, p.flags & flags::RETX != 0)).collect()
    }

    #[test]
    fn three_packets_sacked_by_one_ack_start_recovery() {
        // 0..9 out. One ACK of 0 SACKs 2, 3, 4 (the ACKs of 2 and 3 were lost):
        // one duplicate ACK, but IsLost (HighACK + 1 = 0) holds (3 SACKed
        // above): step (2) enters recovery. FlightSize 10 -> ssthresh = cwnd =
        // 5; retransmit 0. SetPipe: SACKed 2, 3, 4, so 0 and 1 are lost; not
        // lost: 5..9 -> 5; retransmitted: 0 -> 1; pipe 6 > cwnd - 1: nothing more.
        let (mut s, out) = sender();
        assert_eq!(out.len(), 10);
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, &[(2, 5)]), &mut out);
        assert_eq!((s.0.w.ssthresh, s.0.w.cwnd), (5.0, 5.0));
        assert_eq!(seqs(&out), vec![(0, true)]);
        // The ACK of 5 SACKs one more packet: pipe = 4 (6..9) + 1 = 5: nothing.
        // The ACK of 6: pipe = 3 + 1 = 4 <= 5 - 1: rule 1 resends 1 (lost, above
        // HighRxt 0). pipe 5: stop.
        out.clear();
        s.on_packet(2, &ack(0, &[(2, 6)]), &mut out);
        assert!(out.is_empty());
        s.on_packet(3, &ack(0, &[(2, 7)]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true)]);
    }

    #[test]
    fn a_timeout_discards_earlier_sacks_and_skips_later_ones() {
        // 0..9 out; an ACK of 0 SACKs 2. The timer fires: cwnd 1, go back N
        // with the scoreboard emptied: packet 0 again.
        let (mut s, _) = sender();
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, &[(2, 3)]), &mut out);
        assert!(out.is_empty());
        let t = s.next_timer().unwrap();
        s.on_timer(t, &mut out);
        assert_eq!(seqs(&out), vec![(0, true)]);
        assert_eq!(s.0.w.cwnd, 1.0);
        // ACK 1 without blocks: slow start, cwnd 2: 1 and 2 go; 2 was SACKed
        // before the timeout and is resent.
        out.clear();
        s.on_packet(t + 1, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true), (2, true)]);
        // ACK 2 SACKing 3..9 (arriving after the timeout): cwnd 3, but the next
        // unSACKed packet is 10 and FlightSize (10 - 2 = 8) exceeds cwnd. These
        // are 7 newly SACKed packets and IsLost (2) holds, yet recovery waits:
        // data sent before the timeout (up to 9) is unacknowledged.
        out.clear();
        s.on_packet(t + 2, &ack(2, &[(3, 10)]), &mut out);
        assert!(out.is_empty(), "{:?}", seqs(&out));
        assert!(!s.0.in_recovery);
        // ACK 10: cwnd 4; FlightSize 0: 10..13 go, new data.
        s.on_packet(t + 3, &ack(10, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(10, false), (11, false), (12, false), (13, false)]);
    }
}

#[cfg(test)]
mod model_tests {
    //! The TCP model options (`TcpModel`), traced by hand on a sender fed
    //! crafted ACKs: each against the RFC text or ns-3 source it follows.
    use super::*;
    use crate::transport::cc::NewReno;
    use crate::transport::TcpModel;

    const MS: Time = 1_000_000;

    fn params(handshake: bool, model: TcpModel) -> TransportParams {
        TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake,
            delayed_ack: false,
            delack_timeout_ns: 100 * MS,
            min_rto_ns: 200 * MS,
            initial_rto_ns: 1000 * MS,
            max_rto_ns: 60_000 * MS,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: false,
            model,
        }
    }

    fn sender(handshake: bool, model: TcpModel) -> (TcpSender, Vec<Packet>) {
        let mut s = TcpSender::new(
            0,
            FlowSize::Finite {
                bytes: 100_000,
                pkts: 100,
            },
            params(handshake, model),
            Box::new(NewReno),
        );
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, ts: Time) -> Packet {
        Packet::new(0, PacketKind::Ack, 40, seq, ts)
    }

    #[test]
    fn timeout_exit_growth_counts_only_segments_beyond_recover() {
        // IW 10, no handshake: segments 0-9 sent, none acknowledged; the RTO
        // (1 s) fires: cwnd 1, segment 0 resent, recover = 10. The receiver
        // held 1-9, so the next ACK is 10, covering all ten. RFC 5681 slow
        // start (eq. 2, cwnd += min(N, SMSS)) grows cwnd to 2 on it; ns-3
        // leaving CA_LOSS counts (10 - recover) = 0 segments and keeps
        // cwnd 1. The next ACK (12) is an ordinary one in both: +1.
        for (beyond, after10, after12) in [(false, 2.0, 3.0), (true, 1.0, 2.0)] {
            let m = TcpModel {
                timeout_exit_beyond_recover: beyond,
                ..Default::default()
            };
            let (mut s, first) = sender(false, m);
            assert_eq!(first.len(), 10);
            let t = s.next_timer().expect("RTO armed");
            let mut out = Vec::new();
            s.on_timer(t, &mut out);
            assert_eq!((out.len(), out[0].seq, s.w.cwnd), (1, 0, 1.0));
            s.on_packet(t + 50 * MS, &ack(10, t), &mut out);
            assert_eq!(s.w.cwnd, after10, "beyond_recover {beyond}");
            s.on_packet(t + 60 * MS, &ack(12, t + 50 * MS), &mut out);
            assert_eq!(s.w.cwnd, after12, "beyond_recover {beyond}");
        }
    }

    #[test]
    fn syn_timeout_is_the_connection_timeout_doubled_per_retry() {
        // ns-3 SendEmptyPacket: m_rto = ConnTimeout << retries: 3 s, then 6 s.
        let m = TcpModel {
            syn_rto_ns: Some(3000 * MS),
            ..Default::default()
        };
        let (mut s, out) = sender(true, m);
        assert_eq!((out.len(), out[0].kind), (1, PacketKind::Syn));
        assert_eq!(s.next_timer(), Some(3000 * MS));
        let mut out = Vec::new();
        s.on_timer(3000 * MS, &mut out);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.next_timer(), Some(9000 * MS));
        // Default: the initial RTO (RFC 6298 2.1), 1 s then 2 s.
        let (mut s, _) = sender(true, TcpModel::default());
        assert_eq!(s.next_timer(), Some(1000 * MS));
        s.on_timer(1000 * MS, &mut out);
        assert_eq!(s.next_timer(), Some(3000 * MS));
    }

    #[test]
    fn handshake_ack_and_syn_options() {
        // ns-3: SYN and SYN-ACK carry the 4-byte window-scale option; the
        // SYN-ACK is answered by a pure ACK (header only) ahead of the data.
        let m = TcpModel {
            handshake_ack: true,
            syn_option_bytes: 4,
            ..Default::default()
        };
        let (mut s, out) = sender(true, m.clone());
        assert_eq!((out[0].kind, out[0].size_bytes), (PacketKind::Syn, 44));
        let mut r = TcpReceiver::new(
            0,
            FlowSize::Finite {
                bytes: 100_000,
                pkts: 100,
            },
            &params(true, m),
        );
        let mut back = Vec::new();
        r.on_packet(20 * MS, &out[0], &mut back);
        assert_eq!(
            (back.len(), back[0].kind, back[0].size_bytes),
            (1, PacketKind::SynAck, 44)
        );
        let mut out = Vec::new();
        s.on_packet(40 * MS, &back[0], &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.flags & flags::PURE_ACK != 0, p.size_bytes, p.seq))
            .collect();
        let want: Vec<_> = std::iter::once((PacketKind::Syn, true, 40, 0))
            .chain((0..10).map(|q| (PacketKind::Data, false, 1040, q)))
            .collect();
        assert_eq!(got, want); // the pure ACK, then the initial window of 10
                               // The receiver ignores the pure ACK (no second SYN-ACK).
        let mut back = Vec::new();
        r.on_packet(60 * MS, &out[0], &mut back);
        assert!(back.is_empty());
        // Defaults: a bare SYN and SYN-ACK, and the data carries the acknowledgement.
        let (mut s, out) = sender(true, TcpModel::default());
        assert_eq!(out[0].size_bytes, 40);
        let mut out = Vec::new();
        s.on_packet(40 * MS, &Packet::new(0, PacketKind::SynAck, 40, 0, 0), &mut out);
        assert!(out.iter().all(|p| p.kind == PacketKind::Data));
    }

    #[test]
    fn fin_rst_adds_the_receivers_last_ack_and_the_senders_reset() {
        // As above with fin_rst: behind its FIN the receiver sends a pure ACK
        // (ns-3 DoPeerClose); the sender answers the FIN with a pure ACK,
        // stays until that ACK comes and answers it with a reset (both
        // forward, header bytes), and is done then.
        let m = TcpModel {
            fin_exchange: true,
            fin_rst: true,
            ..Default::default()
        };
        let size = FlowSize::Finite { bytes: 2000, pkts: 2 };
        let mut s = TcpSender::new(0, size, params(false, m.clone()), Box::new(NewReno));
        let mut r = TcpReceiver::new(0, size, &params(false, m.clone()));
        let mut data = Vec::new();
        s.start(0, &mut data);
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        r.on_packet(11 * MS, &data[1], &mut back);
        let got: Vec<_> = back
            .iter()
            .map(|p| (p.kind, p.seq, p.flags & (flags::FIN | flags::AFTER_FIN), p.size_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (PacketKind::Ack, 1, 0, 40),
                (PacketKind::Ack, 2, 0, 40),
                (PacketKind::Ack, 2, flags::FIN, 40),
                (PacketKind::Ack, 2, flags::AFTER_FIN, 40)
            ]
        );
        let mut out = Vec::new();
        for (i, p) in back[..3].iter().enumerate() {
            s.on_packet((20 + i as u64) * MS, p, &mut out);
        }
        assert!(!s.done() && out.len() == 1 && s.next_timer().is_some());
        s.on_packet(23 * MS, &back[3], &mut out);
        assert!(s.done());
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.flags & flags::PURE_ACK != 0, p.size_bytes))
            .collect();
        assert_eq!(got, vec![(PacketKind::Syn, true, 40), (PacketKind::Syn, true, 40)]);
        // The ACK behind the FIN lost: the timer ends the wait, sending nothing more.
        let mut s = TcpSender::new(0, size, params(false, m), Box::new(NewReno));
        s.start(0, &mut Vec::new());
        let mut out = Vec::new();
        for (i, p) in back[..3].iter().enumerate() {
            s.on_packet((20 + i as u64) * MS, p, &mut out);
        }
        let t = s.next_timer().expect("waiting for the last ACK");
        out.clear();
        s.on_timer(t, &mut out);
        assert!(s.done() && out.is_empty());
    }

    #[test]
    fn fin_exchange_ends_with_the_senders_pure_ack() {
        // Two packets, no handshake. The receiver ACKs the last one and sends
        // its FIN right after; the sender is not done on the ACK but on the
        // FIN, which it answers with a pure ACK (forward, header bytes).
        let m = TcpModel {
            fin_exchange: true,
            ..Default::default()
        };
        let size = FlowSize::Finite { bytes: 2000, pkts: 2 };
        let mut s = TcpSender::new(0, size, params(false, m.clone()), Box::new(NewReno));
        let mut r = TcpReceiver::new(0, size, &params(false, m.clone()));
        let mut data = Vec::new();
        s.start(0, &mut data);
        assert_eq!(data.len(), 2);
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        assert_eq!(back.len(), 1);
        r.on_packet(11 * MS, &data[1], &mut back);
        let got: Vec<_> = back
            .iter()
            .map(|p| (p.kind, p.seq, p.flags & flags::FIN != 0, p.size_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (PacketKind::Ack, 1, false, 40),
                (PacketKind::Ack, 2, false, 40),
                (PacketKind::Ack, 2, true, 40)
            ]
        );
        let mut out = Vec::new();
        s.on_packet(20 * MS, &back[0], &mut out);
        s.on_packet(21 * MS, &back[1], &mut out);
        assert!(!s.done() && out.is_empty());
        // Waiting for the FIN at most one RTO (RFC 6298, from the two samples).
        assert!(s.next_timer().is_some());
        s.on_packet(22 * MS, &back[2], &mut out);
        assert!(s.done());
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].kind, out[0].flags & flags::PURE_ACK != 0, out[0].size_bytes),
            (PacketKind::Syn, true, 40)
        );
        // A lost FIN: the timer ends the wait, sending nothing.
        let mut s = TcpSender::new(0, size, params(false, m), Box::new(NewReno));
        s.start(0, &mut data);
        s.on_packet(20 * MS, &back[1], &mut out);
        let t = s.next_timer().expect("waiting for the FIN");
        let mut out = Vec::new();
        s.on_timer(t, &mut out);
        assert!(s.done() && out.is_empty());
        // Default: done on the ACK of the last data; the receiver sends no FIN.
        let mut s = TcpSender::new(0, size, params(false, TcpModel::default()), Box::new(NewReno));
        s.start(0, &mut data);
        s.on_packet(20 * MS, &back[1], &mut out);
        assert!(s.done());
        let mut r = TcpReceiver::new(0, size, &params(false, TcpModel::default()));
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        r.on_packet(11 * MS, &data[1], &mut back);
        assert_eq!(back.len(), 2);
    }

    #[test]
    fn karn_takes_no_sample_from_a_retransmitted_syn_or_segment() {
        let karn = TcpModel {
            karn: true,
            ..Default::default()
        };
        // SYN lost once: the SYN-ACK of the second SYN gives no sample.
        let (mut s, _) = sender(true, karn.clone());
        let mut out = Vec::new();
        s.on_timer(1000 * MS, &mut out);
        let sa = Packet::new(0, PacketKind::SynAck, 40, 0, 1000 * MS);
        s.on_packet(1040 * MS, &sa, &mut out);
        assert_eq!(s.srtt_ns(), None);
        // Timestamps: the echo of the second SYN gives 40 ms.
        let (mut s, _) = sender(true, TcpModel::default());
        s.on_timer(1000 * MS, &mut out);
        s.on_packet(1040 * MS, &sa, &mut out);
        assert_eq!(s.srtt_ns(), Some(40 * MS));
        // Data: 0..9 sent at 0. ACK 1 at 50 ms times segment 0: 50 ms. Segment 1
        // is lost and fast-retransmitted; the ACK covering it (10) times
        // the oldest segment it acknowledges, 1, which was retransmitted: no
        // sample, whatever the echo says (timestamps would take 40 ms).
        let (mut s, _) = sender(false, karn);
        s.on_packet(50 * MS, &ack(1, 0), &mut out);
        assert_eq!(s.srtt_ns(), Some(50 * MS));
        for t in 51..=53 {
            s.on_packet(t * MS, &ack(1, 0), &mut out);
        }
        assert_eq!(s.retransmits(), 1);
        s.on_packet(100 * MS, &ack(10, 60 * MS), &mut out);
        assert_eq!(s.srtt_ns(), Some(50 * MS));
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_on_each_of_two_dupacks() {
        // RFC 3042: 0..9 out (cwnd 10). Dupacks 1 and 2 each send one new
        // segment (10, 11); the third fast-retransmits 0 with ssthresh from
        // the FlightSize without them (RFC 5681 3.2 step 2): 10 / 2 = 5.
        let (mut s, _) = sender(
            false,
            TcpModel {
                limited_transmit: true,
                ..Default::default()
            },
        );
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, 0), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10]);
        s.on_packet(2, &ack(0, 0), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10, 11]);
        assert_eq!(s.w.cwnd, 10.0);
        s.on_packet(3, &ack(0, 0), &mut out);
        assert_eq!(s.w.ssthresh, 5.0);
        assert_eq!((out[2].seq, out[2].flags & flags::RETX != 0), (0, true));
        // Without it the first two dupACKs send nothing.
        let (mut s, _) = sender(false, TcpModel::default());
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, 0), &mut out);
        s.on_packet(2, &ack(0, 0), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn full_ack_window_and_the_timer_on_fast_retransmit() {
        // 0..9 out; 0 lost; three dupACKs at 10-12 ms: ssthresh 5, cwnd 8.
        // The full ACK (10) with 0 outstanding beyond: option 1 gives
        // min(5, max(0, 1) + 1) = 2; option 2 (ns-3) gives ssthresh, 5.
        for (exit, want) in [(false, 2.0f64), (true, 5.0)] {
            let (mut s, _) = sender(
                false,
                TcpModel {
                    exit_to_ssthresh: exit,
                    ..Default::default()
                },
            );
            let mut out = Vec::new();
            for t in 10..=12 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!((s.w.ssthresh, s.w.cwnd), (5.0, 8.0));
            let sent = s.high_data;
            s.on_packet(20 * MS, &ack(sent, 0), &mut out);
            assert_eq!(s.w.cwnd, want);
        }
        // The timer: armed at 0 for 1 s (no sample yet). Fast retransmit at
        // 12 ms restarts it (12 ms + 1 s), or leaves it (RFC 6298 5.1, ns-3).
        for (keep, want) in [(false, 1012 * MS), (true, 1000 * MS)] {
            let (mut s, _) = sender(
                false,
                TcpModel {
                    keep_timer_on_fast_retransmit: keep,
                    ..Default::default()
                },
            );
            let mut out = Vec::new();
            for t in 10..=12 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!(s.next_timer(), Some(want));
        }
    }

    #[test]
    fn ssthresh_from_pipe_counts_duplicate_acks_as_left_on_every_timeout() {
        // 0..9 out (cwnd 10), limited transmit on. DupACKs 1 and 2 send 10 and
        // 11; ns-3 takes one segment as having left per dupACK (AddRenoSack).
        // The third counts one more and the head as lost: BytesInFlight =
        // 12 - 3 - 1 = 8, plus one segment (EnterRecovery): 9, ssthresh 4.5,
        // cwnd 4.5 + 3. RFC 5681: FlightSize without the limited-transmit
        // segments, 10: ssthresh 5, cwnd 8.
        for (pipe, ss, cwnd, ss_rto, ss_rto2) in [(true, 4.5, 7.5, 2.5, 2.0), (false, 5.0, 8.0, 6.0, 6.0)] {
            let m = TcpModel {
                limited_transmit: true,
                ssthresh_from_pipe: pipe,
                ..Default::default()
            };
            let (mut s, _) = sender(false, m);
            let mut out = Vec::new();
            for t in 1..=3 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!((s.w.ssthresh, s.w.cwnd), (ss, cwnd));
            // Four more dupACKs in recovery: cwnd 11.5 (12 with the RFC), no
            // room for a new segment; 7 segments counted as left. The timer
            // fires: ns-3 (ReTxTimeout) halves 12 - 7 = 5: 2.5; RFC 5681 halves
            // FlightSize 12: 6.
            for t in 4..=7 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!(s.high_data, 12);
            let t = s.next_timer().unwrap();
            s.on_timer(t, &mut out);
            assert_eq!((s.w.ssthresh, s.w.cwnd), (ss_rto, 1.0));
            // The retransmission is lost too: ns-3 halves again what it has in
            // flight, the one retransmitted segment: max(0.5, 2) = 2; RFC 5681
            // holds ssthresh.
            let t = s.next_timer().unwrap();
            s.on_timer(t, &mut out);
            assert_eq!(s.w.ssthresh, ss_rto2);
        }
    }

    #[test]
    fn pipe_window_follows_ns3_and_keeps_its_stale_marks() {
        // ns-3's window rule (TcpSocketBase::SendPendingData, AddRenoSack,
        // DiscardUpTo, TcpClassicRecovery) with limited transmit and ssthresh
        // from its pipe. 0..9 out at cwnd 10; 0 is lost.
        let m = TcpModel {
            limited_transmit: true,
            ssthresh_from_pipe: true,
            pipe_window: true,
            ..Default::default()
        };
        let (mut s, _) = sender(false, m);
        let sent = |out: &[Packet]| {
            out.iter()
                .map(|p| (p.seq, p.flags & flags::RETX != 0))
                .collect::<Vec<_>>()
        };
        let mut out = Vec::new();
        // DupACKs 1, 2: each counts a segment as left: pipe 9, so 10, then 11.
        // DupACK 3: one more counted, the head lost: pipe 12 - 3 - 1 = 8,
        // ssthresh (8 + 1) / 2 = 4.5 = cwnd (no inflation); 0 resent: pipe 9.
        for t in 1..=3 {
            s.on_packet(t * MS, &ack(0, 0), &mut out);
        }
        assert_eq!(sent(&out), vec![(10, false), (11, false), (0, true)]);
        assert_eq!((s.w.ssthresh, s.w.cwnd), (4.5, 4.5));
        // DupACKs 4..12 count 4..12 segments more (S = 12): pipe = 12 - S
        // until a segment fits (pipe + 1 <= 4.5, pipe 3): at S = 9, 10, 11, 12
        // one new segment each: 12, 13, 14, 15. (RFC 5681 would inflate cwnd
        // from 8 to 17 against FlightSize.)
        out.clear();
        for t in 4..=12 {
            s.on_packet(t * MS, &ack(0, 0), &mut out);
        }
        assert_eq!(sent(&out), vec![(12, false), (13, false), (14, false), (15, false)]);
        assert_eq!(s.w.cwnd, 4.5);
        // The full ACK (12 = recover) covers 11 of the 12 counted segments: the
        // twelfth was 12, the new head, so ns-3 moves its mark to 13 and marks
        // 12 lost. Recovery ends: cwnd = ssthresh, plus one ACK of congestion
        // avoidance: 4.5 + 1/4.5. Pipe = 16 - 12 - 1 (counted) - 1 (lost) = 2:
        // 12 is resent at once (pipe 3), then 16 (pipe 4).
        out.clear();
        s.on_packet(20 * MS, &ack(12, 0), &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.w.cwnd, 4.5 + 1.0 / 4.5);
        assert_eq!(sent(&out), vec![(12, true), (16, false)]);
        // One duplicate ACK now starts a recovery: the head is marked lost
        // below a counted segment (TcpTxBuffer::IsLost). One more counted:
        // pipe 17 - 12 - 2 - 1 = 2, ssthresh max((2 + 1) / 2, 2) = 2; 12 is
        // resent again.
        out.clear();
        s.on_packet(21 * MS, &ack(12, 0), &mut out);
        assert!(s.in_recovery);
        assert_eq!((s.w.ssthresh, s.w.cwnd), (2.0, 2.0));
        assert_eq!(sent(&out), vec![(12, true)]);
        // A partial ACK (13 < recover 17) marks the new head lost and resends
        // it; cwnd stays ssthresh.
        out.clear();
        s.on_packet(60 * MS, &ack(13, 0), &mut out);
        assert_eq!(sent(&out), vec![(13, true)]);
        assert_eq!(s.w.cwnd, 2.0);
    }

    #[test]
    fn a_retransmitted_syn_is_timed_from_the_first_one() {
        // The SYN sent at 0 is lost; the one resent at 3 s is answered at
        // 3.04 s. ns-3 samples 3.04 s (its history entry of the SYN counts
        // zero bytes, so the resend never marks it retransmitted): SRTT 3.04 s,
        // RTTVAR 1.52 s, RTO 3.04 + 4 x 1.52 = 9.12 s. Karn's rule: no sample,
        // the RTO stays the initial 1 s.
        let sa = Packet::new(0, PacketKind::SynAck, 40, 0, 3000 * MS);
        for (first, srtt, rto) in [(true, Some(3040 * MS), 9120 * MS), (false, None, 1000 * MS)] {
            let m = TcpModel {
                syn_rto_ns: Some(3000 * MS),
                karn: true,
                time_first_syn: first,
                ..Default::default()
            };
            let (mut s, _) = sender(true, m);
            let mut out = Vec::new();
            s.on_timer(3000 * MS, &mut out);
            s.on_packet(3040 * MS, &sa, &mut out);
            assert_eq!(s.srtt_ns(), srtt);
            assert_eq!(s.next_timer(), Some(3040 * MS + rto));
        }
    }
}

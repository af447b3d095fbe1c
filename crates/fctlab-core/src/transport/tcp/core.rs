//! What every loss-recovery algorithm shares: the sequence space, the window
//! and its controller, the RTT estimate, the phase and the timer, and the
//! steps each algorithm takes the same way (sending a segment, taking an ACK
//! of new data, growing the window, closing).

pub use super::hooks::Asks;
use super::options::{FastRetransmitTimer, RecoveryExit, RtoEstimator, RttSampling, TcpOptions, TimeoutExitGrowth};
use super::pacing::Pacer;
use super::phase::{Frto, PartialAckTimer, Phase, Recovering, Timer};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::{ms_to_ns, Time};
use crate::transport::cc::{AckSample, AckSeq, CongestionControl, TxEvent, Window};
use crate::transport::rtt::RttEstimator;
use crate::transport::{FlowSize, TransportParams};
use std::collections::VecDeque;
use std::sync::Arc;

/// When a timer of `rto` set at `now` fires on a clock that ticks every
/// `tick` (`rto_tick_ms`): after ceil(rto / tick) ticks, at least one,
/// counted from the next tick.
pub fn on_ticks(now: Time, rto: Time, tick: Time) -> Time {
    let n = rto.div_ceil(tick).max(1);
    (now / tick).saturating_add(n).saturating_mul(tick)
}

/// One ACK as the sender takes it.
pub struct Ack<'a> {
    pub now: Time,
    /// The ACK itself: `seq` is the cumulative acknowledgement, `ts` the
    /// echoed send time, `hdr` its header words.
    pub pkt: &'a Packet,
    /// The window was just reduced in answer to this ACK's ECE (RFC 3168
    /// 6.1.2): it does not grow on this ACK.
    pub ece_reduced: bool,
}

impl Ack<'_> {
    /// The cumulative acknowledgement.
    #[inline]
    pub fn seq(&self) -> u64 {
        self.pkt.seq
    }
}

/// What an ACK of new data acknowledged, taken once ([`Core::take_new_ack`]).
pub struct NewAck {
    /// Segments newly acknowledged.
    pub acked: u64,
    /// Segments that may grow the window (`timeout_exit_growth`).
    pub grow: u64,
    /// Segments outstanding before the ACK.
    pub flight: u64,
    /// The RTT sample, or the smoothed RTT when the ACK gives none.
    pub rtt: Time,
}

/// The sender's shared state.
pub struct Core {
    pub flow: u32,
    pub size: FlowSize,
    /// `size.end_seq()`, kept for the per-packet checks.
    pub end_seq: u64,
    /// The run's settings, shared by every flow of the scheme (one copy
    /// instead of one per flow keeps the flows in progress smaller).
    pub p: Arc<TransportParams>,
    pub cc: Box<dyn CongestionControl>,
    /// What the controller asked for, once per flow.
    pub asks: Asks,
    /// The pacing state, when the sender paces (`pacing`).
    pub pacer: Option<Box<Pacer>>,
    pub w: Window,
    pub rtt: RttEstimator,
    pub phase: Phase,
    pub timer: Timer,
    /// When the first SYN was sent (`time_first_syn`).
    pub first_syn_at: Time,
    /// Oldest unacknowledged sequence number.
    pub snd_una: u64,
    /// Next sequence number to send.
    pub snd_nxt: u64,
    /// One past the highest sequence number ever sent ("HighData" + 1).
    pub high_data: u64,
    /// NewReno's `recover` (RFC 6582): high_data when recovery was entered
    /// or the timer last fired.
    pub recover: u64,
    /// ECN (RFC 3168): high_data at the last reduction for ECE; an ECE ACK
    /// starts a new reduction only once it acknowledges beyond this.
    pub ecn_recover: u64,
    /// Window reductions made in answer to ECE.
    pub ecn_reductions: u64,
    pub dupacks: u32,
    /// Timeouts in a row (the RTO's back-off exponent).
    pub backoff: u32,
    pub retransmits: u64,
    /// Retransmission timeouts, and those F-RTO found spurious (`frto`).
    pub timeouts: u32,
    pub spurious_timeouts: u32,
    /// F-RTO's progress after a timeout.
    pub frto: Option<Box<Frto>>,
    /// Karn's rule (`rtt_sampling = "karn"`): the segments sent and not yet
    /// acknowledged since the last timeout, as (seq, first sent,
    /// retransmitted), in sequence order (ns-3's `m_history`).
    pub rtt_history: VecDeque<(u64, Time, bool)>,
}

impl Core {
    pub fn new(flow: u32, size: FlowSize, p: Arc<TransportParams>, cc: Box<dyn CongestionControl>) -> Self {
        Core {
            flow,
            size,
            end_seq: size.end_seq(),
            w: Window {
                cwnd: p.init_cwnd_pkts,
                ssthresh: p.tcp.init_ssthresh(),
            },
            asks: Asks::of(cc.as_ref()),
            pacer: p.tcp.pacing.unwrap_or(cc.needs_pacing()).then(Box::default),
            rtt: {
                let e = RttEstimator::new(p.initial_rto_ns, p.min_rto_ns, p.max_rto_ns);
                match p.tcp.rto_estimator {
                    RtoEstimator::Rfc6298 => e,
                    RtoEstimator::Linux => e.linux(),
                }
            },
            p,
            cc,
            phase: Phase::Handshake,
            timer: Timer::Off,
            first_syn_at: 0,
            snd_una: 0,
            snd_nxt: 0,
            high_data: 0,
            recover: 0,
            ecn_recover: 0,
            ecn_reductions: 0,
            dupacks: 0,
            backoff: 0,
            retransmits: 0,
            timeouts: 0,
            spurious_timeouts: 0,
            frto: None,
            rtt_history: VecDeque::new(),
        }
    }

    #[inline]
    pub fn opts(&self) -> &TcpOptions {
        &self.p.tcp
    }

    #[inline]
    pub fn outstanding(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// The window the sender may fill: cwnd, capped by the receiver's window.
    #[inline]
    pub fn wnd(&self) -> f64 {
        self.w.cwnd.min(self.p.max_cwnd_pkts)
    }

    // ---- timers ----

    pub fn arm_rto(&mut self, now: Time) {
        let rto = self.rtt.backed_off(self.backoff);
        let at = match self.opts().rto_tick_ms {
            None => now + rto,
            Some(ms) => on_ticks(now, rto, ms_to_ns(ms).max(1)),
        };
        self.timer = Timer::Retransmit(at);
    }

    /// The timer after fast retransmit: restarted, or left running
    /// (`fast_retransmit_timer`).
    pub fn arm_rto_on_fast_retransmit(&mut self, now: Time) {
        if self.opts().fast_retransmit_timer == FastRetransmitTimer::Restart {
            self.arm_rto(now);
        }
    }

    /// In fast recovery, the first partial ACK restarts the timer (RFC 6582
    /// 3.2 step 5); later ones leave it.
    pub fn arm_rto_on_first_partial_ack(&mut self, now: Time) {
        if let Phase::Recovery(
            r @ Recovering {
                timer: PartialAckTimer::NotRestarted,
                ..
            },
        ) = self.phase
        {
            self.phase = Phase::Recovery(Recovering {
                timer: PartialAckTimer::Restarted,
                ..r
            });
            self.arm_rto(now);
        }
    }

    /// The SYN's timer: the connection timeout when one is set
    /// (`syn_rto_ms`), doubled per retry, else the RTO.
    pub fn arm_syn_timer(&mut self, now: Time) {
        let t = match self.opts().syn_rto_ms {
            Some(ms) => {
                let t = ms_to_ns(ms);
                t.saturating_mul(1u64 << self.backoff.min(30))
                    .min(self.p.max_rto_ns.max(t))
            }
            None => self.rtt.backed_off(self.backoff),
        };
        self.timer = Timer::Syn(now + t);
    }

    /// Wait at most one RTO for the receiver's FIN or the ACK behind it.
    fn arm_close(&mut self, now: Time) {
        self.backoff = 0;
        self.timer = Timer::Close(now + self.rtt.backed_off(self.backoff));
    }

    // ---- packets ----

    pub fn syn(&self, now: Time) -> Packet {
        let bytes = self.p.header_bytes + self.opts().syn_option_bytes;
        let mut syn = Packet::new(self.flow, PacketKind::Syn, bytes, 0, now);
        if self.p.ecn && self.cc.ect_syn() {
            syn.flags |= flags::ECT;
        }
        syn
    }

    /// A forward segment with neither SYN nor data (the handshake's last
    /// ACK, the answer to a FIN, a reset): header bytes, flagged `PURE_ACK`.
    pub fn pure_ack(&self, now: Time) -> Packet {
        let mut a = Packet::new(self.flow, PacketKind::Syn, self.p.header_bytes, 0, now);
        a.flags |= flags::PURE_ACK;
        a
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

    /// Send segment `seq` (new, or a retransmission if below high_data).
    pub fn send_seq(&mut self, now: Time, seq: u64, out: &mut Vec<Packet>) {
        let mut pkt = self.data_packet(now, seq);
        let karn = self.opts().rtt_sampling == RttSampling::Karn;
        if self.asks.delivery() {
            let e = TxEvent {
                now,
                seq,
                retransmit: seq < self.high_data,
                packets_out: self.high_data - self.snd_una,
            };
            self.cc.on_send(&e);
        }
        if self.pacer.is_some() {
            let rate = self.pacing_rate();
            let payload = self.size.payload_of(seq, self.p.mss_bytes);
            let mss = self.p.mss_bytes as f64;
            if let Some(p) = self.pacer.as_deref_mut() {
                p.sent(now, payload, rate, mss);
            }
        }
        if seq < self.high_data {
            self.retransmits += 1;
            pkt.flags |= flags::RETX;
            if karn {
                if let Ok(i) = self.rtt_history.binary_search_by_key(&seq, |e| e.0) {
                    self.rtt_history[i].2 = true;
                }
            }
        } else if karn {
            self.rtt_history.push_back((seq, now, false));
        }
        self.high_data = self.high_data.max(seq + 1);
        out.push(pkt);
        if self.timer == Timer::Off {
            self.arm_rto(now);
        }
    }

    /// Send the segment at snd_nxt and move snd_nxt past it.
    pub fn send_next(&mut self, now: Time, out: &mut Vec<Packet>) {
        let seq = self.snd_nxt;
        self.snd_nxt += 1;
        self.send_seq(now, seq, out);
    }

    /// Send new (or, after a timeout, re-sent) data while FlightSize + 1
    /// fits the window (RFC 5681).
    pub fn send_window(&mut self, now: Time, out: &mut Vec<Packet>) {
        let wnd = self.wnd();
        while self.snd_nxt < self.end_seq && (self.outstanding() as f64) + 1.0 <= wnd + 1e-9 && self.pace_ok(now) {
            self.send_next(now, out);
        }
    }

    // ---- ACKs ----

    /// The RTT sample an ACK of new data up to `ack` gives, echoing send time
    /// `ts`: with Karn's rule (ns-3's `TcpSocketBase::EstimateRtt`), the time
    /// since the oldest segment it acknowledges was sent, unless that segment
    /// was retransmitted; else the echoed time.
    fn rtt_sample(&mut self, now: Time, ack: u64, ts: Time) -> Option<Time> {
        if self.opts().rtt_sampling != RttSampling::Karn {
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

    /// RFC 3168 6.1.2: the answer to an ACK carrying ECE (cumulative ACK
    /// `ack`): ssthresh as for a loss, cwnd = ssthresh, once per window of
    /// data, not in fast recovery (the loss already reduced the window),
    /// nor for a controller that owns the window (BBR v1 ignores ECE).
    /// Returns whether the window was reduced.
    pub fn on_ece(&mut self, ack: u64) -> bool {
        if !self.p.ecn || self.asks.delivery() || self.phase.in_recovery() || ack <= self.ecn_recover {
            return false;
        }
        let flight = self.outstanding();
        self.w.ssthresh = self.cc.ssthresh_after_ece(&self.w, flight);
        self.w.cwnd = self.w.ssthresh.max(1.0);
        self.ecn_recover = self.high_data;
        self.ecn_reductions += 1;
        true
    }

    /// Take an ACK of new data: end a timeout's recovery if it covers
    /// `recover`, sample the RTT, tell a controller that asks, and move
    /// snd_una (and snd_nxt, after go-back-N) up to it.
    pub fn take_new_ack(&mut self, a: &Ack) -> NewAck {
        let ack = a.seq();
        let acked = ack - self.snd_una;
        // ns-3 leaving `CA_LOSS`: only the segments beyond recover grow the window.
        let mut grow = acked;
        if self.phase.in_loss() && ack >= self.recover {
            self.phase = self.phase.loss_over();
            grow = ack - self.recover;
        }
        let flight = self.outstanding();
        let sample = self.rtt_sample(a.now, ack, a.pkt.ts);
        let rtt = match sample {
            Some(r) => {
                self.rtt.sample_at(r, ack, self.high_data);
                r
            }
            None => self.rtt.srtt().unwrap_or(0),
        };
        if self.asks.ack_seq() {
            let s = AckSeq {
                now: a.now,
                ack,
                acked_pkts: acked,
                snd_nxt: self.snd_nxt,
                congestion_bit: a.pkt.flags & flags::ECE != 0,
                rtt_ns: rtt,
                rtt_sampled: sample.is_some(),
                in_recovery: self.phase.in_recovery(),
            };
            self.cc.on_ack_seq(&mut self.w, &s);
        }
        self.backoff = 0;
        self.dupacks = 0;
        self.snd_una = ack;
        if self.snd_nxt < ack {
            // Go-back-N after a timeout: the receiver already had these.
            self.snd_nxt = ack;
        }
        NewAck {
            acked,
            grow,
            flight,
            rtt,
        }
    }

    /// The controller grows the window by `pkts` acknowledged segments
    /// (none on an ACK that carried ECE, RFC 3168 6.1.2, nor, with
    /// `ecn_cwr_hold`, before the reduced window is acknowledged); with `feedback`
    /// it then reads the ACK's router feedback.
    pub fn grow(&mut self, a: &Ack, n: &NewAck, pkts: u64, feedback: bool) {
        if a.ece_reduced || pkts == 0 {
            return;
        }
        if self.opts().ecn_cwr_hold && self.snd_una < self.ecn_recover {
            return; // in CWR: the reduction's window is not yet acknowledged
        }
        let s = AckSample {
            now: a.now,
            acked_pkts: pkts,
            rtt_ns: n.rtt,
            srtt_ns: self.rtt.srtt().unwrap_or(n.rtt),
            min_rtt_ns: self.rtt.min_rtt().unwrap_or(n.rtt),
            flight_pkts: n.flight,
        };
        self.cc.on_ack(&mut self.w, &s);
        if feedback {
            self.cc.on_router_feedback(&mut self.w, &s, &a.pkt.hdr);
        }
    }

    /// After an ACK of new data outside SACK: the flow is over if everything
    /// is acknowledged; else the timer restarts (RFC 6298 5.3; in fast
    /// recovery only the first partial ACK restarts it). Returns whether the
    /// sender goes on to send.
    pub fn settle(&mut self, now: Time) -> bool {
        if self.snd_una >= self.end_seq {
            self.all_acked(now);
            return false;
        }
        if !self.phase.in_recovery() {
            self.arm_rto(now);
        }
        true
    }

    /// NewReno's window on a full ACK `ack` (RFC 6582 3.2 step 6): option 1,
    /// min(ssthresh, max(FlightSize, SMSS) + SMSS), or option 2, ssthresh
    /// (`recovery_exit`).
    pub fn full_ack_window(&self, ack: u64) -> f64 {
        match self.opts().recovery_exit {
            RecoveryExit::Ssthresh => self.w.ssthresh,
            RecoveryExit::Flight => self.w.ssthresh.min((self.high_data - ack).max(1) as f64 + 1.0),
        }
    }

    /// ssthresh after a loss of `flight` segments, unless the loss lies in a
    /// window already reduced for ECE (RFC 3168 6.1.2: not twice in a round trip).
    pub fn reduce_for_loss(&mut self, flight: u64) {
        if self.snd_una >= self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
    }

    /// ssthresh on a timeout by RFC 5681 eq. 4 (FlightSize, counting what
    /// go-back-N already resent), held when a retransmission is itself lost.
    pub fn timeout_ssthresh(&mut self) {
        if self.backoff == 0 {
            let flight = self.high_data.max(self.snd_nxt) - self.snd_una;
            self.w.ssthresh = self.cc.ssthresh_after_loss(&self.w, flight);
        }
    }

    /// The timeout's common part, after the algorithm set ssthresh: cwnd 1,
    /// back off, go back N from snd_una, and (`timeout_exit_growth`) a
    /// timeout's recovery until `recover` is acknowledged.
    pub fn time_out(&mut self) {
        self.w.cwnd = 1.0;
        self.cc.on_rto(&mut self.w);
        self.backoff += 1;
        self.phase = match self.opts().timeout_exit_growth {
            TimeoutExitGrowth::BeyondRecover => Phase::Loss,
            TimeoutExitGrowth::All => Phase::Open,
        };
        self.dupacks = 0;
        self.recover = self.high_data;
        self.snd_nxt = self.snd_una;
    }

    // ---- closing ----

    /// All data is acknowledged: the flow is over, or with `fin_exchange` it
    /// waits for the receiver's FIN (at most one RTO; a lost FIN is not
    /// waited for).
    pub fn all_acked(&mut self, now: Time) {
        if self.opts().fin_exchange {
            self.phase = Phase::FinWait;
            self.arm_close(now);
        } else {
            self.phase = Phase::Done;
            self.timer = Timer::Off;
        }
    }

    /// While waiting for the receiver's FIN: acknowledge it with a pure ACK
    /// (ns-3's sender in FIN_WAIT_2 answering the FIN), and the flow is over.
    /// With `fin_rst` it then waits for the receiver's ACK that follows the
    /// FIN and answers it with a reset, and the flow is over.
    pub fn on_fin(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let awaited = if self.phase == Phase::RstWait {
            flags::AFTER_FIN
        } else {
            flags::FIN
        };
        if pkt.kind != PacketKind::Ack || pkt.flags & awaited == 0 {
            return;
        }
        out.push(self.pure_ack(now));
        if self.opts().fin_rst && self.phase == Phase::FinWait {
            self.phase = Phase::RstWait;
            self.arm_close(now);
            return;
        }
        self.phase = Phase::Done;
        self.timer = Timer::Off;
    }
}

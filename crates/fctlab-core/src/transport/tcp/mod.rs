//! The TCP sender and receiver machinery shared by every window-based scheme:
//! optional SYN / SYN-ACK handshake, ACK clocking, duplicate-ACK counting,
//! loss recovery and the retransmission timer (RFC 6298) with exponential
//! back-off and go-back-N.
//!
//! - [`phase`]: the sender's phase (handshake, open, fast recovery, a
//!   timeout's recovery, closing) and its timer, one enum each.
//! - [`core`]: what every loss-recovery algorithm shares (sequence space,
//!   window, RTT, ECN, the close).
//! - [`recovery`]: the loss-recovery algorithm, one per sender, chosen when
//!   it is built: RFC 5681/6582 (Tahoe, Reno, NewReno by the controller's
//!   style), ns-3's pipe rule (`dupack_window = "pipe"`), or with SACK RFC
//!   6675 on a scoreboard (see [`super::sack`]), with RACK-TLP (RFC 8985)
//!   when `rack` is on; F-RTO (RFC 5682) beside RFC 5681/6582 after a
//!   timeout (`frto`).
//! - [`receiver`]: the receiver, with or without SACK blocks.
//! - [`options`]: the TCP model options (`[transport]` keys and presets).
//! - [`pacing`]: the earliest departure of the next segment (`pacing`).
//! - [`hooks`]: what the sender does for a controller beyond the ACK sample
//!   (pacing's rate, the delivery picture of a controller that owns the
//!   window).
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

pub mod core;
pub mod hooks;
#[cfg(test)]
mod linux_tests;
pub mod options;
pub mod pacing;
pub mod phase;
pub mod receiver;
pub mod recovery;
#[cfg(test)]
mod tests;

pub use options::TcpOptions;
pub use receiver::{TcpReceiver, TcpSackReceiver};

use self::core::{Ack, Core};
use super::cc::{CongestionControl, Recovery as Style, Window};
use super::{EndpointBuilder, FlowSize, Receiver, Sender, TransportParams};
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use options::{DupackWindow, RttSampling};
use phase::{Phase, Timer};
use recovery::{LossRecovery, Ns3Pipe, Recovery, Rfc6582, Rfc6675};
use std::sync::Arc;

/// A TCP sender for one flow: the shared state and its loss-recovery algorithm.
pub struct TcpSender {
    core: Core,
    recovery: Recovery,
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

/// The schemes whose senders keep a SACK scoreboard (built by
/// [`sack_endpoints`]): the only ones where `rack` acts.
pub const SACK_SCHEMES: [&str; 2] = ["tcp-sack", "tcp-bbr"];

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
            Box::new(TcpSender::with_sack(id, size, p.clone(), cc(), rescue)) as Box<dyn Sender>,
            Box::new(TcpSackReceiver::new(TcpReceiver::new(id, size, &p), blocks)) as Box<dyn Receiver>,
        )
    })
}

impl TcpSender {
    pub fn new(flow: u32, size: FlowSize, p: TransportParams, cc: Box<dyn CongestionControl>) -> Self {
        Self::with_shared(flow, size, Arc::new(p), cc)
    }

    /// [`TcpSender::new`] with settings shared with other flows. Recovery
    /// without SACK: ns-3's pipe rule for a NewReno-style controller when
    /// `dupack_window = "pipe"`, else RFC 5681/6582 in the controller's style.
    pub fn with_shared(flow: u32, size: FlowSize, p: Arc<TransportParams>, cc: Box<dyn CongestionControl>) -> Self {
        let style = cc.recovery();
        let recovery = if p.tcp.dupack_window == DupackWindow::Pipe && style == Style::NewReno {
            Recovery::Ns3Pipe(Ns3Pipe::default())
        } else {
            Recovery::Rfc6582(Rfc6582::new(style))
        };
        TcpSender {
            core: Core::new(flow, size, p, cc),
            recovery,
        }
    }

    /// With SACK: RFC 6675 recovery on a scoreboard, whatever the
    /// controller's recovery style (`rescue`: NextSeg rule 4).
    pub fn with_sack(
        flow: u32,
        size: FlowSize,
        p: Arc<TransportParams>,
        cc: Box<dyn CongestionControl>,
        rescue: bool,
    ) -> Self {
        let recovery = Recovery::Rfc6675(Box::new(Rfc6675::new(p.dupack_threshold, rescue, p.tcp.rack)));
        let mut core = Core::new(flow, size, p, cc);
        // A SACK ACK's header words hold its blocks: no room for the path delay.
        core.asks = core.asks.without_path_delay();
        TcpSender { core, recovery }
    }

    /// The window.
    pub fn window(&self) -> Window {
        self.core.w
    }

    /// Window reductions made in answer to ECN echoes.
    pub fn ecn_reductions(&self) -> u64 {
        self.core.ecn_reductions
    }

    /// The SYN-ACK: established. Karn's rule: a retransmitted SYN gives no
    /// sample; ns-3 times the SYN-ACK from the first SYN (`time_first_syn`).
    fn on_synack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        c.phase = Phase::Open;
        let o = c.opts();
        let sample = if o.time_first_syn && c.backoff > 0 {
            Some(now.saturating_sub(c.first_syn_at))
        } else {
            (o.rtt_sampling != RttSampling::Karn || c.backoff == 0).then(|| now.saturating_sub(pkt.ts))
        };
        if let Some(r) = sample {
            c.rtt.sample_at(r, 0, 0);
        }
        c.backoff = 0;
        c.timer = Timer::Off;
        c.cc.on_established(&mut c.w, sample);
        if c.opts().handshake_ack {
            // RFC 793's third segment of the handshake, ahead of the data.
            out.push(c.pure_ack(now));
        }
        self.recovery.send(&mut self.core, now, out);
    }

    /// An ACK of the established connection.
    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let ece_reduced = pkt.flags & flags::ECE != 0 && self.core.on_ece(pkt.seq);
        let ack = Ack { now, pkt, ece_reduced };
        let frto = self.core.frto.is_some() && recovery::frto::on_ack(&mut self.core, &ack, out);
        if !frto {
            self.recovery.on_ack(&mut self.core, &ack, out);
        }
        if self.core.phase == Phase::FinWait {
            // The FIN came with the acknowledgement of the last data.
            self.core.on_fin(now, pkt, out);
        }
    }

    /// A paced sender's segment may leave: send what the window allows.
    fn on_pacing_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        let Some(p) = self.core.pacer.as_deref_mut() else {
            return;
        };
        if p.wake().is_none_or(|t| now < t) {
            return;
        }
        p.woken();
        if matches!(self.core.phase, Phase::Open | Phase::Loss | Phase::Recovery(_)) {
            self.recovery.send(&mut self.core, now, out);
        }
    }

    /// The pacing state, when the sender paces.
    pub fn pacer(&self) -> Option<&pacing::Pacer> {
        self.core.pacer.as_deref()
    }

    /// The SYN is lost: resend it with back-off.
    fn on_syn_timeout(&mut self, now: Time, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        c.backoff += 1;
        out.push(c.syn(now));
        c.arm_syn_timer(now);
    }

    /// The retransmission timer: ssthresh by the algorithm, cwnd 1, go back N.
    fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        // Karn's rule: nothing sent before the timeout is timed.
        self.core.rtt_history.clear();
        let eligible = matches!(self.recovery, Recovery::Rfc6582(_));
        let frto = recovery::frto::on_timeout(&self.core, eligible);
        self.core.timeouts += 1;
        self.recovery.on_timeout(&mut self.core);
        self.core.time_out();
        self.core.frto = frto;
        self.recovery.send(&mut self.core, now, out);
        if self.core.timer == Timer::Off {
            self.core.arm_rto(now);
        }
    }
}

impl Sender for TcpSender {
    fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        let c = &mut self.core;
        c.first_syn_at = now;
        if c.p.handshake {
            out.push(c.syn(now));
            c.arm_syn_timer(now);
        } else {
            c.phase = Phase::Open;
            c.cc.on_established(&mut c.w, None);
            self.recovery.send(&mut self.core, now, out);
        }
    }

    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        match self.core.phase {
            Phase::Done => return,
            Phase::FinWait | Phase::RstWait => return self.core.on_fin(now, pkt, out),
            _ => {}
        }
        if self.core.asks.path_delay() {
            // Before anything else is done with the ACK or SYN-ACK.
            self.core.cc.on_path_delay(pkt.hdr.path_queue_ns());
        }
        match (self.core.phase, pkt.kind) {
            (Phase::Handshake, PacketKind::SynAck) => self.on_synack(now, pkt, out),
            (Phase::Handshake, _) => {}
            (_, PacketKind::Ack) => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        match self.core.timer {
            Timer::Syn(at) if now >= at => {
                self.core.timer = Timer::Off;
                self.on_syn_timeout(now, out);
            }
            Timer::Retransmit(at) if now >= at => {
                self.core.timer = Timer::Off;
                self.on_rto(now, out);
            }
            Timer::Close(at) if now >= at => {
                self.core.phase = Phase::Done;
                self.core.timer = Timer::Off;
            }
            Timer::Reorder(at) | Timer::Probe(at) if now >= at => {
                self.recovery.on_rack_timer(&mut self.core, now, out);
            }
            _ => {}
        }
        self.on_pacing_timer(now, out);
    }

    fn next_timer(&self) -> Option<Time> {
        let t = self.core.timer.at();
        match self.core.pacer.as_deref().and_then(|p| p.wake()) {
            None => t,
            Some(w) => Some(t.map_or(w, |t| t.min(w))),
        }
    }

    fn done(&self) -> bool {
        self.core.phase == Phase::Done
    }

    fn retransmits(&self) -> u64 {
        self.core.retransmits
    }

    fn timeouts(&self) -> (u64, u64) {
        (self.core.timeouts.into(), self.core.spurious_timeouts.into())
    }

    fn cwnd_pkts(&self) -> f64 {
        self.core.w.cwnd
    }

    fn srtt_ns(&self) -> Option<Time> {
        self.core.rtt.srtt()
    }

    fn wants_path_delay(&self) -> bool {
        self.core.asks.path_delay()
    }

    fn model(&self, put: &mut dyn FnMut(&'static str, f64)) {
        self.core.cc.model(put)
    }
}

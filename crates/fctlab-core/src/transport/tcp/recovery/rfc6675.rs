//! SACK (RFC 2018) and RFC 6675 loss recovery on a scoreboard
//! ([`crate::transport::sack`] explains the steps and the scoreboard).

use super::rack::Rack;
use super::LossRecovery;
use crate::net::packet::SackBlocks;
use crate::net::Packet;
use crate::sim::Time;
use crate::transport::sack::{Rule, Scoreboard};
use crate::transport::tcp::core::{Ack, Core};

pub struct Rfc6675 {
    pub(super) sb: Scoreboard,
    /// PRR's counts during a recovery (`prr`).
    pub(super) prr: Option<Prr>,
    /// RACK-TLP's state (`rack`).
    pub(super) rack: Option<Box<Rack>>,
}

/// What an ACK delivered, for a controller that owns the window: the
/// segments newly acknowledged or SACKed, and the pipe before the ACK.
#[derive(Clone, Copy, Debug)]
pub(super) struct Told {
    pub(super) delivered: u64,
    pub(super) prior_pipe: u64,
    /// Segments the ACK made lost (IsLost), in or into recovery; RACK's
    /// losses come from its own marks instead.
    pub(super) losses: u64,
}

/// Proportional Rate Reduction's state in one recovery (RFC 6937 3.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prr {
    /// Segments delivered to the receiver since recovery began.
    pub delivered: u64,
    /// Segments sent since recovery began.
    pub out: u64,
    /// cwnd before the loss (Linux's `prior_cwnd`).
    pub recover_fs: f64,
}

impl Rfc6675 {
    /// `rescue`: NextSeg rule 4; `rack`: RACK-TLP.
    pub fn new(dupthresh: u32, rescue: bool, rack: bool) -> Self {
        Rfc6675 {
            sb: Scoreboard::new(dupthresh, rescue),
            prr: None,
            rack: rack.then(Box::default),
        }
    }

    /// RACK-TLP's state, with `rack`.
    pub fn rack(&self) -> Option<&Rack> {
        self.rack.as_deref()
    }

    /// SetPipe (), or with RACK the segments in flight by its marks.
    pub(super) fn pipe(&self, c: &Core) -> u64 {
        match self.rack.as_deref() {
            None => self.sb.pipe(c.snd_una, c.high_data),
            Some(r) => r.pipe(c.snd_una, c.high_data, self.sb.sacked()),
        }
    }

    /// Send segment `seq`, and tell RACK.
    pub(super) fn emit(&mut self, c: &mut Core, now: Time, seq: u64, out: &mut Vec<Packet>) {
        c.send_seq(now, seq, out);
        if let Some(r) = self.rack.as_deref_mut() {
            r.sent(seq, now);
        }
    }

    /// PRR's state, during a recovery with `prr`.
    pub fn prr(&self) -> Option<Prr> {
        self.prr
    }

    /// RFC 6937 3.1 on an ACK in recovery that delivered `delivered`
    /// segments: cwnd = pipe + sndcnt (PRR-SSRB; Linux's `tcp_cwnd_reduction`).
    pub(super) fn prr_window(&mut self, c: &mut Core, delivered: u64) {
        let pipe = self.pipe(c) as f64;
        let Some(prr) = self.prr.as_mut() else {
            return;
        };
        prr.delivered += delivered;
        let (pd, out) = (prr.delivered as f64, prr.out as f64);
        let ssthresh = c.w.ssthresh;
        let sndcnt = if pipe > ssthresh {
            // Proportional: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            ((pd * ssthresh / prr.recover_fs).ceil() - out).max(0.0)
        } else {
            // Slow-start reduction bound.
            (ssthresh - pipe).min((pd - out).max(delivered as f64) + 1.0).max(0.0)
        };
        // Linux: force the fast retransmit on entering recovery.
        let sndcnt = if prr.out == 0 { sndcnt.max(1.0) } else { sndcnt };
        c.w.cwnd = pipe + sndcnt;
    }

    /// Tell a controller that owns the window what the ACK delivered, with
    /// `losses` segments newly taken for lost (no-op for the others).
    pub(super) fn tell(&self, c: &mut Core, a: &Ack, t: Told, losses: u64) {
        if c.asks.delivery() {
            let pipe = self.flight(c);
            c.deliver(a, t.delivered, losses, t.prior_pipe, pipe);
        }
    }

    /// The segments an ACK made lost, IsLost's bound having moved from
    /// `before` (Linux's `rs->losses`, the segments `tcp_mark_skb_lost`
    /// newly marks on the ACK, which BBR takes off cwnd): the unSACKed ones
    /// between the old and the new bound, above the cumulative ACK `una`.
    fn newly_lost(&self, before: Option<u64>, una: u64) -> u64 {
        let from = before.unwrap_or(una).max(una);
        match self.sb.lost_below() {
            Some(b) if b > from => self.sb.unsacked_in(from, b),
            _ => 0,
        }
    }

    /// The segments in flight for a controller that owns the window, as
    /// Linux counts them (`tcp_packets_in_flight`: sent - SACKed - lost +
    /// retransmitted; net/ipv4/tcp_output.c `tcp_cwnd_test` holds it below
    /// cwnd): in recovery RFC 6675's pipe; outside it the unSACKed segments
    /// below the send pointer. After a timeout Linux takes every unSACKed
    /// segment for lost (`tcp_timeout_mark_lost`, tcp_input.c) and counts it
    /// again only once resent: go-back-N's pointer is what has been resent.
    fn flight(&self, c: &Core) -> u64 {
        if c.phase.in_recovery() {
            self.pipe(c)
        } else {
            self.sb.unsacked_in(c.snd_una, c.snd_nxt)
        }
    }

    /// The scoreboard.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }

    /// The part of RFC 6675 section 5 an ACK of new data takes: the
    /// cumulative ACK resets DupAcks and restarts the timer (RFC 6298 5.3, in
    /// recovery too); (A) one covering RecoveryPoint ends recovery (cwnd has
    /// been ssthresh since it began); outside recovery the window grows.
    /// Returns whether the flow goes on (something is unacknowledged).
    fn on_new_ack(&mut self, c: &mut Core, a: &Ack) -> bool {
        let n = c.take_new_ack(a);
        if c.snd_una >= c.end_seq {
            c.all_acked(a.now);
            return false;
        }
        c.arm_rto(a.now);
        if c.phase.in_recovery() {
            if a.seq() >= c.recover {
                c.phase = c.phase.recovery_over();
                if self.prr.take().is_some() {
                    // tcp_end_cwnd_reduction.
                    c.w.cwnd = c.w.ssthresh;
                }
            }
        } else {
            // The header words carry the SACK option, not router feedback.
            c.grow(a, &n, n.acked, false);
        }
        true
    }

    /// RFC 6675 section 5 step (4); with PRR, RFC 6937's initialisation
    /// and its window for the ACK (`delivered` segments) that starts recovery.
    /// `ack`: the ACK that starts it (none when RACK's reordering timer
    /// does), with `losses` segments newly taken for lost.
    pub(super) fn enter_recovery(
        &mut self,
        c: &mut Core,
        now: Time,
        ack: Option<(&Ack, Told)>,
        losses: u64,
        out: &mut Vec<Packet>,
    ) {
        let delivered = ack.map_or(0, |(_, t)| t.delivered);
        let prior_cwnd = c.w.cwnd;
        // (4.2) ssthresh = cwnd = max(FlightSize / 2, 2) (RFC 5681 eq. 4), but
        // not decreased twice in a window already reduced for ECE (RFC 3168 6.1.2).
        c.reduce_for_loss(c.outstanding());
        if !c.asks.delivery() {
            c.w.cwnd = c.w.ssthresh.max(1.0);
        }
        // (4.1) RecoveryPoint = HighData.
        c.recover = c.high_data;
        c.phase = c.phase.recovery_from();
        if c.opts().prr && !c.asks.delivery() {
            // Before the head counts as retransmitted (Linux: the head is
            // marked lost and not yet resent when tcp_cwnd_reduction runs).
            self.prr = Some(Prr {
                delivered: 0,
                out: 0,
                recover_fs: prior_cwnd,
            });
            self.prr_window(c, delivered);
        }
        let una = c.snd_una;
        self.sb.start_recovery(una);
        // The head is taken for lost (Linux marks it before cong_control);
        // with RACK, what it marked.
        if let Some((a, told)) = ack {
            self.tell(c, a, told, losses);
        }
        // (4.3) Retransmit HighACK + 1 (with RACK: the first segment it
        // marked lost and not yet resent, if any: Linux enters recovery on
        // any segment marked lost); HighRxt = RescueRxt = it. The timer
        // restarts, as for the other schemes' fast retransmit.
        let first = match self.rack.as_deref_mut() {
            Some(r) => {
                r.tlp = None;
                r.next_lost()
            }
            None => Some(una),
        };
        if let Some(seq) = first {
            self.emit(c, now, seq, out);
        }
        c.arm_rto_on_fast_retransmit(now);
        // (4.4) SetPipe and (4.5) step (C).
        let sent = u64::from(first.is_some()) + self.transmit(c, now, out);
        if let Some(p) = self.prr.as_mut() {
            p.out += sent;
        }
    }

    /// RFC 6675 section 5 steps (B.2) and (C): SetPipe, then while cwnd -
    /// pipe >= 1 send what NextSeg picks; with RACK, the segments it marked
    /// lost first, then new data (Linux's `tcp_xmit_retransmit_queue`).
    /// Returns the segments sent.
    pub(super) fn transmit(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) -> u64 {
        let mut sent = 0;
        let cwnd = c.wnd();
        let mut pipe = self.pipe(c);
        while cwnd - pipe as f64 >= 1.0 - 1e-9 {
            // Rule (2) needs unsent data and room in the receiver's window.
            let new_data =
                c.high_data < c.end_seq && ((c.high_data - c.snd_una) as f64) + 1.0 <= c.p.max_cwnd_pkts + 1e-9;
            let next = match self.rack.as_deref() {
                None => self.sb.next_seg(c.snd_una, c.high_data, new_data),
                Some(r) => match r.next_lost() {
                    Some(s) => Some((s, Rule::Lost)),
                    None => new_data.then_some((c.high_data, Rule::New)),
                },
            };
            let Some((seq, rule)) = next else {
                break;
            };
            if !c.pace_ok(now) {
                break;
            }
            // (C.2) HighRxt, or rule 4's RescueRxt; (C.3) HighData in send_seq.
            self.sb.sent(seq, rule, c.recover);
            self.emit(c, now, seq, out);
            if rule == Rule::New {
                c.snd_nxt = c.high_data;
            }
            // (C.4)
            pipe += 1;
            sent += 1;
        }
        sent
    }
}

impl LossRecovery for Rfc6675 {
    /// An ACK (RFC 6675 section 5).
    fn on_ack(&mut self, c: &mut Core, a: &Ack, out: &mut Vec<Packet>) {
        let ack = a.seq();
        if ack < c.snd_una {
            return; // an old ACK (paths are FIFO: it cannot happen)
        }
        // A controller that owns the window hears of the ACK before sending.
        let owns = c.asks.delivery();
        let (prior_pipe, lost_before) = if owns {
            (self.flight(c), self.sb.lost_below())
        } else {
            (0, None)
        };
        let (prior_una, prior_high, flight) = (c.snd_una, c.high_data, c.outstanding());
        let blocks = a.pkt.hdr.get::<SackBlocks>();
        if let Some(r) = self.rack.as_deref_mut() {
            // Before the scoreboard, which tells it what was SACKed before.
            let mut bl = [(0, 0); SackBlocks::MAX];
            let mut n = 0;
            for (b, slot) in blocks.blocks(ack).zip(bl.iter_mut()) {
                *slot = b;
                n += 1;
            }
            r.on_ack(a.now, ack, a.pkt.ts, &bl[..n], &self.sb, c.rtt.min_rtt());
        }
        // Update (): the scoreboard takes the cumulative ACK and the blocks.
        let sacked_before = self.sb.sacked();
        let newly_sacked = self.sb.update(ack, blocks.blocks(ack), c.high_data);
        // RFC 6937's DeliveredData: the change in snd_una and in SACKed.
        let delivered = (ack - c.snd_una + self.sb.sacked()).saturating_sub(sacked_before);
        if ack > c.snd_una && !self.on_new_ack(c, a) {
            return;
        }
        if self.rack.is_some() {
            let told = Told {
                delivered,
                prior_pipe,
                losses: 0,
            };
            return self.rack_ack(c, a, told, (prior_una, prior_high, flight), out);
        }
        // Outside recovery no ACK makes a segment lost but the one that
        // starts it: after a timeout Linux has already taken them all.
        let losses = if owns {
            self.newly_lost(lost_before, c.snd_una)
        } else {
            0
        };
        let told = Told {
            delivered,
            prior_pipe,
            losses,
        };
        if c.phase.in_recovery() {
            // (B) and (C); with PRR, its window first.
            self.tell(c, a, told, told.losses);
            self.prr_window(c, delivered);
            let sent = self.transmit(c, a.now, out);
            if let Some(p) = self.prr.as_mut() {
                p.out += sent;
            }
            return;
        }
        if newly_sacked > 0 {
            // A duplicate ACK as RFC 6675 section 2 defines it: it SACKs
            // packets not SACKed before. Steps (1) and (2): DupThresh of them,
            // or IsLost (HighACK + 1), start recovery, unless data sent before
            // the last recovery or timeout is still unacknowledged (RFC 6675
            // section 5.1; RFC 6582's recover).
            c.dupacks += 1;
            let lost = c.dupacks >= c.p.dupack_threshold || self.sb.is_lost(c.snd_una);
            if lost && c.snd_una >= c.recover {
                self.enter_recovery(c, a.now, Some((a, told)), told.losses.max(1), out);
                return;
            }
        }
        self.tell(c, a, told, 0);
        self.send(c, a.now, out);
    }

    /// RFC 2018 sections 5 and 5.1: SACKs from before the timeout no longer
    /// decide what is resent (see [`crate::transport::sack`]). A controller
    /// that owns the window (BBR) keeps them, as Linux does
    /// (`tcp_timeout_mark_lost` marks only the segments not SACKed): what
    /// they delivered is then not resent and not counted again.
    fn on_timeout(&mut self, c: &mut Core) {
        c.timeout_ssthresh();
        if !c.asks.delivery() {
            self.sb.clear();
        }
        self.prr = None;
        if let Some(r) = self.rack.as_deref_mut() {
            r.on_timeout();
        }
    }

    /// Outside recovery: send while the window allows (RFC 5681, FlightSize
    /// against cwnd), skipping packets the receiver has SACKed (which, after
    /// a timeout, go-back-N would otherwise resend); with RACK, new data
    /// (re)starts the probe timer. In recovery (a paced sender woken): step (C).
    fn send(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        if c.phase.in_recovery() {
            // A paced sender woken in recovery: step (C) goes on.
            let sent = self.transmit(c, now, out);
            if let Some(p) = self.prr.as_mut() {
                p.out += sent;
            }
            return;
        }
        let (wnd, high) = (c.wnd(), c.high_data);
        // A controller that owns the window (BBR, with the SACKs kept across
        // a timeout) fills it as Linux does: SACKed segments are not in
        // flight (`flight`); the others, RFC 5681's FlightSize.
        let owns = c.asks.delivery();
        let mut flight = if owns { self.flight(c) } else { 0 };
        loop {
            c.snd_nxt = self.sb.first_unsacked_from(c.snd_nxt);
            if !owns {
                flight = c.outstanding();
            }
            if !(c.snd_nxt < c.end_seq && (flight as f64) + 1.0 <= wnd + 1e-9 && c.pace_ok(now)) {
                break;
            }
            let seq = c.snd_nxt;
            c.snd_nxt += 1;
            self.emit(c, now, seq, out);
            flight += 1;
        }
        if c.high_data > high {
            self.arm_probe(c, now);
        }
    }
}

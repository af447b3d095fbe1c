//! RACK-TLP (RFC 8985, [`super::rack`]) in the SACK recovery: what an ACK
//! does with it, its two timers, and the probe.

use super::rack::{self, Probe};
use super::rfc6675::{Rfc6675, Told};
use super::LossRecovery;
use crate::net::Packet;
use crate::sim::Time;
use crate::transport::cc::CaState;
use crate::transport::tcp::core::{Ack, Core};
use crate::transport::tcp::phase::Timer;

impl Rfc6675 {
    /// An ACK with RACK, after the scoreboard and the cumulative ACK took it
    /// (`prior`: snd_una, HighData and the segments outstanding before it).
    /// As Linux's `tcp_ack`: the probe's ACK first (`tcp_process_tlp_ack`),
    /// then RACK's losses (RFC 8985 6.2 step 5), which start fast recovery
    /// where the duplicate ACK count would (`tcp_time_to_recover`: any
    /// segment marked lost); then the timers.
    pub(super) fn rack_ack(
        &mut self,
        c: &mut Core,
        a: &Ack,
        told: Told,
        prior: (u64, u64, u64),
        out: &mut Vec<Packet>,
    ) {
        let (prior_una, prior_high, flight) = prior;
        let now = a.now;
        self.tlp_ack(c, a.seq(), flight);
        let (reo_at, losses) = self.rack_detect(c, now);
        let lost_out = self.rack.as_deref().map_or(0, |r| r.lost_out);
        if c.phase.in_recovery() {
            self.tell(c, a, told, losses);
            self.prr_window(c, told.delivered);
            let sent = self.transmit(c, now, out);
            if let Some(p) = self.prr.as_mut() {
                p.out += sent;
            }
        } else if lost_out > 0 && c.snd_una >= c.recover {
            self.enter_recovery(c, now, Some((a, told)), losses, out);
        } else {
            self.tell(c, a, told, losses);
            self.send(c, now, out);
        }
        let restart = c.snd_una > prior_una || c.high_data > prior_high;
        self.settle_timer(c, now, reo_at, restart);
    }

    /// RFC 8985 6.2 steps 4 and 5: the reordering window, the segments it
    /// marks lost now (returned with the reordering timer's time, if one
    /// is needed).
    fn rack_detect(&mut self, c: &Core, now: Time) -> (Option<Time>, u64) {
        let Some(r) = self.rack.as_deref_mut() else {
            return (None, 0);
        };
        let recovering = c.ca_state() != CaState::Open;
        let reo = rack::reo_wnd(
            r.reordering_seen,
            recovering,
            self.sb.sacked(),
            c.p.dupack_threshold as u64,
            r.min_rtt(),
            c.rtt.srtt(),
        );
        let before = r.marked;
        let at = r.detect(now, reo);
        (at, r.marked - before)
    }

    /// Whether a probe may be scheduled (RFC 8985 7.2; Linux's
    /// `tcp_schedule_loss_probe`): data outstanding, neither fast nor RTO
    /// recovery, no probe in flight.
    fn can_probe(&self, c: &Core) -> bool {
        self.rack.as_deref().is_some_and(|r| r.tlp.is_none())
            && c.snd_una < c.high_data
            && c.ca_state() == CaState::Open
    }

    /// When the retransmission timer would fire, if it runs (itself, or
    /// behind the reordering or probe timer).
    fn rto_at(&self, c: &Core) -> Option<Time> {
        match (c.timer, self.rack.as_deref()) {
            (Timer::Retransmit(t), _) => Some(t),
            (Timer::Reorder(_) | Timer::Probe(_), Some(r)) => Some(r.rto_at),
            _ => None,
        }
    }

    /// The sender's one timer after an ACK or the reordering timer: the
    /// reordering timer if RACK needs it before the RTO; else the probe
    /// timer, (re)started when `restart` (new data sent or cumulatively
    /// acknowledged, RFC 8985 7.2), or kept while a probe may still go;
    /// else the RTO.
    fn settle_timer(&mut self, c: &mut Core, now: Time, reo_at: Option<Time>, restart: bool) {
        let Some(rto) = self.rto_at(c) else {
            return;
        };
        if let Some(at) = reo_at.filter(|&at| at < rto) {
            if let Some(r) = self.rack.as_deref_mut() {
                r.rto_at = rto;
            }
            c.timer = Timer::Reorder(at);
            return;
        }
        c.timer = match c.timer {
            Timer::Probe(at) if self.can_probe(c) => Timer::Probe(at),
            _ => Timer::Retransmit(rto),
        };
        if restart {
            self.arm_probe(c, now);
        }
    }

    /// RFC 8985 7.2: (re)start the probe timer, PTO from now, no later than
    /// the RTO, if a probe may be scheduled and no reordering timer runs.
    pub(super) fn arm_probe(&mut self, c: &mut Core, now: Time) {
        if !self.can_probe(c) || matches!(c.timer, Timer::Reorder(_)) {
            return;
        }
        let Some(rto) = self.rto_at(c) else {
            return;
        };
        let pto = rack::pto(c.rtt.srtt(), c.high_data - c.snd_una, rto.saturating_sub(now));
        if let Some(r) = self.rack.as_deref_mut() {
            r.rto_at = rto;
        }
        c.timer = Timer::Probe(now + pto);
    }

    /// The reordering or the probe timer fired (the retransmission timer
    /// runs on behind it).
    pub fn on_rack_timer(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        let Some(r) = self.rack.as_deref() else {
            return;
        };
        let fired = c.timer;
        c.timer = Timer::Retransmit(r.rto_at);
        match fired {
            Timer::Reorder(_) => self.on_reorder_timer(c, now, out),
            Timer::Probe(_) => self.send_probe(c, now, out),
            _ => {}
        }
    }

    /// Linux's `tcp_rack_reo_timeout`: detect again; new losses start fast
    /// recovery (outside it) and are resent as the window allows.
    fn on_reorder_timer(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        let (reo_at, losses) = self.rack_detect(c, now);
        if losses > 0 {
            if c.phase.in_recovery() {
                let sent = self.transmit(c, now, out);
                if let Some(p) = self.prr.as_mut() {
                    p.out += sent;
                }
            } else if c.snd_una >= c.recover {
                self.enter_recovery(c, now, None, losses, out);
            }
        }
        self.settle_timer(c, now, reo_at, false);
    }

    /// RFC 8985 7.3 (Linux's `tcp_send_loss_probe`): one new segment if
    /// there is one and the receiver's window takes it, else the highest
    /// segment not SACKed again; then the RTO restarts (not the PTO).
    fn send_probe(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        if !self.can_probe(c) {
            return;
        }
        let new_data = c.high_data < c.end_seq && ((c.high_data - c.snd_una) as f64) + 1.0 <= c.p.max_cwnd_pkts + 1e-9;
        let seq = if new_data {
            c.high_data
        } else {
            self.sb
                .highest_unsacked_below(c.snd_una, c.high_data)
                .unwrap_or(c.snd_una)
        };
        self.emit(c, now, seq, out);
        if new_data {
            c.snd_nxt = c.high_data;
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.tlp = Some(Probe {
                end: c.high_data,
                retrans: !new_data,
            });
            r.probes += 1;
        }
        c.arm_rto(now);
    }

    /// Linux's `tcp_process_tlp_ack` without DSACK: the first ACK at or
    /// beyond the probe's end ends the episode; if the probe was a
    /// retransmission and the ACK covers exactly what was sent up to it, the
    /// probe repaired a loss: ssthresh by the controller (over `flight`, the
    /// segments outstanding before the ACK) and cwnd = ssthresh, as Linux's
    /// `tcp_init_cwnd_reduction` and `tcp_end_cwnd_reduction` set them (not
    /// for a controller that owns the window).
    fn tlp_ack(&mut self, c: &mut Core, ack: u64, flight: u64) {
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let Some(p) = r.tlp.filter(|p| ack >= p.end) else {
            return;
        };
        r.tlp = None;
        if p.retrans && ack == p.end && !c.asks.delivery() {
            r.probe_recoveries += 1;
            c.reduce_for_loss(flight);
            c.w.cwnd = c.w.ssthresh.max(1.0);
        }
    }
}

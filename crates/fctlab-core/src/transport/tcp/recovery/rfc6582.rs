//! Fast retransmit and fast recovery on duplicate ACKs with a window
//! inflated by them (RFC 5681 section 3.2), in the controller's style
//! ([`Style`]): Tahoe goes back N with a window of one, Reno ends recovery on
//! the first new ACK, NewReno on the ACK that covers `recover`, resending a
//! hole on each partial ACK before it (RFC 6582 section 3.2).

use super::{LeftCount, LossRecovery};
use crate::net::Packet;
use crate::sim::Time;
use crate::transport::cc::Recovery as Style;
use crate::transport::tcp::core::{Ack, Core};
use crate::transport::tcp::options::SsthreshFlight;

pub struct Rfc6582 {
    style: Style,
    /// RFC 3042: new segments sent on duplicate ACKs since the last new ACK
    /// (not part of the FlightSize that sets ssthresh).
    lt_sent: u64,
    /// Segments counted as having left (`ssthresh_flight = "pipe"`).
    left: LeftCount,
}

impl Rfc6582 {
    pub fn new(style: Style) -> Self {
        Rfc6582 {
            style,
            lt_sent: 0,
            left: LeftCount::default(),
        }
    }

    fn pipe_ssthresh(c: &Core) -> bool {
        c.opts().ssthresh_flight == SsthreshFlight::Pipe
    }

    fn on_new_ack(&mut self, c: &mut Core, a: &Ack, out: &mut Vec<Packet>) {
        let n = c.take_new_ack(a);
        // The counted segments are the ones just above the old snd_una:
        // those now acknowledged leave the count.
        self.left.0 = self.left.0.saturating_sub(n.acked - 1);
        self.lt_sent = 0;
        let was_in_recovery = c.phase.in_recovery();
        if was_in_recovery {
            let ack = a.seq();
            match self.style {
                Style::NewReno if ack < c.recover => {
                    // Partial ACK (RFC 6582 3.2 step 5): retransmit the first
                    // unacknowledged segment, deflate by the amount
                    // acknowledged and add back one segment; reset the timer
                    // on the first one.
                    c.send_seq(a.now, ack, out);
                    c.w.cwnd = (c.w.cwnd - n.acked as f64 + 1.0).max(1.0);
                    c.arm_rto_on_first_partial_ack(a.now);
                }
                Style::NewReno => {
                    // Full ACK (step 6).
                    c.w.cwnd = c.full_ack_window(ack);
                    c.phase = c.phase.recovery_over();
                }
                Style::Reno | Style::Tahoe => {
                    // Reno (RFC 5681 3.2 step 6): deflate to ssthresh on the first new ACK.
                    c.w.cwnd = c.w.ssthresh;
                    c.phase = c.phase.recovery_over();
                }
            }
        } else {
            c.grow(a, &n, n.grow, true);
        }
        if c.settle(a.now) {
            c.send_window(a.now, out);
        }
    }

    fn on_dupack(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        c.dupacks += 1;
        if c.phase.in_recovery() {
            self.left.add(c.outstanding());
            // RFC 5681 3.2 step 4: inflate by one segment per further dupACK.
            c.w.cwnd += 1.0;
            c.send_window(now, out);
            return;
        }
        let threshold = c.p.dupack_threshold;
        if c.dupacks < threshold && c.opts().limited_transmit {
            // ns-3 counts these only with limited transmit, and none after a
            // timeout (it ignores duplicate ACKs until `recover` is acknowledged).
            if c.snd_una >= c.recover {
                self.left.add(c.outstanding());
            }
            self.limited_transmit(c, now, out);
        }
        // RFC 6582 3.2 step 2: fast retransmit only if the ACK covers more
        // than `recover` (no false fast retransmits after a timeout).
        if c.dupacks != threshold || (self.style == Style::NewReno && c.snd_una < c.recover) {
            return;
        }
        self.fast_retransmit(c, now, out);
    }

    /// DupThresh duplicate ACKs (RFC 5681 3.2 steps 2 and 3).
    fn fast_retransmit(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        // Segments sent by limited transmit are not part of the FlightSize
        // that sets ssthresh. With `ssthresh_flight = "pipe"`, ns-3's
        // `EnterRecovery`: one more segment counted as left, the head as
        // lost, plus one segment.
        let flight = if Self::pipe_ssthresh(c) {
            self.left.add(c.outstanding());
            c.outstanding() - self.left.0
        } else {
            c.outstanding() - self.lt_sent
        };
        c.reduce_for_loss(flight);
        c.recover = c.high_data;
        match self.style {
            Style::Tahoe => {
                c.w.cwnd = 1.0;
                c.snd_nxt = c.snd_una;
                c.send_window(now, out);
            }
            Style::Reno | Style::NewReno => {
                c.phase = c.phase.recovery_from();
                let una = c.snd_una;
                c.send_seq(now, una, out);
                c.w.cwnd = c.w.ssthresh + c.p.dupack_threshold as f64;
                c.arm_rto_on_fast_retransmit(now);
                c.send_window(now, out);
            }
        }
    }

    /// RFC 3042: on each of the first DupThresh - 1 duplicate ACKs, one new
    /// segment, if the receiver's window allows and FlightSize stays within
    /// cwnd plus the duplicate ACKs; cwnd unchanged. Not while data sent
    /// before a timeout is unacknowledged (ns-3 ignores duplicate ACKs then).
    fn limited_transmit(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        if c.snd_una < c.recover || c.snd_nxt < c.high_data || c.snd_nxt >= c.end_seq {
            return;
        }
        let wnd = (c.w.cwnd + c.dupacks as f64).min(c.p.max_cwnd_pkts);
        if (c.outstanding() as f64) + 1.0 <= wnd + 1e-9 {
            self.lt_sent += 1;
            c.send_next(now, out);
        }
    }
}

impl LossRecovery for Rfc6582 {
    fn on_ack(&mut self, c: &mut Core, a: &Ack, out: &mut Vec<Packet>) {
        if a.seq() > c.snd_una {
            self.on_new_ack(c, a, out);
        } else if a.seq() == c.snd_una && c.snd_nxt > c.snd_una {
            self.on_dupack(c, a.now, out);
        }
    }

    fn on_timeout(&mut self, c: &mut Core) {
        self.lt_sent = 0;
        if Self::pipe_ssthresh(c) {
            // ns-3's `ReTxTimeout`: half its estimate of the data in the
            // network, on every timeout: sent since the last timeout (all of
            // it outside go-back-N), less the segments counted as left.
            let pipe = c.outstanding().saturating_sub(self.left.0);
            c.w.ssthresh = c.cc.ssthresh_after_loss(&c.w, pipe);
        } else {
            c.timeout_ssthresh();
        }
        self.left = LeftCount::default();
    }

    fn send(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        c.send_window(now, out);
    }
}

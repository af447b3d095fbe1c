//! NewReno without SACK as ns-3 sends (`dupack_window = "pipe"`;
//! `TcpSocketBase::SendPendingData`, `TcpTxBuffer::AddRenoSack`,
//! `DiscardUpTo`, `IsLost`, `TcpClassicRecovery`): while cwnd less ns-3's
//! estimate of the data in the network leaves a segment, a head marked lost
//! first. In recovery cwnd stays ssthresh and each duplicate ACK counts one
//! more segment as left; a partial ACK marks the new head lost and resends it.

use super::{LeftCount, LossRecovery};
use crate::net::Packet;
use crate::sim::Time;
use crate::transport::tcp::core::{Ack, Core};
use crate::transport::tcp::options::SsthreshFlight;

/// ns-3's marks on snd_una, the head of its sent list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Head {
    Unmarked,
    /// Marked lost (`m_lost`) and not resent since: out of the pipe.
    Lost,
    /// Marked lost and resent since (`m_retrans`): back in the pipe.
    Resent,
}

pub struct Ns3Pipe {
    left: LeftCount,
    head: Head,
}

impl Default for Ns3Pipe {
    fn default() -> Self {
        Ns3Pipe {
            left: LeftCount::default(),
            head: Head::Unmarked,
        }
    }
}

impl Ns3Pipe {
    /// ns-3's `BytesInFlight` in segments: sent since the last timeout and
    /// not acknowledged, less the segments counted as left and a head marked
    /// lost and not yet resent.
    fn pipe(&self, c: &Core) -> u64 {
        let lost = (self.head == Head::Lost) as u64;
        c.outstanding().saturating_sub(self.left.0 + lost)
    }

    /// ns-3's `TcpTxBuffer::DiscardUpTo` for an ACK of `acked` new segments
    /// (`flight` were outstanding before it): the counted segments it covers
    /// leave the count; if the new head was one of them its mark moves to the
    /// next segment and the head is marked lost (ns-3 takes a counted head
    /// for a wrong guess).
    fn discard_acked(&mut self, acked: u64, flight: u64) {
        self.head = Head::Unmarked;
        let left = self.left.0.saturating_sub(acked - 1);
        self.left = LeftCount::default();
        if left > 0 {
            self.left.0 = left - 1;
            self.left.add(flight);
            self.head = Head::Lost;
        }
    }

    fn on_new_ack(&mut self, c: &mut Core, a: &Ack, out: &mut Vec<Packet>) {
        let n = c.take_new_ack(a);
        self.discard_acked(n.acked, n.flight);
        let ack = a.seq();
        if c.phase.in_recovery() {
            if ack < c.recover {
                // ns-3's partial ACK: the head marked lost and retransmitted
                // at once; cwnd stays ssthresh; the timer restarts on the first.
                self.head = Head::Resent;
                c.send_seq(a.now, ack, out);
                c.arm_rto_on_first_partial_ack(a.now);
            } else {
                c.w.cwnd = c.full_ack_window(ack);
                c.phase = c.phase.recovery_over();
            }
        }
        // ns-3 grows the window on the ACK that ends recovery too.
        if !c.phase.in_recovery() {
            c.grow(a, &n, n.grow, true);
        }
        if c.settle(a.now) {
            self.send(c, a.now, out);
        }
    }

    /// A duplicate ACK (`TcpSocketBase::DupAck`).
    fn on_dupack(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        c.dupacks += 1;
        let in_recovery = c.phase.in_recovery();
        if !in_recovery && c.snd_una < c.recover {
            // After a timeout ns-3 ignores duplicate ACKs until `recover` is
            // acknowledged (CA_LOSS).
            return;
        }
        if in_recovery {
            self.left.add(c.outstanding());
            self.send(c, now, out);
            return;
        }
        // DupThresh duplicate ACKs, or a head marked lost below a counted
        // segment (`TcpTxBuffer::IsLost`), start recovery.
        if c.dupacks == c.p.dupack_threshold || (self.head != Head::Unmarked && self.left.0 > 0) {
            self.enter_recovery(c, now, out);
        } else if c.opts().limited_transmit {
            // Limited transmit: the segment counted as left makes room.
            self.left.add(c.outstanding());
            self.send(c, now, out);
        }
    }

    /// ns-3's `EnterRecovery` without SACK (`TcpClassicRecovery`): one more
    /// segment counted as left, the head marked lost, ssthresh from the pipe
    /// plus one segment, cwnd = ssthresh (no inflation: the counted segments
    /// open the window instead), the head retransmitted.
    fn enter_recovery(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        self.left.add(c.outstanding());
        self.head = Head::Lost;
        c.recover = c.high_data;
        let flight = match c.opts().ssthresh_flight {
            SsthreshFlight::Pipe => self.pipe(c) + 1,
            SsthreshFlight::Flight => c.outstanding(),
        };
        c.reduce_for_loss(flight);
        c.w.cwnd = c.w.ssthresh;
        c.phase = c.phase.recovery_from();
        self.head = Head::Resent;
        let una = c.snd_una;
        c.send_seq(now, una, out);
        c.arm_rto_on_fast_retransmit(now);
        self.send(c, now, out);
    }
}

impl LossRecovery for Ns3Pipe {
    fn on_ack(&mut self, c: &mut Core, a: &Ack, out: &mut Vec<Packet>) {
        if a.seq() > c.snd_una {
            self.on_new_ack(c, a, out);
        } else if a.seq() == c.snd_una && c.snd_nxt > c.snd_una {
            self.on_dupack(c, a.now, out);
        }
    }

    fn on_timeout(&mut self, c: &mut Core) {
        match c.opts().ssthresh_flight {
            // ns-3's `ReTxTimeout`: half its estimate of the data in the
            // network, on every timeout; a head marked lost in recovery is
            // already retransmitted.
            SsthreshFlight::Pipe => {
                let pipe = self.pipe(c);
                c.w.ssthresh = c.cc.ssthresh_after_loss(&c.w, pipe);
            }
            SsthreshFlight::Flight => c.timeout_ssthresh(),
        }
        *self = Ns3Pipe::default();
    }

    /// ns-3's `SendPendingData` without SACK: while the window minus the
    /// pipe leaves a segment, a head marked lost first, then data from snd_nxt.
    fn send(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        let wnd = c.wnd();
        while (self.pipe(c) as f64) + 1.0 <= wnd + 1e-9 {
            let lost_head = self.head == Head::Lost && c.snd_nxt > c.snd_una;
            if !(lost_head || c.snd_nxt < c.end_seq) || !c.pace_ok(now) {
                break;
            }
            if lost_head {
                self.head = Head::Resent;
                let una = c.snd_una;
                c.send_seq(now, una, out);
            } else {
                c.send_next(now, out);
            }
        }
    }
}

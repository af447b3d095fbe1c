//! F-RTO (RFC 5682 section 2; Linux's `tcp_process_loss` without SACK):
//! detecting a spurious retransmission timeout from the two ACKs after it,
//! and undoing it (`frto`).

use crate::net::Packet;
use crate::transport::tcp::core::{Ack, Core};
use crate::transport::tcp::phase::{Frto, FrtoStep, Phase, Undo};

/// On a timeout, before ssthresh and cwnd change: whether F-RTO starts
/// (`eligible`: the sender's recovery is the one F-RTO runs with), and with
/// what to restore. Not in fast recovery (RFC 5682 section 2.1; Linux's
/// `new_recovery`); a timeout repeated while F-RTO is under way starts it
/// again with the values from before the first (Linux: `prior_ssthresh` is
/// taken once per loss episode, and F-RTO runs again on recurring timeouts
/// of the same snd_una, RFC 5682 section 3.2).
pub fn on_timeout(c: &Core, eligible: bool) -> Option<Box<Frto>> {
    if !c.opts().frto || !eligible || c.phase.in_recovery() {
        return None;
    }
    let undo = match &c.frto {
        Some(f) => f.undo,
        None if c.backoff == 0 => Undo {
            cwnd: c.w.cwnd,
            // tcp_current_ssthresh outside recovery: max(ssthresh, 3/4 cwnd).
            ssthresh: c.w.ssthresh.max(0.75 * c.w.cwnd),
        },
        None => return None,
    };
    Some(Box::new(Frto {
        step: FrtoStep::First,
        undo,
    }))
}

/// An ACK while F-RTO is under way. Returns whether F-RTO took it; if not,
/// F-RTO is over and the loss recovery takes it as usual.
pub fn on_ack(c: &mut Core, a: &Ack, out: &mut Vec<Packet>) -> bool {
    let Some(f) = c.frto.as_deref().copied() else {
        return false;
    };
    match f.step {
        FrtoStep::First => first_ack(c, a, out),
        FrtoStep::Second => {
            c.frto = None;
            second_ack(c, a, f.undo, out)
        }
    }
}

/// Step 2: the first ACK after the timeout's retransmission.
fn first_ack(c: &mut Core, a: &Ack, out: &mut Vec<Packet>) -> bool {
    let ack = a.seq();
    if ack < c.snd_una {
        return false;
    }
    if ack == c.snd_una {
        // A duplicate ACK: Linux (tcp_process_loss) keeps waiting for one
        // that advances snd_una, where RFC 5682 step 2a would fall back; the
        // resent segment fills the window.
        c.dupacks += 1;
        return true;
    }
    if ack >= c.recover {
        // Step 2a: an ACK that covers everything sent before the timeout:
        // the conventional recovery goes on.
        c.frto = None;
        return false;
    }
    // Step 2b: the retransmission is acknowledged; up to two new segments
    // instead of resending what follows it.
    let n = c.take_new_ack(a);
    c.grow(a, &n, n.grow, true);
    if !c.settle(a.now) {
        c.frto = None;
        return true;
    }
    if c.high_data >= c.end_seq {
        // No new data: the conventional recovery.
        c.frto = None;
        c.send_window(a.now, out);
        return true;
    }
    c.snd_nxt = c.high_data;
    for _ in 0..2 {
        let room = (c.outstanding() as f64) + 1.0 <= c.p.max_cwnd_pkts + 1e-9;
        if c.snd_nxt < c.end_seq && room {
            c.send_next(a.now, out);
        }
    }
    if let Some(f) = c.frto.as_deref_mut() {
        f.step = FrtoStep::Second;
    }
    true
}

/// Step 3: the second ACK, with the window and ssthresh to restore.
fn second_ack(c: &mut Core, a: &Ack, undo: Undo, out: &mut Vec<Packet>) -> bool {
    let ack = a.seq();
    if ack > c.snd_una {
        // Step 3b: never-resent data is acknowledged: the timeout was
        // spurious. Undo it (Linux's tcp_try_undo_loss with frto_undo) and
        // go on from snd_nxt.
        let n = c.take_new_ack(a);
        c.w.cwnd = c.w.cwnd.max(undo.cwnd);
        c.w.ssthresh = c.w.ssthresh.max(undo.ssthresh);
        c.recover = c.high_data;
        c.phase = Phase::Open;
        c.spurious_timeouts += 1;
        c.grow(a, &n, n.grow, true);
        if c.settle(a.now) {
            c.send_window(a.now, out);
        }
        true
    } else if ack == c.snd_una && c.snd_nxt > c.snd_una {
        // Step 3a: a duplicate ACK: the loss was real. cwnd at most three
        // segments, and go back N from snd_una.
        c.dupacks += 1;
        c.w.cwnd = c.w.cwnd.min(3.0);
        c.snd_nxt = c.snd_una;
        c.send_window(a.now, out);
        true
    } else {
        false
    }
}

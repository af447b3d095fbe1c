//! Loss recovery: one algorithm per sender, chosen when it is built, behind
//! one interface ([`LossRecovery`]).
//!
//! - [`Rfc6582`]: duplicate ACKs and a window inflated by them (RFC 5681
//!   fast retransmit and fast recovery), in the controller's style: Tahoe,
//!   Reno, or NewReno's partial ACKs (RFC 6582).
//! - [`Ns3Pipe`]: NewReno as ns-3 sends without SACK (`dupack_window =
//!   "pipe"`): its estimate of the data in the network against cwnd.
//! - [`Rfc6675`]: SACK (RFC 2018) and conservative recovery on a scoreboard,
//!   with PRR (RFC 6937) when `prr` is on.
//!
//! [`frto`] runs beside [`Rfc6582`] after a timeout when `frto` is on: it
//! takes the two ACKs after the timeout and undoes a spurious one (RFC 5682).
//! [`rack`] runs inside [`Rfc6675`] when `rack` is on: RACK-TLP (RFC 8985)
//! marks the losses and sends tail loss probes, with its own two timers.
//!
//! Each takes the connection's ACKs once it is established, decides what a
//! timeout does to ssthresh and to its own bookkeeping, and sends what the
//! window allows; the sender ([`super::TcpSender`]) keeps the handshake, the
//! timers and the close.

pub mod frto;
mod ns3_pipe;
pub mod rack;
mod rack_sack;
mod rfc6582;
mod rfc6675;

pub use ns3_pipe::Ns3Pipe;
pub use rfc6582::Rfc6582;
pub use rfc6675::Rfc6675;

use super::core::{Ack, Core};
use crate::net::Packet;
use crate::sim::Time;

/// What a loss-recovery algorithm does.
pub trait LossRecovery {
    /// An ACK of the established connection (after ECE was answered).
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, out: &mut Vec<Packet>);
    /// The retransmission timer fired: set ssthresh (before cwnd falls to
    /// one) and forget what the timeout makes stale.
    fn on_timeout(&mut self, c: &mut Core);
    /// Send what the window allows.
    fn send(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>);
}

/// The algorithm of one sender (enum dispatch: one predictable branch per
/// call, no allocation but the scoreboard's).
pub enum Recovery {
    Rfc6582(Rfc6582),
    Ns3Pipe(Ns3Pipe),
    Rfc6675(Box<Rfc6675>),
}

impl LossRecovery for Recovery {
    #[inline]
    fn on_ack(&mut self, c: &mut Core, ack: &Ack, out: &mut Vec<Packet>) {
        match self {
            Recovery::Rfc6582(r) => r.on_ack(c, ack, out),
            Recovery::Ns3Pipe(r) => r.on_ack(c, ack, out),
            Recovery::Rfc6675(r) => r.on_ack(c, ack, out),
        }
    }

    fn on_timeout(&mut self, c: &mut Core) {
        match self {
            Recovery::Rfc6582(r) => r.on_timeout(c),
            Recovery::Ns3Pipe(r) => r.on_timeout(c),
            Recovery::Rfc6675(r) => r.on_timeout(c),
        }
    }

    #[inline]
    fn send(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        match self {
            Recovery::Rfc6582(r) => r.send(c, now, out),
            Recovery::Ns3Pipe(r) => r.send(c, now, out),
            Recovery::Rfc6675(r) => r.send(c, now, out),
        }
    }
}

impl Recovery {
    /// RACK's reordering timer or TLP's probe timer fired (only the SACK
    /// recovery with `rack` arms them).
    pub fn on_rack_timer(&mut self, c: &mut Core, now: Time, out: &mut Vec<Packet>) {
        if let Recovery::Rfc6675(r) = self {
            r.on_rack_timer(c, now, out);
        }
    }
}

/// ns-3's count of segments that have left the network without SACK
/// (`TcpTxBuffer::AddRenoSack`): each duplicate ACK counts one more, always
/// the first not yet counted above snd_una, never snd_una itself; emptied on
/// a timeout. Read by `ssthresh_flight = "pipe"` and by [`Ns3Pipe`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LeftCount(pub u64);

impl LeftCount {
    /// One more segment counted, with `outstanding` segments sent and not
    /// acknowledged.
    #[inline]
    pub fn add(&mut self, outstanding: u64) {
        self.0 = (self.0 + 1).min(outstanding.saturating_sub(1));
    }
}

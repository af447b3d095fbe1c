//! RCP, the Rate Control Protocol (Dukkipati & McKeown 2006; ns-2 RCP patch):
//! routers give every flow one rate; hosts pace at the smallest rate on their
//! path.
//!
//! Its header, shared by both halves, has two layouts of `Packet::hdr`:
//! [`RcpData`] on SYN and data packets (senders write it, routers lower the
//! rate and read the RTT and the last-packet mark) and [`RcpAck`] on ACKs and
//! SYN-ACKs (the receiver echoes the rate and names the packet acknowledged;
//! the sender reads both). Both hold the rate and the RTT in the same words,
//! which routers read from every packet they pass ([`rtt_of`]).

pub mod host;
pub mod router;

use crate::net::packet::Layout;
use crate::net::{Packet, PacketKind};

/// [`RcpData::last`] of the flow's last data packet.
pub const LAST: f64 = 2.0;

/// RCP's header on SYN and data packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RcpData {
    /// The rate in bits/s (negative = infinity): senders write -1, routers
    /// the minimum of it and their rate R.
    pub rate_bps: f64,
    /// The sender's RTT estimate in seconds (<= 0: none; a probe or a
    /// resent SYN that must not be announced again carries -1).
    pub rtt_s: f64,
    /// [`LAST`] on the flow's last data packet, else 0 (routers in mode
    /// `ps` count flows with it).
    pub last: f64,
}

impl RcpData {
    /// Whether this is the flow's last data packet.
    #[inline]
    pub fn is_last(&self) -> bool {
        self.last >= LAST
    }
}

/// RCP's header on ACKs and SYN-ACKs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RcpAck {
    /// The rate the SYN or data packet brought (echoed by the receiver).
    pub rate_bps: f64,
    /// -1 (an ACK carries no RTT estimate).
    pub rtt_s: f64,
    /// The sequence number of the data packet this ACK answers (-1: a SYN-ACK).
    pub acks: f64,
}

impl RcpAck {
    /// The data packet this ACK answers.
    #[inline]
    pub fn acked(&self) -> Option<u64> {
        (self.acks >= 0.0).then_some(self.acks as u64)
    }
}

impl Layout for RcpData {
    fn read(w: &[f64; 3]) -> Self {
        RcpData {
            rate_bps: w[0],
            rtt_s: w[1],
            last: w[2],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        *w = [self.rate_bps, self.rtt_s, self.last];
    }
}

impl Layout for RcpAck {
    fn read(w: &[f64; 3]) -> Self {
        RcpAck {
            rate_bps: w[0],
            rtt_s: w[1],
            acks: w[2],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        *w = [self.rate_bps, self.rtt_s, self.acks];
    }
}

/// The RTT field of any packet a router passes, as RCP lays it out for the
/// packet's kind (a packet of another scheme holds zero or a negative number
/// there: no sample).
#[inline]
pub fn rtt_of(p: &Packet) -> f64 {
    match p.kind {
        PacketKind::Syn | PacketKind::Data => p.hdr.get::<RcpData>().rtt_s,
        PacketKind::Ack | PacketKind::SynAck => p.hdr.get::<RcpAck>().rtt_s,
    }
}

/// The rate field of any packet, as RCP lays it out for the packet's kind.
#[inline]
pub fn rate_of(p: &Packet) -> f64 {
    match p.kind {
        PacketKind::Syn | PacketKind::Data => p.hdr.get::<RcpData>().rate_bps,
        PacketKind::Ack | PacketKind::SynAck => p.hdr.get::<RcpAck>().rate_bps,
    }
}

//! The packet: a small `Copy` value with no payload.

use crate::sim::Time;

/// What a packet is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    Syn,
    SynAck,
    Data,
    Ack,
}

/// Packet flag bits.
pub mod flags {
    /// ECN-capable transport (RFC 3168).
    pub const ECT: u8 = 1;
    /// Congestion experienced, set by a marking queue.
    pub const CE: u8 = 2;
    /// ECN echo on an ACK.
    pub const ECE: u8 = 4;
    /// A retransmitted data packet.
    pub const RETX: u8 = 8;
}

/// One packet in flight. Transports fill in the protocol fields; the engine
/// owns `path` and `hop`.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// The flow this packet belongs to.
    pub flow: u32,
    /// The route it follows (an index into the network's path table).
    pub path: u32,
    /// Index of the link it is on (or about to enter) along `path`.
    pub hop: u16,
    pub kind: PacketKind,
    pub flags: u8,
    /// Bytes on the wire, headers included.
    pub size_bytes: u32,
    /// Data: the packet's sequence number (in packets). ACK: the cumulative
    /// acknowledgement (the next sequence number expected).
    pub seq: u64,
    /// Data and SYN: when the sender sent it. ACK and SYN-ACK: the echo of the
    /// timestamp of the packet that triggered it (RFC 7323 style).
    pub ts: Time,
    /// Router-feedback fields for router-assisted schemes (rate, window and
    /// feedback headers); unused by plain TCP.
    pub hdr: [f64; 3],
}

impl Packet {
    pub fn new(flow: u32, kind: PacketKind, size_bytes: u32, seq: u64, ts: Time) -> Self {
        Packet { flow, path: 0, hop: 0, kind, flags: 0, size_bytes, seq, ts, hdr: [0.0; 3] }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
}

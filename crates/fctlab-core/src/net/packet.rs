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
    /// ACK of a SACK receiver: its SACK blocks (RFC 2018); empty otherwise.
    pub sack: SackBlocks,
}

/// The SACK option of an ACK (RFC 2018 section 3): up to [`SackBlocks::MAX`]
/// blocks of packets `[start, end)` received above the cumulative
/// acknowledgement, in the order the receiver lists them (the block of the
/// most recently received packet first).
///
/// Three blocks: an option of n blocks takes 2 + 8n bytes of the 40 bytes of
/// TCP option space, less the 10 (+2 padding) of the timestamp option that
/// fctlab's ACKs carry (they echo the data packet's send time), so RFC 2018
/// section 3 allows at most 3. Each edge is stored as a `u32` offset from the
/// ACK's cumulative acknowledgement (it is always above it), so the option
/// costs every packet 24 bytes; a block whose end lies 2^32 packets or more
/// above the acknowledgement is not reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    /// (start, end) offsets per block; end = 0 marks an unused slot (a block
    /// is never empty, so its end offset is at least 1).
    edges: [[u32; 2]; SackBlocks::MAX],
}

impl SackBlocks {
    /// Blocks an ACK can carry.
    pub const MAX: usize = 3;

    /// The blocks `[start, end)` (absolute sequence numbers, each above
    /// `ack`) in the order given, as many as fit: at most [`Self::MAX`], and
    /// none after one whose offsets do not fit in 32 bits.
    pub fn new(ack: u64, blocks: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut b = SackBlocks::default();
        for (slot, (start, end)) in b.edges.iter_mut().zip(blocks) {
            debug_assert!(ack < start && start < end, "SACK block [{start}, {end}) not above ACK {ack}");
            match (u32::try_from(start - ack), u32::try_from(end - ack)) {
                (Ok(s), Ok(e)) => *slot = [s, e],
                _ => break,
            }
        }
        b
    }

    /// The blocks as absolute `[start, end)` ranges, given the ACK's cumulative
    /// acknowledgement `ack`.
    pub fn blocks(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.edges.iter().take_while(|e| e[1] != 0).map(move |e| (ack + e[0] as u64, ack + e[1] as u64))
    }

    pub fn is_empty(&self) -> bool {
        self.edges[0][1] == 0
    }
}

impl Packet {
    pub fn new(flow: u32, kind: PacketKind, size_bytes: u32, seq: u64, ts: Time) -> Self {
        Packet { flow, path: 0, hop: 0, kind, flags: 0, size_bytes, seq, ts, hdr: [0.0; 3], sack: SackBlocks::default() }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
}

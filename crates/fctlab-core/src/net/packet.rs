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
    /// A probe packet or its answer (open-loop `probe` sources): the engine
    /// records its delays in the `probes` table.
    pub const PROBE: u8 = 16;
    /// A forward segment with neither SYN nor data: the pure ACK that ends a
    /// sender's handshake (`TcpOptions::handshake_ack`). It travels as a
    /// `PacketKind::Syn` (forward, header bytes only) and receivers ignore it.
    pub const PURE_ACK: u8 = 32;
    /// An ACK that also carries the receiver's FIN (`TcpOptions::fin_exchange`);
    /// the sender answers it with a `PURE_ACK`.
    pub const FIN: u8 = 64;
    /// The receiver's ACK right behind its FIN (`TcpOptions::fin_rst`); a
    /// sender that has closed answers it with a reset (a `PURE_ACK`).
    pub const AFTER_FIN: u8 = 128;
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
    /// The scheme's header fields ([`Header`]).
    pub hdr: Header,
}

/// A packet's header words: three numbers that a scheme's hosts and routers
/// use for its own header fields. What they hold is one [`Layout`], fixed by
/// the flow's scheme and the packet's kind, and they are read and written
/// only through it (or whole, by a wire format), so every meaning has named
/// fields and where two share a word is written down here:
///
/// | layout | on | words |
/// | --- | --- | --- |
/// | `protocols::rcp::{RcpData, RcpAck}` | RCP's SYN and data; its ACK and SYN-ACK | rate, RTT, last-packet mark (data) or the packet acknowledged (ACK) |
/// | `protocols::xcp::XcpHeader` | XCP's data, echoed on its ACKs | cwnd, RTT, feedback |
/// | `protocols::e2e_ef::EfHeader` | e2e-ef's data and ACKs; hbh's ACKs once its first switch reported | rate, queue |
/// | `protocols::hbh::{HbhData, HbhEcho}` | hbh's data; its ACKs until the first switch's report replaces the echo | rate, first switch's port, last port |
/// | `transport::packet_pair::PairTag` | packet-pair's data, echoed on its ACKs | position in the pair, pair number |
/// | [`SackBlocks`] | the ACKs of a SACK receiver | one block per word |
/// | [`Header::path_queue_ns`] | ACKs and SYN-ACKs of a flow whose sender asked | the third word: the path's queuing delay (the engine's oracle) |
///
/// Plain TCP leaves the words zero. Routers write header words only into
/// the SYN and data packets of their own protocol (they recognise them by
/// the words' values: a positive rate, window or RTT), and the TCP receiver
/// echoes a data packet's words on its ACK ([`Header::echoed_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Header([f64; 3]);

/// One meaning of the header words: a type with named fields, each in one
/// word. `write` writes only the layout's own words; reading and writing
/// back a layout leaves the words as they were.
pub trait Layout: Copy {
    fn read(words: &[f64; 3]) -> Self;
    fn write(self, words: &mut [f64; 3]);
}

impl Header {
    /// The words as layout `L`.
    #[inline]
    pub fn get<L: Layout>(&self) -> L {
        L::read(&self.0)
    }

    /// Write layout `L`'s words.
    #[inline]
    pub fn set<L: Layout>(&mut self, l: L) {
        l.write(&mut self.0)
    }

    /// A header holding layout `l` (its other words zero).
    #[inline]
    pub fn of<L: Layout>(l: L) -> Header {
        let mut h = Header::default();
        h.set(l);
        h
    }

    /// The header the TCP receiver puts on an ACK when a data packet with
    /// header `data` joins the packets it acknowledges (this header: those
    /// before it): `data`'s first two words, the third summed (XCP's
    /// feedback over the packets one delayed ACK covers).
    #[inline]
    pub fn echoed_with(self, data: Header) -> Header {
        Header([data.0[0], data.0[1], self.0[2] + data.0[2]])
    }

    /// On an ACK or SYN-ACK of a flow whose sender asks for it
    /// (`Sender::wants_path_delay`), the third word holds the queuing delay
    /// on the flow's path at the moment the ACK reaches the sender, written
    /// by the engine: for every router port of the forward and reverse
    /// routes, the bytes waiting times 8 / the port's rate (queue length x
    /// service time), summed, in nanoseconds. An oracle: a simulator can read
    /// the router ports, a real network cannot. Plain TCP ACKs leave their
    /// header words zero, so the word is free; a SACK ACK's is not, and a
    /// SACK sender does not ask.
    #[inline]
    pub fn path_queue_ns(&self) -> f64 {
        self.0[2]
    }

    /// See [`Header::path_queue_ns`].
    #[inline]
    pub fn set_path_queue_ns(&mut self, ns: f64) {
        self.0[2] = ns;
    }

    /// The words, for a wire format.
    pub fn words(&self) -> [f64; 3] {
        self.0
    }

    /// A header from its words, for a wire format.
    pub fn from_words(words: [f64; 3]) -> Header {
        Header(words)
    }
}

/// The SACK option of an ACK (RFC 2018 section 3): up to [`SackBlocks::MAX`]
/// blocks of packets `[start, end)` received above the cumulative
/// acknowledgement, in the order the receiver lists them (the block of the
/// most recently received packet first).
///
/// Three blocks: an option of n blocks takes 2 + 8n bytes of the 40 bytes of
/// TCP option space, less the 10 (+2 padding) of the timestamp option that
/// fctlab's ACKs carry (they echo the data packet's send time), so RFC 2018
/// section 3 allows at most 3.
///
/// The option travels in the ACK's header words (a [`Layout`]), one block
/// per word, so that it costs the packets of every other scheme nothing: a
/// block is `start - ack` (below 2^27) and its length (below 2^26), packed
/// into one integer below 2^53, which an `f64` holds exactly, stored negated;
/// 0 marks an unused word. A block that does not fit (more than 2^27 packets
/// above the acknowledgement) is not reported, nor are those after it.
/// Routers write header words only into SYN and data packets, and the
/// schemes that use router feedback do not use SACK; a router that reads the
/// words of every passing packet (RCP's takes a positive RTT field as a
/// sample) finds only negative numbers in a SACK ACK, which it ignores.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SackBlocks {
    words: [f64; SackBlocks::MAX],
}

impl SackBlocks {
    /// Blocks an ACK can carry.
    pub const MAX: usize = 3;
    const LEN_BITS: u32 = 26;
    const START_BITS: u32 = 27;

    /// The blocks `[start, end)` (absolute sequence numbers, each above
    /// `ack`) in the order given, as many as fit.
    pub fn new(ack: u64, blocks: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut b = SackBlocks::default();
        for (word, (start, end)) in b.words.iter_mut().zip(blocks) {
            debug_assert!(
                ack < start && start < end,
                "SACK block [{start}, {end}) not above ACK {ack}"
            );
            let (off, len) = (start - ack, end - start);
            if off >> Self::START_BITS != 0 || len >> Self::LEN_BITS != 0 {
                break;
            }
            *word = -(((off << Self::LEN_BITS) | len) as f64);
        }
        b
    }

    /// The blocks as absolute `[start, end)` ranges, given the ACK's cumulative
    /// acknowledgement `ack`.
    pub fn blocks(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.words.iter().take_while(|&&w| w <= -1.0).map(move |&w| {
            let v = -w as u64;
            let start = ack + (v >> Self::LEN_BITS);
            (start, start + (v & ((1 << Self::LEN_BITS) - 1)))
        })
    }

    pub fn is_empty(&self) -> bool {
        self.words[0] > -1.0
    }
}

impl Layout for SackBlocks {
    fn read(words: &[f64; 3]) -> Self {
        SackBlocks { words: *words }
    }

    fn write(self, words: &mut [f64; 3]) {
        *words = self.words;
    }
}

impl Packet {
    pub fn new(flow: u32, kind: PacketKind, size_bytes: u32, seq: u64, ts: Time) -> Self {
        Packet {
            flow,
            path: 0,
            hop: 0,
            kind,
            flags: 0,
            size_bytes,
            seq,
            ts,
            hdr: Header::default(),
        }
    }

    pub fn is_data(&self) -> bool {
        self.kind == PacketKind::Data
    }
}

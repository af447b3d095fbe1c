//! The wire format of a [`Packet`] in a UDP datagram (version 1).
//!
//! ```text
//! offset  size  field
//!      0     2  magic "FL"
//!      2     1  version (1)
//!      3     1  kind (0 SYN, 1 SYN-ACK, 2 data, 3 ACK)
//!      4     1  flags (ECT 1, CE 2, ECE 4, RETX 8; other bits must be 0)
//!      5     3  reserved, must be 0
//!      8     4  flow id
//!     12     4  size on the wire in bytes (IP header included)
//!     16     8  seq
//!     24     8  ts (sender's clock, ns)
//!     32    24  three header words (f64): rate, RTT, feedback or SACK option
//!     56     4  CRC-32 (IEEE 802.3) of bytes 0..56
//!     60        padding up to size - 28 (IPv4 + UDP headers), not checked
//! ```
//!
//! All integers little-endian. A datagram that is short, has another magic or
//! version, an unknown kind or flag, a non-zero reserved byte, a bad checksum,
//! or a header word that is not a finite number of magnitude at most 1e30 is
//! refused with the reason ([`Bad`]); nothing in it can make a decoder panic.

use fctlab_core::net::packet::{flags, Header};
use fctlab_core::net::{Packet, PacketKind};

pub const MAGIC: [u8; 2] = *b"FL";
pub const VERSION: u8 = 1;
/// Bytes of the encoded header.
pub const HEADER_LEN: usize = 60;
/// IPv4 and UDP headers, which the datagram's size on the wire includes.
pub const IP_UDP: usize = 28;
/// The largest magnitude a header word may have. XCP's "no limit" feedback is
/// 1e24 (ns-2 `MAX_THROUGHPUT`); anything beyond 1e30, or not finite, is forged.
pub const MAX_WORD: f64 = 1e30;
const ALL_FLAGS: u8 = flags::ECT | flags::CE | flags::ECE | flags::RETX;

/// Why a datagram was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bad {
    Truncated,
    Magic,
    Version,
    Kind,
    Flags,
    Reserved,
    Checksum,
    Field,
}

impl Bad {
    pub const ALL: [Bad; 8] = [
        Bad::Truncated,
        Bad::Magic,
        Bad::Version,
        Bad::Kind,
        Bad::Flags,
        Bad::Reserved,
        Bad::Checksum,
        Bad::Field,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Bad::Truncated => "truncated",
            Bad::Magic => "magic",
            Bad::Version => "version",
            Bad::Kind => "kind",
            Bad::Flags => "flags",
            Bad::Reserved => "reserved",
            Bad::Checksum => "checksum",
            Bad::Field => "field",
        }
    }
}

const fn crc_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}
static CRC: [u32; 256] = crc_table();

/// CRC-32 as in IEEE 802.3, zlib and PNG (reflected polynomial 0xEDB88320).
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c = CRC[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

fn kind_code(k: PacketKind) -> u8 {
    match k {
        PacketKind::Syn => 0,
        PacketKind::SynAck => 1,
        PacketKind::Data => 2,
        PacketKind::Ack => 3,
    }
}

/// The UDP payload length that puts a packet of `size_bytes` on the wire
/// (at least the header).
pub fn payload_len(size_bytes: u32) -> usize {
    (size_bytes as usize).saturating_sub(IP_UDP).max(HEADER_LEN)
}

/// Encode `p` into `buf` (cleared first), padded to its size on the wire.
pub fn encode(p: &Packet, buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend_from_slice(&MAGIC);
    buf.push(VERSION);
    buf.push(kind_code(p.kind));
    buf.push(p.flags & ALL_FLAGS);
    buf.extend_from_slice(&[0, 0, 0]);
    buf.extend_from_slice(&p.flow.to_le_bytes());
    buf.extend_from_slice(&p.size_bytes.to_le_bytes());
    buf.extend_from_slice(&p.seq.to_le_bytes());
    buf.extend_from_slice(&p.ts.to_le_bytes());
    for w in p.hdr.words() {
        buf.extend_from_slice(&w.to_le_bytes());
    }
    let c = crc32(&buf[..56]);
    buf.extend_from_slice(&c.to_le_bytes());
    buf.resize(payload_len(p.size_bytes), 0);
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}

/// Decode a datagram, or say why it is refused.
pub fn decode(b: &[u8]) -> Result<Packet, Bad> {
    if b.len() < HEADER_LEN {
        return Err(Bad::Truncated);
    }
    if b[0..2] != MAGIC {
        return Err(Bad::Magic);
    }
    if b[2] != VERSION {
        return Err(Bad::Version);
    }
    if crc32(&b[..56]) != u32_at(b, 56) {
        return Err(Bad::Checksum);
    }
    let kind = match b[3] {
        0 => PacketKind::Syn,
        1 => PacketKind::SynAck,
        2 => PacketKind::Data,
        3 => PacketKind::Ack,
        _ => return Err(Bad::Kind),
    };
    if b[4] & !ALL_FLAGS != 0 {
        return Err(Bad::Flags);
    }
    if b[5..8] != [0, 0, 0] {
        return Err(Bad::Reserved);
    }
    let mut hdr = [0.0; 3];
    for (k, w) in hdr.iter_mut().enumerate() {
        *w = f64::from_bits(u64_at(b, 32 + 8 * k));
        if !(w.is_finite() && w.abs() <= MAX_WORD) {
            return Err(Bad::Field);
        }
    }
    let mut p = Packet::new(u32_at(b, 8), kind, u32_at(b, 12), u64_at(b, 16), u64_at(b, 24));
    p.flags = b[4];
    p.hdr = Header::from_words(hdr);
    Ok(p)
}

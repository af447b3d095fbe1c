//! The datagram format: round trip, the CRC's check value, and a fuzz of the
//! decoder (random datagrams and every single-byte and truncation mutation of
//! valid ones must be refused with a reason or decode, never panic).

use fctlab_core::net::packet::Header;
use fctlab_core::net::{Packet, PacketKind};
use fctlab_live::wire::{self, Bad};

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn sample(i: u64) -> Packet {
    let kinds = [PacketKind::Syn, PacketKind::SynAck, PacketKind::Data, PacketKind::Ack];
    let mut p = Packet::new(
        i as u32 * 7 + 1,
        kinds[(i % 4) as usize],
        40 + (i as u32 % 1000),
        i * 1_000_003,
        i * 77_777,
    );
    p.flags = (i % 16) as u8;
    p.hdr = Header::from_words([-1.0, 0.0123 * i as f64, -((i << 26) as f64)]);
    p
}

#[test]
fn crc32_check_value() {
    // The CRC-32 check value of "123456789" (IEEE 802.3 / zlib).
    assert_eq!(wire::crc32(b"123456789"), 0xCBF4_3926);
}

#[test]
fn round_trip_and_size_on_the_wire() {
    let mut buf = Vec::new();
    for i in 0..200 {
        let p = sample(i);
        wire::encode(&p, &mut buf);
        assert_eq!(buf.len(), (p.size_bytes as usize - wire::IP_UDP).max(wire::HEADER_LEN));
        let q = wire::decode(&buf).unwrap();
        assert_eq!(
            (q.flow, q.kind, q.flags, q.size_bytes, q.seq, q.ts),
            (p.flow, p.kind, p.flags, p.size_bytes, p.seq, p.ts)
        );
        assert_eq!(q.hdr.words().map(f64::to_bits), p.hdr.words().map(f64::to_bits));
    }
}

#[test]
fn each_bad_field_is_refused_with_its_reason() {
    let mut buf = Vec::new();
    wire::encode(&sample(3), &mut buf);
    let fix = |b: &mut Vec<u8>| {
        let c = wire::crc32(&b[..56]);
        b[56..60].copy_from_slice(&c.to_le_bytes());
    };
    assert_eq!(wire::decode(&buf[..59]).err(), Some(Bad::Truncated));
    let mut b = buf.clone();
    b[0] = b'X';
    assert_eq!(wire::decode(&b).err(), Some(Bad::Magic));
    let mut b = buf.clone();
    b[2] = 2;
    fix(&mut b);
    assert_eq!(wire::decode(&b).err(), Some(Bad::Version));
    let mut b = buf.clone();
    b[3] = 4;
    fix(&mut b);
    assert_eq!(wire::decode(&b).err(), Some(Bad::Kind));
    let mut b = buf.clone();
    b[4] = 0x10;
    fix(&mut b);
    assert_eq!(wire::decode(&b).err(), Some(Bad::Flags));
    let mut b = buf.clone();
    b[6] = 1;
    fix(&mut b);
    assert_eq!(wire::decode(&b).err(), Some(Bad::Reserved));
    // A forged rate: NaN, infinity, or beyond 2^53, with a valid checksum.
    for v in [f64::NAN, f64::INFINITY, -1e300, 1e31] {
        let mut b = buf.clone();
        b[32..40].copy_from_slice(&v.to_le_bytes());
        fix(&mut b);
        assert_eq!(wire::decode(&b).err(), Some(Bad::Field), "{v}");
    }
    // The same forgery without fixing the checksum is caught by it.
    let mut b = buf.clone();
    b[32..40].copy_from_slice(&5e6f64.to_le_bytes());
    assert_eq!(wire::decode(&b).err(), Some(Bad::Checksum));
    // Padding is not covered.
    let mut b = buf.clone();
    if b.len() > 60 {
        b[60] ^= 0xff;
        assert!(wire::decode(&b).is_ok());
    }
}

#[test]
fn fuzz_decoder() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut refused = 0u64;
    // Random datagrams of every length up to 200 bytes, some with a valid prefix.
    for i in 0..200_000u64 {
        let len = (rng.next() % 200) as usize;
        let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if i % 2 == 0 && len >= 3 {
            b[0..3].copy_from_slice(&[b'F', b'L', 1]);
        }
        if i % 4 == 0 && len >= 60 {
            let c = wire::crc32(&b[..56]);
            b[56..60].copy_from_slice(&c.to_le_bytes());
        }
        if wire::decode(&b).is_err() {
            refused += 1;
        }
    }
    assert!(refused > 150_000);
    // Every single-byte change of the header of valid datagrams is refused
    // (the CRC detects any single-byte error), and every truncation too.
    let mut buf = Vec::new();
    for i in 0..50 {
        wire::encode(&sample(i), &mut buf);
        for pos in 0..wire::HEADER_LEN {
            for x in [1u8, 0x80, 0xff, (rng.next() as u8) | 1] {
                let mut b = buf.clone();
                b[pos] ^= x;
                assert!(wire::decode(&b).is_err(), "byte {pos} ^ {x:#x} accepted");
            }
        }
        for n in 0..wire::HEADER_LEN {
            assert_eq!(wire::decode(&buf[..n]).err(), Some(Bad::Truncated));
        }
    }
}

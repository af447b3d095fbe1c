//! The packet's header words (`net::packet::Header`) and their layouts: a
//! layout read and written back leaves the words as they were (so a router
//! that lowers one field changes nothing else, whatever the packet carries),
//! each layout writes only its own words, and the packet stays within the
//! size it had with untyped words (it is copied on every hop).

use fctlab_core::net::packet::{Header, Layout, SackBlocks};
use fctlab_core::net::Packet;
use fctlab_core::protocols::e2e_ef::EfHeader;
use fctlab_core::protocols::hbh::{HbhData, HbhEcho};
use fctlab_core::protocols::rcp::{RcpAck, RcpData};
use fctlab_core::protocols::xcp::XcpHeader;
use fctlab_core::transport::packet_pair::PairTag;

/// Words of every sort a header meets: zero, negative (SACK blocks, RCP's
/// "none"), huge (f64::MAX marks), NaN with a payload, subnormal.
fn samples() -> Vec<[f64; 3]> {
    let odd = [
        0.0,
        -0.0,
        -1.0,
        2.0,
        f64::MAX,
        -((5u64 << 26) as f64),
        f64::from_bits(0x7ff8_0000_dead_beef),
        f64::MIN_POSITIVE / 4.0,
        1e24 - 208_000.0,
    ];
    let mut out = Vec::new();
    for (i, &a) in odd.iter().enumerate() {
        for (j, &b) in odd.iter().enumerate() {
            out.push([a, b, odd[(i + j) % odd.len()]]);
        }
    }
    out
}

fn bits(h: &Header) -> [u64; 3] {
    h.words().map(f64::to_bits)
}

/// `L` read and written back is the identity on the words, and writing a
/// value of `L` onto any words changes exactly the words in `own`.
fn check<L: Layout + std::fmt::Debug>(name: &str, own: [bool; 3]) {
    for w in samples() {
        let mut h = Header::from_words(w);
        let l: L = h.get();
        h.set(l);
        assert_eq!(bits(&h), w.map(f64::to_bits), "{name}: {w:?}");
        // Written over other words, only its own change.
        let mut g = Header::from_words([7.0, 8.0, 9.0]);
        g.set(l);
        for k in 0..3 {
            let want = if own[k] { w[k] } else { [7.0, 8.0, 9.0][k] };
            assert_eq!(g.words()[k].to_bits(), want.to_bits(), "{name}: word {k} of {w:?}");
        }
    }
}

#[test]
fn layouts_read_and_write_only_their_own_words_exactly() {
    check::<RcpData>("RcpData", [true; 3]);
    check::<RcpAck>("RcpAck", [true; 3]);
    check::<XcpHeader>("XcpHeader", [true; 3]);
    check::<HbhData>("HbhData", [true; 3]);
    check::<EfHeader>("EfHeader", [true, true, false]);
    check::<HbhEcho>("HbhEcho", [true, true, false]);
    check::<PairTag>("PairTag", [true, true, false]);
    check::<SackBlocks>("SackBlocks", [true; 3]);
}

#[test]
fn the_path_delay_takes_the_third_word_alone() {
    let mut h = Header::of(PairTag { pos: 1.0, pair: 3.0 });
    h.set_path_queue_ns(1234.5);
    assert_eq!(h.words(), [1.0, 3.0, 1234.5]);
    assert_eq!(h.path_queue_ns(), 1234.5);
}

#[test]
fn an_ack_echoes_the_last_data_header_and_sums_the_third_word() {
    // XCP: two data packets under one delayed ACK: the ACK carries the
    // second's window and RTT and both feedbacks, 3 + 4.
    let d1 = Header::of(XcpHeader {
        cwnd_pkts: 10.0,
        rtt_s: 0.1,
        feedback: 3.0,
    });
    let d2 = Header::of(XcpHeader {
        cwnd_pkts: 11.0,
        rtt_s: 0.2,
        feedback: 4.0,
    });
    let a: XcpHeader = Header::default().echoed_with(d1).echoed_with(d2).get();
    assert_eq!((a.cwnd_pkts, a.rtt_s, a.feedback), (11.0, 0.2, 7.0));
}

#[test]
fn a_packet_is_no_larger_than_with_untyped_words() {
    // flow, path (u32 each), hop (u16), kind, flags (u8 each), size (u32),
    // seq, ts (u64 each) and three f64 words: 56 bytes, no padding.
    assert_eq!(std::mem::size_of::<Header>(), 3 * 8);
    assert_eq!(std::mem::size_of::<Packet>(), 4 + 4 + 2 + 1 + 1 + 4 + 8 + 8 + 24);
}

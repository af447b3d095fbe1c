//! DropTail's `full_wake` option checked against a hand trace: a packet that
//! reaches a full router port at the very instant a departure frees a slot
//! takes the slot ("immediate"), or finds the port still full ("deferred", as
//! ns-3's stopped device queue, woken by an event of the same time).
//!
//! Set-up: one flow of 11 packets, IW 11, no handshake, on a dumbbell with a
//! 1 Gb/s access link (no delay) into a 100 Mb/s bottleneck (one-way delay d)
//! and a 1 Gb/s egress link; 1000 B payload + 42 B headers, so a data packet
//! takes a = 8.336 us on the access link and T = 83.36 us = 10a on the
//! bottleneck; the bottleneck port holds 9 packets.
//!
//!   k a        packet k-1 (k = 1..11) reaches R0 (the sender put all 11 on
//!              its NIC at 0)
//!   a          packet 0 finds the port idle: on the wire until a + T = 11a
//!   2a .. 10a  packets 1..9 wait: the port is full (9)
//!   11a        packet 0 leaves and packet 10 arrives, at the same instant
//!
//! "immediate": packet 1 goes on the wire, packet 10 takes its slot; nothing
//! is lost and packet j leaves the bottleneck at a + (j+1) T.
//! "deferred": packet 10 is dropped; packets 0..9 are acknowledged and the
//! retransmission timer (restarted by each new ACK, RFC 6298 5.3) resends
//! packet 10 alone, on an empty path.

mod common;
use common::{flows, rfc6298_rto, ser};
use serde_json::json;

const C: f64 = 100e6;
const ACCESS: f64 = 1e9;
const D_MS: f64 = 20.0;

fn scenario(wake: &str) -> serde_json::Value {
    json!({
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": C, "access_bps": ACCESS,
                    "bottleneck_delay_ms": D_MS, "access_delay_ms": 0.0, "buffer_pkts": 9,
                    "droptail": {"full_wake": wake}},
        "transport": {"mss_bytes": 1000, "header_bytes": 42, "init_cwnd_pkts": 11, "handshake": false, "min_rto_ms": 200.0},
        "flows": [{"size_pkts": 11}],
        "metrics": {"series": false}
    })
}

#[test]
fn a_slot_freed_at_the_arrival_instant() {
    let a = ser(1042, ACCESS);
    let t = ser(1042, C);
    assert_eq!((a, t), (8_336, 83_360));
    let d = (D_MS * 1e6) as u64;
    // Packet j reaches the receiver at a + (j+1) T + d + a (egress).
    let at_receiver = |j: u64| a + (j + 1) * t + d + a;

    let f = &flows(&scenario("immediate"))[0];
    assert_eq!((f.drops, f.retransmits), (0, 0));
    assert_eq!(f.fct_ns(), Some(at_receiver(10)));

    let f = &flows(&scenario("deferred"))[0];
    assert_eq!((f.drops, f.retransmits), (1, 1));
    // The ACK of packet j returns over the egress link, the bottleneck and the
    // access link (42 B each) to the sender; all packets were sent at 0, so
    // that is also its RTT sample (the echoed timestamp).
    let ack_at = |j: u64| at_receiver(j) + ser(42, ACCESS) + ser(42, C) + d + ser(42, ACCESS);
    let samples: Vec<u64> = (0..10).map(ack_at).collect();
    let resend = ack_at(9) + rfc6298_rto(&samples);
    assert_eq!(f.fct_ns(), Some(resend + a + t + d + a));
}

#[test]
fn full_wake_is_checked() {
    let mut v = scenario("later");
    let err = fctlab_core::from_json(&v.to_string())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("network.droptail.full_wake") && err.contains("\"deferred\""),
        "{err}"
    );
    v["network"]["droptail"] = json!({"wake": "deferred"});
    let err = fctlab_core::from_json(&v.to_string())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("network.droptail") && err.contains("wake"), "{err}");
}

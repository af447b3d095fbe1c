//! `transport.rcp.data_with_syn`: the first data packet leaves right behind
//! the SYN. Hand trace of a one-packet flow alone on a single link of
//! 8.32 Mb/s (a 1040 B data packet takes T = 1 ms, a 40 B SYN or ACK Ta),
//! d = 50 ms one way:
//!
//! - without the option: SYN on the wire [0, Ta], at the receiver Ta + d; the
//!   SYN-ACK is back at 2Ta + 2d; the data packet then takes T + d:
//!   FCT = 2Ta + 3d + T;
//! - with it: the data packet follows the SYN onto the wire at Ta and
//!   arrives at Ta + T + d: FCT = Ta + T + d, one SYN round trip (2d + Ta)
//!   less.

mod common;
use common::{run_json, ser};
use serde_json::json;

fn fct(pkts: u64, with: bool, mode: &str) -> u64 {
    let v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": 8.32e6, "bottleneck_delay_ms": 50.0, "buffer_pkts": 100,
                    "queue": "rcp", "rcp": {"mode": mode}},
        "transport": {"scheme": "rcp", "rcp": {"mode": mode, "data_with_syn": with}},
        "flows": [{"size_pkts": pkts}],
        "metrics": {"series": false}
    });
    let out = run_json(&v);
    assert_eq!(out.flows[0].retransmits, 0);
    out.flows[0].fct_ns().expect("completes")
}

#[test]
fn a_one_packet_flow_saves_the_syn_round_trip() {
    let (t, ta, d) = (ser(1040, 8.32e6), ser(40, 8.32e6), 50_000_000u64);
    for mode in ["ps", "ns2"] {
        assert_eq!(fct(1, false, mode), 2 * ta + 3 * d + t, "{mode}");
        assert_eq!(fct(1, true, mode), ta + t + d, "{mode}");
    }
}

#[test]
fn a_longer_flow_gains_at_least_one_packet_time() {
    let t = ser(1040, 8.32e6);
    for mode in ["ps", "ns2"] {
        for n in [2u64, 10, 100] {
            let (a, b) = (fct(n, false, mode), fct(n, true, mode));
            assert!(b + t <= a, "{mode}, {n} packets: {b} + {t} > {a}");
        }
    }
}

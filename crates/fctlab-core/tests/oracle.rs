//! The path-delay oracle through the whole engine: a controller that asks for
//! it hears, on every ACK, the queue on its path times the service time.
//!
//! Hand trace: one sender, access 100 Mb/s without delay, bottleneck 10 Mb/s
//! with 1 ms each way, no handshake, a window of 20 packets (all sent at
//! t = 0) and a flow of 20. The burst reaches R0 every 83.2 us while the
//! bottleneck serves one 1040-byte packet every b = 832 us, so packet j
//! starts on it at s0 + j b. The ACK of packet k reaches the sender at
//! s0 + (k + 1) b + D, D = 2 x 1 ms + 83.2 us (egress) + 3.2 + 32 + 3.2 us
//! (the ACK's serialisations) = 2121.6 us = 2.55 b; then packets
//! j >= k + 4 are still waiting: 16 - k of them (none below zero), and the
//! reverse bottleneck never holds an ACK (one every 832 us, 32 us each). So
//! the delay heard on ACK k is max(0, 16 - k) x 832 us exactly.

use fctlab_core::config::{documented, ConfigError, Entry, NoParams, Table};
use fctlab_core::registry::Registries;
use fctlab_core::scenario::from_json_with;
use fctlab_core::transport::cc::{AckSample, CongestionControl, Window};
use fctlab_core::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde_json::json;
use std::sync::Mutex;

static HEARD: Mutex<Vec<f64>> = Mutex::new(Vec::new());

struct Listener;

impl CongestionControl for Listener {
    fn on_ack(&mut self, _w: &mut Window, _s: &AckSample) {}
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }
    fn wants_path_delay(&self) -> bool {
        true
    }
    fn on_path_delay(&mut self, q_ns: f64) {
        HEARD.lock().unwrap().push(q_ns);
    }
}

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    t.parse::<NoParams>()?;
    let p = TransportParams {
        init_cwnd_pkts: 20.0,
        ..p.clone()
    };
    Ok(tcp::endpoints(&p, || Box::new(Listener)))
}

const LISTENER: SchemeEntry = Entry {
    name: "tcp-listener",
    description: "a fixed window of 20 that records the path delay it hears",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory,
};

#[test]
fn each_ack_carries_queue_length_times_service_time() {
    let sc = json!({
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "access_bps": 100e6,
                    "bottleneck_delay_ms": 1.0, "access_delay_ms": 0.0, "buffer_pkts": 100},
        "transport": {"scheme": "tcp-listener", "handshake": false},
        "flows": [{"sender": 0, "size_pkts": 20}],
        "metrics": {"series": false}
    });
    let plan = from_json_with(&sc.to_string(), &Registries::BUILTIN.with_scheme(LISTENER)).expect("scenario");
    let out = fctlab_core::run(plan);
    assert!(out.flows[0].completed());
    let heard = HEARD.lock().unwrap().clone();
    let expect: Vec<f64> = (0..20).map(|k: i64| (16 - k).max(0) as f64 * 832_000.0).collect();
    assert_eq!(heard, expect);
}

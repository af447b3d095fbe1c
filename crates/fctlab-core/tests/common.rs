//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fctlab_core::metrics::FlowRecord;
use fctlab_core::{from_json, run, RunOutput};
use serde_json::Value;

pub fn run_json(v: &Value) -> RunOutput {
    let plan = from_json(&v.to_string()).unwrap_or_else(|e| panic!("scenario refused: {e}"));
    run(plan)
}

pub fn flows(v: &Value) -> Vec<FlowRecord> {
    run_json(v).flows
}

/// Serialisation time in ns as the engine documents it: round(bytes * 8e9 / rate).
pub fn ser(bytes: u64, rate_bps: f64) -> u64 {
    (bytes as f64 * 8e9 / rate_bps).round() as u64
}

/// The RTO after the RTT samples `r` by RFC 6298 section 2 (SRTT = R, RTTVAR =
/// R/2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R;
/// RTO = SRTT + 4 RTTVAR), in integer ns, with fctlab's 200 ms floor.
pub fn rfc6298_rto(r: &[u64]) -> u64 {
    let (mut srtt, mut var) = (r[0], r[0] / 2);
    for &x in &r[1..] {
        var = (3 * var + srtt.abs_diff(x)) / 4;
        srtt = (7 * srtt + x) / 8;
    }
    (srtt + 4 * var).max(200_000_000)
}

/// A random finite workload on a random built-in topology: 1-5 senders, a
/// bottleneck of 2, 10 or 100 Mb/s with a buffer of 2..`max_buffer` packets,
/// Poisson arrivals at load 0.3-1.2 (Pareto, uniform or exponential sizes) plus
/// one explicit flow. Callers set the scheme, queue and tables they test.
pub fn random_scenario(r: &mut rand_pcg::Pcg64Mcg, seed: u64, max_buffer: u64) -> Value {
    use rand::Rng;
    use serde_json::json;
    let topo = ["single-link", "dumbbell", "half-dumbbell"][r.random_range(0..3)];
    let senders = if topo == "single-link" { 1 } else { r.random_range(1..6) };
    let rate = [2e6, 10e6, 100e6][r.random_range(0..3)];
    let mut net = json!({
        "topology": topo, "senders": senders, "bottleneck_bps": rate,
        "bottleneck_delay_ms": r.random_range(0.0..30.0),
        "buffer_pkts": r.random_range(2..max_buffer),
    });
    if topo != "single-link" {
        let delays: Vec<f64> = (0..senders).map(|_| r.random_range(0.0..20.0)).collect();
        net["access_delay_ms"] = json!(delays);
        net["access_bps"] = json!(rate * [1.0, 10.0][r.random_range(0..2)]);
    }
    let dist = match r.random_range(0..3) {
        0 => json!({"dist": "pareto", "mean_pkts": 20, "shape": 1.3}),
        1 => json!({"dist": "uniform", "min_pkts": 1, "max_pkts": 60}),
        _ => json!({"dist": "exponential", "mean_pkts": 15}),
    };
    let iw = [1, 2, 4, 10][r.random_range(0..4)];
    json!({
        "seed": seed,
        "network": net,
        "transport": {"init_cwnd_pkts": iw, "handshake": r.random_bool(0.5), "delayed_ack": r.random_bool(0.3)},
        "traffic": [{"arrivals": "poisson", "load": r.random_range(0.3..1.2), "sizes": dist, "count": r.random_range(20..300)}],
        "flows": [{"sender": 0, "size_pkts": r.random_range(1..500), "start_s": 0.01}],
        "metrics": {"interval_ms": 5.0}
    })
}

/// The invariants every finite run keeps: packet conservation (sent =
/// delivered + dropped + still in the network), no queue above its limit,
/// every flow completes, no FCT below the line-rate ideal (itself at least the
/// bottleneck serialisation plus propagation), the handshake's two bottleneck
/// crossings on top when there is one, the last ACK after the last byte, and
/// series samples in time order. Returns (packets dropped, retransmissions).
pub fn assert_invariants(v: &Value, out: &RunOutput, label: &str) -> (u64, u64) {
    let c = &out.counters;
    assert_eq!(c.packets_sent, c.packets_delivered + c.packets_dropped + out.in_network, "{label}: conservation: {v}");
    assert!(c.max_queue_excess <= 0, "{label}: queue above its limit: {v}");
    let handshake = v["transport"]["handshake"].as_bool().unwrap_or(true);
    let rate = v["network"]["bottleneck_bps"].as_f64().unwrap();
    let d_bn = (v["network"]["bottleneck_delay_ms"].as_f64().unwrap() * 1e6).round() as u64;
    for f in &out.flows {
        let fct = f.fct_ns().unwrap_or_else(|| panic!("{label}: flow {} did not complete: {v}", f.flow_id));
        assert!(fct >= f.ideal_ns, "{label}: FCT {fct} below ideal {} (flow {})", f.ideal_ns, f.flow_id);
        assert!(f.ideal_ns >= ser(f.size_bytes + 40 * f.size_pkts, rate) + d_bn, "{label}");
        if handshake {
            assert!(fct >= f.ideal_ns + 2 * d_bn, "{label}: flow {}", f.flow_id);
        }
        assert!(f.acked_ns.unwrap() > f.finish_ns.unwrap(), "{label}");
    }
    assert_eq!(c.flows_completed as usize, out.flows.len(), "{label}");
    assert!(out.series.t_ns.windows(2).all(|w| w[0] <= w[1]), "{label}: series out of order");
    (c.packets_dropped, out.flows.iter().map(|f| f.retransmits).sum())
}

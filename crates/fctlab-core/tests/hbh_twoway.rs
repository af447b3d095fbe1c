//! Hop-by-hop rate control (`hbh`, Mishra & Kanakia 1992, fctlab's reading)
//! and two-way traffic over graphs: the per-hop set point by hand on a chain,
//! and conservation, queue limits, completion and determinism for every 1991
//! scheme on random graphs where each pair of hosts sends both ways (so ACKs
//! queue behind data, the suite's experiment 6).

mod common;
use common::run_json;
use serde_json::{json, Value};

/// h -- x0 -- x1 -- S1 ==40 Mb/s, 20 ms== S2 -- d: 100 Mb/s, 1 ms lines
/// around the core (the access line split in three with switches x0, x1).
fn hbh_chain(buffer: u64) -> Value {
    json!({"topology": "graph", "buffer_pkts": buffer, "queue": "hbh",
           "graph": {"routers": ["x0", "x1", "S1", "S2"],
                     "links": [{"a": "h", "b": "x0", "rate_bps": 100e6, "delay_ms": 1.0 / 3.0},
                               {"a": "x0", "b": "x1", "rate_bps": 100e6, "delay_ms": 1.0 / 3.0},
                               {"a": "x1", "b": "S1", "rate_bps": 100e6, "delay_ms": 1.0 / 3.0},
                               {"name": "core", "a": "S1", "b": "S2", "rate_bps": 40e6, "delay_ms": 20.0},
                               {"a": "S2", "b": "d", "rate_bps": 100e6, "delay_ms": 1.0}],
                     "paths": [["h", "d"]], "bottleneck": "core"}})
}

#[test]
fn hbh_keeps_the_bottleneck_queue_within_twice_its_set_point_and_loses_nothing() {
    // One 4000-packet file alone. The switch before the core shapes the flow to
    // mu_D + g (B - n_D)/d, which exceeds the core's rate mu_D only while the
    // core holds fewer than B = 5 of its packets, and by at most g B / d; the
    // report it acts on is at most one hop round trip d old, so the core can
    // overshoot B by at most g B (1.25 packets): its queue never exceeds
    // 2 B, nothing is lost, and the file takes at least 4000 x 0.1 ms + 44 ms.
    let v = json!({"seed": 1, "network": hbh_chain(440),
                   "transport": {"scheme": "hbh", "mss_bytes": 460, "header_bytes": 40, "handshake": false, "init_cwnd_pkts": 1, "delayed_ack": false},
                   "flows": [{"sender": 0, "size_pkts": 4000}],
                   "metrics": {"interval_ms": 1.0, "links": ["core"]}});
    let out = run_json(&v);
    let f = &out.flows[0];
    assert_eq!(f.drops, 0);
    assert_eq!(f.retransmits, 0);
    let t = f.acked_ns.unwrap() - f.start_ns;
    assert!(t >= 444_000_000, "{t}");
    assert!(
        t < 444_000_000 + 4 * 44_000_000,
        "the source finds the rate within a few round trips: {t}"
    );
    let s = &out.series;
    let (qm, core) = (
        s.metric_names.iter().position(|m| m == "queue_pkts").unwrap(),
        s.element_names.iter().position(|e| e == "core").unwrap(),
    );
    let q: Vec<f64> = (0..s.t_ns.len())
        .filter(|&i| s.metric[i] as usize == qm && s.element[i] as usize == core)
        .map(|i| s.value[i])
        .collect();
    assert!(q.len() > 400);
    let max = q.iter().cloned().fold(0.0, f64::max);
    assert!(max <= 10.0, "core queue {max} above 2 B");
}

#[test]
fn hbh_refuses_bad_keys_and_needs_its_queue() {
    let mut v = json!({"seed": 1, "network": hbh_chain(50), "transport": {"scheme": "hbh"}, "flows": [{"sender": 0, "size_pkts": 10}]});
    v["network"]["hbh"] = json!({"gain": 0.0});
    let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
    assert!(e.to_string().contains("network.hbh.gain"), "{e}");
    v["network"]["hbh"] = json!({"setpoint_pkts": -1});
    let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
    assert!(e.to_string().contains("network.hbh.setpoint_pkts"), "{e}");
    v["network"].as_object_mut().unwrap().remove("hbh");
    v["network"]["queue"] = json!("droptail");
    let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
    assert!(e.to_string().contains("hbh"), "{e}");
}

/// A random line of 2-5 routers with random rates and delays; `pairs` host
/// pairs on random routers, each pair sending both ways.
fn random_two_way(r: &mut rand_pcg::Pcg64Mcg, seed: u64, scheme: &str, queue: &str) -> Value {
    use rand::Rng;
    let k = r.random_range(2..6);
    let routers: Vec<String> = (0..k).map(|i| format!("R{i}")).collect();
    let mut links = Vec::new();
    for i in 1..k {
        let rate = [2e6, 10e6, 40e6][r.random_range(0..3)];
        links.push(
            json!({"a": routers[i - 1], "b": routers[i], "rate_bps": rate, "delay_ms": r.random_range(0.0..10.0)}),
        );
    }
    let pairs = r.random_range(1..4);
    let mut paths = Vec::new();
    let mut flows = Vec::new();
    for p in 0..pairs {
        let (a, b) = (format!("A{p}"), format!("B{p}"));
        links.push(json!({"a": a, "b": routers[r.random_range(0..k)], "rate_bps": 100e6, "delay_ms": r.random_range(0.0..3.0)}));
        links.push(json!({"a": routers[r.random_range(0..k)], "b": b, "rate_bps": 100e6, "delay_ms": r.random_range(0.0..3.0)}));
        paths.push(json!([a, b]));
        paths.push(json!([b, a]));
        for s in [2 * p, 2 * p + 1] {
            flows.push(json!({"sender": s, "size_pkts": r.random_range(1..300), "start_s": r.random_range(0.0..0.05)}));
        }
    }
    json!({"seed": seed,
           "network": {"topology": "graph", "buffer_pkts": r.random_range(5..60), "queue": queue,
                       "graph": {"routers": routers, "links": links, "paths": paths}},
           "transport": {"scheme": scheme, "mss_bytes": 460, "header_bytes": 40, "handshake": false, "delayed_ack": false},
           "flows": flows, "metrics": {"interval_ms": 5.0}})
}

fn with_fq_quantum(mut v: Value) -> Value {
    if matches!(v["network"]["queue"].as_str(), Some("fq" | "fq-ef")) {
        v["network"]["fq"] = json!({"quantum_bytes": 500});
    }
    v
}

#[test]
fn every_1991_scheme_keeps_the_invariants_on_random_graphs_with_two_way_traffic() {
    use rand::SeedableRng;
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(6);
    let schemes = [
        ("hbh", "hbh"),
        ("tcp-tahoe", "droptail"),
        ("tcp-reno", "red"),
        ("decbit", "decbit"),
        ("tri-s", "droptail"),
        ("dual", "droptail"),
        ("packet-pair", "fq"),
        ("e2e-ef", "fq-ef"),
    ];
    for case in 0..40 {
        let (scheme, queue) = schemes[case % schemes.len()];
        let v = with_fq_quantum(random_two_way(&mut r, case as u64, scheme, queue));
        let out = run_json(&v);
        let what = format!("case {case} ({scheme}): {v}");
        let c = &out.counters;
        assert_eq!(
            c.packets_sent,
            c.packets_delivered + c.packets_dropped + out.in_network,
            "{what}: conservation"
        );
        assert!(c.max_queue_excess <= 0, "{what}: queue above its limit");
        assert_eq!(
            c.flows_completed as usize,
            out.flows.len(),
            "{what}: every flow completes"
        );
        for f in &out.flows {
            assert!(
                f.fct_ns().unwrap() >= f.ideal_ns,
                "{what}: flow {} below its ideal",
                f.flow_id
            );
        }
        assert_eq!(out.flows, run_json(&v).flows, "{what}: deterministic");
    }
}

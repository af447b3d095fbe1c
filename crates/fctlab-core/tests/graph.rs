//! `topology = "graph"`: networks given in the scenario. A dumbbell written
//! as a graph runs exactly as the built-in one; a chain of hops gives the
//! hand-derived store-and-forward FCT; bad graphs are refused naming the key.

mod common;
use common::{flows, ser};
use fctlab_core::from_json;
use serde_json::{json, Value};

fn workload() -> Value {
    json!([{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3}, "count": 400}])
}

#[test]
fn a_dumbbell_written_as_a_graph_runs_exactly_as_the_built_in_one() {
    let delays = [1.0, 4.0, 9.0];
    for queue in ["droptail", "red", "fq"] {
        let builtin = json!({
            "seed": 11,
            "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0,
                        "access_bps": 100e6, "access_delay_ms": delays, "receiver_delay_ms": 2.0, "buffer_pkts": 20, "queue": queue},
            "traffic": workload(), "metrics": {"series": false}
        });
        let mut links = vec![json!({"name": "bottleneck", "a": "R0", "b": "R1", "rate_bps": 10e6, "delay_ms": 5.0})];
        for (i, d) in delays.iter().enumerate() {
            links.push(json!({"name": format!("access{i}"), "a": format!("s{i}"), "b": "R0", "rate_bps": 100e6, "delay_ms": d}));
            links.push(json!({"name": format!("egress{i}"), "a": "R1", "b": format!("d{i}"), "rate_bps": 100e6, "delay_ms": 2.0}));
        }
        let graph = json!({
            "seed": 11,
            "network": {"topology": "graph", "buffer_pkts": 20, "queue": queue,
                        "graph": {"routers": ["R0", "R1"], "links": links, "paths": [["s0", "d0"], ["s1", "d1"], ["s2", "d2"]],
                                  "bottleneck": "bottleneck"}},
            "traffic": workload(), "metrics": {"series": false}
        });
        let (a, b) = (flows(&builtin), flows(&graph));
        assert!(
            a.iter().map(|f| f.drops).sum::<u64>() > 0,
            "{queue}: the workload should drop packets"
        );
        assert_eq!(a, b, "{queue}");
    }
}

#[test]
fn a_chain_gives_the_store_and_forward_fct() {
    // h0 -(100 Mb/s, 1 ms)- r0 -(10 Mb/s, 5 ms)- r1 -(50 Mb/s, 2 ms)- h1, no
    // handshake, initial window 4: n <= 4 packets leave back to back and the
    // slowest hop spaces them, so the last arrives after the first packet's
    // trip (each hop: serialisation + delay) plus (n - 1) serialisations at
    // 10 Mb/s.
    let hops = [(100e6, 1_000_000u64), (10e6, 5_000_000), (50e6, 2_000_000)];
    for n in [1u64, 2, 4] {
        let v = json!({
            "network": {"topology": "graph", "buffer_pkts": 100,
                        "graph": {"routers": ["r0", "r1"], "paths": [["h0", "h1"]], "links": [
                            {"a": "h0", "b": "r0", "rate_bps": 100e6, "delay_ms": 1.0},
                            {"a": "r0", "b": "r1", "rate_bps": 10e6, "delay_ms": 5.0},
                            {"a": "r1", "b": "h1", "rate_bps": 50e6, "delay_ms": 2.0}]}},
            "transport": {"handshake": false, "init_cwnd_pkts": 4},
            "flows": [{"size_pkts": n}], "metrics": {"series": false}
        });
        let first: u64 = hops.iter().map(|&(r, d)| ser(1040, r) + d).sum();
        let expect = first + (n - 1) * ser(1040, 10e6);
        let f = &flows(&v)[0];
        assert_eq!(f.fct_ns(), Some(expect), "n = {n}");
        assert_eq!(f.ideal_ns, expect, "n = {n}");
    }
}

#[test]
fn the_bottleneck_sets_load_and_the_buffer() {
    // Without `bottleneck`, the slowest link is it: load 0.5 of 10 Mb/s with
    // 20-packet flows of 1040 B on the wire is 10e6 * 0.5 / (8 * 20 * 1040) =
    // 30.05 flows/s; 1 BDP over the mean base RTT (2 x 8 ms) is
    // ceil(10e6 * 0.016 / 8 / 1040) = 20 packets.
    let v = json!({
        "network": {"topology": "graph", "graph": {"routers": ["r"], "paths": [["a", "b"]], "links": [
            {"a": "a", "b": "r", "rate_bps": 100e6, "delay_ms": 3.0}, {"a": "r", "b": "b", "rate_bps": 10e6, "delay_ms": 5.0}]}},
        "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": {"dist": "fixed", "pkts": 20}, "count": 10}]
    });
    let plan = from_json(&v.to_string()).expect("accepted");
    assert_eq!(plan.buffer_pkts, 20);
    assert_eq!(plan.topology.links[plan.topology.bottleneck as usize].name, "r-b");
    let fctlab_core::workload::Arrivals::Poisson { mean_gap_ns } = plan.generators[0].arrivals else {
        panic!("poisson")
    };
    assert!((1e9 / mean_gap_ns - 10e6 * 0.5 / (8.0 * 20.0 * 1040.0)).abs() < 1e-9);
}

fn refused(v: Value) -> (String, String) {
    let e = from_json(&v.to_string())
        .err()
        .unwrap_or_else(|| panic!("accepted: {v}"));
    (e.field, e.message)
}

#[test]
fn bad_graphs_are_refused_naming_the_key() {
    let base = || {
        json!({"network": {"topology": "graph", "graph": {"routers": ["r"], "paths": [["a", "b"]], "links": [
            {"a": "a", "b": "r", "rate_bps": 1e7}, {"a": "r", "b": "b", "rate_bps": 1e7}]}}, "flows": [{"size_pkts": 3}]})
    };
    assert!(from_json(&base().to_string()).is_ok());
    let mut v = base();
    v["network"]["graph"]["paths"] = json!([["a", "z"]]);
    assert_eq!(refused(v).0, "network.graph.paths[0]");
    let mut v = base();
    v["network"]["graph"]["links"][1]["a"] = json!("c");
    let (f, m) = refused(v);
    assert_eq!(f, "network.graph.paths[0]");
    assert!(m.contains("no route"), "{m}");
    let mut v = base();
    v["network"]["graph"]["routers"] = json!(["r", "r"]);
    assert_eq!(refused(v).0, "network.graph.routers[1]");
    let mut v = base();
    v["network"]["graph"]["links"][0]["rate_bps"] = json!(0);
    assert_eq!(refused(v).0, "network.graph.links[0].rate_bps");
    let mut v = base();
    v["network"]["graph"]["links"][0]["speed"] = json!(1);
    assert!(refused(v).0.starts_with("network.graph.links"));
    let mut v = base();
    v["network"]["bottleneck_bps"] = json!(1e7);
    assert_eq!(refused(v).0, "network.bottleneck_bps");
    let mut v = base();
    v["network"]["senders"] = json!(2);
    assert_eq!(refused(v).0, "network.senders");
    let mut v = base();
    v["flows"][0]["sender"] = json!(1);
    assert_eq!(refused(v).0, "flows[0].sender");
    let mut v = base();
    v["network"]["graph"]["bottleneck"] = json!("nope");
    assert_eq!(refused(v).0, "network.graph.bottleneck");
    // The built-in shapes still need a bottleneck rate.
    let v = json!({"network": {"topology": "dumbbell"}, "flows": [{"size_pkts": 1}]});
    assert_eq!(refused(v).0, "network.bottleneck_bps");
}

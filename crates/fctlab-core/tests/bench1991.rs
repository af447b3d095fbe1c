//! Parts of the 1991 benchmark suite (Kanakia, Keshav & Mishra) checked
//! against hand calculations: DECbit's window sequence end to end, the probe
//! source's delays on an idle path, and the open-loop sources' packet counts.

mod common;
use common::{run_json, ser};
use serde_json::{json, Value};

/// s0 -- R0 -- R1 -- d0 (and s1 -- R0, R1 -- d1): access and egress links at
/// `edge_bps` with 1 ms, the R0-R1 link at `core_bps` with 20 ms.
fn chain(edge_bps: f64, core_bps: f64, queue: &str, buffer: u64) -> Value {
    json!({"topology": "graph", "buffer_pkts": buffer, "queue": queue,
           "graph": {"routers": ["R0", "R1"],
                     "links": [{"name": "access0", "a": "s0", "b": "R0", "rate_bps": edge_bps, "delay_ms": 1.0},
                               {"name": "access1", "a": "s1", "b": "R0", "rate_bps": edge_bps, "delay_ms": 1.0},
                               {"name": "core", "a": "R0", "b": "R1", "rate_bps": core_bps, "delay_ms": 20.0},
                               {"name": "egress0", "a": "R1", "b": "d0", "rate_bps": edge_bps, "delay_ms": 1.0},
                               {"name": "egress1", "a": "R1", "b": "d1", "rate_bps": edge_bps, "delay_ms": 1.0}],
                     "paths": [["s0", "d0"], ["s1", "d1"]], "bottleneck": "core"}})
}

const MS: u64 = 1_000_000;

#[test]
fn decbit_sends_windows_1_1_2_2_3_3_on_an_idle_path() {
    // 1 Gb/s everywhere: a 1040-byte packet takes 8.32 us per hop, so a round
    // of up to 14 packets adds well under 1 ms to the 44 ms propagation RTT.
    // Windows per round 1, 1, 2, 2, 3, 3, ...: 4 packets need 3 rounds
    // (1 + 1 + 2), 20 need 8 (1+1+2+2+3+3+4+4), 200 need 28 (two rounds of
    // each window 1..13 carry 182, the 28th round the last 18 of its 14).
    for (pkts, rounds) in [(4u64, 3u64), (20, 8), (200, 28)] {
        let sc = json!({
            "network": chain(1e9, 1e9, "decbit", 1000),
            "transport": {"scheme": "decbit", "init_cwnd_pkts": 1, "handshake": false},
            "flows": [{"size_pkts": pkts, "sender": 0}], "metrics": {"series": false}
        });
        let out = run_json(&sc);
        let f = &out.flows[0];
        let t = f.acked_ns.unwrap() - f.start_ns;
        assert_eq!(t / (44 * MS), rounds, "{pkts} packets: {t} ns");
        assert!(t % (44 * MS) < MS, "{pkts} packets: {t} ns");
        assert_eq!(
            (f.marks, f.drops, f.retransmits),
            (0, 0, 0),
            "an idle path averages well below one packet"
        );
    }
}

#[test]
fn decbit_marks_a_shared_bottleneck_and_keeps_its_queue_short() {
    // Two DECbit flows of 3000 packets through a 10 Mb/s core with 100
    // buffers: the bits hold the windows near the pipe (about 55 packets of
    // 1040 B in 46 ms), so the routers mark and never overflow.
    let sc = json!({
        "network": chain(100e6, 10e6, "decbit", 100),
        "transport": {"scheme": "decbit", "init_cwnd_pkts": 1, "handshake": false},
        "flows": [{"size_pkts": 3000, "sender": 0}, {"size_pkts": 3000, "sender": 1}], "metrics": {"series": false}
    });
    let out = run_json(&sc);
    assert!(out.flows.iter().all(|f| f.acked_ns.is_some()));
    assert!(out.counters.marks > 0);
    assert_eq!(out.counters.packets_dropped, 0);
}

#[test]
fn probe_delay_on_an_idle_path_is_propagation_plus_serialisation() {
    // 100 Mb/s access and egress, 40 Mb/s core; 1 + 20 + 1 ms each way.
    // A 500-byte probe: 22 ms + 500 B at 100, 40 and 100 Mb/s; its answer is a
    // 40-byte header (mss 460 + header 40) the same way back.
    let sc = json!({
        "network": chain(100e6, 40e6, "droptail", 100),
        "transport": {"mss_bytes": 460, "header_bytes": 40},
        "stop_s": 1.0,
        "traffic": [{"arrivals": "probe", "senders": [1]}], "metrics": {"series": false}
    });
    let out = run_json(&sc);
    let one_way = 22 * MS + 2 * ser(500, 100e6) + ser(500, 40e6);
    let back = 22 * MS + 2 * ser(40, 100e6) + ser(40, 40e6);
    assert_eq!((one_way, one_way + back), (22_180_000, 44_194_400));
    let p = &out.probes;
    // One every 20 ms from 0: sent at 0, 20, ..., 980 ms; those sent after
    // 1000 - 22.18 ms arrive after the stop.
    assert_eq!(p.len(), 49);
    assert!(p.sent_ns.iter().enumerate().all(|(i, &s)| s == i as u64 * 20 * MS));
    assert!(p.one_way_ns.iter().all(|&d| d == one_way));
    // Answers back by 1 s: those sent up to 940 ms (940 + 44.19 < 1000).
    assert_eq!(p.rtt_ns.iter().filter(|r| r.is_some()).count(), 48);
    assert!(p.rtt_ns.iter().flatten().all(|&d| d == one_way + back));
}

#[test]
fn probe_interval_and_size_are_taken_from_the_entry() {
    // 500 ms interval (the benchmark's low bandwidth-delay run), 100-byte probes.
    let sc = json!({
        "network": chain(100e6, 40e6, "droptail", 100),
        "transport": {"mss_bytes": 460, "header_bytes": 40},
        "stop_s": 2.0,
        "traffic": [{"arrivals": "probe", "senders": [0], "interval_ms": 500, "pkt_bytes": 100}], "metrics": {"series": false}
    });
    let out = run_json(&sc);
    assert_eq!(out.probes.sent_ns, vec![0, 500 * MS, 1000 * MS, 1500 * MS]);
    let one_way = 22 * MS + 2 * ser(100, 100e6) + ser(100, 40e6);
    assert!(out.probes.one_way_ns.iter().all(|&d| d == one_way));
}

#[test]
fn poisson_packet_count_is_within_its_derived_bound() {
    // rate_per_s 10 000 for 1 s: the count is Poisson with mean 10 000 and
    // standard deviation 100; |N - 10 000| < 500 fails with probability
    // about 6e-7 per seed. The run lasts to 1.1 s so every packet (sent
    // before 1 s on an idle 1 Gb/s path) is delivered; none is acknowledged.
    for seed in [1u64, 2, 3] {
        let sc = json!({
            "seed": seed,
            "network": chain(1e9, 1e9, "droptail", 1000),
            "stop_s": 1.1,
            "traffic": [{"arrivals": "poisson-packets", "rate_per_s": 10000.0, "senders": [0], "stop_s": 1.0}],
            "metrics": {"series": false}
        });
        let out = run_json(&sc);
        let n = out.counters.data_delivered as i64;
        assert!((n - 10_000).abs() < 500, "seed {seed}: {n} packets");
        assert_eq!(
            out.counters.packets_delivered as i64, n,
            "open-loop packets are not acknowledged"
        );
    }
    // `load` is the entry's aggregate: load 0.5 of a 1 Gb/s core with
    // 1040-byte packets over two senders is 60 096 packets/s in all.
    let sc = json!({
        "seed": 4,
        "network": chain(1e9, 1e9, "droptail", 1000),
        "stop_s": 0.6,
        "traffic": [{"arrivals": "poisson-packets", "load": 0.5, "stop_s": 0.5}],
        "metrics": {"series": false}
    });
    let out = run_json(&sc);
    let mean = 0.5 * 1e9 / (8.0 * 1040.0) * 0.5;
    let n = out.counters.data_delivered as f64;
    assert!((n - mean).abs() < 5.0 * mean.sqrt(), "{n} vs {mean}");
}

#[test]
fn on_off_sources_send_their_deterministic_count() {
    // The torture test's sources: 1/4 of a 40 Mb/s core (10 Mb/s) for 2.5 ms,
    // then 1.5 ms idle. 500-byte packets every 0.4 ms: 7 per on period
    // (0, 0.4, ..., 2.4 ms); periods start every 4 ms: 10 in 40 ms.
    let sc = json!({
        "network": chain(100e6, 40e6, "droptail", 100),
        "transport": {"mss_bytes": 460, "header_bytes": 40},
        "stop_s": 0.1,
        "traffic": [{"arrivals": "on-off", "load": 0.25, "on_ms": 2.5, "off_ms": 1.5, "senders": [0], "stop_s": 0.04}],
        "metrics": {"series": false}
    });
    let out = run_json(&sc);
    assert_eq!(out.counters.data_delivered, 70);
}

#[test]
fn open_loop_sources_refuse_bad_keys() {
    let bad = |traffic: Value| {
        let sc = json!({"network": chain(1e9, 1e9, "droptail", 10), "traffic": [traffic]});
        fctlab_core::from_json(&sc.to_string())
            .err()
            .map(|e| e.field)
            .unwrap_or_default()
    };
    assert_eq!(bad(json!({"arrivals": "probe"})), "traffic[0].stop_s");
    assert_eq!(
        bad(json!({"arrivals": "probe", "stop_s": 1.0, "interval_ms": 0})),
        "traffic[0].interval_ms"
    );
    assert_eq!(
        bad(json!({"arrivals": "probe", "stop_s": 1.0, "load": 0.5})),
        "traffic[0].load"
    );
    assert_eq!(
        bad(json!({"arrivals": "on-off", "stop_s": 1.0, "load": 0.5})),
        "traffic[0].on_ms"
    );
    assert_eq!(
        bad(json!({"arrivals": "poisson-packets", "stop_s": 1.0})),
        "traffic[0].load"
    );
    assert_eq!(
        bad(json!({"arrivals": "poisson-packets", "stop_s": 1.0, "load": 0.5, "pkt_bytes": 0})),
        "traffic[0].pkt_bytes"
    );
}

#[test]
fn the_1991_schemes_keep_the_invariants_on_random_scenarios() {
    // Conservation, queue limits, causality, no FCT below the empty path and
    // determinism (common::assert_invariants), for each new scheme over its
    // router, with a probe and a Poisson packet stream beside the flows.
    use rand::SeedableRng;
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(1991);
    let schemes = [
        ("decbit", "decbit"),
        ("tri-s", "droptail"),
        ("dual", "droptail"),
        ("packet-pair", "fq"),
        ("e2e-ef", "fq-ef"),
    ];
    for case in 0..30 {
        let (scheme, queue) = schemes[case % schemes.len()];
        let mut v = common::random_scenario(&mut r, case as u64, 60);
        v["transport"]["scheme"] = json!(scheme);
        v["network"]["queue"] = json!(queue);
        if case % 2 == 0 {
            let last = v["network"]["senders"].as_u64().unwrap_or(1) as u32 - 1;
            v["traffic"]
                .as_array_mut()
                .unwrap()
                .push(json!({"arrivals": "probe", "senders": [last], "stop_s": 5.0}));
            v["traffic"]
                .as_array_mut()
                .unwrap()
                .push(json!({"arrivals": "poisson-packets", "load": 0.1, "senders": [0], "stop_s": 2.0}));
        }
        let out = run_json(&v);
        let what = format!("case {case} ({scheme})");
        if case % 2 == 1 {
            common::assert_invariants(&v, &out, &what);
        } else {
            // The open-loop rows never complete: the same checks on the finite flows.
            let c = &out.counters;
            assert_eq!(
                c.packets_sent,
                c.packets_delivered + c.packets_dropped + out.in_network,
                "{what}: conservation"
            );
            assert!(c.max_queue_excess <= 0, "{what}: queue above its limit");
            for f in out.flows.iter().filter(|f| !f.long_lived) {
                let fct = f
                    .fct_ns()
                    .unwrap_or_else(|| panic!("{what}: flow {} did not complete: {v}", f.flow_id));
                assert!(
                    fct >= f.ideal_ns && f.acked_ns.unwrap() > f.finish_ns.unwrap(),
                    "{what}: flow {}",
                    f.flow_id
                );
            }
            assert_eq!(
                out.flows.iter().filter(|f| f.long_lived).count(),
                2,
                "{what}: one row per open-loop source"
            );
            assert!(!out.probes.is_empty(), "{what}: the probe ran");
        }
        assert_eq!(out.flows, run_json(&v).flows, "{what}: deterministic");
    }
}

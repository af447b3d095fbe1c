//! Measuring flows (Mussmann 2012, section 4.2): the time from a flow's start
//! until packets 1..k have all reached the receiver, for every k, is the FCT
//! of a k-packet flow. On an empty path these times follow the slow-start hand
//! model of `empty_path.rs` packet by packet; a loss holds every later prefix
//! until the hole is filled; generators mark flows without changing them.

mod common;
use common::{run_json, slow_start_arrivals, Path};
use fctlab_core::RunOutput;
use serde_json::{json, Value};

/// The prefix rows of flow `f`: (k, fct_ns), in k order.
fn prefixes(out: &RunOutput, f: u64) -> Vec<(u64, u64)> {
    let p = &out.prefixes;
    (0..p.len())
        .filter(|&i| p.flow_id[i] == f)
        .map(|i| (p.k[i], p.fct_ns[i]))
        .collect()
}

/// What the hand model says: prefix k completes when the latest of packets
/// 1..k arrives (the flow starts at 0 in the model).
fn model_prefixes(arrive: &[u64]) -> Vec<(u64, u64)> {
    let mut latest = 0;
    arrive
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            latest = latest.max(a);
            (i as u64 + 1, latest)
        })
        .collect()
}

fn single_link(rate: f64, delay_ms: f64, iw: u64, n: u64, handshake: bool) -> Value {
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": rate, "bottleneck_delay_ms": delay_ms, "buffer_pkts": 100000},
        "transport": {"init_cwnd_pkts": iw, "handshake": handshake},
        "flows": [{"size_pkts": n, "start_s": 0.25, "measure": true}],
        "metrics": {"series": false}
    })
}

#[test]
fn every_prefix_of_a_lone_flow_follows_the_slow_start_model() {
    for &(rate, delay_ms, iw, n, hs) in &[
        (10e6f64, 10.0f64, 2u64, 1u64, true),
        (10e6, 10.0, 2, 50, true),
        (10e6, 10.0, 1, 31, true),
        (100e6, 5.0, 3, 200, false),
        (1e9, 50.0, 10, 1000, true),
        (8.32e6, 1.0, 4, 100, true), // serialisation-bound: the port queues
    ] {
        let d = (delay_ms * 1e6).round() as u64;
        let path: Path = vec![(rate, d)];
        let want = model_prefixes(&slow_start_arrivals(n, iw, &path, &path, hs, 1000));
        let out = run_json(&single_link(rate, delay_ms, iw, n, hs));
        let got = prefixes(&out, 0);
        assert_eq!(got.len() as u64, n, "one row per k");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w, "rate {rate} delay {delay_ms} iw {iw} n {n}: prefix k = {}", w.0);
        }
        // The whole flow's prefix is its FCT.
        assert_eq!(Some(got[n as usize - 1].1), out.flows[0].fct_ns());
    }
}

#[test]
fn prefixes_across_three_hops_with_a_short_last_packet() {
    // access 100 Mb/s (5 ms) -> bottleneck 10 Mb/s (10 ms) -> egress 100 Mb/s (2 ms).
    let v = json!({
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                     "access_bps": 100e6, "access_delay_ms": 5.0, "receiver_delay_ms": 2.0, "buffer_pkts": 100000},
        "transport": {"init_cwnd_pkts": 2},
        "flows": [{"size_bytes": 39_500, "measure": true}],
        "metrics": {"series": false}
    });
    let fwd: Path = vec![(100e6, 5_000_000), (10e6, 10_000_000), (100e6, 2_000_000)];
    let rev: Path = fwd.iter().rev().cloned().collect();
    let want = model_prefixes(&slow_start_arrivals(40, 2, &fwd, &rev, true, 500));
    let out = run_json(&v);
    assert_eq!(prefixes(&out, 0), want);
}

#[test]
fn a_lost_packet_holds_every_later_prefix_until_it_is_repaired() {
    // Packet seq 5 (k = 6) of a 40-packet flow is lost once. Prefixes 1..5
    // are those of the lossless model; prefix 6 waits for the retransmission,
    // and every packet that arrived meanwhile completes its prefix at that
    // same moment.
    let mut v = single_link(10e6, 10.0, 2, 40, true);
    v["flows"][0]["start_s"] = json!(0.0);
    v["losses"] = json!([{"flow": 0, "seq": 5}]);
    let out = run_json(&v);
    let got = prefixes(&out, 0);
    let path: Path = vec![(10e6, 10_000_000)];
    let clean = model_prefixes(&slow_start_arrivals(40, 2, &path, &path, true, 1000));
    assert_eq!(&got[..5], &clean[..5]);
    assert_eq!(got.len(), 40);
    let repaired = got[5].1;
    assert!(
        repaired > clean[5].1 + 2 * 10_000_000,
        "the repair takes at least a round trip"
    );
    let held = got.iter().filter(|r| r.1 == repaired).count();
    assert!(
        held > 1,
        "packets received out of order complete together with the hole"
    );
    assert!(got.windows(2).all(|w| w[0].1 <= w[1].1 && w[1].0 == w[0].0 + 1));
    assert_eq!(Some(got[39].1), out.flows[0].fct_ns());
}

fn poisson(extra: Value) -> Value {
    let mut t = json!({"arrivals": "poisson", "load": 0.7, "sizes": {"dist": "pareto", "mean_pkts": 8, "shape": 1.5}, "count": 400});
    for (k, x) in extra.as_object().unwrap() {
        t[k] = x.clone();
    }
    json!({
        "seed": 5,
        "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0, "buffer_pkts": 20},
        "traffic": [t],
        "metrics": {"series": false}
    })
}

/// The flows that have prefix rows, and a check that each has k = 1..size.
fn measured(out: &RunOutput) -> Vec<u64> {
    let mut ids: Vec<u64> = out.prefixes.flow_id.clone();
    ids.dedup();
    for &f in &ids {
        let rows = prefixes(out, f);
        let n = out.flows[f as usize].size_pkts;
        assert_eq!(
            rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            (1..=n).collect::<Vec<_>>(),
            "flow {f}"
        );
        assert_eq!(Some(rows[n as usize - 1].1), out.flows[f as usize].fct_ns(), "flow {f}");
    }
    ids
}

#[test]
fn generators_mark_every_nth_flow_without_changing_the_workload() {
    let plain = run_json(&poisson(json!({})));
    assert!(plain.prefixes.is_empty(), "no measuring flow, no rows");
    let every = run_json(&poisson(json!({"measure_every": 10})));
    assert_eq!(every.flows, plain.flows, "measuring changes nothing of the run");
    // Flows 10, 20, ... of the generator: ids 9, 19, ..., 399.
    assert_eq!(measured(&every), (0..40).map(|i| 10 * i + 9).collect::<Vec<u64>>());
    let all = run_json(&poisson(json!({"measure_every": 1})));
    assert_eq!(measured(&all), (0..400).collect::<Vec<u64>>());
    // Explicit flows come first: a measuring explicit flow is id 0 and the
    // generator's ids shift by one.
    let mut v = poisson(json!({"measure_every": 100}));
    v["flows"] = json!([{"sender": 1, "size_pkts": 30, "start_s": 0.1, "measure": true}]);
    assert_eq!(measured(&run_json(&v)), vec![0, 100, 200, 300, 400]);
}

#[test]
fn a_fraction_of_flows_is_marked_from_a_stream_of_its_own() {
    let mut v = poisson(json!({"measure_fraction": 0.3}));
    v["traffic"][0]["count"] = json!(2000);
    let out = run_json(&v);
    let mut base = v.clone();
    base["traffic"][0].as_object_mut().unwrap().remove("measure_fraction");
    assert_eq!(
        out.flows,
        run_json(&base).flows,
        "the draws do not touch the workload's stream"
    );
    // Binomial(2000, 0.3): mean 600, sd sqrt(2000 x 0.3 x 0.7) = 20.49; two-sided
    // significance 0.001 allows 3.29 sd.
    let m = measured(&out).len() as f64;
    assert!((m - 600.0).abs() < 3.29 * 20.49, "{m} measuring flows");
    assert_eq!(run_json(&v).prefixes, out.prefixes, "same seed, same rows");
}

#[test]
fn closed_loop_and_long_lived_measuring_flows() {
    let v = json!({
        "stop_s": 6.0,
        "network": {"topology": "half-dumbbell", "senders": 2, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                     "access_bps": 10e6, "access_delay_ms": 10.0, "buffer_pkts": 50},
        "transport": {"scheme": "tcp-reno", "init_cwnd_pkts": 10},
        "traffic": [
            {"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": 32}, "senders": [0], "measure_every": 3},
            {"arrivals": "long-lived", "senders": [1], "measure_every": 1}
        ],
        "metrics": {"series": false}
    });
    let out = run_json(&v);
    let closed: Vec<u64> = out.flows.iter().filter(|f| !f.long_lived).map(|f| f.flow_id).collect();
    let long = out
        .flows
        .iter()
        .find(|f| f.long_lived)
        .expect("long-lived flow")
        .flow_id;
    let mut ids = out.prefixes.flow_id.clone();
    ids.dedup();
    // Every third closed-loop flow, and the long-lived one.
    let marked: Vec<u64> = closed.iter().copied().skip(2).step_by(3).collect();
    assert!(ids.iter().all(|f| *f == long || marked.contains(f)), "{ids:?}");
    let want: Vec<u64> = marked
        .iter()
        .copied()
        .filter(|&f| out.flows[f as usize].completed())
        .collect();
    assert!(want.len() >= 5, "{} completed measuring flows", want.len());
    for f in &want {
        assert!(ids.contains(f), "flow {f}");
        let rows = prefixes(&out, *f);
        assert_eq!(rows.len(), 32);
        assert_eq!(Some(rows[31].1), out.flows[*f as usize].fct_ns());
    }
    // The long-lived flow's prefixes run on until the stop: k = 1, 2, 3, ...
    let rows = prefixes(&out, long);
    assert!(rows.len() > 100, "{} rows", rows.len());
    assert!(rows.iter().enumerate().all(|(i, r)| r.0 == i as u64 + 1));
    assert!(rows.last().unwrap().1 <= 6_000_000_000 - out.flows[long as usize].start_ns);
}

#[test]
fn measuring_keys_are_checked() {
    for (extra, field) in [
        (json!({"measure_every": 0}), "traffic[0].measure_every"),
        (json!({"measure_fraction": 1.5}), "traffic[0].measure_fraction"),
        (
            json!({"measure_fraction": 0.5, "measure_every": 2}),
            "traffic[0].measure_fraction",
        ),
    ] {
        let e = fctlab_core::from_json(&poisson(extra).to_string())
            .err()
            .expect("refused");
        assert_eq!(e.field, field, "{e}");
    }
}

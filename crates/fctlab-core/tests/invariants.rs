//! Randomised scenarios: invariants that must hold in every run.
//! - packet conservation: sent = delivered + dropped + still in the network;
//! - no queue ever above its limit;
//! - causality (the event queue panics on an event in the past);
//! - no FCT below the flow's empty-path, line-rate FCT (plus the handshake);
//! - determinism: the same scenario and seed give identical records.

mod common;
use common::{assert_invariants, random_scenario, run_json};
use rand::SeedableRng;
use serde_json::json;

#[test]
fn randomised_scenarios_keep_the_invariants() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(2026);
    let (mut drops, mut retx) = (0, 0);
    for case in 0..40 {
        let v = random_scenario(&mut r, case, 60);
        let (d, x) = assert_invariants(&v, &run_json(&v), &format!("case {case}"));
        drops += d;
        retx += x;
    }
    // The cases must exercise loss and recovery for the checks to mean anything.
    assert!(drops > 100 && retx > 100, "drops {drops}, retransmits {retx}");
}

#[test]
fn randomised_scenarios_keep_the_invariants_under_the_ns3_preset() {
    // ns-3's window rule (dupack_window = "pipe") and the other ns3 options
    // drive their own recovery paths: the same invariants must hold there.
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(2027);
    let (mut drops, mut retx) = (0, 0);
    for case in 0..40 {
        let mut v = random_scenario(&mut r, case, 60);
        v["transport"]["preset"] = json!("ns3");
        let (d, x) = assert_invariants(&v, &run_json(&v), &format!("ns3 case {case}"));
        drops += d;
        retx += x;
    }
    assert!(drops > 100 && retx > 100, "drops {drops}, retransmits {retx}");
}

#[test]
fn same_seed_same_records_other_seed_other_records() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    let v = random_scenario(&mut r, 11, 60);
    let a = run_json(&v).flows;
    let b = run_json(&v).flows;
    assert_eq!(a, b);
    let mut v2 = v.clone();
    v2["seed"] = json!(12);
    let c = run_json(&v2).flows;
    assert_ne!(a, c);
}

#[test]
fn long_lived_flows_share_and_stop_at_stop_s() {
    // Two long-lived flows on a 10 Mb/s dumbbell for 20 s: the bottleneck is
    // busy nearly all the time, neither flow completes, and the run ends at stop_s.
    let v = json!({
        "stop_s": 20.0,
        "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "access_delay_ms": 5.0},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 100.0}
    });
    let out = run_json(&v);
    assert_eq!(out.flows.len(), 2);
    assert!(out.flows.iter().all(|f| f.finish_ns.is_none()));
    assert!(out.end_ns <= 20_000_000_000);
    // Utilisation after the first few seconds: data delivered close to capacity.
    let delivered_bits = out.counters.data_delivered as f64 * 1040.0 * 8.0;
    assert!(delivered_bits > 0.85 * 10e6 * 20.0, "{delivered_bits}");
    assert!(delivered_bits <= 10e6 * 20.0);
    // Packets delivered in order by the stop time: counted once each, so no
    // more than the arrivals, and most of them (losses are few).
    let unique: u64 = out.flows.iter().map(|f| f.delivered_pkts).sum();
    assert!(unique <= out.counters.data_delivered);
    assert!(unique as f64 * 1040.0 * 8.0 > 0.8 * 10e6 * 20.0, "{unique}");
}

#[test]
fn closed_loop_generator_starts_the_next_flow_after_the_last() {
    // One sender, 5 flows of 10 packets back to back, no think time: each flow
    // starts exactly when the previous one is acknowledged.
    let v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0},
        "traffic": [{"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": 10}, "count": 5}],
        "metrics": {"series": false}
    });
    let fl = run_json(&v).flows;
    assert_eq!(fl.len(), 5);
    for w in fl.windows(2) {
        assert_eq!(w[1].start_ns, w[0].acked_ns.unwrap());
    }
    // Identical flows on an idle path take identical times.
    assert!(fl.iter().all(|f| f.fct_ns() == fl[0].fct_ns()));
}

#[test]
fn poisson_arrival_rate_matches_the_load() {
    // load 0.5 of 100 Mb/s with fixed 10-packet flows of 1040 B packets on the
    // wire: lambda = 0.5e8 / (8 * 10 * 1040) = 600.96 flows/s. Over 20 000 flows
    // the mean gap's relative standard error is 1/sqrt(20 000) = 0.7%; allow 3%.
    let v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": 100e6, "bottleneck_delay_ms": 1.0},
        "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": {"dist": "fixed", "pkts": 10}, "count": 20000}],
        "metrics": {"series": false}
    });
    let fl = run_json(&v).flows;
    let span = (fl.last().unwrap().start_ns - fl[0].start_ns) as f64 / 1e9;
    let lambda = (fl.len() - 1) as f64 / span;
    let expect = 0.5e8 / (8.0 * 10.0 * 1040.0);
    assert!((lambda / expect - 1.0).abs() < 0.03, "lambda {lambda} vs {expect}");
}

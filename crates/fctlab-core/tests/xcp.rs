//! XCP end to end (Katabi, Handley & Rohrs 2002): the equilibrium the control
//! laws aim at, RTT-independent sharing, the 2006 FCT paper's point about new
//! flows under load, invariants on random scenarios, and refused input.
mod common;
use common::{assert_invariants, run_json};
use fctlab_core::metrics::FlowRecord;
use fctlab_core::{from_json, RunOutput};
use rand::SeedableRng;
use serde_json::{json, Value};

fn series_of(out: &RunOutput, metric: &str, element: &str) -> Vec<(u64, f64)> {
    let s = &out.series;
    let m = s.metric_names.iter().position(|n| n == metric).unwrap() as u16;
    let e = s
        .element_names
        .iter()
        .position(|n| n == element)
        .unwrap_or_else(|| panic!("no series for {element}")) as u32;
    (0..s.t_ns.len())
        .filter(|&i| s.metric[i] == m && s.element[i] == e)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

fn mean_after(v: &[(u64, f64)], t0: u64) -> f64 {
    let xs: Vec<f64> = v.iter().filter(|p| p.0 >= t0).map(|p| p.1).collect();
    assert!(!xs.is_empty());
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Jain's index (Σx)² / (n Σx²): 1 when all equal, 1/n when one takes all.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

const C_BPS: f64 = 20e6;
const PKT: f64 = 1040.0;

fn long_lived(delays: &[f64], stop_s: f64) -> Value {
    json!({
        "stop_s": stop_s,
        "network": {"topology": "dumbbell", "senders": delays.len(), "bottleneck_bps": C_BPS, "bottleneck_delay_ms": 10.0,
                    "access_delay_ms": delays, "buffer_pkts": 200, "queue": "xcp"},
        "transport": {"scheme": "xcp"},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 50.0, "cwnd_flows": (0..delays.len() as u64).collect::<Vec<_>>()}
    })
}

/// Per-flow rates over the second half of a long-lived run, from the mean
/// window: rate_i = cwnd_i / RTT_i, RTT_i = base RTT + the mean queueing
/// delay at the bottleneck (common to all flows) + one data packet's
/// serialisation there. Also returns the mean queue (packets) and utilisation.
fn shares(delays: &[f64], stop_s: f64) -> (Vec<f64>, f64, f64, u64) {
    let out = run_json(&long_lived(delays, stop_s));
    let half = (stop_s / 2.0 * 1e9) as u64;
    let q = mean_after(&series_of(&out, "queue_pkts", "bottleneck"), half);
    let u = mean_after(&series_of(&out, "utilization", "bottleneck"), half);
    let pkt_s = PKT * 8.0 / C_BPS;
    let rates = delays
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let w = mean_after(&series_of(&out, "cwnd_pkts", &format!("flow{i}")), half);
            let rtt = 2.0 * (d + 10.0) / 1e3 + (q + 1.0) * pkt_s;
            w / rtt
        })
        .collect();
    (rates, q, u, out.counters.packets_dropped)
}

#[test]
fn long_lived_flows_converge_to_the_fair_share_with_a_small_queue() {
    // XCP's equilibrium (paper §3): φ = α(C − y) − βQ/d = 0 and no shuffling
    // imbalance means y = C and Q = 0, each of N flows at C/N. Four flows,
    // equal RTT 30 ms, 20 Mb/s = 2403.8 packets/s of 1040 B: C/N = 601 pkt/s.
    // Tolerances: Jain > 0.99 (the brief's); the mean rate within 5% of C/N
    // (the window is sampled every 50 ms and the RTT estimate here ignores
    // access-link serialisation, < 1%); utilisation > 95% and a mean queue
    // under 5 packets (Q → 0; a few packets of burstiness from ACK clocking
    // are the residual); no drops with a 200-packet buffer.
    let (r, q, u, drops) = shares(&[5.0; 4], 30.0);
    let fair = C_BPS / (PKT * 8.0) / 4.0;
    assert!(jain(&r) > 0.99, "rates {r:?}");
    for x in &r {
        assert!((x / fair - 1.0).abs() < 0.05, "rate {x} vs fair {fair} ({r:?})");
    }
    assert!(u > 0.95, "utilisation {u}");
    assert!(q < 5.0, "mean queue {q} packets");
    assert_eq!(drops, 0);
}

#[test]
fn flows_with_different_rtts_share_fairly() {
    // RTTs 24, 40, 80 and 140 ms (a factor of almost 6). XCP's fairness
    // controller hands out equal throughput increments per flow regardless of
    // RTT (per-packet feedback ∝ rtt/cwnd, summed over the cwnd/rtt·d packets a
    // flow sends in an interval: the same for every flow), so rates converge to
    // C/N; TCP would give the 24 ms flow several times the 140 ms flow's rate.
    // Jain > 0.98 and max/min < 1.2: looser than the equal-RTT case because a
    // long-RTT flow's window adapts once per its own RTT and the control
    // interval is the average RTT (≈ 0.1 s here, from the Σ(rtt·x)/Σx estimate).
    let (r, q, u, _) = shares(&[2.0, 10.0, 30.0, 60.0], 40.0);
    let (mx, mn) = (
        r.iter().cloned().fold(0.0, f64::max),
        r.iter().cloned().fold(f64::MAX, f64::min),
    );
    assert!(jain(&r) > 0.98 && mx / mn < 1.2, "rates {r:?}");
    assert!(u > 0.95 && q < 5.0, "utilisation {u}, queue {q}");
}

fn poisson(scheme: &str, queue: &str, seed: u64) -> Value {
    json!({
        "seed": seed,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": C_BPS, "bottleneck_delay_ms": 20.0,
                    "access_delay_ms": 5.0, "queue": queue},
        "transport": {"scheme": scheme},
        "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 25, "shape": 1.2}, "count": 3000}],
        "metrics": {"series": false}
    })
}

fn mean_fct(f: &[FlowRecord], min_pkts: u64) -> f64 {
    let v: Vec<f64> = f
        .iter()
        .filter(|r| r.size_pkts > min_pkts)
        .map(|r| r.fct_ns().unwrap() as f64)
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn under_load_xcp_flows_take_longer_than_tcp_slow_start() {
    // The 2006 FCT paper (§II-A.2, Figs. 1, 2, 4): at load 0.9 a new XCP flow
    // gets bandwidth only through the shuffled γ = 10% of the input rate plus
    // whatever spare capacity φ finds, so it ramps up more slowly than TCP's
    // slow start, which doubles every RTT until a loss. Same workload (3000
    // Pareto flows, mean 25 packets, shape 1.2; RTT 50 ms; 1 BDP buffer) and
    // seed under both schemes: every flow completes, and flows of more than
    // 30 packets (the ones that need several RTTs either way) take longer on
    // average under XCP, by more than 15% (observed 30-65%; the threshold is
    // the claim's direction with a margin for the workload's heavy tail,
    // checked on two seeds).
    for seed in [1, 2] {
        let x = run_json(&poisson("xcp", "xcp", seed)).flows;
        let t = run_json(&poisson("tcp-newreno", "droptail", seed)).flows;
        assert!(
            x.iter().all(|f| f.completed()) && t.iter().all(|f| f.completed()),
            "seed {seed}"
        );
        let (mx, mt) = (mean_fct(&x, 30), mean_fct(&t, 30));
        assert!(mx > 1.15 * mt, "seed {seed}: xcp {mx} ns vs tcp {mt} ns");
    }
}

fn random_scenario(r: &mut rand_pcg::Pcg64Mcg, seed: u64) -> Value {
    let mut v = common::random_scenario(r, seed, 60);
    v["network"]["queue"] = json!("xcp");
    v["transport"]["scheme"] = json!("xcp");
    v
}

#[test]
fn randomised_scenarios_keep_the_invariants() {
    // The invariants of tests/invariants.rs, on XCP routers and hosts: packet
    // conservation, no queue above its limit, every finite flow completes, no
    // FCT below the ideal (plus the handshake's two bottleneck crossings), and
    // identical records for the same seed.
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(2002);
    for case in 0..30 {
        let v = random_scenario(&mut r, case);
        let out = run_json(&v);
        assert_invariants(&v, &out, &format!("case {case}"));
        if case < 3 {
            assert_eq!(run_json(&v).flows, out.flows, "determinism, case {case}");
        }
    }
}

fn refused(v: Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

#[test]
fn bad_input_is_refused() {
    let base = || json!({"network": {"bottleneck_bps": 1e7, "queue": "xcp"}, "transport": {"scheme": "xcp"}, "flows": [{"size_pkts": 3}]});
    assert!(from_json(&base().to_string()).is_ok());
    // The scheme without its router half.
    let mut v = base();
    v["network"]["queue"] = json!("droptail");
    let (f, m) = refused(v);
    assert_eq!(f, "network.queue");
    assert!(m.contains("xcp"), "{m}");
    // Out-of-range, unknown and mistyped keys of [network.xcp].
    for (k, val) in [
        ("alpha", json!(-0.4)),
        ("gamma", json!(2.0)),
        ("beta", json!(-1)),
        ("min_interval_ms", json!(0)),
        ("init_interval_ms", json!(-5)),
    ] {
        let mut v = base();
        v["network"]["xcp"] = json!({k: val});
        assert_eq!(refused(v).0, format!("network.xcp.{k}"));
    }
    let mut v = base();
    v["network"]["xcp"] = json!({"alpah": 0.4});
    let (f, m) = refused(v);
    assert_eq!(f, "network.xcp.alpah");
    assert!(m.contains("unknown key"), "{m}");
    let mut v = base();
    v["network"]["xcp"] = json!({"alpha": "high"});
    assert_eq!(refused(v).0, "network.xcp.alpha");
    // A [network.xcp] table for a queue that is not xcp.
    let mut v = base();
    v["network"]["queue"] = json!("droptail");
    v["transport"]["scheme"] = json!("tcp-newreno");
    v["network"]["xcp"] = json!({"alpha": 0.3});
    assert_eq!(refused(v).0, "network.xcp");
}

//! RCP end to end: the first rate a flow gets, convergence to C/N, FCT close
//! to processor sharing on a Poisson workload, invariants on random scenarios,
//! and refused configurations.

mod common;
use common::{assert_invariants, run_json, ser};
use fctlab_core::from_json;
use rand::SeedableRng;
use serde_json::{json, Value};

fn rcp(network: Value, traffic: Value) -> Value {
    let mut v = json!({"seed": 1, "transport": {"scheme": "rcp"}, "network": network});
    v["network"]["queue"] = json!("rcp");
    for (k, x) in traffic.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// One 2-packet flow on an empty single link, 10 Mb/s, 10 ms one way.
/// By hand (serialisation 40 B = 32 µs, 1040 B = 832 µs):
/// - t = 0: the SYN is dequeued at once; no slot boundary has passed (the
///   first is at T = min(0.2 s, 10 ms) = 10 ms), so it is stamped R0 = 0.05 C
///   = 500 kb/s.
/// - SYN at the receiver 10.032 ms, SYN-ACK back at 20.064 ms (RTT 20.064 ms).
/// - Data 0 leaves at 20.064 ms; interval = 1040·8/5e5 = 16.64 ms < RTT, so
///   no probes; data 1 leaves at 36.704 ms, before the first ACK (due at
///   20.064 + 0.832 + 10 + 0.032 + 10 = 40.928 ms) can change the rate.
/// - Data 1 reaches the receiver at 36.704 + 0.832 + 10 = 47.536 ms = FCT.
///
/// (This is the released patch's router and hosts, `mode = "ns2"`.)
#[test]
fn a_new_flow_starts_at_the_stamped_initial_rate() {
    let mut v = rcp(
        json!({"topology": "single-link", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100}),
        json!({"flows": [{"sender": 0, "size_pkts": 2, "start_s": 0.0}], "metrics": {"interval_ms": 1.0, "cwnd_flows": [0]}}),
    );
    v["network"]["rcp"] = json!({"mode": "ns2"});
    v["transport"]["rcp"] = json!({"mode": "ns2"});
    let out = run_json(&v);
    let f = &out.flows[0];
    let syn_rtt = 2 * (ser(40, 10e6) + 10_000_000);
    assert_eq!(syn_rtt, 20_064_000);
    let expect = syn_rtt + 16_640_000 + ser(1040, 10e6) + 10_000_000;
    assert_eq!(f.fct_ns(), Some(expect));
    assert_eq!(expect, 47_536_000);
    // Between the SYN-ACK and the first ACK the sender's "window" is
    // R0·RTT/(1040·8) = 5e5 · 0.020064 / 8320.
    let s = &out.series;
    let m = s.metric_names.iter().position(|n| n == "cwnd_pkts").unwrap() as u16;
    let w: Vec<f64> = (0..s.len())
        .filter(|&i| s.metric[i] == m && s.t_ns[i] > 21_000_000 && s.t_ns[i] < 40_000_000)
        .map(|i| s.value[i])
        .collect();
    assert!(!w.is_empty());
    for x in w {
        assert!((x - 5e5 * 0.020064 / 8320.0).abs() < 1e-9, "{x}");
    }
}

/// N long-lived flows on one 10 Mb/s link. The fixed point of
/// R <- R[1 + (T/d0)(α(γC − y) − βq/d0)/(γC)] with the queue steady needs
/// α(γC − y) = βq/d0 and no growth of q, i.e. y = γC and q = 0: each of the
/// N flows is stamped the same R = γC/N. Every sender paces at R on the wire,
/// so its window R·RTT/(1040·8) with RTT ≈ the base RTT 2·(5 + 10) ms.
#[test]
fn long_lived_flows_converge_to_c_over_n_with_a_small_queue() {
    for n in [2u64, 5] {
        let v = rcp(
            json!({"topology": "dumbbell", "senders": n, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "access_delay_ms": 5.0, "buffer_pkts": 1000}),
            json!({"stop_s": 40.0, "traffic": [{"arrivals": "long-lived"}], "metrics": {"interval_ms": 10.0, "cwnd_flows": (0..n).collect::<Vec<_>>()}}),
        );
        let out = run_json(&v);
        let s = &out.series;
        let id = |name: &str| s.metric_names.iter().position(|x| x == name).unwrap() as u16;
        let late = |i: usize| s.t_ns[i] >= 30_000_000_000;
        let (cw, q, u) = (id("cwnd_pkts"), id("queue_pkts"), id("utilization"));
        let mean = |m: u16| {
            let v: Vec<f64> = (0..s.len())
                .filter(|&i| late(i) && s.metric[i] == m)
                .map(|i| s.value[i])
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        // Base RTT: 2·(5 + 10 + 5 egress? no: dumbbell egress delay 0) ms plus serialisation.
        let rtt = 0.030;
        let per_flow = mean(cw); // averaged over all flows and samples
        let expect = 10e6 / n as f64 * rtt / 8320.0;
        assert!(
            (per_flow - expect).abs() / expect < 0.05,
            "n {n}: window {per_flow} vs {expect}"
        );
        for f in 0..n as usize {
            let v: Vec<f64> = (0..s.len())
                .filter(|&i| {
                    late(i) && s.metric[i] == cw && s.element_names[s.element[i] as usize].ends_with(&format!("{f}"))
                })
                .map(|i| s.value[i])
                .collect();
            let m = v.iter().sum::<f64>() / v.len() as f64;
            assert!((m - expect).abs() / expect < 0.05, "n {n} flow {f}: {m} vs {expect}");
        }
        assert!(mean(u) > 0.95, "utilisation {}", mean(u));
        assert!(mean(q) < 3.0, "queue {}", mean(q));
        assert_eq!(out.counters.packets_dropped, 0);
    }
}

/// The 2006 paper's Fig. 12 claim at small scale: Poisson arrivals of Pareto
/// (mean 25 packets, shape 1.2) flows at load 0.9 on a 10 Mb/s link, RTT
/// 2·(5 + 10) ms, an effectively infinite buffer (run-rcp.pl). Under PS every
/// flow's FCT is its `ps_fct_ns` (fluid max-min share of the actual workload,
/// plus propagation and the handshake). RCP hands every flow the same rate
/// and keeps the queue near empty, so its mean FCT stays within a small
/// factor of PS: what it adds is the 0.05C start before the router has seen
/// the load and one rate lag per RTT, well under one PS sojourn at ρ = 0.9,
/// whose slowdown is 1/(1 − ρ) = 10; we allow 1.5× with the patch's gains
/// (α = β = 0.4). With the paper's α = 0.1 the rate climbs 4× more slowly
/// from 0.05C (per idle slot ×(1 + (T/d0)α), d0 starting at 0.2 s) and a
/// 10 Mb/s link with 30 ms RTT has few flows to average over, so we allow 2.5×. TCP (NewReno, 2-packet
/// initial window, droptail 1 BDP) pays slow start, losses and timeouts and
/// must be clearly worse: at least 1.25× RCP's mean with either gain set.
#[test]
fn poisson_pareto_at_load_0_9_is_close_to_ps_and_beats_tcp() {
    let base = |scheme: &str, queue: &str, buffer: u64| {
        json!({
            "seed": 3,
            "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                        "access_delay_ms": 5.0, "buffer_pkts": buffer, "queue": queue},
            "transport": {"scheme": scheme},
            "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 25, "shape": 1.2}, "count": 3000}],
            "metrics": {"series": false}
        })
    };
    let tcp = run_json(&base("tcp-newreno", "droptail", 38));
    let tfct: f64 = tcp
        .flows
        .iter()
        .filter_map(|f| f.fct_ns())
        .map(|x| x as f64)
        .sum::<f64>()
        / tcp.flows.len() as f64;
    // Both parameter sets (DESIGN: ambiguous parameters shown both ways):
    // the patch's ns-default.tcl α = β = 0.4, and the paper's α = 0.1, β = 1.
    for (alpha, beta, bound) in [(0.4, 0.4, 1.5), (0.1, 1.0, 2.5)] {
        let mut v = base("rcp", "rcp", 100_000);
        v["network"]["rcp"] = json!({"alpha": alpha, "beta": beta});
        let out = run_json(&v);
        assert!(out.flows.iter().all(|f| f.completed()));
        let n = out.flows.len() as f64;
        let fct: f64 = out.flows.iter().map(|f| f.fct_ns().unwrap() as f64).sum::<f64>() / n;
        let ps: f64 = out.flows.iter().map(|f| f.ps_fct_ns.unwrap() as f64).sum::<f64>() / n;
        eprintln!(
            "alpha {alpha} beta {beta}: mean FCT rcp {:.1} ms, ps {:.1} ms, tcp {:.1} ms",
            fct / 1e6,
            ps / 1e6,
            tfct / 1e6
        );
        assert!(fct < bound * ps, "rcp {fct} vs ps {ps}");
        assert!(tfct > 1.25 * fct, "tcp {tfct} vs rcp {fct}");
    }
}

/// Randomised scenarios, every topology, small buffers so RCP's start-up
/// bursts (every new flow at the current R) can overflow them: conservation,
/// queue limits, completion and FCT above the empty-path ideal.
#[test]
fn randomised_rcp_scenarios_keep_the_invariants() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(77);
    let mut retx = 0;
    for case in 0..30 {
        let mut v = common::random_scenario(&mut r, case, 60);
        v["network"]["queue"] = json!("rcp");
        v["transport"]["scheme"] = json!("rcp");
        retx += assert_invariants(&v, &run_json(&v), &format!("case {case}")).1;
    }
    eprintln!("retransmits over all cases: {retx}");
}

fn refused(v: &Value) -> fctlab_core::scenario::ConfigError {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => e,
    }
}

#[test]
fn rcp_needs_its_router_and_bad_tables_are_refused() {
    let ok = json!({"network": {"queue": "rcp", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0}, "transport": {"scheme": "rcp"},
                    "flows": [{"sender": 0, "size_pkts": 5}]});
    assert!(from_json(&ok.to_string()).is_ok());
    let mut v = ok.clone();
    v["network"]["queue"] = json!("droptail");
    assert_eq!(refused(&v).field, "network.queue");
    for (k, x) in [
        ("alpha", json!(-0.1)),
        ("gamma", json!(2.0)),
        ("upd_timeslot_ms", json!(0)),
        ("min_rate_bps", json!(-1)),
        ("init_rate_fact", json!("a")),
        ("bogus", json!(1)),
    ] {
        let mut v = ok.clone();
        v["network"]["rcp"] = json!({k: x});
        let e = refused(&v);
        assert_eq!(e.field, format!("network.rcp.{k}"), "{e:?}");
    }
    let mut v = ok.clone();
    v["transport"]["rcp"] = json!({"syn_retx_ms": 0});
    assert_eq!(refused(&v).field, "transport.rcp.syn_retx_ms");
    // [network.rcp] with another queue is refused too.
    let mut v = ok.clone();
    v["transport"]["scheme"] = json!("tcp-newreno");
    v["network"]["queue"] = json!("droptail");
    v["network"]["rcp"] = json!({"alpha": 0.4});
    assert_eq!(refused(&v).field, "network.rcp");
    // TCP over rcp routers is fine: a FIFO that stamps.
    let mut v = ok.clone();
    v["transport"]["scheme"] = json!("tcp-newreno");
    let out = run_json(&v);
    assert!(out.flows[0].completed());
}

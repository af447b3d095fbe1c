//! RCP end to end: the first rate a flow gets, convergence to C/N, FCT close
//! to processor sharing on a Poisson workload, invariants on random scenarios,
//! and refused configurations.

mod common;
use common::{run_json, ser};
use fctlab_core::from_json;
use rand::{Rng, SeedableRng};
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
#[test]
fn a_new_flow_starts_at_the_stamped_initial_rate() {
    let v = rcp(
        json!({"topology": "single-link", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100}),
        json!({"flows": [{"sender": 0, "size_pkts": 2, "start_s": 0.0}], "metrics": {"interval_ms": 1.0, "cwnd_flows": [0]}}),
    );
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
    let w: Vec<f64> = (0..s.len()).filter(|&i| s.metric[i] == m && s.t_ns[i] > 21_000_000 && s.t_ns[i] < 40_000_000).map(|i| s.value[i]).collect();
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
            let v: Vec<f64> = (0..s.len()).filter(|&i| late(i) && s.metric[i] == m).map(|i| s.value[i]).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        // Base RTT: 2·(5 + 10 + 5 egress? no: dumbbell egress delay 0) ms plus serialisation.
        let rtt = 0.030;
        let per_flow = mean(cw); // averaged over all flows and samples
        let expect = 10e6 / n as f64 * rtt / 8320.0;
        assert!((per_flow - expect).abs() / expect < 0.05, "n {n}: window {per_flow} vs {expect}");
        for f in 0..n as usize {
            let v: Vec<f64> = (0..s.len()).filter(|&i| late(i) && s.metric[i] == cw && s.element_names[s.element[i] as usize].ends_with(&format!("{f}"))).map(|i| s.value[i]).collect();
            let m = v.iter().sum::<f64>() / v.len() as f64;
            assert!((m - expect).abs() / expect < 0.05, "n {n} flow {f}: {m} vs {expect}");
        }
        assert!(mean(u) > 0.95, "utilisation {}", mean(u));
        assert!(mean(q) < 3.0, "queue {}", mean(q));
        assert_eq!(out.counters.packets_dropped, 0);
    }
}

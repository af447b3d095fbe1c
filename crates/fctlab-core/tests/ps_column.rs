//! The per-flow `ps_fct_ns`: the fluid processor-sharing FCT of the run's own
//! workload, plus the path's one-way propagation and the handshake RTT.

mod common;
use common::run_json;
use fctlab_core::ideal::fluid_maxmin_general;
use serde_json::json;

#[test]
fn lone_flow_and_two_overlapping_flows_by_hand() {
    // 10 Mb/s, 10 ms one way. Flow 0: 100 packets of 1040 B on the wire = 832 000
    // bits = 83.2 ms alone. Flow 1 (start 40 ms, 20 packets = 166 400 bits)
    // shares the link from 40 ms: flow 0 has 832 000 - 400 000 = 432 000 bits
    // left; both at 5 Mb/s, flow 1 finishes 33.28 ms later (at 73.28 ms), flow 0
    // then has 432 000 - 166 400 = 265 600 bits left alone: 26.56 ms more, so it
    // finishes at 99.84 ms. Each adds 10 ms propagation and the 20 ms handshake.
    let v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
        "flows": [{"size_pkts": 100}, {"start_s": 0.04, "size_pkts": 20}],
        "metrics": {"series": false}
    });
    let fl = run_json(&v).flows;
    assert_eq!(fl[0].ps_fct_ns, Some(99_840_000 + 10_000_000 + 20_000_000));
    assert_eq!(fl[1].ps_fct_ns, Some(33_280_000 + 10_000_000 + 20_000_000));
    // Without a handshake the RTT term goes.
    let mut v2 = v.clone();
    v2["transport"] = json!({"handshake": false});
    let fl = run_json(&v2).flows;
    assert_eq!(fl[1].ps_fct_ns, Some(33_280_000 + 10_000_000));
}

#[test]
fn dumbbell_equals_general_maxmin_over_full_routes() {
    // The engine reduces routes to the links that can bind; the result must
    // equal progressive filling over every link of every route.
    let v = json!({
        "seed": 5,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 20e6, "bottleneck_delay_ms": 5.0,
                     "access_bps": 30e6, "access_delay_ms": [1.0, 2.0, 3.0, 4.0], "buffer_pkts": 30},
        "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3}, "count": 300}],
        "metrics": {"series": false}
    });
    let out = run_json(&v);
    // Full routes of the dumbbell: access i (link 2 + 4i), bottleneck (0), egress i (4 + 4i).
    let caps: Vec<f64> = (0..18).map(|l| if l < 2 { 20e6 } else { 30e6 }).collect();
    let routes: Vec<Vec<usize>> = out
        .flows
        .iter()
        .map(|f| vec![2 + 4 * f.sender as usize, 0, 4 + 4 * f.sender as usize])
        .collect();
    let starts: Vec<u64> = out.flows.iter().map(|f| f.start_ns).collect();
    let sizes: Vec<f64> = out
        .flows
        .iter()
        .map(|f| (f.size_bytes + 40 * f.size_pkts) as f64)
        .collect();
    let fin = fluid_maxmin_general(&caps, &starts, &sizes, &routes).unwrap();
    for (f, t) in out.flows.iter().zip(fin) {
        let one_way = [1, 2, 3, 4][f.sender as usize] * 1_000_000 + 5_000_000;
        let rtt = 2 * one_way;
        let want = t - f.start_ns + one_way + rtt;
        let got = f.ps_fct_ns.unwrap();
        assert!(got.abs_diff(want) <= 1, "flow {}: {got} vs {want}", f.flow_id);
    }
}

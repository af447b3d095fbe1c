//! Active queue management and fair queueing, end to end: RED with ECN against
//! TCP's RFC 3168 response, DRR fair queueing against RTT bias, the invariants
//! on randomised scenarios for each discipline, and refused parameter tables.

mod common;
use common::{assert_invariants, run_json};
use fctlab_core::from_json;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

/// One long-lived flow through RED on a 10 Mb/s dumbbell: base RTT
/// 2 × (5 + 10) ms = 30 ms, a 1000-packet buffer that the window never fills.
/// `mark_p` 1 turns every early drop of an ECN-capable packet into a mark.
fn single_flow_red(queue: &str, tcp_ecn: bool) -> Value {
    json!({
        "seed": 4,
        "stop_s": 20.0,
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                    "access_delay_ms": 5.0, "buffer_pkts": 1000, "queue": queue, "red": {"mark_p": 1.0}},
        "transport": {"ecn": tcp_ecn},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 1.0, "cwnd_flows": [0]}
    })
}

/// (time, cwnd) samples of flow 0.
fn cwnd_samples(out: &fctlab_core::RunOutput) -> Vec<(u64, f64)> {
    let s = &out.series;
    let m = s
        .metric_names
        .iter()
        .position(|n| n == "cwnd_pkts")
        .expect("cwnd series") as u16;
    (0..s.len())
        .filter(|&i| s.metric[i] == m)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

#[test]
fn red_ecn_marks_instead_of_dropping_and_the_window_falls_at_most_once_per_rtt() {
    let out = run_json(&single_flow_red("red-ecn", true));
    let f = &out.flows[0];
    // Every early decision is a mark (mark_p 1) and the buffer never fills:
    // not a single packet is lost or retransmitted.
    assert_eq!(out.counters.packets_dropped, 0);
    assert_eq!(f.drops, 0);
    assert_eq!(f.retransmits, 0);
    // ... and yet the window came down, repeatedly: only ECE can do that.
    let cw = cwnd_samples(&out);
    let falls: Vec<u64> = cw
        .windows(2)
        .filter(|w| w[1].1 < w[0].1 - 1e-9)
        .map(|w| w[1].0)
        .collect();
    assert!(falls.len() >= 10, "only {} window reductions in 20 s", falls.len());
    // A reduction waits for the ACK of a packet sent after the previous one,
    // at least one base RTT (30 ms) later; 1 ms sampling blurs each by < 1 ms.
    for w in falls.windows(2) {
        assert!(
            w[1] - w[0] >= 29_000_000,
            "reductions {} ms apart",
            (w[1] - w[0]) as f64 / 1e6
        );
    }
    // Each reduction answers an ECE, which answers a CE mark the receiver saw.
    assert!(
        f.marks >= falls.len() as u64 && out.counters.marks == f.marks,
        "{} marks",
        f.marks
    );
    // RED keeps the link busy and the queue short: at 10 Mb/s the automatic
    // thresholds are 5 and 15 packets (5 ms target < 5 packets).
    let delivered_bits = out.counters.data_delivered as f64 * 1040.0 * 8.0;
    assert!(delivered_bits > 0.8 * 10e6 * 20.0, "{delivered_bits}");
}

#[test]
fn without_ecn_at_the_sender_the_same_red_drops() {
    // Same queue, but the TCP does not negotiate ECN: its packets are not ECT,
    // so RED's early decisions are drops, recovered by retransmission.
    let out = run_json(&single_flow_red("red-ecn", false));
    assert!(out.flows[0].drops > 0);
    assert_eq!(out.flows[0].marks, 0);
    assert!(out.flows[0].retransmits > 0);
    // Plain red with ECN-capable TCP: ecn is off in the queue, so it drops too.
    let out = run_json(&single_flow_red("red", true));
    assert!(out.flows[0].drops > 0);
}

/// Four flows of `SIZE` packets start together on a 10 Mb/s dumbbell with
/// access delays 0, 5, 25, 60 ms (base RTTs 10, 20, 60, 130 ms).
const SIZE: u64 = 10_000;
fn four_flows(queue: &str, buffer: u64) -> Vec<f64> {
    let delays = [0.0, 5.0, 25.0, 60.0];
    let v = json!({
        "seed": 1,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0,
                    "access_delay_ms": delays, "buffer_pkts": buffer, "queue": queue},
        "flows": (0..4).map(|i| json!({"sender": i, "size_pkts": SIZE})).collect::<Vec<_>>(),
        "metrics": {"series": false}
    });
    let out = run_json(&v);
    // FCT over the fair finishing time: 4 flows sharing the link equally all
    // finish at 4 × SIZE × 1040 B × 8 / 10 Mb/s = 33.28 s.
    let fair_s = 4.0 * SIZE as f64 * 1040.0 * 8.0 / 10e6;
    out.flows
        .iter()
        .map(|f| f.fct_ns().expect("completed") as f64 / 1e9 / fair_s)
        .collect()
}

#[test]
fn fair_queueing_removes_rtt_bias() {
    // Under fq, DRR gives each backlogged flow exactly C/4 (equal packets: one
    // each per round). A flow stays backlogged if its window after a halving
    // still covers its share of the pipe, BDP_i = 300.5 pkt/s × RTT_i (3, 6,
    // 18 and 39 packets). Overflow drops from the longest queue, which holds at
    // least B/4 packets, so after the halving W = (BDP_i + q_i)/2 >= BDP_i when
    // B/4 >= 39: B = 200 packets. Then only start-up (slow start of the 130 ms
    // flow to 39 packets: ~6 RTTs, 0.8 s, 2.4% of 33 s) and the last packets
    // separate the flows: every FCT within 10% of the fair time.
    let fq = four_flows("fq", 200);
    for (i, r) in fq.iter().enumerate() {
        assert!(
            (0.9..1.1).contains(r),
            "fq: flow {i} finished at {r} of the fair time ({fq:?})"
        );
    }
    // DropTail with the same buffer: TCP's throughput goes as 1/RTT. With the
    // queue's delay (up to 200 × 0.83 ms = 166 ms, about half on average)
    // added to each, the 10 ms flow's share is about (1/93)/(1/93 + 1/103 +
    // 1/143 + 1/213) = 1/3 of the link, so it finishes near 0.75 of the fair
    // time and the 130 ms flow well after it. Ask for a clear gap.
    let dt = four_flows("droptail", 200);
    assert!(
        dt[0] < 0.85,
        "droptail: the shortest-RTT flow finished at {} of the fair time ({dt:?})",
        dt[0]
    );
    let spread = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max) / v.iter().cloned().fold(f64::MAX, f64::min);
    assert!(
        spread(&dt) > 1.3 && spread(&fq) < 1.2,
        "spread droptail {} fq {}",
        spread(&dt),
        spread(&fq)
    );
}

fn random_scenario(r: &mut rand_pcg::Pcg64Mcg, seed: u64, queue: &str) -> Value {
    let mut v = common::random_scenario(r, seed, 80);
    let net = &mut v["network"];
    net["queue"] = json!(queue);
    if queue.starts_with("red") {
        let mut t = json!({"gentle": r.random_bool(0.7), "adaptive": r.random_bool(0.5), "byte_mode": r.random_bool(0.3),
                           "wait": r.random_bool(0.7), "mark_p": ([0.1, 1.0][r.random_range(0..2)])});
        if r.random_bool(0.4) {
            t["min_th"] = json!(r.random_range(1.0..10.0));
            t["max_th"] = json!(r.random_range(11.0..40.0));
            t["q_weight"] = json!(([0.002, 0.02, 0.2][r.random_range(0..3)]));
        }
        net["red"] = t;
    } else {
        net["fq"] = json!({"buckets": ([1, 3, 1000][r.random_range(0..3)]), "quantum_bytes": ([100, 1040, 3000][r.random_range(0..3)]),
                           "classify": (["flow", "path"][r.random_range(0..2)])});
    }
    v["transport"]["ecn"] = json!(r.random_bool(0.6));
    v
}

#[test]
fn randomised_scenarios_keep_the_invariants_under_each_queue() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(3168);
    for queue in ["red", "red-ecn", "fq"] {
        let mut drops = 0;
        for case in 0..15 {
            let v = random_scenario(&mut r, case, queue);
            let out = run_json(&v);
            drops += assert_invariants(&v, &out, &format!("{queue} case {case}")).0;
            // Same seed, same records (RED's draws come from the run's seed).
            if case < 3 {
                assert_eq!(run_json(&v).flows, out.flows, "{queue} case {case} not deterministic");
            }
        }
        assert!(
            drops > 50,
            "{queue}: only {drops} drops; the cases must exercise overflow"
        );
    }
}

fn refused(v: Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

fn with(queue: &str, table: &str, t: Value) -> Value {
    let mut v = json!({"network": {"bottleneck_bps": 1e7, "queue": queue}, "flows": [{"size_pkts": 3}]});
    v["network"][table] = t;
    v
}

#[test]
fn bad_queue_tables_are_refused_naming_the_key() {
    let (field, msg) = refused(with("red", "red", json!({"maxp": 0.1})));
    assert_eq!(field, "network.red.maxp");
    assert!(msg.contains("unknown key") && msg.contains("max_p"), "{msg}");
    for bad in [0.0, -0.1, 1.5] {
        let (field, msg) = refused(with("red", "red", json!({"max_p": bad})));
        assert_eq!(field, "network.red.max_p");
        assert!(msg.contains("(0, 1]"), "{msg}");
    }
    let (field, msg) = refused(with("red", "red", json!({"min_th": 30, "max_th": 10})));
    assert_eq!(field, "network.red.min_th");
    assert!(msg.contains("below max_th"), "{msg}");
    let (field, _) = refused(with("red", "red", json!({"q_weight": 2.0})));
    assert_eq!(field, "network.red.q_weight");
    let (field, msg) = refused(with("red", "red", json!({"gentle": "yes"})));
    assert_eq!(field, "network.red.gentle");
    assert_eq!(msg, "expected true or false, got the text \"yes\"");
    let (field, msg) = refused(with("red-ecn", "red", json!({"ecn": false})));
    assert_eq!(field, "network.red.ecn");
    assert!(msg.contains("red-ecn"), "{msg}");
    // A table for a queue not in use.
    let (field, msg) = refused(with("droptail", "red", json!({"max_p": 0.1})));
    assert_eq!(field, "network.red");
    assert!(msg.contains("droptail"), "{msg}");
    let (field, _) = refused(with("red", "fq", json!({"buckets": 10})));
    assert_eq!(field, "network.fq");
    let (field, _) = refused(with("fq", "fq", json!({"buckets": 0})));
    assert_eq!(field, "network.fq.buckets");
    let (field, msg) = refused(with("fq", "fq", json!({"classify": "source"})));
    assert_eq!(field, "network.fq.classify");
    assert!(msg.contains("flow") && msg.contains("path"), "{msg}");
    // Good tables are accepted, and red-ecn shares red's table.
    for (q, t, v) in [
        ("red", "red", json!({"adaptive": true, "ecn": true})),
        ("red-ecn", "red", json!({"max_p": 0.2})),
        ("fq", "fq", json!({"classify": "path"})),
    ] {
        from_json(&with(q, t, v).to_string()).unwrap_or_else(|e| panic!("{q}: {e}"));
    }
}

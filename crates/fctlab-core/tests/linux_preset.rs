//! Ten NewReno transfers of 4,000 packets with base RTTs 37, 74, ..., 370 ms,
//! starting together on 100 Mb/s with a buffer that never overflows: no
//! packet is lost, so every retransmission follows a spurious timeout.

mod common;
use common::run_json;
use fctlab_core::RunOutput;
use serde_json::{json, Value};

fn scenario(transport: Value) -> Value {
    // RTT of sender i (i = 1..10) = 2 x (access + 0.5 ms) = 37 i ms.
    let access: Vec<f64> = (1..=10).map(|i| 18.5 * i as f64 - 0.5).collect();
    let mut t = json!({"scheme": "tcp-newreno"});
    for (k, v) in transport.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "network": {"topology": "dumbbell", "senders": 10, "bottleneck_bps": 100e6,
                    "bottleneck_delay_ms": 0.5, "access_delay_ms": access, "buffer_pkts": 100_000},
        "transport": t,
        "flows": (0..10).map(|i| json!({"sender": i, "size_pkts": 4000})).collect::<Vec<_>>(),
        "metrics": {"series": false}
    })
}

struct Summary {
    drops: u64,
    retransmits: u64,
    timeouts: u64,
    spurious: u64,
    worst_fct_s: f64,
}

fn summary(t: Value) -> Summary {
    let o: RunOutput = run_json(&scenario(t.clone()));
    let s = Summary {
        drops: o.flows.iter().map(|f| f.drops).sum(),
        retransmits: o.flows.iter().map(|f| f.retransmits).sum(),
        timeouts: o.counters.timeouts,
        spurious: o.counters.spurious_timeouts,
        worst_fct_s: o.flows.iter().map(|f| f.fct_ns().unwrap()).max().unwrap() as f64 * 1e-9,
    };
    let busy = o.links.iter().find(|l| l.name == "bottleneck").unwrap().busy_ns;
    let fcts: Vec<String> = o
        .flows
        .iter()
        .map(|f| format!("{:.2}", f.fct_ns().unwrap() as f64 * 1e-9))
        .collect();
    println!(
        "{t}: drops {} retransmits {} timeouts {} (undone {}) bottleneck idle {:.0}% FCT s {}",
        s.drops,
        s.retransmits,
        s.timeouts,
        s.spurious,
        100.0 * (1.0 - busy as f64 / o.end_ns as f64),
        fcts.join(" ")
    );
    s
}

/// The ideal: 40,000 packets of 1,040 B through 100 Mb/s, 3.33 s.
const SERIALISE_ALL_S: f64 = 40_000.0 * 1040.0 * 8.0 / 100e6;

#[test]
fn rfc6298_times_out_spuriously_linux_does_not() {
    // RFC 6298: no loss, yet timeouts (each resends at least one packet).
    let rfc = summary(json!({}));
    assert_eq!(rfc.drops, 0);
    assert!(rfc.timeouts > 0 && rfc.retransmits >= rfc.timeouts);
    assert_eq!(rfc.spurious, 0);
    // Linux's estimator alone: rttvar >= 200 ms keeps the RTO above every
    // RTT sample: no timeout, nothing resent.
    let est = summary(json!({"rto_estimator": "linux"}));
    assert_eq!((est.drops, est.timeouts, est.retransmits), (0, 0, 0));
    // The preset (with its delayed ACKs too), and Linux's IW 10 beside it.
    for t in [
        json!({"preset": "linux"}),
        json!({"preset": "linux", "init_cwnd_pkts": 10}),
    ] {
        let lin = summary(t);
        assert_eq!((lin.drops, lin.timeouts, lin.retransmits), (0, 0, 0));
        assert!(lin.worst_fct_s > SERIALISE_ALL_S && lin.worst_fct_s < rfc.worst_fct_s);
    }
    // F-RTO alone undoes timeouts it finds spurious; it resends one packet
    // per timeout it undoes.
    let frto = summary(json!({"frto": true}));
    assert_eq!(frto.drops, 0);
    assert!(frto.spurious > 0 && frto.spurious <= frto.timeouts);
    assert!(frto.worst_fct_s < rfc.worst_fct_s);
    // The 1 s minimum RTO of RFC 6298 (2.4) avoids them too.
    let one_s = summary(json!({"min_rto_ms": 1000.0}));
    assert_eq!((one_s.timeouts, one_s.retransmits), (0, 0));
}

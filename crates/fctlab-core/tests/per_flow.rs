//! Transport settings per sender, per traffic entry and per flow, and the
//! per-flow series (throughput, sending rate, RTT).

mod common;
use common::{flows, run_json};
use fctlab_core::from_json;
use serde_json::{json, Value};

/// Four flows far apart in time on a dumbbell of four senders, so no two
/// share the network: each flow's record depends on its own settings only.
fn apart(transport: Value, per_sender: Option<Value>, flow_tr: [Option<Value>; 4]) -> Value {
    let mut tr = transport;
    if let Some(p) = per_sender {
        tr["per_sender"] = p;
    }
    let fl: Vec<Value> = (0..4)
        .map(|i| {
            let mut f = json!({"sender": i, "start_s": 5.0 * i as f64, "size_pkts": 60 + 7 * i});
            if let Some(t) = &flow_tr[i] {
                f["transport"] = t.clone();
            }
            f
        })
        .collect();
    json!({
        "seed": 3,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                    "access_delay_ms": [1.0, 2.0, 5.0, 9.0], "buffer_pkts": 20},
        "transport": tr,
        "flows": fl,
    })
}

/// Flow `i` of `apart(...)` run with one global setting.
fn alone(global: Value, i: usize) -> fctlab_core::metrics::FlowRecord {
    flows(&apart(global, None, [None, None, None, None]))[i].clone()
}

fn same(a: &fctlab_core::metrics::FlowRecord, b: &fctlab_core::metrics::FlowRecord) {
    assert_eq!(
        (a.start_ns, a.finish_ns, a.acked_ns, a.retransmits, a.drops),
        (b.start_ns, b.finish_ns, b.acked_ns, b.retransmits, b.drops)
    );
}

#[test]
fn a_flows_override_gives_the_record_of_a_run_with_that_setting() {
    // Flow 1 with IW 10 and flow 3 with Reno, the others as [transport] says.
    let base = json!({"scheme": "tcp-newreno", "init_cwnd_pkts": 2});
    let mixed = flows(&apart(
        base.clone(),
        None,
        [
            None,
            Some(json!({"init_cwnd_pkts": 10})),
            None,
            Some(json!({"scheme": "tcp-tahoe", "dupack_threshold": 2})),
        ],
    ));
    same(&mixed[0], &alone(base.clone(), 0));
    same(
        &mixed[1],
        &alone(json!({"scheme": "tcp-newreno", "init_cwnd_pkts": 10}), 1),
    );
    same(&mixed[2], &alone(base.clone(), 2));
    same(
        &mixed[3],
        &alone(
            json!({"scheme": "tcp-tahoe", "init_cwnd_pkts": 2, "dupack_threshold": 2}),
            3,
        ),
    );
    // IW 10 really differs from IW 2 here (the test can fail).
    assert!(mixed[1].finish_ns.unwrap() - mixed[1].start_ns < alone(base, 1).finish_ns.unwrap() - mixed[1].start_ns);
    assert_eq!(mixed.iter().map(|r| r.transport).collect::<Vec<_>>(), vec![0, 1, 0, 2]);
}

#[test]
fn per_sender_settings_apply_under_a_flows_own() {
    let base = json!({"init_cwnd_pkts": 2});
    let per = json!([{}, {"init_cwnd_pkts": 4}, {"init_cwnd_pkts": 4, "scheme": "tcp-hstcp"}]);
    // Flow 2's own table overrides its sender's window but keeps its scheme.
    let mixed = flows(&apart(
        base.clone(),
        Some(per),
        [None, None, Some(json!({"init_cwnd_pkts": 3})), None],
    ));
    same(&mixed[0], &alone(base.clone(), 0));
    same(&mixed[1], &alone(json!({"init_cwnd_pkts": 4}), 1));
    same(
        &mixed[2],
        &alone(json!({"init_cwnd_pkts": 3, "scheme": "tcp-hstcp"}), 2),
    );
    same(&mixed[3], &alone(base, 3)); // beyond per_sender's entries: [transport]
}

#[test]
fn a_traffic_entrys_override_applies_to_its_flows_only() {
    let sc = |t0: Option<Value>| {
        let mut g0 = json!({"arrivals": "poisson", "rate_per_s": 4, "sizes": {"dist": "fixed", "pkts": 30}, "count": 40, "senders": [0]});
        if let Some(t) = t0 {
            g0["transport"] = t;
        }
        json!({
            "seed": 5,
            "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0, "buffer_pkts": 30},
            "traffic": [g0, {"arrivals": "poisson", "rate_per_s": 4, "sizes": {"dist": "fixed", "pkts": 30}, "count": 40, "senders": [1]}],
        })
    };
    let plain = run_json(&sc(None));
    let iw10 = run_json(&sc(Some(json!({"init_cwnd_pkts": 10}))));
    // Same arrivals (each generator's own stream), other windows for sender 0.
    assert_eq!(plain.flows.len(), iw10.flows.len());
    for (a, b) in plain.flows.iter().zip(&iw10.flows) {
        assert_eq!((a.sender, a.start_ns, a.size_pkts), (b.sender, b.start_ns, b.size_pkts));
        assert_eq!(b.transport, if b.sender == 0 { 1 } else { 0 });
    }
    let mean = |o: &fctlab_core::RunOutput, s: u32| {
        let v: Vec<f64> = o
            .flows
            .iter()
            .filter(|r| r.sender == s)
            .map(|r| r.fct_ns().unwrap() as f64)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    // At load 0.2, 30 packets take 4 rounds from IW 2 (2+4+8+16) and 2 from
    // IW 10 (10+20); the mean FCT of sender 0's flows must drop by at least
    // one base RTT (10 ms), and sender 1's stays about the same.
    assert!(
        mean(&iw10, 0) < mean(&plain, 0) - 10e6,
        "{} vs {}",
        mean(&iw10, 0),
        mean(&plain, 0)
    );
}

fn refusal(v: Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

#[test]
fn bad_overrides_are_refused_naming_the_field() {
    let base = json!({"init_cwnd_pkts": 2});
    let (f, _) = refusal(apart(
        base.clone(),
        None,
        [None, Some(json!({"init_cwnd_pkts": 0})), None, None],
    ));
    assert_eq!(f, "flows[1].transport.init_cwnd_pkts");
    let (f, m) = refusal(apart(
        base.clone(),
        None,
        [None, Some(json!({"mss_bytes": 500})), None, None],
    ));
    assert_eq!(f, "flows[1].transport.mss_bytes");
    assert!(m.contains("run-wide"), "{m}");
    let (f, _) = refusal(apart(
        base.clone(),
        None,
        [None, None, Some(json!({"scheme": "rcp"})), None],
    ));
    assert_eq!(f, "flows[2].transport.scheme");
    let (f, _) = refusal(apart(
        base.clone(),
        None,
        [None, None, Some(json!({"scheme": "no-such"})), None],
    ));
    assert_eq!(f, "flows[2].transport.scheme");
    let (f, m) = refusal(apart(
        base.clone(),
        None,
        [Some(json!({"windowinit": 3})), None, None, None],
    ));
    assert_eq!(f, "flows[0].transport.windowinit");
    assert!(m.starts_with("unknown key"), "{m}");
    let (f, _) = refusal(apart(
        base.clone(),
        Some(json!([{}, {"hstcp": {"low_window": 38}}])),
        [None, None, None, None],
    ));
    assert_eq!(f, "transport.per_sender[1].hstcp");
    let (f, _) = refusal(apart(
        base.clone(),
        Some(json!([{}, {}, {}, {}, {}])),
        [None, None, None, None],
    ));
    assert_eq!(f, "transport.per_sender");
    let (f, _) = refusal(apart(base, None, [Some(json!(3)), None, None, None]));
    assert_eq!(f, "flows[0].transport");
}

/// One long-lived flow alone on a 10 Mb/s bottleneck with a large buffer.
fn lone(interval_ms: f64) -> Value {
    json!({
        "seed": 1, "stop_s": 3.0,
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                    "access_delay_ms": 1.0, "buffer_pkts": 400},
        "transport": {"init_cwnd_pkts": 2, "max_cwnd_pkts": 60},
        "flows": [{"sender": 0, "start_s": 0.0, "long_lived": true}],
        "metrics": {"interval_ms": interval_ms, "flow_series": [0]},
    })
}

fn metric(o: &fctlab_core::RunOutput, name: &str) -> Vec<(u64, f64)> {
    let s = &o.series;
    let id = s
        .metric_names
        .iter()
        .position(|m| m == name)
        .expect("metric registered") as u16;
    (0..s.len())
        .filter(|&i| s.metric[i] == id)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

#[test]
fn per_flow_series_add_up_and_saturate_the_bottleneck() {
    let o = run_json(&lone(50.0));
    let tput = metric(&o, "throughput_bps");
    let send = metric(&o, "send_rate_bps");
    let rtt = metric(&o, "rtt_ms");
    assert!(tput.len() > 50 && send.len() == tput.len());
    // The window cap of 60 packets of 1040 bytes over a ~25 ms RTT exceeds the
    // 10 Mb/s line, so after slow start the flow gets the line's payload rate:
    // C x 1000/1040 (within one packet per 50 ms interval, 0.16 Mb/s).
    let line = 10e6 * 1000.0 / 1040.0;
    for &(t, v) in tput.iter().filter(|(t, _)| *t >= 1_000_000_000) {
        assert!((v - line).abs() <= 1000.0 * 8.0 / 0.05 + 1.0, "t={t}: {v} vs {line}");
    }
    // Each series integrates to its total: payload delivered in order is what
    // the throughput series adds up to, and no more is sent than 1040 bytes per
    // delivered packet plus those in flight (at most the 60-packet window).
    let delivered: f64 = tput.iter().map(|&(_, v)| v * 0.05 / 8.0).sum();
    let sent: f64 = send.iter().map(|&(_, v)| v * 0.05 / 8.0).sum();
    assert!((sent - delivered * 1040.0 / 1000.0) >= -1.0);
    assert!(
        sent - delivered * 1040.0 / 1000.0 <= 60.0 * 1040.0 + 1.0,
        "{sent} {delivered}"
    );
    // The smoothed RTT never falls below the base RTT (2 x 11 ms plus a
    // packet's serialisation), and the standing queue of ~35 packets shows.
    for &(_, r) in &rtt {
        assert!(r >= 22.0, "{r}");
    }
    assert!(rtt.last().unwrap().1 > 40.0, "{:?}", rtt.last());
}

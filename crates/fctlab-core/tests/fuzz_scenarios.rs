//! Mutated scenarios never crash or hang the engine: thousands of scenarios,
//! each a valid one with one to three fields replaced by extreme or
//! ill-typed values, removed or added, are either refused with a
//! `ConfigError` naming a field, or run and end (by themselves, at their
//! `stop_s`, or stopped by a wall-time budget through the progress callback,
//! which a hang inside one event would never reach). A watchdog fails the test
//! if any case takes longer than a generous bound.

use fctlab_core::engine::Engine;
use fctlab_core::from_json;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bases() -> Vec<Value> {
    let traffic = json!([{"arrivals": "poisson", "load": 0.8, "sizes": {"dist": "pareto", "mean_pkts": 8, "shape": 1.3}, "count": 40}]);
    vec![
        json!({"seed": 1, "network": {"topology": "single-link", "senders": 2, "bottleneck_bps": 1e7, "bottleneck_delay_ms": 5.0, "buffer_pkts": 10},
               "transport": {"mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2, "min_rto_ms": 200, "initial_rto_ms": 1000, "max_rto_ms": 60000,
                             "delack_timeout_ms": 100, "dupack_threshold": 3, "max_cwnd_pkts": 64, "delayed_ack": true},
               "metrics": {"interval_ms": 10.0, "links": ["bottleneck"]},
               "traffic": traffic, "flows": [{"size_pkts": 5}]}),
        json!({"seed": 2, "stop_s": 0.5, "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 1e7, "access_delay_ms": [1.0, 2.0, 3.0], "buffer_bdp": 0.5, "queue": "red",
                           "red": {"max_p": 0.1, "target_delay_ms": 5.0, "q_weight": -1, "min_th": 0, "adaptive": true, "mark_p": 0.1, "mean_pktsize": 1040}},
               "transport": {"scheme": "tcp-reno", "ecn": true, "delayed_ack": true},
               "traffic": [{"arrivals": "closed-loop", "sizes": {"dist": "exponential", "mean_pkts": 4}, "count": 5, "think_s": 0.01},
                           {"arrivals": "long-lived", "senders": [0]}]}),
        json!({"seed": 3, "network": {"topology": "half-dumbbell", "senders": 2, "bottleneck_bps": 5e6, "access_delay_ms": 2.0, "buffer_pkts": 20, "queue": "fq", "fq": {"buckets": 16}},
               "transport": {"scheme": "tcp-hstcp", "hstcp": {"low_window": 10, "high_window": 1000, "high_p": 1e-6, "high_decrease": 0.2}},
               "traffic": [{"arrivals": "poisson", "rate_per_s": 200, "sizes": {"dist": "uniform", "min_pkts": 1, "max_pkts": 20}, "count": 30}],
               "losses": [{"flow": 0, "seq": 1}]}),
        json!({"seed": 4, "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 2e7, "bottleneck_delay_ms": 3.0, "buffer_pkts": 30, "queue": "rcp",
                           "rcp": {"mode": "ps", "alpha": 0.4, "beta": 0.4, "gamma": 1, "upd_timeslot_ms": 10, "init_rate_fact": 0.05, "min_rate_bps": 400, "initial_rtt_ms": 200, "floor_fact": 0.95}},
               "transport": {"scheme": "rcp", "rcp": {"mode": "ps", "syn_first_retx_ms": 10, "syn_retx_ms": 500, "max_probe_interval_ms": 500, "recovery_rtts": 2, "data_with_syn": false}},
               "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": {"dist": "fixed", "pkts": 10}, "count": 20}]}),
        json!({"seed": 5, "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 2e7, "bottleneck_delay_ms": 3.0, "buffer_pkts": 30, "queue": "xcp",
                           "xcp": {"alpha": 0.4, "beta": 0.226, "gamma": 0.1, "min_interval_ms": 1, "max_rtt_ms": 1000, "init_interval_ms": 50, "min_tq_ms": 2}},
               "transport": {"scheme": "xcp", "init_cwnd_pkts": 4},
               "flows": [{"size_pkts": 50}, {"sender": 1, "start_s": 0.01, "size_bytes": 12345}],
               "metrics": {"interval_ms": 1.0, "links": ["all"], "cwnd_flows": [0, 1]}}),
        json!({"seed": 7, "stop_s": 0.5, "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 1e7, "access_delay_ms": [1.0, 10.0, 40.0], "buffer_pkts": 40,
                           "queue": "sync-drop", "sync_drop": {"threshold": 0.9, "rearm": 0.5}},
               "transport": {"scheme": "tcp-tarheel", "init_cwnd_pkts": 4, "init_ssthresh_pkts": 64,
                             "tarheel": {"ref_rtt_ms": 30, "ssthresh_ref_pkts": 50, "queue_delay": "oracle", "base_rtt_ms": 20},
                             "per_sender": [{}, {"scheme": "tcp-srf", "srf": {"ref_rtt_ms": 50}}, {"scheme": "tcp-libra", "libra": {"k1": 110, "k2": 2, "t1_ms": 1000}}]},
               "flows": [{"size_pkts": 30}, {"sender": 1, "long_lived": true}, {"sender": 2, "long_lived": true},
                         {"sender": 0, "long_lived": true, "transport": {"tarheel": {"queue_delay": "end-to-end"}}}],
               "metrics": {"interval_ms": 5.0, "cwnd_flows": [0, 1, 2, 3]}}),
        json!({"seed": 6, "network": {"topology": "graph", "buffer_pkts": 20, "queue": "red",
                           "graph": {"routers": ["r0", "r1"], "paths": [["a", "b"], ["c", "b"]], "bottleneck": "core",
                                     "links": [{"a": "a", "b": "r0", "rate_bps": 1e8, "delay_ms": 1.0},
                                               {"a": "c", "b": "r0", "rate_bps": 1e8, "delay_ms": 3.0, "buffer_pkts": 5},
                                               {"name": "core", "a": "r0", "b": "r1", "rate_bps": 1e7, "delay_ms": 4.0},
                                               {"a": "r1", "b": "b", "rate_bps": 1e8}]}},
               "traffic": [{"arrivals": "poisson", "load": 0.7, "sizes": {"dist": "pareto", "mean_pkts": 8, "shape": 1.3}, "count": 40}]}),
    ]
}

/// Values a mutation may write: extremes, wrong types, and near-edge numbers.
fn wild(r: &mut rand_pcg::Pcg64Mcg) -> Value {
    let choices = [
        json!(0),
        json!(-1),
        json!(1),
        json!(0.5),
        json!(-0.0),
        json!(1e-300),
        json!(1e-9),
        json!(1e9),
        json!(1e15),
        json!(1e16),
        json!(1e30),
        json!(1e300),
        json!(-1e30),
        json!(u64::MAX),
        json!(u32::MAX),
        json!(u32::MAX as u64 + 1),
        json!(18446744073709551615.0),
        json!(4294967296.0),
        json!(65536),
        json!(1e6),
        json!("x"),
        json!(""),
        json!(true),
        json!(false),
        Value::Null,
        json!([]),
        json!({}),
        json!([1.0, 2.0]),
        json!({"dist": "pareto"}),
        json!("pareto"),
        json!("all"),
        json!("red"),
        json!("tcp-newreno"),
    ];
    choices[r.random_range(0..choices.len())].clone()
}

/// Every path to a value in `v`.
fn paths(v: &Value, prefix: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(json!(k));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(json!(i));
                out.push(prefix.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn parent<'a>(v: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
    let mut cur = v;
    for p in path {
        cur = match p {
            Value::String(k) => cur.get_mut(k.as_str())?,
            Value::Number(i) => cur.get_mut(i.as_u64()? as usize)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn mutate(v: &mut Value, r: &mut rand_pcg::Pcg64Mcg) {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    if all.is_empty() {
        return;
    }
    let path = all[r.random_range(0..all.len())].clone();
    let (last, head) = path.split_last().expect("non-empty");
    let Some(p) = parent(v, head) else { return };
    match (r.random_range(0..10), last, p) {
        (0, Value::String(k), Value::Object(m)) => {
            m.remove(k);
        }
        (1, _, Value::Object(m)) => {
            m.insert("surprise".into(), wild(r));
        }
        (2, Value::Number(i), Value::Array(a)) => {
            let x = a[i.as_u64().unwrap() as usize].clone();
            a.push(x);
        }
        (3..=6, Value::String(k), Value::Object(m)) if m.get(k.as_str()).is_some_and(|x| x.is_number()) => {
            // A plausible-looking number: the old one scaled.
            let x = m[k.as_str()].as_f64().unwrap_or(1.0);
            let f = [0.0, -1.0, 1e-9, 1e-3, 0.5, 2.0, 10.0, 1e3, 1e6, 1e12, 1e30][r.random_range(0..11)];
            m.insert(k.clone(), json!(x * f));
        }
        (_, Value::String(k), Value::Object(m)) => {
            m.insert(k.clone(), wild(r));
        }
        (_, Value::Number(i), Value::Array(a)) => {
            a[i.as_u64().unwrap() as usize] = wild(r);
        }
        _ => {}
    }
}

#[test]
fn mutated_scenarios_are_refused_or_run_to_an_end() {
    // FUZZ_SEED and FUZZ_CASES explore further than the default run.
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let cases = env("FUZZ_CASES", 10_000);
    const BUDGET: Duration = Duration::from_millis(300);
    const HANG: Duration = Duration::from_secs(60);
    let started = Arc::new(AtomicU64::new(0));
    let case = Arc::new(AtomicU64::new(u64::MAX));
    let current = Arc::new(Mutex::new(String::new()));
    let epoch = Instant::now();
    {
        let (started, case, current) = (started.clone(), case.clone(), current.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let c = case.load(Ordering::SeqCst);
            let t0 = started.load(Ordering::SeqCst);
            if c != u64::MAX && epoch.elapsed().as_millis() as u64 > t0 + HANG.as_millis() as u64 {
                eprintln!(
                    "case {c} has run for over {HANG:?}, a hang: {}",
                    current.lock().map(|s| s.clone()).unwrap_or_default()
                );
                std::process::exit(1);
            }
        });
    }
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(env("FUZZ_SEED", 20261123));
    let bases = bases();
    for b in &bases {
        assert!(from_json(&b.to_string()).is_ok(), "base scenario refused: {b}");
    }
    let (mut refused, mut ran, mut budget_stops) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for i in 0..cases {
        let mut v = bases[r.random_range(0..bases.len())].clone();
        for _ in 0..r.random_range(1..=3) {
            mutate(&mut v, &mut r);
        }
        let text = v.to_string();
        *current.lock().unwrap() = text.clone();
        started.store(epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
        case.store(i, Ordering::SeqCst);
        let outcome = catch_unwind(AssertUnwindSafe(|| match from_json(&text) {
            Err(e) => Err(e),
            Ok(plan) => {
                let t0 = Instant::now();
                let engine = Engine::new(plan).with_report_interval(Duration::from_millis(50));
                let out = engine.run(&mut |_| t0.elapsed() < BUDGET);
                Ok(out.interrupted)
            }
        }));
        case.store(u64::MAX, Ordering::SeqCst);
        match outcome {
            Ok(Err(e)) => {
                refused += 1;
                if std::env::var("FUZZ_DEBUG").is_ok() {
                    eprintln!("REFUSED {}: {}", e.field, e.message);
                }
                if e.message.is_empty() {
                    failures.push(format!("refused without a message: {text}"));
                }
            }
            Ok(Ok(interrupted)) => {
                ran += 1;
                budget_stops += interrupted as u64;
            }
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("panic {msg:?} on {text}"));
            }
        }
    }
    eprintln!("{cases} mutated scenarios: {refused} refused, {ran} ran ({budget_stops} stopped by the wall budget)");
    assert!(
        failures.is_empty(),
        "{} failures, first: {}",
        failures.len(),
        failures[0]
    );
    // The mix must exercise both halves: most mutations break a scenario, and
    // some hundreds still run.
    assert!(refused > cases / 2 && ran > cases / 40, "refused {refused}, ran {ran}");
}

#[test]
fn scenarios_the_fuzzer_found_hanging_now_end() {
    // Each ran for minutes inside one event before its fix: now each either
    // runs to its end or is refused naming the field.
    // 1. XCP with sub-nanosecond control intervals on a 20 kb/s link: the
    //    queue interval was 1 ns, and the router stepped through every
    //    interval of the 0.4 s between packets (it now steps over intervals
    //    that would leave its state as it is). Both flows complete.
    //    Timers below 1 us are now refused (the first entry); at the 1 us
    //    floor the router still steps over 0.4 s of intervals (the second).
    // 2. An initial window of 2^32 packets on long-lived flows: the window
    //    leaves in one event (now refused: at most 1e6 packets).
    let found: [(&str, Result<u64, &str>); 3] = [
        (
            r#"{"flows":[{"size_pkts":50},{"sender":1,"size_bytes":12345,"start_s":0.01}],"metrics":{"cwnd_flows":[0,1],"interval_ms":1.0,"links":["all"]},"network":{"bottleneck_bps":20000.0,"bottleneck_delay_ms":3.0,"buffer_pkts":30,"queue":"xcp","senders":2,"topology":"dumbbell","xcp":{"alpha":0.4,"beta":0.226,"gamma":0.1,"init_interval_ms":5.0000000000000004e-8,"max_rtt_ms":1000,"min_interval_ms":1,"min_tq_ms":2e-9}},"seed":5,"transport":{"init_cwnd_pkts":4,"scheme":"xcp"}}"#,
            Err("network.xcp.init_interval_ms"),
        ),
        (
            r#"{"flows":[{"size_pkts":50},{"sender":1,"size_bytes":12345,"start_s":0.01}],"metrics":{"cwnd_flows":[0,1],"interval_ms":1.0,"links":["all"]},"network":{"bottleneck_bps":20000.0,"bottleneck_delay_ms":3.0,"buffer_pkts":30,"queue":"xcp","senders":2,"topology":"dumbbell","xcp":{"alpha":0.4,"beta":0.226,"gamma":0.1,"init_interval_ms":0.001,"max_rtt_ms":1000,"min_interval_ms":1,"min_tq_ms":0.001}},"seed":5,"transport":{"init_cwnd_pkts":4,"scheme":"xcp"}}"#,
            Ok(2),
        ),
        (
            r#"{"flows":[{"size_pkts":30},{"long_lived":true,"sender":1},{"long_lived":true,"sender":2},{"long_lived":true,"sender":0,"transport":{"tarheel":{"queue_delay":"end-to-end"}}}],"metrics":{"cwnd_flows":[0,1,2,3],"interval_ms":5.0},"network":{"access_delay_ms":1e-9,"bottleneck_bps":10000000.0,"buffer_pkts":40,"queue":"sync-drop","senders":3,"sync_drop":{"rearm":0.5,"threshold":0.9},"topology":"dumbbell"},"seed":7,"stop_s":0.5,"transport":{"init_cwnd_pkts":4294967296.0,"init_ssthresh_pkts":64,"per_sender":[{},{"scheme":"tcp-srf","srf":{"ref_rtt_ms":50}},{"libra":{"k1":110,"k2":2,"t1_ms":1000},"scheme":"tcp-libra"}],"scheme":"tcp-tarheel","tarheel":{"base_rtt_ms":20,"queue_delay":"oracle","ref_rtt_ms":30,"ssthresh_ref_pkts":50}}}"#,
            Err("transport.init_cwnd_pkts"),
        ),
    ];
    for (text, expect) in found {
        let plan = match (from_json(text), expect) {
            (Err(e), Err(field)) => {
                assert_eq!(e.field, field, "{}", e.message);
                continue;
            }
            (Ok(plan), Ok(_)) => plan,
            (got, _) => panic!("expected {expect:?}, got {:?}: {text}", got.err().map(|e| e.field)),
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let out = Engine::new(plan).run(&mut |_| true);
            let _ = tx.send(out.counters.flows_completed);
        });
        // Not a speed bound: a run that ends does so in well under a second.
        let done = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("still running after 60 s: {text}"));
        assert_eq!(Ok(done), expect, "flows completed");
    }
}

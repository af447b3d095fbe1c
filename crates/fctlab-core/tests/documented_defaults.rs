//! Every default `fctlab list` documents is the value in effect: writing the
//! documented defaults into a building block's table explicitly gives the same
//! run, record for record, as leaving the table out.

mod common;
use common::run_json;
use fctlab_core::config::ParamInfo;
use fctlab_core::registry::{QUEUES, SCHEMES};
use serde_json::{json, Map, Value};

/// A loaded dumbbell with losses, so window, queue and timer parameters all act.
fn scenario(scheme: &str, queue: &str) -> Value {
    json!({
        "seed": 3,
        "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                    "access_delay_ms": [1.0, 5.0, 20.0], "buffer_pkts": 25, "queue": queue},
        "transport": {"scheme": scheme, "ecn": true},
        "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 30, "shape": 1.3}, "count": 300}],
        "metrics": {"series": false}
    })
}

/// The documented defaults as a table (keys whose default is `null`, meaning
/// "derived when absent", are left out: writing null is not a value).
fn explicit(params: &[ParamInfo]) -> Value {
    let mut m = Map::new();
    for p in params.iter().filter(|p| !p.default.is_null()) {
        m.insert(p.key.to_string(), p.default.clone());
    }
    Value::Object(m)
}

/// `lossy`: the scheme is a loss-driven TCP, whose run must see drops or marks
/// (router-assisted schemes keep the queue short instead).
fn same_run(a: &Value, b: &Value, what: &str, lossy: bool) {
    let (x, y) = (run_json(a), run_json(b));
    assert!(
        !lossy || x.counters.packets_dropped + x.counters.marks > 0,
        "{what}: the workload should congest the bottleneck"
    );
    assert!(
        x.flows.iter().all(|f| f.completed()),
        "{what}: every flow should complete"
    );
    assert_eq!(
        x.flows, y.flows,
        "{what}: documented defaults written out change the run"
    );
}

#[test]
fn queue_defaults_are_in_effect() {
    for q in QUEUES.iter().filter(|q| q.table.is_some()) {
        let scheme = SCHEMES
            .iter()
            .find(|s| s.requires == Some(q.name))
            .map_or("tcp-newreno", |s| s.name);
        let params = (q.params)();
        assert!(!params.is_empty(), "{} has a table but documents no parameter", q.name);
        let a = scenario(scheme, q.name);
        let mut b = a.clone();
        b["network"][q.table.unwrap()] = explicit(&params);
        same_run(&a, &b, q.name, scheme == "tcp-newreno");
    }
}

#[test]
fn scheme_defaults_are_in_effect() {
    for s in SCHEMES.iter().filter(|s| s.table.is_some()) {
        let queue = s.requires.unwrap_or("droptail");
        let params = (s.params)();
        assert!(!params.is_empty(), "{} has a table but documents no parameter", s.name);
        let a = scenario(s.name, queue);
        let mut b = a.clone();
        b["transport"][s.table.unwrap()] = explicit(&params);
        same_run(&a, &b, s.name, s.requires.is_none());
    }
}

#[test]
fn every_documented_key_is_a_key_of_its_table() {
    // A documented key the table does not accept would be refused here.
    for q in QUEUES.iter().filter(|q| q.table.is_some()) {
        for p in (q.params)() {
            let mut v = scenario("tcp-newreno", q.name);
            if let Some(s) = SCHEMES.iter().find(|s| s.requires == Some(q.name)) {
                v["transport"]["scheme"] = json!(s.name);
            }
            if !p.default.is_null() {
                v["network"][q.table.unwrap()] = json!({p.key: p.default});
                assert!(fctlab_core::from_json(&v.to_string()).is_ok(), "{}.{}", q.name, p.key);
            }
        }
    }
}

//! Inputs beyond what fctlab can hold (a rate so low its gaps overflow
//! simulated time, a timer that rounds to nothing, a sketch finer than f64
//! can index, a size law whose flows are absurd) are refused before the run
//! with the key and the allowed range.

use fctlab_core::from_json;
use serde_json::{json, Value};

fn refused(v: &Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

fn base() -> Value {
    json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}]})
}

fn poisson(extra: Value) -> Value {
    let mut v = base();
    let mut g = json!({"arrivals": "poisson", "count": 3, "sizes": {"dist": "fixed", "pkts": 10}});
    for (k, x) in extra.as_object().unwrap() {
        g[k] = x.clone();
    }
    v["traffic"] = json!([g]);
    v
}

#[test]
fn arrival_rates_whose_gaps_overflow_time_are_refused() {
    // A mean gap of 1e21 ns does not fit in u64 nanoseconds (1.8e19).
    let (field, msg) = refused(&poisson(json!({"rate_per_s": 1e-12})));
    assert_eq!(field, "traffic[0].rate_per_s");
    assert!(msg.contains("1e-6"), "{msg}");
    // load 1e-15 of 10 Mb/s in flows of 10 x 1500 bytes: 8.3e-14 flows/s.
    let (field, msg) = refused(&poisson(json!({"load": 1e-15})));
    assert_eq!(field, "traffic[0].load");
    assert!(msg.contains("1e-6"), "{msg}");
    // Open-loop packet sources: the same floor on packets per second.
    for (arrivals, extra) in [
        ("poisson-packets", json!({})),
        ("on-off", json!({"on_ms": 10.0, "off_ms": 10.0})),
    ] {
        let mut v = base();
        let mut g = json!({"arrivals": arrivals, "rate_per_s": 1e-12, "stop_s": 1.0});
        for (k, x) in extra.as_object().unwrap() {
            g[k] = x.clone();
        }
        v["traffic"] = json!([g]);
        let (field, msg) = refused(&v);
        assert_eq!(field, "traffic[0].rate_per_s", "{arrivals}");
        assert!(msg.contains("1e-6"), "{arrivals}: {msg}");
    }
}

#[test]
fn the_slowest_allowed_rate_runs() {
    // One flow per 2e5 s on average: three flows, gaps far inside u64 ns.
    let out = fctlab_core::run(from_json(&poisson(json!({"rate_per_s": 5e-6})).to_string()).unwrap());
    let starts: Vec<u64> = out.flows.iter().map(|f| f.start_ns).collect();
    assert_eq!(starts.len(), 4, "the explicit flow and three Poisson flows");
    assert!(out.flows.iter().all(|f| f.finish_ns.is_some()));
    // Three flows expected to take 6e5 s; more than 10^6 s of them is refused.
    let (field, msg) = refused(&poisson(json!({"rate_per_s": 5e-6, "count": 6})));
    assert_eq!(field, "traffic[0].count");
    assert!(msg.contains("1e6 s"), "{msg}");
}

/// Set `path` (dotted, under the scenario) to `x`.
fn set(v: &mut Value, path: &str, x: Value) {
    let mut cur = v;
    let parts: Vec<&str> = path.split('.').collect();
    for p in &parts[..parts.len() - 1] {
        if cur.get(*p).is_none() {
            cur[*p] = json!({});
        }
        cur = cur.get_mut(*p).unwrap();
    }
    cur[parts[parts.len() - 1]] = x;
}

/// Every timer and period of every table, with the scheme or queue that reads it.
fn timers() -> Vec<(&'static str, Value)> {
    let tcp = json!({});
    let rcp = json!({"transport": {"scheme": "rcp"}, "network": {"queue": "rcp"}});
    let xcp = json!({"transport": {"scheme": "xcp"}, "network": {"queue": "xcp"}});
    let hbh = json!({"transport": {"scheme": "hbh"}, "network": {"queue": "hbh"}});
    let red = json!({"network": {"queue": "red"}});
    vec![
        ("transport.syn_rto_ms", tcp.clone()),
        ("transport.delack_timeout_ms", tcp.clone()),
        ("transport.min_rto_ms", tcp.clone()),
        ("transport.initial_rto_ms", tcp.clone()),
        ("transport.rcp.syn_first_retx_ms", rcp.clone()),
        ("transport.rcp.syn_retx_ms", rcp.clone()),
        ("transport.rcp.max_probe_interval_ms", rcp.clone()),
        ("network.rcp.upd_timeslot_ms", rcp.clone()),
        ("network.rcp.initial_rtt_ms", rcp),
        ("network.xcp.min_interval_ms", xcp.clone()),
        ("network.xcp.init_interval_ms", xcp.clone()),
        ("network.xcp.min_tq_ms", xcp),
        ("network.hbh.rate_window_ms", hbh),
        ("network.red.target_delay_ms", red),
        (
            "transport.tarheel.ref_rtt_ms",
            json!({"transport": {"scheme": "tcp-tarheel"}}),
        ),
        (
            "transport.tarheel.base_rtt_ms",
            json!({"transport": {"scheme": "tcp-tarheel"}}),
        ),
        ("transport.srf.ref_rtt_ms", json!({"transport": {"scheme": "tcp-srf"}})),
        ("transport.libra.t1_ms", json!({"transport": {"scheme": "tcp-libra"}})),
        ("metrics.interval_ms", tcp),
    ]
}

fn with(extra: &Value) -> Value {
    let mut v = base();
    for (section, t) in extra.as_object().unwrap() {
        for (k, x) in t.as_object().unwrap() {
            v[section][k] = x.clone();
        }
    }
    v
}

#[test]
fn timers_below_a_microsecond_are_refused() {
    // 1e-7 ms is 0.1 ns: it rounds to 0 ns, a timer that fires at once forever.
    for (key, extra) in timers() {
        let mut v = with(&extra);
        set(&mut v, key, json!(1e-7));
        let (field, msg) = refused(&v);
        assert_eq!(field, key);
        assert!(msg.contains("at least 0.001 ms"), "{key}: {msg}");
        // A microsecond is allowed (the run is not attempted: only its checks).
        let mut v = with(&extra);
        set(&mut v, key, json!(1e-3));
        if key == "transport.min_rto_ms" || key == "transport.initial_rto_ms" {
            continue; // ordering with the other RTO keys checked elsewhere
        }
        if let Err(e) = from_json(&v.to_string()) {
            assert_ne!(e.field, key, "{key}: a microsecond is refused: {e}");
        }
    }
}

#[test]
fn timers_beyond_the_time_type_are_refused() {
    for (key, extra) in timers() {
        let mut v = with(&extra);
        set(&mut v, key, json!(1e12));
        let (field, msg) = refused(&v);
        assert_eq!(field, key);
        assert!(msg.contains("at most"), "{key}: {msg}");
    }
}

#[test]
fn per_flow_and_per_entry_timer_overrides_are_checked() {
    let mut v = base();
    v["flows"][0]["transport"] = json!({"syn_rto_ms": 1e-7});
    let (field, msg) = refused(&v);
    assert!(field.ends_with("syn_rto_ms"), "{field}");
    assert!(msg.contains("at least 0.001 ms"), "{msg}");
    let mut v = poisson(json!({"rate_per_s": 10.0}));
    v["traffic"][0]["transport"] = json!({"delack_timeout_ms": 1e-7});
    let (field, msg) = refused(&v);
    assert!(field.ends_with("delack_timeout_ms"), "{field}");
    assert!(msg.contains("at least 0.001 ms"), "{msg}");
}

#[test]
fn on_off_periods_below_a_microsecond_are_refused() {
    let mut v = base();
    v["traffic"] = json!([{"arrivals": "on-off", "rate_per_s": 100.0, "on_ms": 1e-7, "off_ms": 1.0, "stop_s": 1.0}]);
    assert_eq!(refused(&v).0, "traffic[0].on_ms");
    // An off time may be 0 (always on); 1e-7 ms is the same as 0.
    v["traffic"][0]["on_ms"] = json!(1.0);
    v["traffic"][0]["off_ms"] = json!(1e-7);
    assert!(from_json(&v.to_string()).is_ok());
    let mut v = base();
    v["traffic"] = json!([{"arrivals": "probe", "interval_ms": 1e-7, "stop_s": 1.0}]);
    assert_eq!(refused(&v).0, "traffic[0].interval_ms");
}

#[test]
fn sketch_accuracy_outside_its_range_is_refused() {
    // 1e-17: gamma = (1 + a)/(1 - a) rounds to 1 in f64, ln gamma = 0, every
    // value in one bucket. 1e-8: 2.3e8 buckets (1.8 GB) per size for FCTs
    // spanning a factor of 100.
    for a in [1e-17, 1e-8, 1e-5] {
        let mut v = base();
        v["metrics"] = json!({"size_stats": true, "size_stats_alpha": a});
        let (field, msg) = refused(&v);
        assert_eq!(field, "metrics.size_stats_alpha");
        assert!(msg.contains("1e-4"), "{msg}");
    }
    let mut v = base();
    v["metrics"] = json!({"size_stats": true, "size_stats_alpha": 1e-4});
    assert!(from_json(&v.to_string()).is_ok());
}

#[test]
fn absurd_size_laws_are_refused() {
    // shape 1e308: mean x (shape - 1) overflows to infinity, every flow 10^12 packets.
    let sizes = |s: Value| poisson(json!({"rate_per_s": 10.0, "sizes": s}));
    let (field, msg) = refused(&sizes(json!({"dist": "pareto", "mean_pkts": 10, "shape": 1e308})));
    assert_eq!(field, "traffic[0].sizes.shape");
    assert!(msg.contains("1000"), "{msg}");
    // shape 1.05, mean 10: x_m = 0.476, and the draws beyond the 10^12-packet cap
    // carry (x_m / 1e12)^(shape - 1) = 24% of the mean: the mean is not the law's.
    let (field, msg) = refused(&sizes(json!({"dist": "pareto", "mean_pkts": 10, "shape": 1.05})));
    assert_eq!(field, "traffic[0].sizes.shape");
    assert!(msg.contains("10%"), "{msg}");
    // shape 1.2, mean 10: 0.44% beyond the cap, accepted.
    assert!(from_json(&sizes(json!({"dist": "pareto", "mean_pkts": 10, "shape": 1.2})).to_string()).is_ok());
    // Every law: a mean of at most 1e9 packets.
    for s in [
        json!({"dist": "fixed", "pkts": 2_000_000_000u64}),
        json!({"dist": "uniform", "min_pkts": 1, "max_pkts": 4_000_000_000u64}),
        json!({"dist": "empirical", "values": [5e9]}),
        json!({"dist": "empirical", "cdf": [[1, 0.5], [1e10, 1.0]]}),
        json!({"dist": "mixture", "components": [
            {"weight": 1, "dist": "fixed", "pkts": 3_000_000_000u64}]}),
    ] {
        let (field, msg) = refused(&sizes(s.clone()));
        assert!(field.starts_with("traffic[0].sizes"), "{s}: {field}");
        assert!(msg.contains("1e9"), "{s}: {msg}");
    }
}

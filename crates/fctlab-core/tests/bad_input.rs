//! Bad scenarios are refused before the run, naming the key.

use fctlab_core::from_json;
use serde_json::json;

fn refused(v: serde_json::Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

fn base() -> serde_json::Value {
    json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}]})
}

#[test]
fn unknown_key_is_named() {
    let mut v = base();
    v["network"]["bandwidth"] = json!(5);
    let (field, msg) = refused(v);
    assert_eq!(field, "network.bandwidth");
    assert!(msg.contains("unknown key") && msg.contains("bottleneck_bps"), "{msg}");
    let mut v = base();
    v["colour"] = json!("red");
    assert_eq!(refused(v).0, "colour");
}

#[test]
fn wrong_type_is_named() {
    let mut v = base();
    v["network"]["bottleneck_bps"] = json!("fast");
    let (field, msg) = refused(v);
    assert_eq!(field, "network.bottleneck_bps");
    assert_eq!(msg, "expected a number, got the text \"fast\"");
    let mut v = base();
    v["flows"][0]["size_pkts"] = json!(2.5);
    let (field, msg) = refused(v);
    assert_eq!(field, "flows[0].size_pkts");
    assert_eq!(msg, "expected a whole number >= 0, got 2.5");
    let mut v = base();
    v["metrics"] = json!({"series": "yes"});
    assert_eq!(refused(v).1, "expected true or false, got the text \"yes\"");
    let mut v = base();
    v["metrics"] = json!({"cwnd_flows": 3});
    assert_eq!(refused(v).1, "expected a list, got 3");
}

#[test]
fn whole_floats_count_as_whole_numbers() {
    // TOML writes 25,000 as 2.5e4, a float: accepted where a count is asked
    // for, in every entry of a list, and the same plan as with integers.
    let ints = json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}, {"size_pkts": 4}],
                      "traffic": [{"arrivals": "poisson", "load": 0.5, "count": 25000,
                                   "sizes": {"dist": "fixed", "pkts": 2}}],
                      "metrics": {"cwnd_flows": [0, 1]}});
    let floats = json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3.0}, {"size_pkts": 4.0}],
                        "traffic": [{"arrivals": "poisson", "load": 0.5, "count": 2.5e4,
                                     "sizes": {"dist": "fixed", "pkts": 2.0}}],
                        "metrics": {"cwnd_flows": [0.0, 1.0]}});
    let a = from_json(&ints.to_string()).unwrap();
    let b = from_json(&floats.to_string()).unwrap();
    assert_eq!(a.flows_expected(), Some(25002));
    assert_eq!(a.flows_expected(), b.flows_expected());
    assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
    assert_eq!(a.cwnd_flows, b.cwnd_flows);
}

#[test]
fn links_all_as_a_string() {
    // metrics.links = "all" (a name alone) is the list ["all"].
    let mut v = base();
    v["metrics"] = json!({"links": "all"});
    let one = from_json(&v.to_string()).unwrap();
    v["metrics"] = json!({"links": ["all"]});
    let list = from_json(&v.to_string()).unwrap();
    assert_eq!(format!("{:?}", one.series_links), format!("{:?}", list.series_links));
    v["metrics"] = json!({"links": 3});
    let (field, msg) = refused(v);
    assert_eq!(field, "metrics.links");
    assert!(msg.contains("\"all\""), "{msg}");
}

#[test]
fn non_positive_rate() {
    for r in [0.0, -1e6] {
        let mut v = base();
        v["network"]["bottleneck_bps"] = json!(r);
        let (field, msg) = refused(v);
        assert_eq!(field, "network.bottleneck_bps");
        assert!(msg.contains("positive"), "{msg}");
    }
}

#[test]
fn unknown_scheme_lists_the_allowed() {
    let mut v = base();
    v["transport"] = json!({"scheme": "tcp-vegas2"});
    let (field, msg) = refused(v);
    assert_eq!(field, "transport.scheme");
    assert!(msg.contains("tcp-newreno"), "{msg}");
}

#[test]
fn empty_workload() {
    let v = json!({"network": {"bottleneck_bps": 1e7}});
    let (field, msg) = refused(v);
    assert_eq!(field, "flows");
    assert!(msg.contains("empty"), "{msg}");
}

#[test]
fn missing_required_key_and_bad_combinations() {
    let v = json!({"network": {"topology": "dumbbell"}, "flows": [{"size_pkts": 1}]});
    assert_eq!(refused(v).0, "network.bottleneck_bps");
    let mut v = base();
    v["flows"][0]["sender"] = json!(3);
    assert_eq!(refused(v).0, "flows[0].sender");
    let mut v = base();
    v["network"]["buffer_bdp"] = json!(1.0);
    v["network"]["buffer_pkts"] = json!(10);
    assert_eq!(refused(v).0, "network.buffer_bdp");
    let mut v = base();
    v["traffic"] = json!([{"arrivals": "poisson", "load": 0.5, "sizes": {"dist": "pareto", "mean_pkts": 10, "shape": 0.9}, "count": 10}]);
    assert_eq!(refused(v).0, "traffic[0].sizes.shape");
    let mut v = base();
    v["flows"][0] = json!({"long_lived": true});
    assert_eq!(refused(v).0, "stop_s");
    let mut v = base();
    v["network"]["topology"] = json!("dumbbell");
    v["network"]["senders"] = json!(2);
    v["network"]["access_delay_ms"] = json!([1.0]);
    assert_eq!(refused(v).0, "network.access_delay_ms");
}

/// A fat-tree k = 4 (16 hosts) with one flow between two hosts.
fn fabric() -> serde_json::Value {
    json!({"network": {"topology": "fat-tree", "fat-tree": {"k": 4}},
           "flows": [{"src": 0, "dst": 5, "size_pkts": 3}]})
}

/// A file of `text` in the temporary directory, named after `tag`.
fn temp_file(tag: &str, text: &str) -> String {
    let p = std::env::temp_dir().join(format!("fctlab-bad-input-{}-{tag}.txt", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn fabric_input_names_the_field_and_what_is_allowed() {
    // A host index out of range (16 hosts: 0..15).
    let mut v = fabric();
    v["flows"][0]["dst"] = json!(16);
    assert_eq!(
        refused(v),
        ("flows[0].dst".into(), "host 16 does not exist: hosts are 0..15".into())
    );
    // An odd k, and an oversubscription below 1.
    let mut v = fabric();
    v["network"]["fat-tree"]["k"] = json!(5);
    let (field, msg) = refused(v);
    assert_eq!(field, "network.fat-tree.k");
    assert!(
        msg.contains("even number from 2 to 64") && msg.contains("got 5"),
        "{msg}"
    );
    let mut v = fabric();
    v["network"]["fat-tree"]["oversubscription"] = json!(0.5);
    let (field, msg) = refused(v);
    assert_eq!(field, "network.fat-tree.oversubscription");
    assert!(msg.contains(">= 1") && msg.contains("0.5"), "{msg}");
    let v = json!({"network": {"topology": "leaf-spine", "leaf-spine": {"oversubscription": 0.9}},
                   "flows": [{"src": 0, "dst": 5, "size_pkts": 3}]});
    assert_eq!(refused(v).0, "network.leaf-spine.oversubscription");
    // A load over 1 of the busiest host link.
    let poisson = |extra: serde_json::Value| {
        let mut t = json!({"arrivals": "poisson", "load": 0.5, "count": 10, "matrix": "permutation",
                           "sizes": {"dist": "websearch"}});
        for (k, x) in extra.as_object().unwrap() {
            t[k] = x.clone();
        }
        json!({"network": {"topology": "fat-tree", "fat-tree": {"k": 4}}, "traffic": [t]})
    };
    let (field, msg) = refused(poisson(json!({"load": 1.2})));
    assert_eq!(field, "traffic[0].load");
    assert!(msg.contains("at most 1") && msg.contains("1.2"), "{msg}");
    // A matrix naming an unknown host, in a file and as an incast receiver.
    let f = temp_file("matrix", "0 1\n3 99 2.0\n");
    let (field, msg) = refused(poisson(json!({"matrix": "file", "matrix_file": f})));
    assert_eq!(field, "traffic[0].matrix_file");
    assert_eq!(msg, "line 2: dst host 99 does not exist: hosts are 0..15");
    let (field, msg) = refused(poisson(json!({"matrix": "incast", "fan_in": 4, "receiver": 16})));
    assert_eq!(field, "traffic[0].receiver");
    assert_eq!(msg, "host 16 does not exist: hosts are 0..15");
    // A flows file naming an unknown host.
    let f = temp_file("flows", "0.0 10 0 1\n0.1 10 20 1\n");
    let v = json!({"network": {"topology": "fat-tree", "fat-tree": {"k": 4}},
                   "traffic": [{"arrivals": "file", "flows_file": f}]});
    let (field, msg) = refused(v);
    assert_eq!(field, "traffic[0].flows_file");
    assert!(msg.starts_with("line 2: src host 20 does not exist"), "{msg}");
    // A CDF that is not monotone.
    let cdf = json!({"dist": "empirical", "cdf": [[1, 0.2], [10, 0.6], [5, 0.8], [20, 1.0]]});
    let (field, msg) = refused(poisson(json!({"sizes": cdf})));
    assert_eq!(field, "traffic[0].sizes.cdf[2]");
    assert_eq!(msg, "sizes and cumulative probabilities must not decrease");
    let cdf = json!({"dist": "empirical", "cdf": [[1, 0.5], [10, 0.4], [20, 1.0]]});
    assert_eq!(refused(poisson(json!({"sizes": cdf}))).0, "traffic[0].sizes.cdf[1]");
    let f = temp_file("cdf", "1 0.5\n10 0.3\n20 1\n");
    let (field, msg) = refused(poisson(json!({"sizes": {"dist": "empirical", "cdf_file": f}})));
    assert!(field.starts_with("traffic[0].sizes"), "{field}");
    assert!(msg.contains("must not decrease"), "{msg}");
}

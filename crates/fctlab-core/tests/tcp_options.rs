//! The TCP model options (`[transport]` keys, `TcpOptions`): each key's TOML
//! value reaches the model, a preset is an overlay that a key given beside it
//! wins over, a bad value is refused naming its key and the values allowed,
//! and per-sender and per-flow overrides carry them. The TOML strings are the
//! TCP model options page's (docs/guide/tcp-options.md), written out here, not taken from the code.

use fctlab_core::config::ConfigError;
use fctlab_core::scenario::{from_json, Plan};
use fctlab_core::transport::tcp::options::{
    Delack, DupackWindow, FastRetransmitTimer, RecoveryExit, RtoEstimator, RttSampling, SsthreshFlight, TcpOptions,
    TimeoutExitGrowth, WindowGrowth,
};
use serde_json::{json, Value};
use std::collections::BTreeSet;

type Set = fn(&mut TcpOptions);

/// Each key with a value other than its default, as a scenario writes it,
/// and what it sets.
fn given() -> Vec<(&'static str, Value, Set)> {
    vec![
        ("syn_rto_ms", json!(3000.0), |o| o.syn_rto_ms = Some(3000.0)),
        ("limited_transmit", json!(true), |o| o.limited_transmit = true),
        ("rtt_sampling", json!("karn"), |o| o.rtt_sampling = RttSampling::Karn),
        ("recovery_exit", json!("ssthresh"), |o| {
            o.recovery_exit = RecoveryExit::Ssthresh
        }),
        ("timeout_exit_growth", json!("beyond_recover"), |o| {
            o.timeout_exit_growth = TimeoutExitGrowth::BeyondRecover
        }),
        ("fast_retransmit_timer", json!("keep"), |o| {
            o.fast_retransmit_timer = FastRetransmitTimer::Keep
        }),
        ("ssthresh_flight", json!("pipe"), |o| {
            o.ssthresh_flight = SsthreshFlight::Pipe
        }),
        ("dupack_window", json!("pipe"), |o| o.dupack_window = DupackWindow::Pipe),
        ("time_first_syn", json!(true), |o| o.time_first_syn = true),
        ("window_growth", json!("bytes"), |o| {
            o.window_growth = WindowGrowth::Bytes
        }),
        ("handshake_ack", json!(true), |o| o.handshake_ack = true),
        ("syn_option_bytes", json!(4), |o| o.syn_option_bytes = 4),
        ("fin_exchange", json!(true), |o| o.fin_exchange = true),
        ("fin_rst", json!(true), |o| o.fin_rst = true),
        ("init_ssthresh_pkts", json!(64.0), |o| o.init_ssthresh_pkts = Some(64.0)),
        ("rto_estimator", json!("linux"), |o| {
            o.rto_estimator = RtoEstimator::Linux
        }),
        ("frto", json!(true), |o| o.frto = true),
        ("prr", json!(true), |o| o.prr = true),
        ("rack", json!(true), |o| o.rack = true),
        ("delack", json!("linux"), |o| o.delack = Delack::Linux),
        ("ecn_cwr_hold", json!(true), |o| o.ecn_cwr_hold = true),
        ("rto_tick_ms", json!(500.0), |o| o.rto_tick_ms = Some(500.0)),
        ("pacing", json!(true), |o| o.pacing = Some(true)),
        ("pacing_ss_ratio", json!(150.0), |o| o.pacing_ss_ratio = 150.0),
        ("pacing_ca_ratio", json!(110.0), |o| o.pacing_ca_ratio = 110.0),
    ]
}

/// The keys neither ns-3's preset nor Linux's sets.
const NEITHER: [&str; 5] = [
    "init_ssthresh_pkts",
    "rto_tick_ms",
    "pacing",
    "pacing_ss_ratio",
    "pacing_ca_ratio",
];

/// The keys the `linux` preset sets (and ns-3's leaves at the default).
const LINUX: [&str; 5] = ["rto_estimator", "frto", "prr", "rack", "delack"];

/// The keys both presets set (to the same value).
const BOTH: [&str; 1] = ["ecn_cwr_hold"];

/// The RFC default of each key as a scenario writes it (keys whose default is
/// "unset" have none to write).
fn rfc_values() -> Vec<(&'static str, Value)> {
    vec![
        ("limited_transmit", json!(false)),
        ("rtt_sampling", json!("timestamps")),
        ("recovery_exit", json!("flight")),
        ("timeout_exit_growth", json!("all")),
        ("fast_retransmit_timer", json!("restart")),
        ("ssthresh_flight", json!("flight")),
        ("dupack_window", json!("inflation")),
        ("time_first_syn", json!(false)),
        ("window_growth", json!("packets")),
        ("handshake_ack", json!(false)),
        ("syn_option_bytes", json!(0)),
        ("fin_exchange", json!(false)),
        ("fin_rst", json!(false)),
        ("rto_estimator", json!("rfc6298")),
        ("frto", json!(false)),
        ("prr", json!(false)),
        ("rack", json!(false)),
        ("delack", json!("fixed")),
        ("ecn_cwr_hold", json!(false)),
    ]
}

/// A two-flow scenario with this transport table; `tcp-sack` unless it
/// names a scheme (`rack = true` is refused where no SACK scoreboard is kept).
fn scenario(mut transport: Value) -> Value {
    if transport.get("scheme").is_none() {
        transport["scheme"] = json!("tcp-sack");
    }
    json!({
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "senders": 2},
        "transport": transport,
        "flows": [{"sender": 0, "size_pkts": 10}, {"sender": 1, "size_pkts": 10}],
        "metrics": {"series": false}
    })
}

fn plan_of(sc: Value) -> Plan {
    from_json(&sc.to_string()).unwrap_or_else(|e| panic!("refused: {e}"))
}

fn options(transport: Value) -> TcpOptions {
    plan_of(scenario(transport)).transport.tcp
}

fn refused(sc: Value) -> ConfigError {
    match from_json(&sc.to_string()) {
        Ok(_) => panic!("accepted: {sc}"),
        Err(e) => e,
    }
}

/// The options flow `i` of `p` runs with.
fn flow_options(p: &Plan, i: usize) -> TcpOptions {
    p.transports[p.flows[i].transport as usize].0.tcp.clone()
}

#[test]
fn every_key_is_a_key_here_and_documented() {
    let here: BTreeSet<&str> = given().iter().map(|g| g.0).collect();
    let keys: BTreeSet<&str> = TcpOptions::keys().collect();
    assert_eq!(here, keys);
    let docs = TcpOptions::docs();
    assert_eq!(docs.len(), keys.len());
    for d in &docs {
        assert!(
            d.source.len() > 20 && !d.source.starts_with(' '),
            "{}: {:?}",
            d.key,
            d.source
        );
        // A default that is unset says what it stands for.
        assert!(!d.default.is_null() || !d.derived.is_empty(), "{}", d.key);
    }
}

#[test]
fn each_key_alone_sets_its_option_over_the_rfc_defaults() {
    assert_eq!(options(json!({})), TcpOptions::default());
    for (key, value, set) in given() {
        let mut want = TcpOptions::default();
        set(&mut want);
        assert_ne!(want, TcpOptions::default(), "{key}");
        assert_eq!(options(json!({ key: value })), want, "{key}");
    }
}

#[test]
fn the_ns3_preset_is_the_readmes_ns3_column() {
    // Every key as ns-3 sets it; the initial ssthresh stays unbounded, and
    // Linux's keys at the default.
    let mut want = TcpOptions::default();
    for (key, _, set) in given() {
        if !NEITHER.contains(&key) && !LINUX.contains(&key) {
            set(&mut want);
        }
    }
    assert_eq!(TcpOptions::ns3(), want);
    assert_eq!(options(json!({"preset": "ns3"})), want);
    assert_eq!(options(json!({"preset": "rfc"})), TcpOptions::default());
}

#[test]
fn the_linux_preset_sets_linuxs_keys_only() {
    let mut want = TcpOptions::default();
    for (key, _, set) in given() {
        if LINUX.contains(&key) || BOTH.contains(&key) {
            set(&mut want);
        }
    }
    assert_eq!(TcpOptions::linux(), want);
    assert_eq!(options(json!({"preset": "linux"})), want);
    // A key beside it wins; the transport keys outside the options stay.
    let o = options(json!({"preset": "linux", "frto": false}));
    assert!(!o.frto && o.prr);
    let p = plan_of(scenario(json!({"preset": "linux"})));
    assert_eq!(p.transport.init_cwnd_pkts, 2.0);
    assert!(!p.transport.delayed_ack);
}

#[test]
fn a_key_given_beside_a_preset_wins_over_it() {
    for (key, value) in rfc_values().into_iter().filter(|(k, _)| !LINUX.contains(k)) {
        // ns-3's column with this one key back at its RFC default.
        let mut want = TcpOptions::default();
        for (k, _, set) in given() {
            if k != key && !NEITHER.contains(&k) && !LINUX.contains(&k) {
                set(&mut want);
            }
        }
        assert_ne!(want, TcpOptions::ns3(), "{key}");
        assert_eq!(options(json!({"preset": "ns3", key: value})), want, "{key}");
    }
    // A key given as null counts as not given.
    let got = options(json!({"preset": "ns3", "rtt_sampling": null}));
    assert_eq!(got.rtt_sampling, RttSampling::Karn);
}

#[test]
fn bad_values_are_refused_naming_the_key_and_what_is_allowed() {
    let enums = [
        ("rtt_sampling", ["timestamps", "karn"]),
        ("recovery_exit", ["flight", "ssthresh"]),
        ("timeout_exit_growth", ["all", "beyond_recover"]),
        ("fast_retransmit_timer", ["restart", "keep"]),
        ("ssthresh_flight", ["flight", "pipe"]),
        ("dupack_window", ["inflation", "pipe"]),
        ("window_growth", ["packets", "bytes"]),
        ("rto_estimator", ["rfc6298", "linux"]),
        ("delack", ["fixed", "linux"]),
    ];
    for (key, allowed) in enums {
        let e = refused(scenario(json!({ key: "bogus" })));
        assert_eq!(e.field, format!("transport.{key}"));
        for a in allowed {
            assert!(e.message.contains(a), "{key}: {}", e.message);
        }
    }
    let e = refused(scenario(json!({"preset": "ns2"})));
    assert_eq!(e.field, "transport.preset");
    assert!(
        e.message.contains("rfc") && e.message.contains("ns3") && e.message.contains("linux"),
        "{}",
        e.message
    );
    for (key, value) in [
        ("syn_rto_ms", json!(-1.0)),
        ("syn_rto_ms", json!(0.0)),
        ("syn_option_bytes", json!(41)),
        ("init_ssthresh_pkts", json!(0.5)),
        ("rto_tick_ms", json!(0.0)),
        ("rto_tick_ms", json!(-500.0)),
        ("handshake_ack", json!("yes")),
        ("fin_exchange", json!(1)),
        ("limited_transmit", json!("true")),
    ] {
        let e = refused(scenario(json!({ key: value })));
        assert_eq!(e.field, format!("transport.{key}"), "{value}: {}", e.message);
    }
    // Under a preset too: the value given is checked, not the preset's.
    let e = refused(scenario(json!({"preset": "ns3", "syn_option_bytes": 41})));
    assert_eq!(e.field, "transport.syn_option_bytes");
}

#[test]
fn overrides_per_sender_and_per_flow_carry_the_options() {
    let mut sc = scenario(json!({"per_sender": [{}, {"rtt_sampling": "karn", "preset": "ns3"}]}));
    let p = plan_of(sc.clone());
    assert_eq!(flow_options(&p, 0), TcpOptions::default());
    assert_eq!(flow_options(&p, 1), TcpOptions::ns3());
    // A flow's own table over its sender's: back to timestamps for flow 1.
    sc["flows"][1]["transport"] = json!({"rtt_sampling": "timestamps"});
    let p = plan_of(sc.clone());
    let want = TcpOptions {
        rtt_sampling: RttSampling::Timestamps,
        ..TcpOptions::ns3()
    };
    assert_eq!(flow_options(&p, 1), want);
    // [transport]'s own options reach every override that does not set them.
    let mut sc = scenario(json!({"fin_exchange": true, "per_sender": [{"limited_transmit": true}]}));
    let p = plan_of(sc.clone());
    let o = flow_options(&p, 0);
    assert!(o.fin_exchange && o.limited_transmit);
    assert!(flow_options(&p, 1).fin_exchange && !flow_options(&p, 1).limited_transmit);
    // Errors name the override's key.
    sc["transport"]["per_sender"] = json!([{}, {"dupack_window": "sack"}]);
    assert_eq!(refused(sc.clone()).field, "transport.per_sender[1].dupack_window");
    sc["transport"]["per_sender"] = json!([]);
    sc["flows"][0]["transport"] = json!({"window_growth": "bits"});
    assert_eq!(refused(sc).field, "flows[0].transport.window_growth");
}

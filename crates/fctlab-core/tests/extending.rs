//! Adding a building block: a scheme written outside the crate, registered
//! with one line, runs like a built-in one. The documentation's worked
//! example (docs/extending.md includes the code between the markers).
//!
//! `tcp-fixed` keeps its window at `window_pkts` (no slow start, no growth,
//! halving on loss as RFC 5681 does). With a window of n packets and a flow
//! of n packets on an empty single link, the whole flow leaves at once after
//! the handshake, so its FCT is the one-window closed form of
//! `empty_path.rs`: 2 (Ta + d) + n T + d. NewReno with its initial window of
//! 2 needs more rounds for the same flow.

mod common;
use common::ser;
use fctlab_core::config::{documented, ConfigError, Entry, ParamDoc, Params, Table};
use fctlab_core::registry::Registries;
use fctlab_core::scenario::{catalog::catalog_with, from_json_with};
use fctlab_core::transport::cc::{AckSample, CongestionControl, Window};
use fctlab_core::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};
use serde::{Deserialize, Serialize};
use serde_json::json;

// ---- the new file: the controller, its parameter table and its entry ----
// --8<-- [start:scheme]

/// `[transport.fixed]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct FixedCfg {
    window_pkts: f64,
}

impl Default for FixedCfg {
    fn default() -> Self {
        FixedCfg { window_pkts: 4.0 }
    }
}

impl Params for FixedCfg {
    const DOCS: &'static [ParamDoc] = &[ParamDoc::new(
        "window_pkts",
        "a window that never grows (a teaching example)",
    )];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if !(self.window_pkts.is_finite() && self.window_pkts >= 1.0) {
            return Err(ConfigError::new(
                format!("{field}.window_pkts"),
                format!("must be >= 1, got {}", self.window_pkts),
            ));
        }
        Ok(())
    }
}

struct Fixed;

impl CongestionControl for Fixed {
    /// The window never grows.
    fn on_ack(&mut self, _w: &mut Window, _s: &AckSample) {}
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }
}

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: FixedCfg = t.parse()?;
    // The window starts at window_pkts, whatever the transport's initial window.
    let p = TransportParams {
        init_cwnd_pkts: c.window_pkts,
        ..p.clone()
    };
    Ok(tcp::endpoints(&p, || Box::new(Fixed)))
}

const FIXED: SchemeEntry = Entry {
    name: "tcp-fixed",
    description: "TCP with a window that never grows",
    table: Some("fixed"),
    params: documented::<FixedCfg>,
    requires: None,
    factory,
};

// --8<-- [end:scheme]

// ---- the registry line ----
// --8<-- [start:registry]

fn registries() -> Registries {
    Registries::BUILTIN.with_scheme(FIXED)
}
// --8<-- [end:registry]

fn scenario(scheme: &str, n: u64, table: Option<serde_json::Value>) -> serde_json::Value {
    let mut v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 1000},
        "transport": {"scheme": scheme},
        "flows": [{"size_pkts": n}],
        "metrics": {"series": false}
    });
    if let Some(t) = table {
        v["transport"]["fixed"] = t;
    }
    v
}

fn fct(v: &serde_json::Value) -> u64 {
    let plan = from_json_with(&v.to_string(), &registries()).unwrap_or_else(|e| panic!("refused: {e}"));
    fctlab_core::run(plan).flows[0].fct_ns().expect("completes")
}

#[test]
fn a_registered_scheme_runs_and_matches_the_hand_derived_fct() {
    let (rate, d) = (10e6, 10_000_000u64);
    let (t, ta) = (ser(1040, rate), ser(40, rate));
    for n in [4u64, 8, 16] {
        let expect = 2 * (ta + d) + n * t + d;
        assert_eq!(
            fct(&scenario("tcp-fixed", n, Some(json!({"window_pkts": n})))),
            expect,
            "n = {n}"
        );
        // NewReno (initial window 2) needs more round trips for the same flow.
        assert!(fct(&scenario("tcp-newreno", n, None)) > expect + d, "n = {n}");
    }
    // Without a table the documented default (4 packets) applies.
    assert_eq!(fct(&scenario("tcp-fixed", 4, None)), 2 * (ta + d) + 4 * t + d);
}

#[test]
fn its_table_is_checked_and_listed() {
    let refused = |v: serde_json::Value| from_json_with(&v.to_string(), &registries()).err().expect("refused");
    let e = refused(scenario("tcp-fixed", 4, Some(json!({"window_pkts": 0.5}))));
    assert_eq!(e.field, "transport.fixed.window_pkts");
    let e = refused(scenario("tcp-fixed", 4, Some(json!({"window": 4}))));
    assert_eq!(e.field, "transport.fixed.window");
    assert!(
        e.message.contains("unknown key") && e.message.contains("window_pkts"),
        "{}",
        e.message
    );
    // Its table given to another scheme is refused, naming the scheme in use.
    let e = refused(scenario("tcp-newreno", 4, Some(json!({"window_pkts": 4}))));
    assert_eq!(e.field, "transport.fixed");
    assert!(e.message.contains("tcp-newreno"), "{}", e.message);
    // The built-in registries do not know it.
    let e = fctlab_core::from_json(&scenario("tcp-fixed", 4, None).to_string())
        .err()
        .expect("refused");
    assert_eq!(e.field, "transport.scheme");
    // `fctlab list` of these registries shows it, with its default.
    let cat = catalog_with(&registries());
    let s = cat["schemes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "tcp-fixed")
        .expect("listed");
    assert_eq!(s["table"], "transport.fixed");
    assert_eq!(s["params"][0]["key"], "window_pkts");
    assert_eq!(s["params"][0]["value"], 4.0);
    assert_eq!(s["params"][0]["default"], "4");
}

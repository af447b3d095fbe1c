//! What `fctlab list` shows and the reference pages are generated from: every
//! registered building block with its parameters, their defaults (read from
//! the code that applies them) and sources, and every key of the scenario's
//! own tables with its default, meaning and source.

mod keys;
mod tcp;
#[cfg(test)]
mod tests;

pub use keys::{Dflt, KeyDoc};
pub use tcp::{preset_values, tcp_option_docs, TcpOptionDoc};

use super::{FlowCfg, LossCfg, MetricsCfg, NetworkCfg, Scenario, TrafficCfg, TransportCfg};
use crate::config::{Entry, ParamInfo};
use crate::net::topology::graph::LinkCfg;
use crate::registry::Registries;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

fn params(ps: &[ParamInfo]) -> Vec<Value> {
    ps.iter()
        .map(|p| {
            let mut v = json!({"key": p.key, "default": p.default_text(), "value": p.default, "source": p.source});
            if !p.derived.is_empty() {
                v["derived"] = json!(p.derived);
            }
            v
        })
        .collect()
}

/// One registry entry as JSON; `table` is where its parameters go.
fn entry<F>(e: &Entry<F>, table: Option<String>) -> Value {
    let ps = (e.params)();
    let mut v = json!({"name": e.name, "description": e.description, "table": table, "params": params(&ps)});
    if !ps.is_empty() {
        v["parameters"] = json!(ps.iter().map(|p| p.key).collect::<Vec<_>>().join(", "));
    }
    if let Some(r) = e.requires {
        v["queue"] = json!(r);
    }
    v
}

/// A size law's entry; a built-in table's rows too (`cdf`: bytes and
/// cumulative probability, `interpolate`: piecewise linear or steps), so that
/// a flow list drawn outside the engine can follow the same law.
fn size_entry(e: &crate::workload::sizes::SizeEntry) -> Value {
    let mut v = entry(e, Some("traffic[i].sizes".into()));
    if let Some(law) = crate::workload::builtin::LAWS.iter().find(|l| l.name == e.name) {
        v["cdf"] = json!(law.rows().iter().map(|&(x, p)| [x, p]).collect::<Vec<_>>());
        v["interpolate"] = json!(law.interpolate);
    }
    v
}

/// A section of scenario keys: its name (what `fctlab list` filters by), a
/// title, the dotted prefix of its keys, its documentation and its table's
/// defaults as serde gives them.
pub struct Section {
    pub name: &'static str,
    pub title: &'static str,
    pub prefix: &'static str,
    /// Keys of list entries (`[[traffic]]`) rather than of one table.
    pub entries: bool,
    pub docs: &'static [KeyDoc],
    pub defaults: fn() -> Value,
}

/// The defaults of table `T` as serde fills them in from `minimal` (the
/// table's required keys), serialised.
fn defaults_of<T: DeserializeOwned + Serialize>(minimal: Value) -> Value {
    serde_json::from_value::<T>(minimal)
        .ok()
        .and_then(|t| serde_json::to_value(t).ok())
        .unwrap_or(Value::Null)
}

/// The sections of scenario keys, in the order `fctlab list` shows them (the
/// TCP model options, `transport` keys too, are [`tcp_option_docs`]).
pub const SECTIONS: &[Section] = &[
    Section {
        name: "run",
        title: "top-level keys",
        prefix: "",
        entries: false,
        docs: keys::RUN,
        defaults: || defaults_of::<Scenario>(json!({"network": {}})),
    },
    Section {
        name: "network",
        title: "[network]",
        prefix: "network.",
        entries: false,
        docs: keys::NETWORK,
        defaults: || defaults_of::<NetworkCfg>(json!({})),
    },
    Section {
        name: "graph",
        title: "each link of [network.graph] links",
        prefix: "network.graph.links[].",
        entries: true,
        docs: keys::GRAPH_LINK,
        defaults: || defaults_of::<LinkCfg>(json!({"a": "a", "b": "b", "rate_bps": 1.0})),
    },
    Section {
        name: "transport",
        title: "[transport]",
        prefix: "transport.",
        entries: false,
        docs: keys::TRANSPORT,
        defaults: || serde_json::to_value(TransportCfg::default()).unwrap_or(Value::Null),
    },
    Section {
        name: "traffic",
        title: "each [[traffic]] entry",
        prefix: "traffic[].",
        entries: true,
        docs: keys::TRAFFIC,
        defaults: || defaults_of::<TrafficCfg>(json!({"arrivals": "poisson"})),
    },
    Section {
        name: "flows",
        title: "each [[flows]] entry",
        prefix: "flows[].",
        entries: true,
        docs: keys::FLOWS,
        defaults: || defaults_of::<FlowCfg>(json!({})),
    },
    Section {
        name: "metrics",
        title: "[metrics]",
        prefix: "metrics.",
        entries: false,
        docs: keys::METRICS,
        defaults: || serde_json::to_value(MetricsCfg::default()).unwrap_or(Value::Null),
    },
    Section {
        name: "losses",
        title: "each [[losses]] entry (forced losses)",
        prefix: "losses[].",
        entries: true,
        docs: keys::LOSSES,
        defaults: || defaults_of::<LossCfg>(json!({"flow": 0, "seq": 0})),
    },
];

/// A value as `fctlab list` writes it (`5`, `0.1`, `1e-7`, `true`, `flow`).
fn show(v: &Value) -> String {
    ParamInfo {
        key: "",
        default: v.clone(),
        derived: "",
        source: "",
    }
    .default_text()
}

/// The default of a documented key: its value (null when there is no plain
/// value) and the text `fctlab list` shows.
///
/// Panics (a bug, caught by this module's tests) if a default said to be the
/// code's is not a value of the table's defaults.
pub fn key_default(s: &Section, d: &KeyDoc, defaults: &Value) -> (Value, String) {
    match d.default {
        Dflt::Code => {
            let v = defaults.get(d.key).filter(|v| !v.is_null()).cloned();
            let v = v.unwrap_or_else(|| panic!("{}{} has no default in its table", s.prefix, d.key));
            let text = show(&v);
            (v, text)
        }
        Dflt::Applied(lit) => {
            let v: Value = serde_json::from_str(lit).expect("a JSON literal");
            let text = show(&v);
            (v, text)
        }
        Dflt::Text(t) => (Value::Null, t.to_string()),
    }
}

fn section_keys(s: &Section) -> Vec<Value> {
    let defaults = (s.defaults)();
    s.docs
        .iter()
        .map(|d| {
            let (value, text) = key_default(s, d, &defaults);
            let default = if value.is_null() { json!(text) } else { value.clone() };
            let aliases: Vec<&str> = keys::ALIASES
                .iter()
                .filter(|a| a.0 == s.name && a.2 == d.key)
                .map(|a| a.1)
                .collect();
            json!({"section": s.name, "key": format!("{}{}", s.prefix, d.key), "name": d.key, "default": default,
                   "value": value, "text": text, "meaning": d.meaning, "source": d.source, "aliases": aliases})
        })
        .collect()
}

fn tcp_option_keys() -> Vec<Value> {
    tcp_option_docs()
        .iter()
        .map(|o| {
            let (rfc, ns3, linux) = tcp::all_preset_values(o.key);
            let text_of = |v: &Value| if v.is_null() { o.unset.to_string() } else { show(v) };
            let text = format!("{} (ns3: {}; linux: {})", text_of(&rfc), text_of(&ns3), text_of(&linux));
            json!({"section": "tcp", "key": format!("transport.{}", o.key), "name": o.key, "default": text,
                   "value": Value::Null, "rfc": rfc, "ns3": ns3, "linux": linux, "text": text,
                   "meaning": o.meaning, "source": o.source})
        })
        .collect()
}

/// The catalogue of the built-in building blocks, as JSON.
pub fn catalog() -> Value {
    catalog_with(&Registries::BUILTIN)
}

/// The catalogue of the given registries, as JSON.
pub fn catalog_with(reg: &Registries) -> Value {
    let mut parameters = Vec::new();
    let mut entry_parameters = Vec::new();
    let mut sections = Vec::new();
    for s in SECTIONS {
        let out = if s.entries {
            &mut entry_parameters
        } else {
            &mut parameters
        };
        out.extend(section_keys(s));
        sections.push(json!({"name": s.name, "title": s.title, "entries": s.entries}));
        if s.name == "transport" {
            parameters.extend(tcp_option_keys());
            sections.push(json!({"name": "tcp", "title": "[transport] TCP model options", "entries": false}));
        }
    }
    json!({
        "schemes": reg.schemes.iter().map(|e| entry(e, e.table.map(|t| format!("transport.{t}")))).collect::<Vec<_>>(),
        "queues": reg.queues.iter().map(|e| entry(e, e.table.map(|t| format!("network.{t}")))).collect::<Vec<_>>(),
        "topologies": reg.topologies.iter().map(|e| entry(e, e.table.map(|t| format!("network.{t}")))).collect::<Vec<_>>(),
        "distributions": reg.sizes.iter().map(size_entry).collect::<Vec<_>>(),
        "arrivals": reg.arrivals.iter().map(|e| entry(e, None)).collect::<Vec<_>>(),
        "sections": sections,
        "parameters": parameters,
        "entry_parameters": entry_parameters,
    })
}

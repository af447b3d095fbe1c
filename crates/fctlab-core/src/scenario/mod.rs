//! The scenario: its schema with every default (each with its source), and
//! its resolution into a runnable [`Plan`].
//!
//! A scenario arrives as JSON (the Python front end turns TOML or a dict into
//! JSON). Parsing refuses unknown keys and wrong types, naming the key; the
//! building blocks named in it are looked up in [`crate::registry`] and each
//! checks its own parameter table; then the plan is resolved section by
//! section ([`resolve`]). Nothing below this module knows the schema.

pub mod catalog;
mod fabric;
pub mod memory;
mod metrics;
mod overrides;
mod resolve;
mod warnings;

pub use crate::config::ConfigError;
pub use crate::workload::TrafficCfg;
pub use resolve::{plan, plan_with, FlowPlan, Plan};
pub use warnings::warnings;

use crate::config::err;
use crate::registry::Registries;
use crate::transport::{Preset, TcpOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Parameter tables of building blocks, by table name.
pub type Tables = BTreeMap<String, serde_json::Value>;

/// The whole scenario, as written by the user.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The run's seed.
    #[serde(default)]
    pub seed: u64,
    /// Simulated-time limit in seconds; default: until every finite flow ends.
    #[serde(default)]
    pub stop_s: Option<f64>,
    pub network: NetworkCfg,
    #[serde(default)]
    pub transport: TransportCfg,
    #[serde(default)]
    pub flows: Vec<FlowCfg>,
    #[serde(default)]
    pub traffic: Vec<TrafficCfg>,
    #[serde(default)]
    pub metrics: MetricsCfg,
    /// Forced losses: named data packets dropped just before their receiver
    /// gets them (after crossing every link), for hand-checkable loss traces.
    #[serde(default)]
    pub losses: Vec<LossCfg>,
}

/// Drop the `transmission`-th copy of data packet `seq` of flow `flow`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LossCfg {
    pub flow: u64,
    pub seq: u64,
    #[serde(default = "d_one")]
    pub transmission: u32,
}

/// A number, or one number per sender.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PerSender {
    One(f64),
    Many(Vec<f64>),
}

impl Default for PerSender {
    fn default() -> Self {
        PerSender::One(0.0)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkCfg {
    #[serde(default = "d_topology")]
    pub topology: String,
    /// Default 1 (`graph`: one per path).
    #[serde(default)]
    pub senders: Option<u32>,
    /// Required by the built-in topologies; a `graph`'s links carry their own rates.
    #[serde(default)]
    pub bottleneck_bps: Option<f64>,
    #[serde(default)]
    pub bottleneck_delay_ms: f64,
    /// Default: ten times the bottleneck rate, so the bottleneck is where queues build.
    #[serde(default)]
    pub access_bps: Option<f64>,
    #[serde(default)]
    pub access_delay_ms: PerSender,
    #[serde(default)]
    pub receiver_delay_ms: f64,
    #[serde(default)]
    pub buffer_pkts: Option<u64>,
    /// Default (when neither buffer key is given): 1 BDP, the rule of thumb the
    /// 2006 FCT paper's HSTCP set-up uses ("buffer size = bandwidth times RTT").
    #[serde(default)]
    pub buffer_bdp: Option<f64>,
    #[serde(default = "d_queue")]
    pub queue: String,
    /// Routing over equal-cost paths: "single" (default), "ecmp" or "spray".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<String>,
    /// ECMP's hash: "seeded" (default) or "flow-index" (htsim's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecmp_hash: Option<String>,
    /// The ACKs' path: "hash" (default: hashed on their own) or "mirror".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_path: Option<String>,
    /// How a sprayed packet's path is picked: "random" (default) or "round-robin".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spray: Option<String>,
    /// ECMP with flowlets: re-hash a flow after a pause longer than this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flowlet_gap_us: Option<f64>,
    /// Parameter tables of queue disciplines and topologies (`[network.red]`,
    /// ...), by table name; each is checked by the building block that owns it.
    #[serde(skip)]
    pub tables: Tables,
}

/// Default `network.topology`.
pub fn d_topology() -> String {
    "single-link".into()
}
/// Default `network.queue`.
pub fn d_queue() -> String {
    "droptail".into()
}
fn d_one() -> u32 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TransportCfg {
    pub scheme: String,
    /// ns-2 `packetSize_` 1000.
    pub mss_bytes: u32,
    /// TCP/IP headers without options.
    pub header_bytes: u32,
    /// ns-2 `windowInit_` 2; RFC 3390 gives 2-4, RFC 6928 10.
    pub init_cwnd_pkts: f64,
    pub handshake: bool,
    pub delayed_ack: bool,
    /// ns-2 DelAck sink interval 100 ms (RFC 5681 allows up to 500 ms).
    pub delack_timeout_ms: f64,
    /// Linux `TCP_RTO_MIN` and ns-2 `minrto_`: 200 ms (RFC 6298 says 1 s).
    pub min_rto_ms: f64,
    /// RFC 6298 (2.1): 1 s.
    pub initial_rto_ms: f64,
    /// RFC 6298 (2.5) allows a maximum of at least 60 s; ns-2 `maxrto_` 60 s.
    pub max_rto_ms: f64,
    /// RFC 5681: three duplicate ACKs.
    pub dupack_threshold: u32,
    /// Receiver window in packets (None: unlimited).
    pub max_cwnd_pkts: Option<f64>,
    pub ecn: bool,
    /// The TCP model options' preset ("rfc", the default, "ns3" or "linux"); each
    /// option given beside it wins over it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Per-sender overrides: entry i holds `[transport]` keys for sender i's
    /// flows (docs/guide/transport.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_sender: Vec<serde_json::Value>,
    /// Parameter tables of schemes (`[transport.hstcp]`, ...), by table name;
    /// each is checked by the scheme that owns it.
    #[serde(skip)]
    pub tables: Tables,
    /// The TCP model options given (keys of [`TcpOptions`], set aside as
    /// given; [`TcpOptions::overlay`] checks them over the preset).
    #[serde(skip)]
    pub tcp: Tables,
}

impl Default for TransportCfg {
    fn default() -> Self {
        TransportCfg {
            scheme: "tcp-newreno".into(),
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 2.0,
            handshake: true,
            delayed_ack: false,
            delack_timeout_ms: 100.0,
            min_rto_ms: 200.0,
            initial_rto_ms: 1000.0,
            max_rto_ms: 60_000.0,
            dupack_threshold: 3,
            max_cwnd_pkts: None,
            ecn: false,
            preset: None,
            per_sender: Vec::new(),
            tables: Tables::new(),
            tcp: Tables::new(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    #[serde(default)]
    pub sender: u32,
    /// The source host (with `dst`), instead of a sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<u32>,
    /// The destination host (with `src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<u32>,
    /// Pin the data to this path: an index into the ordered equal-cost paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<u32>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub size_pkts: Option<u64>,
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub long_lived: bool,
    /// A measuring flow: the time each prefix of it is delivered in order is
    /// recorded (the `prefixes` table).
    #[serde(default)]
    pub measure: bool,
    /// `[transport]` keys for this flow alone (over `transport.per_sender`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsCfg {
    /// Record the time series at all.
    pub series: bool,
    /// Sampling interval of the series.
    pub interval_ms: f64,
    /// Links whose queue and utilisation are sampled ("all" for every link).
    #[serde(deserialize_with = "one_or_many")]
    pub links: Vec<String>,
    /// Flow ids whose congestion window, throughput, sending rate and RTT
    /// are sampled (`flow_series` is the same key by another name).
    #[serde(alias = "flow_series")]
    pub cwnd_flows: Vec<u64>,
    /// Compute each flow's FCT under ideal processor sharing (fluid max-min).
    pub ps_fct: bool,
    /// Sample `utilization_pkts` (data packets delivered over the line rate in
    /// packets, Mussmann 2012 section 5.2) on the series links.
    pub utilization_pkts: bool,
    /// Sample `utilization_retx` (the fraction of the interval a link was busy
    /// sending packets their senders marked as retransmissions) on the series
    /// links.
    pub utilization_retx: bool,
    /// Keep streaming FCT statistics per flow size (the `size_stats` table).
    pub size_stats: bool,
    /// The quantiles of FCT `size_stats` reports, each in [0, 1].
    pub size_stats_quantiles: Vec<f64>,
    /// Relative accuracy of those quantiles.
    pub size_stats_alpha: f64,
    /// `size_stats` counts only flows that start at or after this time...
    pub size_stats_from_s: f64,
    /// ... and before this one (None: no end), so a run's warm-up and its
    /// draining end can be left out.
    pub size_stats_until_s: Option<f64>,
    /// Keep one record per flow (the `flows` table). With false the run keeps
    /// only the flows in progress, so memory does not grow with the number of
    /// flows; the streaming tables (`size_stats`, `prefixes`) are still kept.
    pub flows: bool,
}

impl Default for MetricsCfg {
    fn default() -> Self {
        MetricsCfg {
            series: true,
            interval_ms: 10.0,
            links: vec!["bottleneck".into()],
            cwnd_flows: vec![],
            ps_fct: true,
            utilization_pkts: false,
            utilization_retx: false,
            size_stats: false,
            size_stats_quantiles: vec![0.5, 0.9, 0.99],
            size_stats_alpha: 0.005,
            size_stats_from_s: 0.0,
            size_stats_until_s: None,
            flows: true,
        }
    }
}

/// A list of names, or one name alone (`links = "all"`).
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a list of link names, or \"all\"")]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// Parse a JSON scenario, naming the key of any unknown field or wrong type.
/// Keys of `[network]` and `[transport]` that name a registered parameter
/// table are set aside for the building block that owns them.
pub fn parse_json(text: &str) -> Result<Scenario, ConfigError> {
    parse_json_with(text, &Registries::BUILTIN)
}

/// [`parse_json`] against the given registries.
pub fn parse_json_with(text: &str, reg: &Registries) -> Result<Scenario, ConfigError> {
    let mut v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let msg = e.to_string();
        ConfigError::new("", msg.split(" at line ").next().unwrap_or(&msg).to_string())
    })?;
    let mut net_tables = Tables::new();
    let mut tr_tables = Tables::new();
    for (section, names, out) in [
        ("network", reg.network_tables(), &mut net_tables),
        ("transport", reg.transport_tables(), &mut tr_tables),
    ] {
        if let Some(obj) = v.get_mut(section).and_then(|s| s.as_object_mut()) {
            for name in names {
                if let Some(t) = obj.remove(name) {
                    out.insert(name.to_string(), t);
                }
            }
        }
    }
    let tcp = match v.get_mut("transport").and_then(|s| s.as_object_mut()) {
        Some(obj) => set_aside_tcp_options(obj),
        None => Tables::new(),
    };
    let mut sc: Scenario = crate::config::from_value(v).map_err(|e| de_error(e, ""))?;
    sc.network.tables = net_tables;
    sc.transport.tables = tr_tables;
    sc.transport.tcp = tcp;
    Ok(sc)
}

/// Take the TCP model options out of a `[transport]` table, as given.
pub(crate) fn set_aside_tcp_options(obj: &mut serde_json::Map<String, serde_json::Value>) -> Tables {
    TcpOptions::keys()
        .filter_map(|k| obj.remove(k).map(|v| (k.to_string(), v)))
        .collect()
}

/// A deserialisation error as a [`ConfigError`] naming the key (under `prefix`).
pub(crate) fn de_error(e: serde_path_to_error::Error<serde_json::Error>, prefix: &str) -> ConfigError {
    let path = e.path().to_string();
    let inner = e.into_inner().to_string();
    let msg = inner.split(" at line ").next().unwrap_or(&inner).to_string();
    let field = match (prefix.is_empty(), path == ".") {
        (true, true) => String::new(),
        (true, false) => path,
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}.{path}"),
    };
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        ConfigError {
            field,
            message: format!("unknown key {rest}"),
        }
    } else if let Some(rest) = msg.strip_prefix("missing field ") {
        let key = rest.trim_matches('`');
        let f = if field.is_empty() {
            key.to_string()
        } else {
            format!("{field}.{key}")
        };
        ConfigError {
            field: f,
            message: "required key is missing".into(),
        }
    } else if msg.starts_with("data did not match any variant") {
        ConfigError {
            field,
            message: "expected a number or a list of numbers".into(),
        }
    } else {
        ConfigError {
            field,
            message: crate::config::plain_words(&msg),
        }
    }
}

/// Parse and plan in one step.
pub fn from_json(text: &str) -> Result<Plan, ConfigError> {
    from_json_with(text, &Registries::BUILTIN)
}

/// [`from_json`] against the given registries (built-in building blocks plus
/// a program's own).
pub fn from_json_with(text: &str, reg: &Registries) -> Result<Plan, ConfigError> {
    plan_with(parse_json_with(text, reg)?, reg)
}

/// Refuse a parameter table given for a building block that is not in use.
pub(crate) fn unused_tables(
    section: &str,
    tables: &Tables,
    used: &[Option<&str>],
    what: &str,
) -> Result<(), ConfigError> {
    for name in tables.keys() {
        if !used.contains(&Some(name.as_str())) {
            return err(
                format!("{section}.{name}"),
                format!("parameters for {name}, which is not in use ({what})"),
            );
        }
    }
    Ok(())
}

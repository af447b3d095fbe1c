//! The scenario schema, its defaults (each with its source), and validation.
//!
//! A scenario arrives as JSON (the Python front end turns TOML or a dict into
//! JSON). Parsing refuses unknown keys and wrong types, naming the key; semantic
//! validation then refuses out-of-range values and incompatible pairs before
//! anything runs. The result is a [`Plan`], which the engine runs.

pub mod registry;

use crate::net::queue::QueueBuilder;
use crate::net::topology::Topology;
use crate::transport::EndpointBuilder;
use crate::sim::{ms_to_ns, secs_to_ns, Time};
use crate::transport::{FlowSize, TcpParams};
use crate::workload::{Arrivals, Generator, SizeDist};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A refused scenario: the key (dotted path) and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError { field: field.into(), message: message.into() })
}

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
    #[serde(default = "d_one")]
    pub senders: u32,
    pub bottleneck_bps: f64,
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
    /// Parameter tables of queue disciplines (`[network.red]`, ...), checked by
    /// the discipline named in `queue`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fq: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xcp: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcp: Option<serde_json::Value>,
}

impl NetworkCfg {
    /// The discipline parameter tables: (name, value if given).
    pub fn tables(&self) -> [(&'static str, &Option<serde_json::Value>); 4] {
        [("red", &self.red), ("fq", &self.fq), ("rcp", &self.rcp), ("xcp", &self.xcp)]
    }
}

fn d_topology() -> String {
    "single-link".into()
}
fn d_queue() -> String {
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
    /// Parameter tables of schemes (`[transport.hstcp]`, ...), checked by the
    /// scheme named in `scheme`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hstcp: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scalable: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rcp: Option<serde_json::Value>,
}

impl TransportCfg {
    /// The scheme parameter tables: (name, value if given).
    pub fn tables(&self) -> [(&'static str, &Option<serde_json::Value>); 3] {
        [("hstcp", &self.hstcp), ("scalable", &self.scalable), ("rcp", &self.rcp)]
    }
}

/// Parse a scheme's or discipline's parameter table (`field` is its dotted key,
/// e.g. `network.red`); a missing table gives the defaults.
pub fn table<T: serde::de::DeserializeOwned + Default>(value: &Option<serde_json::Value>, field: &str) -> Result<T, ConfigError> {
    let Some(v) = value else { return Ok(T::default()) };
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().to_string();
        let f = if path == "." { field.to_string() } else { format!("{field}.{path}") };
        let msg = msg.strip_prefix("unknown field ").map(|r| format!("unknown key {r}")).unwrap_or(msg);
        ConfigError { field: f, message: msg }
    })
}

/// Refuse a parameter table given for a scheme or discipline that is not in use.
fn unused_tables(section: &str, tables: &[(&'static str, &Option<serde_json::Value>)], used: Option<&str>, chosen_key: &str, chosen: &str) -> Result<(), ConfigError> {
    for (name, v) in tables {
        if v.is_some() && used != Some(*name) {
            return err(format!("{section}.{name}"), format!("parameters for a {name} {}, but {chosen_key} = {chosen:?}", if section == "network" { "queue" } else { "scheme" }));
        }
    }
    Ok(())
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
            hstcp: None,
            scalable: None,
            rcp: None,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    #[serde(default)]
    pub sender: u32,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub size_pkts: Option<u64>,
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub long_lived: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizesCfg {
    pub dist: String,
    pub mean_pkts: Option<f64>,
    pub mean_bytes: Option<f64>,
    pub shape: Option<f64>,
    pub pkts: Option<u64>,
    pub bytes: Option<u64>,
    pub min_pkts: Option<u64>,
    pub max_pkts: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficCfg {
    pub arrivals: String,
    #[serde(default)]
    pub load: Option<f64>,
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    #[serde(default)]
    pub sizes: Option<SizesCfg>,
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub senders: Option<Vec<u32>>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    #[serde(default)]
    pub think_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsCfg {
    /// Record the time series at all.
    pub series: bool,
    /// Sampling interval of the series.
    pub interval_ms: f64,
    /// Links whose queue and utilisation are sampled ("all" for every link).
    pub links: Vec<String>,
    /// Flow ids whose congestion window is sampled.
    pub cwnd_flows: Vec<u64>,
    /// Compute each flow's FCT under ideal processor sharing (fluid max-min).
    pub ps_fct: bool,
}

impl Default for MetricsCfg {
    fn default() -> Self {
        MetricsCfg { series: true, interval_ms: 10.0, links: vec!["bottleneck".into()], cwnd_flows: vec![], ps_fct: true }
    }
}

/// An explicit flow, resolved.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub sender: u32,
    pub start_ns: Time,
    pub size: FlowSize,
}

/// What the engine runs: every default applied and every value checked.
pub struct Plan {
    pub scenario: Scenario,
    pub seed: u64,
    pub stop_ns: Option<Time>,
    pub topology: Topology,
    /// Makes the queue of each router port (`scenario.network.queue`).
    pub queue_builder: QueueBuilder,
    pub buffer_pkts: usize,
    /// Makes each flow's sender and receiver (`scenario.transport.scheme`).
    pub endpoints: EndpointBuilder,
    pub tcp: TcpParams,
    pub flows: Vec<FlowPlan>,
    pub generators: Vec<Generator>,
    pub series: bool,
    pub interval_ns: Time,
    pub series_links: Vec<u32>,
    pub cwnd_flows: Vec<u64>,
    pub ps_fct: bool,
    /// Forced losses: (flow, seq, transmission).
    pub losses: Vec<(u64, u64, u32)>,
}

/// Parse a JSON scenario, naming the key of any unknown field or wrong type.
pub fn parse_json(text: &str) -> Result<Scenario, ConfigError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let msg = inner.split(" at line ").next().unwrap_or(&inner).to_string();
        let field = if path == "." { String::new() } else { path };
        if let Some(rest) = msg.strip_prefix("unknown field ") {
            ConfigError { field, message: format!("unknown key {rest}") }
        } else if let Some(rest) = msg.strip_prefix("missing field ") {
            let key = rest.trim_matches('`');
            let f = if field.is_empty() { key.to_string() } else { format!("{field}.{key}") };
            ConfigError { field: f, message: "required key is missing".into() }
        } else if msg.starts_with("data did not match any variant") {
            ConfigError { field, message: "expected a number or a list of numbers".into() }
        } else {
            ConfigError { field, message: msg }
        }
    })
}

fn positive(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        err(field, format!("must be a positive number, got {v}"))
    }
}

fn non_negative(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        err(field, format!("must be a number >= 0, got {v}"))
    }
}

fn one_of(field: &str, v: &str, allowed: &[&str]) -> Result<(), ConfigError> {
    if allowed.contains(&v) {
        Ok(())
    } else {
        err(field, format!("unknown value {v:?}; allowed: {}", allowed.join(", ")))
    }
}

fn sizes(field: &str, s: &SizesCfg, mss: u32) -> Result<SizeDist, ConfigError> {
    let names: Vec<&str> = crate::workload::sizes::DISTRIBUTIONS.iter().map(|d| d.0).collect();
    one_of(&format!("{field}.dist"), &s.dist, &names)?;
    let given: Vec<(&str, bool)> = vec![
        ("mean_pkts", s.mean_pkts.is_some()),
        ("mean_bytes", s.mean_bytes.is_some()),
        ("shape", s.shape.is_some()),
        ("pkts", s.pkts.is_some()),
        ("bytes", s.bytes.is_some()),
        ("min_pkts", s.min_pkts.is_some()),
        ("max_pkts", s.max_pkts.is_some()),
    ];
    let allowed: &[&str] = match s.dist.as_str() {
        "pareto" => &["mean_pkts", "mean_bytes", "shape"],
        "fixed" => &["pkts", "bytes"],
        "uniform" => &["min_pkts", "max_pkts"],
        _ => &["mean_pkts", "mean_bytes"],
    };
    for (k, present) in given {
        if present && !allowed.contains(&k) {
            return err(format!("{field}.{k}"), format!("not a parameter of dist {:?}; allowed: {}", s.dist, allowed.join(", ")));
        }
    }
    let mean = |f: &str| -> Result<f64, ConfigError> {
        match (s.mean_pkts, s.mean_bytes) {
            (Some(m), None) => positive(&format!("{f}.mean_pkts"), m),
            (None, Some(b)) => Ok(positive(&format!("{f}.mean_bytes"), b)? / mss as f64),
            (Some(_), Some(_)) => err(format!("{f}.mean_bytes"), "give mean_pkts or mean_bytes, not both"),
            (None, None) => err(format!("{f}.mean_pkts"), "required key is missing (or give mean_bytes)"),
        }
    };
    Ok(match s.dist.as_str() {
        "pareto" => {
            let shape = s.shape.ok_or_else(|| ConfigError { field: format!("{field}.shape"), message: "required key is missing".into() })?;
            if !(shape.is_finite() && shape > 1.0) {
                return err(format!("{field}.shape"), format!("must be > 1 (the mean is infinite otherwise), got {shape}"));
            }
            SizeDist::Pareto { mean_pkts: mean(field)?, shape }
        }
        "exponential" => SizeDist::Exponential { mean_pkts: mean(field)? },
        "fixed" => {
            let pkts = match (s.pkts, s.bytes) {
                (Some(p), None) => p,
                (None, Some(b)) => b.div_ceil(mss as u64),
                _ => return err(format!("{field}.pkts"), "give exactly one of pkts or bytes"),
            };
            if pkts == 0 {
                return err(format!("{field}.pkts"), "must be at least 1");
            }
            SizeDist::Fixed { pkts }
        }
        _ => {
            let (lo, hi) = match (s.min_pkts, s.max_pkts) {
                (Some(a), Some(b)) => (a, b),
                _ => return err(format!("{field}.min_pkts"), "uniform needs min_pkts and max_pkts"),
            };
            if lo == 0 || hi < lo {
                return err(format!("{field}.max_pkts"), format!("need 1 <= min_pkts <= max_pkts, got {lo}..{hi}"));
            }
            SizeDist::Uniform { min_pkts: lo, max_pkts: hi }
        }
    })
}

/// Check a parsed scenario and resolve it into a runnable [`Plan`].
pub fn plan(sc: Scenario) -> Result<Plan, ConfigError> {
    let n = &sc.network;
    let topologies: Vec<&str> = registry::TOPOLOGIES.iter().map(|t| t.0).collect();
    one_of("network.topology", &n.topology, &topologies)?;
    let queues: Vec<&str> = crate::net::queue::QUEUES.iter().map(|q| q.name).collect();
    one_of("network.queue", &n.queue, &queues)?;
    let discipline = crate::net::queue::lookup(&n.queue).expect("checked above");
    unused_tables("network", &n.tables(), discipline.table, "network.queue", &n.queue)?;
    let queue_builder = (discipline.factory)(n)?;
    if n.senders == 0 {
        return err("network.senders", "must be at least 1");
    }
    let c = positive("network.bottleneck_bps", n.bottleneck_bps)?;
    non_negative("network.bottleneck_delay_ms", n.bottleneck_delay_ms)?;
    non_negative("network.receiver_delay_ms", n.receiver_delay_ms)?;
    let access_bps = match n.access_bps {
        Some(a) => positive("network.access_bps", a)?,
        None => 10.0 * c,
    };
    let access: Vec<f64> = match &n.access_delay_ms {
        PerSender::One(v) => vec![non_negative("network.access_delay_ms", *v)?; n.senders as usize],
        PerSender::Many(vs) => {
            if vs.len() != n.senders as usize {
                return err("network.access_delay_ms", format!("has {} values but network.senders = {}", vs.len(), n.senders));
            }
            for v in vs {
                non_negative("network.access_delay_ms", *v)?;
            }
            vs.clone()
        }
    };
    let t = &sc.transport;
    one_of("transport.scheme", &t.scheme, &crate::transport::scheme_names())?;
    let scheme = crate::transport::lookup(&t.scheme).expect("checked above");
    unused_tables("transport", &t.tables(), scheme.table(), "transport.scheme", &t.scheme)?;
    if let Some(q) = scheme.queue() {
        if n.queue != q {
            return err("network.queue", format!("scheme {:?} needs its router half: set queue = {q:?} (got {:?})", t.scheme, n.queue));
        }
    }
    if t.mss_bytes == 0 {
        return err("transport.mss_bytes", "must be at least 1");
    }
    if !(t.init_cwnd_pkts.is_finite() && t.init_cwnd_pkts >= 1.0) {
        return err("transport.init_cwnd_pkts", format!("must be >= 1, got {}", t.init_cwnd_pkts));
    }
    positive("transport.delack_timeout_ms", t.delack_timeout_ms)?;
    positive("transport.min_rto_ms", t.min_rto_ms)?;
    positive("transport.initial_rto_ms", t.initial_rto_ms)?;
    positive("transport.max_rto_ms", t.max_rto_ms)?;
    if t.max_rto_ms < t.min_rto_ms {
        return err("transport.max_rto_ms", format!("must be >= transport.min_rto_ms ({})", t.min_rto_ms));
    }
    if t.dupack_threshold == 0 {
        return err("transport.dupack_threshold", "must be at least 1");
    }
    if let Some(m) = t.max_cwnd_pkts {
        if !(m.is_finite() && m >= 1.0) {
            return err("transport.max_cwnd_pkts", format!("must be >= 1, got {m}"));
        }
    }
    let pkt_bytes = (t.mss_bytes + t.header_bytes) as f64;
    let delay = ms_to_ns(n.bottleneck_delay_ms);
    let access_ns: Vec<Time> = access.iter().map(|&d| ms_to_ns(d)).collect();
    // Build once without a limit to measure RTTs, then set the buffer.
    let build = |limit: Option<usize>| match n.topology.as_str() {
        "single-link" => Topology::single_link(n.senders as usize, c, delay, limit),
        "dumbbell" => Topology::dumbbell(c, delay, access_bps, &access_ns, ms_to_ns(n.receiver_delay_ms), limit),
        _ => Topology::half_dumbbell(c, delay, access_bps, &access_ns, limit),
    };
    if n.topology == "single-link" && (matches!(n.access_delay_ms, PerSender::Many(_)) || n.access_bps.is_some()) {
        return err("network.access_delay_ms", "single-link has no access links; use dumbbell or half-dumbbell for per-sender delays");
    }
    let buffer_pkts = match (n.buffer_pkts, n.buffer_bdp) {
        (Some(_), Some(_)) => return err("network.buffer_bdp", "give buffer_pkts or buffer_bdp, not both"),
        (Some(0), None) => return err("network.buffer_pkts", "must be at least 1"),
        (Some(b), None) => b as usize,
        (None, bdp) => {
            let k = positive("network.buffer_bdp", bdp.unwrap_or(1.0))?;
            let probe = build(None);
            let mean_rtt = (0..probe.senders.len()).map(|i| probe.base_rtt_ns(i) as f64).sum::<f64>() / probe.senders.len() as f64;
            let bdp_pkts = k * c * mean_rtt / 1e9 / 8.0 / pkt_bytes;
            (bdp_pkts.ceil() as usize).max(1)
        }
    };
    let topology = build(Some(buffer_pkts));
    let tcp = TcpParams {
        mss_bytes: t.mss_bytes,
        header_bytes: t.header_bytes,
        init_cwnd_pkts: t.init_cwnd_pkts,
        handshake: t.handshake,
        delayed_ack: t.delayed_ack,
        delack_timeout_ns: ms_to_ns(t.delack_timeout_ms),
        min_rto_ns: ms_to_ns(t.min_rto_ms),
        initial_rto_ns: ms_to_ns(t.initial_rto_ms),
        max_rto_ns: ms_to_ns(t.max_rto_ms),
        dupack_threshold: t.dupack_threshold,
        max_cwnd_pkts: t.max_cwnd_pkts.unwrap_or(f64::MAX),
        ecn: t.ecn,
    };
    let endpoints = scheme.endpoints(t, &tcp)?;

    let stop_ns = match sc.stop_s {
        Some(s) => Some(secs_to_ns(positive("stop_s", s)?)),
        None => None,
    };
    let mut flows = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let field = format!("flows[{i}]");
        if f.sender >= n.senders {
            return err(format!("{field}.sender"), format!("is {} but there are {} senders (0..{})", f.sender, n.senders, n.senders - 1));
        }
        let start_ns = secs_to_ns(non_negative(&format!("{field}.start_s"), f.start_s)?);
        let size = match (f.size_pkts, f.size_bytes, f.long_lived) {
            (Some(p), None, false) if p > 0 => FlowSize { bytes: p * t.mss_bytes as u64, pkts: p },
            (None, Some(b), false) if b > 0 => FlowSize::from_bytes(b, t.mss_bytes),
            (None, None, true) => FlowSize::LONG_LIVED,
            (Some(0), None, false) | (None, Some(0), false) => return err(format!("{field}.size_pkts"), "must be at least 1"),
            _ => return err(format!("{field}.size_pkts"), "give exactly one of size_pkts, size_bytes or long_lived = true"),
        };
        if size.is_long_lived() && stop_ns.is_none() {
            return err("stop_s", format!("{field} is long-lived, so the run needs a stop_s"));
        }
        flows.push(FlowPlan { sender: f.sender, start_ns, size });
    }
    let mut generators = Vec::new();
    for (i, g) in sc.traffic.iter().enumerate() {
        let field = format!("traffic[{i}]");
        one_of(&format!("{field}.arrivals"), &g.arrivals, &["poisson", "closed-loop", "long-lived"])?;
        let senders: Vec<u32> = match &g.senders {
            Some(v) => {
                if v.is_empty() {
                    return err(format!("{field}.senders"), "must not be empty");
                }
                if let Some(&s) = v.iter().find(|&&s| s >= n.senders) {
                    return err(format!("{field}.senders"), format!("sender {s} does not exist (network.senders = {})", n.senders));
                }
                v.clone()
            }
            None => (0..n.senders).collect(),
        };
        if g.count == Some(0) {
            return err(format!("{field}.count"), "must be at least 1");
        }
        let start_ns = secs_to_ns(non_negative(&format!("{field}.start_s"), g.start_s)?);
        let gen_stop = match g.stop_s {
            Some(s) => Some(secs_to_ns(positive(&format!("{field}.stop_s"), s)?)),
            None => None,
        };
        let dist = |g: &TrafficCfg| -> Result<SizeDist, ConfigError> {
            match &g.sizes {
                Some(s) => sizes(&format!("{field}.sizes"), s, t.mss_bytes),
                None => err(format!("{field}.sizes"), "required key is missing"),
            }
        };
        let arrivals = match g.arrivals.as_str() {
            "poisson" => {
                let d = dist(g)?;
                let lambda = match (g.load, g.rate_per_s) {
                    (Some(load), None) => {
                        if !(load.is_finite() && load > 0.0) {
                            return err(format!("{field}.load"), format!("must be > 0, got {load}"));
                        }
                        // Offered load counts bytes on the wire (payload plus headers).
                        load * c / (8.0 * d.mean_pkts() * pkt_bytes)
                    }
                    (None, Some(r)) => positive(&format!("{field}.rate_per_s"), r)?,
                    _ => return err(format!("{field}.load"), "poisson arrivals need exactly one of load or rate_per_s"),
                };
                if g.count.is_none() && gen_stop.is_none() && stop_ns.is_none() {
                    return err(format!("{field}.count"), "poisson arrivals need count, stop_s, or a run stop_s");
                }
                generators.push(Generator { arrivals: Arrivals::Poisson { mean_gap_ns: 1e9 / lambda }, sizes: d, senders, start_ns, stop_ns: gen_stop, count: g.count });
                continue;
            }
            "closed-loop" => {
                if g.count.is_none() && gen_stop.is_none() && stop_ns.is_none() {
                    return err(format!("{field}.count"), "closed-loop arrivals need count, stop_s, or a run stop_s");
                }
                Arrivals::ClosedLoop { think_ns: secs_to_ns(non_negative(&format!("{field}.think_s"), g.think_s)?) }
            }
            _ => {
                if stop_ns.is_none() {
                    return err("stop_s", format!("{field} is long-lived, so the run needs a stop_s"));
                }
                Arrivals::LongLived
            }
        };
        let d = if matches!(arrivals, Arrivals::LongLived) { SizeDist::Fixed { pkts: u64::MAX } } else { dist(g)? };
        generators.push(Generator { arrivals, sizes: d, senders, start_ns, stop_ns: gen_stop, count: g.count });
    }
    if flows.is_empty() && generators.is_empty() {
        return err("flows", "the workload is empty: give at least one [[flows]] or [[traffic]] entry");
    }
    let m = &sc.metrics;
    let interval_ns = ms_to_ns(positive("metrics.interval_ms", m.interval_ms)?).max(1);
    let mut series_links = Vec::new();
    for name in &m.links {
        if name == "all" {
            series_links = (0..topology.links.len() as u32).collect();
            break;
        }
        match topology.links.iter().position(|l| &l.name == name) {
            Some(i) => series_links.push(i as u32),
            None => {
                let names: Vec<&str> = topology.links.iter().map(|l| l.name.as_str()).collect();
                return err("metrics.links", format!("no link named {name:?}; this topology has: all, {}", names.join(", ")));
            }
        }
    }
    let mut losses = Vec::new();
    for (i, l) in sc.losses.iter().enumerate() {
        if l.transmission == 0 {
            return err(format!("losses[{i}].transmission"), "counts from 1 (the first transmission)");
        }
        losses.push((l.flow, l.seq, l.transmission));
    }
    Ok(Plan {
        losses,
        seed: sc.seed,
        stop_ns,
        topology,
        queue_builder,
        buffer_pkts,
        endpoints,
        tcp,
        flows,
        generators,
        series: m.series,
        interval_ns,
        series_links,
        cwnd_flows: m.cwnd_flows.clone(),
        ps_fct: m.ps_fct,
        scenario: sc,
    })
}

/// Parse and plan in one step.
pub fn from_json(text: &str) -> Result<Plan, ConfigError> {
    plan(parse_json(text)?)
}

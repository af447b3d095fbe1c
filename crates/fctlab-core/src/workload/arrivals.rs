//! Flow arrival processes, one registry entry each. An entry's factory checks
//! the keys of a `[[traffic]]` entry it uses and resolves it into a
//! [`Generator`].

use super::flows_file::FileFlow;
use super::matrix::{HostTraffic, Hosts, LoadOf};
use super::sizes::{SizeContext, SizeDist, SizeEntry};
use crate::config::{documented, duration_s, err, positive, ConfigError, Entry, NoParams, MAX_SECONDS};
use crate::sim::{secs_to_ns, Time};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The most flows a generator may create per second of simulated time.
pub const MAX_ARRIVALS_PER_S: f64 = 1e9;

/// The fewest flows (or open-loop packets) a generator may create per second
/// of simulated time: one per [`MAX_SECONDS`] (10^6 s), so that each
/// exponential gap (at most about 37 times its mean for a 53-bit uniform
/// draw) and any sum of a few of them stay far inside integer nanoseconds.
pub const MIN_ARRIVALS_PER_S: f64 = 1.0 / MAX_SECONDS;

/// A rate of arrivals `r` per second derived from key `key` of the entry at
/// `cx`, within [`MIN_ARRIVALS_PER_S`, `MAX_ARRIVALS_PER_S`]; `what` names
/// the arrivals (flows, packets per sender).
pub(crate) fn arrival_rate(field: String, r: f64, what: &str) -> Result<f64, ConfigError> {
    if r > MAX_ARRIVALS_PER_S {
        return err(
            field,
            format!("gives {r:.3e} {what} per second; at most {MAX_ARRIVALS_PER_S:e} are allowed"),
        );
    }
    if r < MIN_ARRIVALS_PER_S {
        return err(field, format!("gives {r:.3e} {what} per second; at least {MIN_ARRIVALS_PER_S:e} (one per 10^6 s, the longest time a scenario may name) are needed"));
    }
    Ok(r)
}

/// The most flows a run may create: flow ids are 32-bit.
pub const MAX_FLOWS: u64 = u32::MAX as u64;

/// A `[[traffic]]` entry as written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficCfg {
    pub arrivals: String,
    /// Offered load of the bottleneck, counting header bytes (Poisson).
    #[serde(default)]
    pub load: Option<f64>,
    /// Flows per second (Poisson), instead of `load`.
    #[serde(default)]
    pub rate_per_s: Option<f64>,
    /// The size distribution: `{ dist = "<name>", ...its parameters }`.
    #[serde(default)]
    pub sizes: Option<serde_json::Value>,
    /// Flows to create (Poisson: in total; closed loop: per sender).
    #[serde(default)]
    pub count: Option<u64>,
    /// Senders the generator uses (default: all).
    #[serde(default)]
    pub senders: Option<Vec<u32>>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Closed loop: the pause between a flow's last ACK and the next flow.
    #[serde(default)]
    pub think_s: f64,
    /// Make every N-th flow of this generator a measuring flow (N = 1: all).
    #[serde(default)]
    pub measure_every: Option<u64>,
    /// Make each flow of this generator a measuring flow with this probability.
    #[serde(default)]
    pub measure_fraction: Option<f64>,
    /// Open-loop sources (`workload::open_loop`): on and off times, the
    /// probe interval, bytes on the wire per packet.
    #[serde(default)]
    pub on_ms: Option<f64>,
    #[serde(default)]
    pub off_ms: Option<f64>,
    #[serde(default)]
    pub interval_ms: Option<f64>,
    #[serde(default)]
    pub pkt_bytes: Option<u32>,
    /// `[transport]` keys for this entry's flows (over `transport.per_sender`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<serde_json::Value>,
    /// Flows between hosts: "permutation", "all-to-all", "incast" or "file"
    /// (`workload::matrix`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<String>,
    /// `matrix = "file"`: lines `src dst [weight]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_file: Option<String>,
    /// `all-to-all`: destinations in the source's own rack too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_rack: Option<bool>,
    /// `incast`: senders answering each query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fan_in: Option<u32>,
    /// `incast`: the one receiver of every query (default: drawn per query).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<u32>,
    /// What `load` is of: "host" (the busiest host link, the default with a
    /// matrix) or a link's name (the whole entry's bits over its rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_of: Option<String>,
    /// `arrivals = "file"`: lines `start_s size_pkts src dst`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows_file: Option<String>,
}

/// Which flows of a generator are measuring flows: flows whose every
/// in-order delivery is recorded (the `prefixes` table; Mussmann 2012,
/// section 4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Measure {
    #[default]
    Never,
    /// Flows number N, 2N, 3N, ... of the generator, in creation order.
    Every(u64),
    /// Each flow independently with probability p, drawn from a random stream
    /// of its own, so the workload is the same with or without it.
    Fraction(f64),
}

impl Measure {
    /// The `measure_every` / `measure_fraction` keys of a traffic entry at `field`.
    pub fn of(g: &TrafficCfg, field: &str) -> Result<Measure, ConfigError> {
        match (g.measure_every, g.measure_fraction) {
            (None, None) => Ok(Measure::Never),
            (Some(0), None) => err(format!("{field}.measure_every"), "must be at least 1 (1: every flow)"),
            (Some(n), None) => Ok(Measure::Every(n)),
            (None, Some(p)) if p.is_finite() && (0.0..=1.0).contains(&p) => {
                Ok(if p == 0.0 { Measure::Never } else { Measure::Fraction(p) })
            }
            (None, Some(p)) => err(
                format!("{field}.measure_fraction"),
                format!("must be a probability in [0, 1], got {p}"),
            ),
            (Some(_), Some(_)) => err(
                format!("{field}.measure_fraction"),
                "give measure_every or measure_fraction, not both",
            ),
        }
    }
}

/// How a traffic generator creates flows.
#[derive(Clone, Debug)]
pub enum Arrivals {
    /// Poisson arrivals with exponential inter-arrival times of mean `mean_gap_ns`.
    Poisson { mean_gap_ns: f64 },
    /// One flow per sender at a time: a new one starts `think_ns` after the
    /// previous one is fully acknowledged.
    ClosedLoop { think_ns: Time },
    /// One flow per sender that never ends.
    LongLived,
    /// One open-loop source per sender (`super::open_loop`).
    OpenLoop(super::open_loop::OpenLoop),
    /// The flows of a flows file, each at its start time.
    File(Arc<[FileFlow]>),
}

/// A traffic generator, resolved from the scenario.
#[derive(Clone, Debug)]
pub struct Generator {
    pub arrivals: Arrivals,
    /// None for long-lived flows, which have no size.
    pub sizes: Option<SizeDist>,
    /// Senders the generator draws from (Poisson: uniformly at random).
    pub senders: Vec<u32>,
    pub start_ns: Time,
    /// Stop creating flows at this time (None: no limit besides `count`).
    pub stop_ns: Option<Time>,
    /// Flows to create (Poisson: in total; closed loop: per sender).
    pub count: Option<u64>,
    /// Which of its flows are measuring flows (set by the scenario layer from
    /// `measure_every` / `measure_fraction`, whatever the arrival process).
    pub measure: Measure,
    /// Flows between hosts by a traffic matrix (then `senders` are its
    /// source hosts).
    pub hosts: Option<HostTraffic>,
}

impl Generator {
    /// Whether its flows go between hosts (a traffic matrix, a flows file).
    pub fn between_hosts(&self) -> bool {
        self.hosts.is_some() || matches!(self.arrivals, Arrivals::File(_))
    }

    /// The flows it will create, if that is known before the run (not when
    /// only a time bounds it).
    pub fn flows_expected(&self) -> Option<u64> {
        let per = self.hosts.as_ref().map_or(1, |h| h.flows_per_arrival() as u64);
        match self.arrivals {
            Arrivals::Poisson { .. } => self.count.map(|c| c.saturating_mul(per)),
            Arrivals::File(ref f) => Some(f.len() as u64),
            Arrivals::ClosedLoop { .. } => self.count.map(|c| c.saturating_mul(self.senders.len() as u64)),
            Arrivals::LongLived | Arrivals::OpenLoop(_) => Some(self.senders.len() as u64),
        }
    }
}

/// What an arrival process needs to know of the rest of the scenario.
pub struct Context<'a> {
    /// The traffic entry's dotted key (`traffic[0]`).
    pub field: &'a str,
    pub senders: u32,
    /// The bottleneck rate, for `load`.
    pub bottleneck_bps: f64,
    /// Payload bytes per packet.
    pub mss_bytes: u32,
    /// Bytes on the wire per full data packet.
    pub pkt_bytes: f64,
    /// The run's `stop_s`, in ns.
    pub run_stop_ns: Option<Time>,
    /// The size-distribution registry.
    pub sizes: &'static [SizeEntry],
    /// The topology's hosts (for traffic matrices).
    pub hosts: &'a Hosts,
    /// The rate of a link by name, if there is one.
    pub link_rate: &'a dyn Fn(&str) -> Option<f64>,
    /// The run's seed and the entry's index (a permutation's stream).
    pub seed: u64,
    pub index: usize,
}

impl Context<'_> {
    pub(crate) fn key(&self, k: &str) -> String {
        format!("{}.{k}", self.field)
    }

    /// The entry's `sizes` table, resolved through the size registry.
    fn sizes(&self, g: &TrafficCfg) -> Result<SizeDist, ConfigError> {
        let field = self.key("sizes");
        let Some(v) = &g.sizes else {
            return err(field, "required key is missing");
        };
        SizeContext {
            mss_bytes: self.mss_bytes,
            sizes: self.sizes,
        }
        .resolve(v, &field)
    }

    /// The senders, start and stop common to every process.
    pub(crate) fn common(&self, g: &TrafficCfg) -> Result<(Vec<u32>, Time, Option<Time>), ConfigError> {
        super::matrix::no_matrix_keys(g, self)?;
        self.common_of(g, self.senders, false)
    }

    /// [`Context::common`] for a process whose senders are `n` senders of
    /// the topology, or `n` hosts (with a traffic matrix).
    pub(crate) fn common_of(
        &self,
        g: &TrafficCfg,
        n: u32,
        hosts: bool,
    ) -> Result<(Vec<u32>, Time, Option<Time>), ConfigError> {
        let senders: Vec<u32> = match &g.senders {
            Some(v) => {
                if v.is_empty() {
                    return err(self.key("senders"), "must not be empty");
                }
                if let Some(&s) = v.iter().find(|&&s| s >= n) {
                    let msg = if hosts {
                        format!("host {s} does not exist: hosts are 0..{}", n.saturating_sub(1))
                    } else {
                        format!("sender {s} does not exist (network.senders = {n})")
                    };
                    return err(self.key("senders"), msg);
                }
                v.clone()
            }
            None => (0..n).collect(),
        };
        if g.count == Some(0) {
            return err(self.key("count"), "must be at least 1");
        }
        if let Some(c) = g.count {
            if c > MAX_FLOWS {
                return err(
                    self.key("count"),
                    format!("must be at most {MAX_FLOWS} (flow ids are 32-bit), got {c}"),
                );
            }
        }
        let start_ns = secs_to_ns(duration_s(&self.key("start_s"), g.start_s, false)?);
        let stop_ns = match g.stop_s {
            Some(s) => Some(secs_to_ns(duration_s(&self.key("stop_s"), s, true)?)),
            None => None,
        };
        Ok((senders, start_ns, stop_ns))
    }
}

/// Resolves a `[[traffic]]` entry of this process.
pub type ArrivalFactory = fn(&TrafficCfg, &Context) -> Result<Generator, ConfigError>;

/// A registered arrival process (see `crate::registry::ARRIVALS`).
pub type ArrivalEntry = Entry<ArrivalFactory>;

/// An entry's senders, start and stop, and its traffic matrix if it names
/// one (then the senders are source hosts).
fn senders_or_hosts(
    g: &TrafficCfg,
    cx: &Context,
    process: &str,
) -> Result<(super::matrix::Common, Option<HostTraffic>), ConfigError> {
    match super::matrix::resolve(g, cx, process)? {
        Some((c, h)) => Ok((c, Some(h))),
        None => Ok((cx.common(g)?, None)),
    }
}

/// The Poisson arrival rate (arrivals per second: queries for an incast).
fn poisson_rate(g: &TrafficCfg, cx: &Context, d: &SizeDist, hosts: Option<&HostTraffic>) -> Result<f64, ConfigError> {
    let per = hosts.map_or(1.0, |h| h.flows_per_arrival() as f64);
    match (g.load, g.rate_per_s) {
        (Some(load), None) => {
            if !(load.is_finite() && load > 0.0) {
                return err(cx.key("load"), format!("must be > 0, got {load}"));
            }
            // Offered load counts bytes on the wire (payload plus headers).
            let bits = 8.0 * d.mean_pkts() * cx.pkt_bytes;
            Ok(match super::matrix::load_of(g, cx, hosts)? {
                LoadOf::Rate(c) => load * c / bits / per,
                LoadOf::Hosts(share) => {
                    if load > 1.0 {
                        return err(
                            cx.key("load"),
                            format!("must be at most 1 (the load of the busiest host link), got {load}"),
                        );
                    }
                    load / (bits * share) / per
                }
            })
        }
        (None, Some(r)) => {
            if g.load_of.is_some() {
                return err(cx.key("load_of"), "only applies with load");
            }
            positive(&cx.key("rate_per_s"), r)
        }
        _ => err(
            cx.key("load"),
            "poisson arrivals need exactly one of load or rate_per_s",
        ),
    }
}

pub const POISSON: ArrivalEntry = Entry {
    name: "poisson",
    description: "Poisson flow arrivals; each flow from a sender drawn uniformly, or between hosts by a traffic matrix (then load is that of the busiest host link). Keys: load (or rate_per_s), sizes, count / stop_s, senders, start_s, matrix",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        let ((senders, start_ns, stop_ns), hosts) = senders_or_hosts(g, cx, "poisson")?;
        let d = cx.sizes(g)?;
        let lambda = poisson_rate(g, cx, &d, hosts.as_ref())?;
        let k = if g.load.is_some() { "load" } else { "rate_per_s" };
        let lambda = arrival_rate(cx.key(k), lambda, "flows")?;
        if let Some(c) = g.count {
            // Bounded by count: the time its flows are expected to take must fit.
            let secs = c as f64 / lambda;
            if secs > MAX_SECONDS {
                return err(cx.key("count"), format!("{c} flows at {lambda:.3e} per second take about {secs:.3e} s; at most {MAX_SECONDS:e} s of simulated time are allowed"));
            }
        } else {
            // Bounded by time only: the flows it is expected to create must fit.
            let stop = stop_ns.into_iter().chain(cx.run_stop_ns).min().unwrap_or(start_ns);
            let per = hosts.as_ref().map_or(1.0, |h| h.flows_per_arrival() as f64);
            let expected = lambda * per * (stop.saturating_sub(start_ns) as f64 / 1e9);
            if expected > MAX_FLOWS as f64 {
                return err(cx.key("stop_s"), format!("about {expected:.3e} flows would arrive before the stop time; at most {MAX_FLOWS} are allowed (flow ids are 32-bit)"));
            }
        }
        if g.count.is_none() && stop_ns.is_none() && cx.run_stop_ns.is_none() {
            return err(cx.key("count"), "poisson arrivals need count, stop_s, or a run stop_s");
        }
        Ok(Generator { arrivals: Arrivals::Poisson { mean_gap_ns: 1e9 / lambda }, sizes: Some(d), senders, start_ns, stop_ns, count: g.count, measure: Measure::Never, hosts })
    },
};

pub const CLOSED_LOOP: ArrivalEntry = Entry {
    name: "closed-loop",
    description: "each sender (or source host of a permutation or all-to-all matrix) starts a new flow when its last one is acknowledged. Keys: sizes, count (per sender), think_s, senders, start_s, stop_s, matrix",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        let ((senders, start_ns, stop_ns), hosts) = senders_or_hosts(g, cx, "closed-loop")?;
        if g.count.is_none() && stop_ns.is_none() && cx.run_stop_ns.is_none() {
            return err(cx.key("count"), "closed-loop arrivals need count, stop_s, or a run stop_s");
        }
        let think_ns = secs_to_ns(duration_s(&cx.key("think_s"), g.think_s, false)?);
        if let Some(c) = g.count {
            if c as f64 * g.think_s > MAX_SECONDS {
                return err(cx.key("think_s"), format!("{c} flows per sender, each after {} s of thinking, take over {MAX_SECONDS:e} s, the most simulated time allowed", g.think_s));
            }
        }
        let d = cx.sizes(g)?;
        Ok(Generator { arrivals: Arrivals::ClosedLoop { think_ns }, sizes: Some(d), senders, start_ns, stop_ns, count: g.count, measure: Measure::Never, hosts })
    },
};

pub const LONG_LIVED: ArrivalEntry = Entry {
    name: "long-lived",
    description: "one flow per sender (or source host of a permutation or all-to-all matrix) that never ends (needs stop_s). Keys: senders, start_s, matrix",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        let ((senders, start_ns, stop_ns), hosts) = senders_or_hosts(g, cx, "long-lived")?;
        if cx.run_stop_ns.is_none() {
            return err(
                "stop_s",
                format!("{} is long-lived, so the run needs a stop_s", cx.field),
            );
        }
        Ok(Generator {
            arrivals: Arrivals::LongLived,
            sizes: None,
            senders,
            start_ns,
            stop_ns,
            count: g.count,
            measure: Measure::Never,
            hosts,
        })
    },
};

pub const FILE: ArrivalEntry = Entry {
    name: "file",
    description: "the flows of a file, one per line: start_s size_pkts src dst (htsim's flow list), sorted by start; flow i of the file is the entry's i-th flow. Keys: flows_file",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |g, cx| {
        for (given, key) in [
            (g.load.is_some(), "load"),
            (g.rate_per_s.is_some(), "rate_per_s"),
            (g.sizes.is_some(), "sizes"),
            (g.count.is_some(), "count"),
            (g.senders.is_some(), "senders"),
            (g.stop_s.is_some(), "stop_s"),
            (g.start_s != 0.0, "start_s"),
            (g.matrix.is_some(), "matrix"),
            (g.load_of.is_some(), "load_of"),
        ] {
            if given {
                return err(cx.key(key), "not used by arrivals = \"file\": the file gives each flow's start, size and hosts");
            }
        }
        let Some(path) = &g.flows_file else {
            return err(cx.key("flows_file"), "required with arrivals = \"file\" (lines: start_s size_pkts src dst)");
        };
        if cx.hosts.is_empty() {
            return err(cx.key("flows_file"), "this topology has no hosts (every node is a router)");
        }
        let flows = super::flows_file::read_flows(path, &cx.key("flows_file"), cx.hosts.len())?;
        Ok(Generator {
            arrivals: Arrivals::File(flows),
            sizes: None,
            senders: Vec::new(),
            start_ns: 0,
            stop_ns: None,
            count: None,
            measure: Measure::Never,
            hosts: None,
        })
    },
};

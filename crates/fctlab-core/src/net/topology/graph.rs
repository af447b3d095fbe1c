//! `graph`: any network given in the scenario: named nodes (routers, whose
//! ports queue with the scenario's discipline and buffer, and hosts, whose
//! NICs never drop), links with rate, delay and optionally their own buffer,
//! and each sender's (source, destination) pair; routes are shortest paths.
//! The built-in topologies are graphs built by [`Graph`] too.

use super::{Shape, Topology, TopologyEntry};
use crate::config::{documented, duration_ms, err, rate_bps, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::LinkId;
use crate::sim::{ms_to_ns, Time};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A network to build: the common form of every topology.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Node names with whether each is a router.
    pub nodes: Vec<(String, bool)>,
    /// Links in each direction (`name` and `name-rev`), in order.
    pub links: Vec<GraphLink>,
    /// Each sender's (source node, destination node).
    pub paths: Vec<(usize, usize)>,
    /// The link (a forward direction, by index into `links`) that `load`
    /// refers to and the series show by default.
    pub bottleneck: usize,
}

/// A pair of links, `a` -> `b` (named `name`) and `b` -> `a` (`name-rev`).
#[derive(Clone, Debug)]
pub struct GraphLink {
    pub name: String,
    pub a: usize,
    pub b: usize,
    pub rate_bps: f64,
    pub delay_ns: Time,
    /// Router ports' packet limit for this link (None: the network's).
    pub buffer_pkts: Option<usize>,
}

impl Graph {
    pub fn node(&mut self, name: impl Into<String>, router: bool) -> usize {
        self.nodes.push((name.into(), router));
        self.nodes.len() - 1
    }

    pub fn link(&mut self, name: impl Into<String>, a: usize, b: usize, rate_bps: f64, delay_ns: Time) -> usize {
        self.links.push(GraphLink {
            name: name.into(),
            a,
            b,
            rate_bps,
            delay_ns,
            buffer_pkts: None,
        });
        self.links.len() - 1
    }

    /// The topology, router ports limited to `limit` packets (or their
    /// link's own buffer; None: unlimited, to measure base RTTs).
    pub fn build(&self, limit: Option<usize>) -> Topology {
        let mut t = Topology {
            nodes: self.nodes.len() as u32,
            ..Default::default()
        };
        let mut bottleneck: LinkId = 0;
        for (i, l) in self.links.iter().enumerate() {
            let lim = limit.map(|d| l.buffer_pkts.unwrap_or(d));
            let a = (l.a as u32, self.nodes[l.a].1);
            let b = (l.b as u32, self.nodes[l.b].1);
            let id = t.duplex(&l.name, a, b, l.rate_bps, l.delay_ns, lim);
            if i == self.bottleneck {
                bottleneck = id;
            }
        }
        t.bottleneck = bottleneck;
        t.senders = self.paths.iter().map(|p| p.0 as u32).collect();
        t.receivers = self.paths.iter().map(|p| p.1 as u32).collect();
        t.hosts = (0..self.nodes.len() as u32)
            .filter(|&n| !self.nodes[n as usize].1)
            .collect();
        let mut rack = vec![u32::MAX; self.nodes.len()];
        for l in t.links.iter().rev() {
            rack[l.from as usize] = l.to;
        }
        t.racks = t.hosts.iter().map(|&h| rack[h as usize]).collect();
        t
    }
}

/// One link of `[network.graph]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    /// Default: `a-b`.
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate_bps: f64,
    #[serde(default)]
    pub delay_ms: f64,
    /// Default: the network's buffer (`buffer_pkts` or `buffer_bdp`).
    #[serde(default)]
    pub buffer_pkts: Option<u64>,
}

/// `[network.graph]`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GraphCfg {
    /// Nodes whose ports queue with the scenario's discipline and buffer.
    pub routers: Vec<String>,
    /// Every other node named by a link or path is a host.
    pub links: Vec<LinkCfg>,
    /// Sender i's [source, destination].
    pub paths: Vec<[String; 2]>,
    /// The link `load` refers to (default: the slowest).
    pub bottleneck: Option<String>,
}

impl Params for GraphCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("routers", "node names whose ports get the queue discipline and buffer; other nodes are hosts (unlimited FIFO NICs)"),
        ParamDoc::new("links", "list of { a, b, rate_bps, delay_ms, buffer_pkts?, name? }: a link each way, named name and name-rev (default a-b)"),
        ParamDoc::new("paths", "list of [source, destination] node pairs, one per sender (none: flows name their src and dst hosts, numbered in node order: routers first, then nodes as links first name them)"),
        ParamDoc::derived("bottleneck", "the slowest link", "the link whose rate `load` refers to and whose queue the series show"),
    ];
}

pub const ENTRY: TopologyEntry = Entry {
    name: "graph",
    description: "any network: routers, hosts, links (rate, delay, buffer) and each sender's source and destination in [network.graph]; shortest-path routes",
    table: Some("graph"),
    params: documented::<GraphCfg>,
    requires: None,
    factory,
};

/// Refuse the dumbbell's keys for a topology whose links carry their own
/// rates and delays (`why`: how its ends are named instead of senders).
pub(super) fn no_shape_keys(s: &Shape, name: &str, why: &str) -> Result<(), ConfigError> {
    for (given, key) in [
        (s.bottleneck_bps.is_some(), "bottleneck_bps"),
        (
            s.access_given || s.access_delay_ns.iter().any(|&d| d > 0),
            "access_delay_ms",
        ),
        (s.delays_given, "bottleneck_delay_ms"),
    ] {
        if given {
            return err(
                format!("network.{key}"),
                format!("not used by topology {name:?}: its links carry their own rates and delays"),
            );
        }
    }
    if name != "graph" && s.senders_given.is_some() {
        return err("network.senders", format!("not used by topology {name:?}: {why}"));
    }
    Ok(())
}

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    let c: GraphCfg = t.parse()?;
    no_shape_keys(s, "graph", "")?;
    let g = resolve(&c, t.field)?;
    if s.senders_given.is_some_and(|n| n != g.paths.len()) {
        return err(
            "network.senders",
            format!(
                "is {} but [network.graph] has {} paths (one per sender)",
                s.senders_given.unwrap_or(0),
                g.paths.len()
            ),
        );
    }
    let topo = g.build(limit);
    let mut finder = super::RouteFinder::new(&topo);
    for (i, p) in g.paths.iter().enumerate() {
        for (a, b) in [(p.0, p.1), (p.1, p.0)] {
            if finder.route(a as u32, b as u32).is_none() {
                return err(
                    format!("{}.paths[{i}]", t.field),
                    format!("no route from {:?} to {:?}", g.nodes[a].0, g.nodes[b].0),
                );
            }
        }
    }
    Ok(topo)
}

/// Check `[network.graph]` and turn names into indices.
fn resolve(c: &GraphCfg, field: &str) -> Result<Graph, ConfigError> {
    let mut g = Graph::default();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (i, r) in c.routers.iter().enumerate() {
        if ids.insert(r.clone(), g.node(r.clone(), true)).is_some() {
            return err(format!("{field}.routers[{i}]"), format!("router {r:?} is listed twice"));
        }
    }
    let mut node =
        |g: &mut Graph, name: &str| -> usize { *ids.entry(name.to_string()).or_insert_with(|| g.node(name, false)) };
    if c.links.is_empty() {
        return err(format!("{field}.links"), "needs at least one link");
    }
    let mut names = HashMap::new();
    for (i, l) in c.links.iter().enumerate() {
        let f = format!("{field}.links[{i}]");
        if l.a == l.b {
            return err(
                format!("{f}.b"),
                format!("a link joins two different nodes, got {:?} twice", l.a),
            );
        }
        let rate = rate_bps(&format!("{f}.rate_bps"), l.rate_bps)?;
        let delay = ms_to_ns(duration_ms(&format!("{f}.delay_ms"), l.delay_ms, false)?);
        if l.buffer_pkts == Some(0) {
            return err(format!("{f}.buffer_pkts"), "must be at least 1");
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a, l.b));
        if names.insert(name.clone(), i).is_some() || name.ends_with("-rev") {
            return err(
                format!("{f}.name"),
                format!("link names must be unique and not end in -rev (the reverse direction's suffix), got {name:?}"),
            );
        }
        let (a, b) = (node(&mut g, &l.a), node(&mut g, &l.b));
        let k = g.link(name, a, b, rate, delay);
        g.links[k].buffer_pkts = l.buffer_pkts.map(|x| x.min(usize::MAX as u64) as usize);
    }
    for (i, [a, b]) in c.paths.iter().enumerate() {
        let f = format!("{field}.paths[{i}]");
        let known = |n: &String| {
            ids.get(n).copied().ok_or_else(|| {
                ConfigError::new(
                    f.clone(),
                    format!("no node named {n:?} (nodes are the routers and the ends of links)"),
                )
            })
        };
        let (a, b) = (known(a)?, known(b)?);
        if a == b {
            return err(f, "source and destination must differ");
        }
        g.paths.push((a, b));
    }
    g.bottleneck = match &c.bottleneck {
        Some(n) => *names
            .get(n)
            .ok_or_else(|| ConfigError::new(format!("{field}.bottleneck"), format!("no link named {n:?}")))?,
        None => (0..g.links.len())
            .min_by(|&x, &y| g.links[x].rate_bps.total_cmp(&g.links[y].rate_bps))
            .unwrap_or(0),
    };
    Ok(g)
}

//! Topology builders and static shortest-path routing.
//!
//! Every topology is a set of nodes joined by unidirectional links. A flow from
//! sender `i` travels the route from `senders[i]` to `receivers[i]`; its ACKs
//! travel the route back. Routes are computed once (Dijkstra on propagation
//! delay, ties broken by hop count then link index) and shared by all flows of a
//! sender. A flow between two hosts (`hosts`, by index) takes one of their
//! equal-cost paths: known from the structure of a fabric (`fabric`), or
//! enumerated on a graph ([`Topology::equal_cost_paths`]).

mod dumbbell;
pub mod ecmp;
pub mod fabric;
pub mod fat_tree;
pub mod graph;
mod half_dumbbell;
pub mod leaf_spine;
pub mod shortest;
mod single_link;

pub use dumbbell::ENTRY as DUMBBELL;
pub use fabric::Fabric;
pub use fat_tree::ENTRY as FAT_TREE;
pub use graph::{Graph, ENTRY as GRAPH};
pub use half_dumbbell::ENTRY as HALF_DUMBBELL;
pub use leaf_spine::ENTRY as LEAF_SPINE;
pub use shortest::RouteFinder;
pub use single_link::ENTRY as SINGLE_LINK;

use super::{LinkId, NodeId};
use crate::config::{ConfigError, Entry, Table};
use crate::sim::Time;

/// What every topology gets from `[network]` (checked and in engine units).
#[derive(Clone, Debug)]
pub struct Shape {
    /// `network.senders` (1 when not given).
    pub senders: usize,
    /// `network.senders` if the scenario gave it.
    pub senders_given: Option<usize>,
    /// `network.bottleneck_bps`, if given (the built-in shapes need it).
    pub bottleneck_bps: Option<f64>,
    pub bottleneck_delay_ns: Time,
    /// Whether `bottleneck_delay_ms` or `receiver_delay_ms` was set.
    pub delays_given: bool,
    /// `network.access_bps`, if given (default: ten times the bottleneck).
    pub access_bps: Option<f64>,
    /// One-way delay of each sender's access link.
    pub access_delay_ns: Vec<Time>,
    /// Whether the scenario set access links explicitly (per-sender delays or
    /// a rate), which a topology without access links refuses.
    pub access_given: bool,
    /// One-way delay of each receiver's egress link.
    pub receiver_delay_ns: Time,
}

/// Builds a topology from the common shape, its own parameter table and the
/// router ports' packet limit (None: unlimited, to measure base RTTs).
pub type TopologyFactory = fn(&Shape, Table, Option<usize>) -> Result<Topology, ConfigError>;

/// A registered topology (see `crate::registry::TOPOLOGIES`).
pub type TopologyEntry = Entry<TopologyFactory>;

/// One unidirectional link and the port that feeds it.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: f64,
    pub delay_ns: Time,
    /// Packet limit of the port's queue; `None` = unlimited (host NICs).
    pub limit_pkts: Option<usize>,
    /// Whether the port is a router port (gets the scenario's queue discipline)
    /// or a host NIC (always unlimited DropTail).
    pub router_port: bool,
}

/// A built network.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    pub nodes: u32,
    pub links: Vec<LinkSpec>,
    /// Host node of each sender.
    pub senders: Vec<NodeId>,
    /// Receiving host of each sender's flows.
    pub receivers: Vec<NodeId>,
    /// The link whose queue and utilisation the series report by default.
    pub bottleneck: LinkId,
    /// The hosts (nodes that are not routers) by host index, in node order.
    pub hosts: Vec<NodeId>,
    /// Each host's rack: the node its first link leads to.
    pub racks: Vec<NodeId>,
    /// The structure of a fabric, whose equal-cost paths follow from it.
    pub fabric: Option<Fabric>,
}

impl Shape {
    /// The bottleneck rate, which the built-in shapes require.
    pub fn bottleneck(&self) -> Result<f64, ConfigError> {
        self.bottleneck_bps
            .ok_or_else(|| ConfigError::new("network.bottleneck_bps", "required key is missing"))
    }

    /// The access links' rate: given, or ten times the bottleneck's, so the
    /// bottleneck is where queues build.
    pub fn access(&self) -> Result<f64, ConfigError> {
        Ok(self
            .access_bps
            .unwrap_or((10.0 * self.bottleneck()?).min(crate::config::MAX_RATE_BPS)))
    }
}

impl Topology {
    pub fn node(&mut self) -> NodeId {
        self.nodes += 1;
        self.nodes - 1
    }

    /// Add a link in each direction (`name` and `name-rev`) between the
    /// ends `(node, is_router)`; only a router's port gets the `limit`.
    /// Returns the forward id.
    pub fn duplex(
        &mut self,
        name: &str,
        (a, a_router): (NodeId, bool),
        (b, b_router): (NodeId, bool),
        rate_bps: f64,
        delay_ns: Time,
        limit: Option<usize>,
    ) -> LinkId {
        let id = self.links.len() as LinkId;
        self.links.push(LinkSpec {
            name: name.to_string(),
            from: a,
            to: b,
            rate_bps,
            delay_ns,
            limit_pkts: if a_router { limit } else { None },
            router_port: a_router,
        });
        self.links.push(LinkSpec {
            name: format!("{name}-rev"),
            from: b,
            to: a,
            rate_bps,
            delay_ns,
            limit_pkts: if b_router { limit } else { None },
            router_port: b_router,
        });
        id
    }

    /// The route from `src` to `dst`: Dijkstra on (propagation delay, hops),
    /// ties broken by node then link index (for many routes of one
    /// topology, [`RouteFinder`] builds the adjacency once).
    pub fn route(&self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        RouteFinder::new(self).route(src, dst)
    }

    /// The propagation delay of a list of links, in ns.
    pub fn delay_ns(&self, path: &[LinkId]) -> Time {
        path.iter().map(|&l| self.links[l as usize].delay_ns).sum()
    }

    /// The longest base RTT between two hosts of a fabric (None for other
    /// topologies): what a buffer in bandwidth-delay products is sized by
    /// when there are no senders.
    pub fn fabric_rtt_ns(&self) -> Option<Time> {
        let f = self.fabric.as_ref()?;
        let (a, b) = (0, f.hosts() - 1);
        let path = f.path(a, b, 0);
        Some(self.delay_ns(&path) + self.delay_ns(&f.path(b, a, 0)))
    }

    /// Base round-trip time of sender `i`'s path (propagation only), in ns.
    pub fn base_rtt_ns(&self, i: usize) -> Time {
        self.rtt_with(&mut RouteFinder::new(self), i)
    }

    /// Base round-trip time of every sender's path, in ns.
    pub fn base_rtts_ns(&self) -> Vec<Time> {
        let mut finder = RouteFinder::new(self);
        (0..self.senders.len()).map(|i| self.rtt_with(&mut finder, i)).collect()
    }

    fn rtt_with(&self, finder: &mut RouteFinder, i: usize) -> Time {
        let f = finder.route(self.senders[i], self.receivers[i]).unwrap_or_default();
        let r = finder.route(self.receivers[i], self.senders[i]).unwrap_or_default();
        f.iter().chain(r.iter()).map(|&l| self.links[l as usize].delay_ns).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let t = dumbbell::build(10e6, 10, 1e9, &[5, 7], 2, Some(10));
        let p = t.route(t.senders[1], t.receivers[1]).unwrap();
        let names: Vec<_> = p.iter().map(|&l| t.links[l as usize].name.as_str()).collect();
        assert_eq!(names, ["access1", "bottleneck", "egress1"]);
        let back = t.route(t.receivers[1], t.senders[1]).unwrap();
        let names: Vec<_> = back.iter().map(|&l| t.links[l as usize].name.as_str()).collect();
        assert_eq!(names, ["egress1-rev", "bottleneck-rev", "access1-rev"]);
        assert_eq!(t.base_rtt_ns(1), 2 * (7 + 10 + 2));
        // Host NICs are unlimited; router ports carry the limit.
        assert_eq!(t.links[p[0] as usize].limit_pkts, None);
        assert_eq!(t.links[p[1] as usize].limit_pkts, Some(10));
    }

    #[test]
    fn half_dumbbell_has_one_receiver() {
        let t = half_dumbbell::build(10e6, 10, 10e6, &[1, 2, 3], Some(5));
        assert!(t.receivers.iter().all(|&r| r == t.receivers[0]));
        assert_eq!(t.base_rtt_ns(2), 2 * (3 + 10));
    }
}

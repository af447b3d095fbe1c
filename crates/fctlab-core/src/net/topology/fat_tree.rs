//! `fat-tree`: the k-ary three-tier fat-tree of Al-Fares, Loukissas & Vahdat
//! (SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2
//! core switches, k^3/4 hosts, k/2 per edge switch. Numbered as htsim numbers
//! it (see [`super::fabric`]); equal-cost paths are known from the indices.

use super::fabric::{Fabric, FatTree};
use super::{graph::no_shape_keys, Graph, Shape, Topology, TopologyEntry};
use crate::config::{documented, err, rate_bps, ConfigError, Entry, ParamDoc, Params, Table};
use serde::{Deserialize, Serialize};

/// The largest k: 65,536 hosts (a path's id holds the destination host and
/// the path's index).
pub const MAX_K: u32 = 64;

/// `[network.fat-tree]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FatTreeCfg {
    pub k: u32,
    pub host_bps: f64,
    pub fabric_bps: f64,
    pub link_delay_us: f64,
    pub oversubscription: f64,
}

impl Default for FatTreeCfg {
    fn default() -> Self {
        FatTreeCfg {
            k: 8,
            host_bps: 10e9,
            fabric_bps: 10e9,
            link_delay_us: 1.0,
            oversubscription: 1.0,
        }
    }
}

impl Params for FatTreeCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("k", "switch radix, even: k^3/4 hosts (k = 8: 128 hosts, the size of htsim's datacenter examples, csg-htsim sim/datacenter/main_swift.cpp)"),
        ParamDoc::new("host_bps", "rate of each host's link to its edge switch, each way"),
        ParamDoc::new("fabric_bps", "rate of the edge-aggregation and aggregation-core links"),
        ParamDoc::new("link_delay_us", "one-way propagation delay of every link, host links included (htsim's datacenter examples: 1 us per link)"),
        ParamDoc::new("oversubscription", "edge uplinks run at fabric_bps / oversubscription (1: full bisection, as Al-Fares et al. 2008)"),
    ];

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.k < 2 || self.k % 2 == 1 || self.k > MAX_K {
            return err(
                format!("{field}.k"),
                format!(
                    "must be an even number from 2 to {MAX_K} (k/2 hosts per edge switch), got {}",
                    self.k
                ),
            );
        }
        rate_bps(&format!("{field}.host_bps"), self.host_bps)?;
        rate_bps(&format!("{field}.fabric_bps"), self.fabric_bps)?;
        link_delay(field, self.link_delay_us)?;
        oversubscription(field, self.oversubscription, self.fabric_bps)
    }
}

/// A link delay in microseconds: finite, >= 0, at most 10^6 s.
pub(super) fn link_delay(field: &str, us: f64) -> Result<(), ConfigError> {
    crate::config::duration_us(&format!("{field}.link_delay_us"), us, false).map(|_| ())
}

/// An oversubscription ratio: at least 1, and the uplinks' rate still valid.
pub(super) fn oversubscription(field: &str, o: f64, fabric_bps: f64) -> Result<(), ConfigError> {
    if !(o.is_finite() && o >= 1.0) {
        return err(
            format!("{field}.oversubscription"),
            format!("must be a number >= 1 (1: no oversubscription), got {o}"),
        );
    }
    rate_bps(&format!("{field}.oversubscription"), fabric_bps / o).map(|_| ())
}

pub const ENTRY: TopologyEntry = Entry {
    name: "fat-tree",
    description: "k-ary three-tier fat-tree (Al-Fares et al. 2008), k^3/4 hosts numbered as htsim numbers them; [network.fat-tree]",
    table: Some("fat-tree"),
    params: documented::<FatTreeCfg>,
    requires: None,
    factory,
};

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    let c: FatTreeCfg = t.parse()?;
    no_shape_keys(
        s,
        "fat-tree",
        "hosts are numbered 0 .. k^3/4 - 1: flows name their src and dst host",
    )?;
    Ok(build(&c, limit))
}

/// The fat-tree, its switch ports limited to `limit` packets.
pub fn build(c: &FatTreeCfg, limit: Option<usize>) -> Topology {
    let f = FatTree::new(c.k);
    let h = f.half;
    let delay = crate::sim::us_to_ns(c.link_delay_us);
    let up_bps = c.fabric_bps / c.oversubscription;
    let mut g = Graph::default();
    for i in 0..f.hosts {
        g.node(format!("h{i}"), false);
    }
    let edge0 = g.nodes.len();
    for t in 0..f.edges() {
        g.node(format!("e{t}"), true);
    }
    let agg0 = g.nodes.len();
    for a in 0..f.edges() {
        g.node(format!("a{a}"), true);
    }
    let core0 = g.nodes.len();
    for c in 0..f.cores() {
        g.node(format!("c{c}"), true);
    }
    for i in 0..f.hosts {
        let t = i / h;
        g.link(format!("h{i}-e{t}"), i as usize, edge0 + t as usize, c.host_bps, delay);
    }
    for t in 0..f.edges() {
        for a in 0..h {
            let agg = (t / h) * h + a;
            g.link(
                format!("e{t}-a{agg}"),
                edge0 + t as usize,
                agg0 + agg as usize,
                up_bps,
                delay,
            );
        }
    }
    for agg in 0..f.edges() {
        for l in 0..h {
            let core = agg % h + h * l;
            g.link(
                format!("a{agg}-c{core}"),
                agg0 + agg as usize,
                core0 + core as usize,
                c.fabric_bps,
                delay,
            );
        }
    }
    // The link that the series show by default: the edge switch's port to host 0.
    g.bottleneck = 0;
    let mut topo = g.build(limit);
    topo.bottleneck = 1;
    topo.fabric = Some(Fabric::FatTree(f));
    topo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k4_has_the_counts_of_al_fares() {
        let t = build(
            &FatTreeCfg {
                k: 4,
                ..Default::default()
            },
            Some(10),
        );
        // 16 hosts, 8 edge + 8 aggregation + 4 core switches; 16 host links,
        // 16 edge-aggregation and 16 aggregation-core links, each both ways.
        assert_eq!(t.hosts.len(), 16);
        assert_eq!(t.nodes, 16 + 20);
        assert_eq!(t.links.len(), 2 * 48);
        // Every path the fabric gives is connected, from host to host.
        let f = t.fabric.clone().unwrap();
        for a in 0..16 {
            for b in 0..16 {
                if a == b {
                    continue;
                }
                for p in 0..f.n_paths(a, b) {
                    let path = f.path(a, b, p);
                    assert_eq!(t.links[path[0] as usize].from, a);
                    assert_eq!(t.links[*path.last().unwrap() as usize].to, b);
                    for w in path.windows(2) {
                        assert_eq!(t.links[w[0] as usize].to, t.links[w[1] as usize].from);
                    }
                }
            }
        }
    }

    #[test]
    fn odd_k_and_undersubscription_are_refused() {
        let bad = |v: serde_json::Value| {
            Table::new(Some(&v), "network.fat-tree")
                .parse::<FatTreeCfg>()
                .unwrap_err()
        };
        let e = bad(serde_json::json!({"k": 5}));
        assert_eq!(e.field, "network.fat-tree.k");
        assert!(e.message.contains("even"), "{e}");
        let e = bad(serde_json::json!({"oversubscription": 0.5}));
        assert_eq!(e.field, "network.fat-tree.oversubscription");
        assert!(e.message.contains(">= 1"), "{e}");
    }
}

//! `leaf-spine`: a two-tier fabric, every leaf (top-of-rack switch) linked to
//! every spine. The defaults are the pFabric set-up (Alizadeh et al., SIGCOMM
//! 2013, section 5; also PIAS, Bai et al., NSDI 2015): 144 hosts in 9 racks of
//! 16, 4 spines, 10 Gb/s host links and 40 Gb/s leaf-spine links. Numbering
//! and paths: see [`super::fabric`].

use super::fabric::{Fabric, LeafSpine};
use super::fat_tree::{link_delay, oversubscription};
use super::{graph::no_shape_keys, Graph, Shape, Topology, TopologyEntry};
use crate::config::{documented, err, rate_bps, ConfigError, Entry, ParamDoc, Params, Table};
use serde::{Deserialize, Serialize};

/// The most hosts and the most spines (a path's id holds the destination host
/// and the spine).
pub const MAX_HOSTS: u32 = 1 << 20;
pub const MAX_SPINES: u32 = 1 << 10;

/// `[network.leaf-spine]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LeafSpineCfg {
    pub hosts_per_leaf: u32,
    pub leaves: u32,
    pub spines: u32,
    pub host_bps: f64,
    pub fabric_bps: f64,
    pub link_delay_us: f64,
    pub oversubscription: f64,
}

impl Default for LeafSpineCfg {
    fn default() -> Self {
        LeafSpineCfg {
            hosts_per_leaf: 16,
            leaves: 9,
            spines: 4,
            host_bps: 10e9,
            fabric_bps: 40e9,
            link_delay_us: 1.5,
            oversubscription: 1.0,
        }
    }
}

impl Params for LeafSpineCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("hosts_per_leaf", "pFabric (Alizadeh et al. 2013): 16 hosts per rack"),
        ParamDoc::new("leaves", "pFabric: 9 racks (144 hosts)"),
        ParamDoc::new("spines", "pFabric: 4 spine switches"),
        ParamDoc::new("host_bps", "pFabric: 10 Gb/s host links"),
        ParamDoc::new("fabric_bps", "pFabric: 40 Gb/s leaf-spine links (no oversubscription)"),
        ParamDoc::new("link_delay_us", "one-way delay of every link: 8 of them (a round trip across a spine) make pFabric's 12 us base RTT, propagation only"),
        ParamDoc::new("oversubscription", "leaf uplinks run at fabric_bps / oversubscription (1: as given)"),
    ];

    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        for (key, v, max) in [
            ("hosts_per_leaf", self.hosts_per_leaf, MAX_HOSTS),
            ("leaves", self.leaves, MAX_HOSTS),
            ("spines", self.spines, MAX_SPINES),
        ] {
            if v == 0 || v > max {
                return err(format!("{field}.{key}"), format!("must be 1 to {max}, got {v}"));
            }
        }
        let hosts = self.hosts_per_leaf as u64 * self.leaves as u64;
        if hosts < 2 || hosts > MAX_HOSTS as u64 {
            return err(
                format!("{field}.leaves"),
                format!("hosts_per_leaf x leaves must be 2 to {MAX_HOSTS} hosts, got {hosts}"),
            );
        }
        rate_bps(&format!("{field}.host_bps"), self.host_bps)?;
        rate_bps(&format!("{field}.fabric_bps"), self.fabric_bps)?;
        link_delay(field, self.link_delay_us)?;
        oversubscription(field, self.oversubscription, self.fabric_bps)
    }
}

pub const ENTRY: TopologyEntry = Entry {
    name: "leaf-spine",
    description: "two-tier fabric, every leaf linked to every spine (defaults: the pFabric set-up, 144 hosts, 9 leaves, 4 spines, 10/40 Gb/s); [network.leaf-spine]",
    table: Some("leaf-spine"),
    params: documented::<LeafSpineCfg>,
    requires: None,
    factory,
};

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    let c: LeafSpineCfg = t.parse()?;
    no_shape_keys(
        s,
        "leaf-spine",
        "hosts are numbered 0 .. hosts_per_leaf x leaves - 1: flows name their src and dst host",
    )?;
    Ok(build(&c, limit))
}

/// The leaf-spine fabric, its switch ports limited to `limit` packets.
pub fn build(c: &LeafSpineCfg, limit: Option<usize>) -> Topology {
    let f = LeafSpine {
        hosts_per_leaf: c.hosts_per_leaf,
        leaves: c.leaves,
        spines: c.spines,
    };
    let delay = crate::sim::us_to_ns(c.link_delay_us);
    let mut g = Graph::default();
    for i in 0..f.hosts() {
        g.node(format!("h{i}"), false);
    }
    let leaf0 = g.nodes.len();
    for l in 0..f.leaves {
        g.node(format!("l{l}"), true);
    }
    let spine0 = g.nodes.len();
    for s in 0..f.spines {
        g.node(format!("s{s}"), true);
    }
    for i in 0..f.hosts() {
        let l = i / f.hosts_per_leaf;
        g.link(format!("h{i}-l{l}"), i as usize, leaf0 + l as usize, c.host_bps, delay);
    }
    let up_bps = c.fabric_bps / c.oversubscription;
    for l in 0..f.leaves {
        for s in 0..f.spines {
            g.link(
                format!("l{l}-s{s}"),
                leaf0 + l as usize,
                spine0 + s as usize,
                up_bps,
                delay,
            );
        }
    }
    g.bottleneck = 0;
    let mut topo = g.build(limit);
    topo.bottleneck = 1;
    topo.fabric = Some(Fabric::LeafSpine(f));
    topo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_pfabric_fabric() {
        let t = build(&LeafSpineCfg::default(), Some(36));
        assert_eq!(t.hosts.len(), 144);
        assert_eq!(t.links.len(), 2 * (144 + 9 * 4));
        let f = t.fabric.clone().unwrap();
        // Across racks: 4 paths (one per spine) of 4 links: 10, 40, 40, 10 Gb/s.
        assert_eq!(f.n_paths(0, 143), 4);
        let p = f.path(0, 143, 3);
        let rates: Vec<f64> = p.iter().map(|&l| t.links[l as usize].rate_bps).collect();
        assert_eq!(rates, vec![10e9, 40e9, 40e9, 10e9]);
        assert_eq!(t.links[p[1] as usize].name, "l0-s3");
        assert_eq!(t.links[p[2] as usize].name, "l8-s3-rev");
    }
}

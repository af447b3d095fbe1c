//! `half-dumbbell` (Mussmann 2012, sec. 4): each sender has its own access
//! link to R0; the bottleneck joins R0 to the single receiving host.

use super::{Graph, Shape, Topology, TopologyEntry};
use crate::config::{documented, ConfigError, Entry, NoParams, Table};
use crate::sim::Time;

pub const ENTRY: TopologyEntry = Entry {
    name: "half-dumbbell",
    description:
        "per-sender access links into R0, the bottleneck from R0 to a single receiving host (Mussmann 2012, sec. 4)",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory,
};

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    t.parse::<NoParams>()?;
    Ok(build(
        s.bottleneck()?,
        s.bottleneck_delay_ns,
        s.access()?,
        &s.access_delay_ns,
        limit,
    ))
}

/// The graph with one sender per access delay.
pub fn graph(rate_bps: f64, delay_ns: Time, access_bps: f64, access_delay_ns: &[Time]) -> Graph {
    let mut g = Graph::default();
    let r0 = g.node("R0", true);
    let rx = g.node("receiver", false);
    g.bottleneck = g.link("bottleneck", r0, rx, rate_bps, delay_ns);
    for (i, &d) in access_delay_ns.iter().enumerate() {
        let s = g.node(format!("sender{i}"), false);
        g.link(format!("access{i}"), s, r0, access_bps, d);
        g.paths.push((s, rx));
    }
    g
}

/// The topology with one sender per access delay.
pub fn build(
    rate_bps: f64,
    delay_ns: Time,
    access_bps: f64,
    access_delay_ns: &[Time],
    limit: Option<usize>,
) -> Topology {
    graph(rate_bps, delay_ns, access_bps, access_delay_ns).build(limit)
}

//! `dumbbell`: sender i -> access i -> R0 -> bottleneck -> R1 -> egress i ->
//! receiver i. Receiver i gets sender i's flows.

use super::{Graph, Shape, Topology, TopologyEntry};
use crate::config::{documented, ConfigError, Entry, NoParams, Table};
use crate::sim::Time;

pub const ENTRY: TopologyEntry = Entry {
    name: "dumbbell",
    description: "per-sender access links into R0, the bottleneck R0-R1, per-receiver egress links (receiver i gets sender i's flows)",
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
        s.receiver_delay_ns,
        limit,
    ))
}

/// The graph with one sender per access delay.
pub fn graph(
    rate_bps: f64,
    delay_ns: Time,
    access_bps: f64,
    access_delay_ns: &[Time],
    receiver_delay_ns: Time,
) -> Graph {
    let mut g = Graph::default();
    let r0 = g.node("R0", true);
    let r1 = g.node("R1", true);
    g.bottleneck = g.link("bottleneck", r0, r1, rate_bps, delay_ns);
    for (i, &d) in access_delay_ns.iter().enumerate() {
        let s = g.node(format!("sender{i}"), false);
        let r = g.node(format!("receiver{i}"), false);
        g.link(format!("access{i}"), s, r0, access_bps, d);
        g.link(format!("egress{i}"), r1, r, access_bps, receiver_delay_ns);
        g.paths.push((s, r));
    }
    g
}

/// The topology with one sender per access delay.
pub fn build(
    rate_bps: f64,
    delay_ns: Time,
    access_bps: f64,
    access_delay_ns: &[Time],
    receiver_delay_ns: Time,
    limit: Option<usize>,
) -> Topology {
    graph(rate_bps, delay_ns, access_bps, access_delay_ns, receiver_delay_ns).build(limit)
}

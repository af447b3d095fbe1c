//! `single-link`: one sending host and one receiving host joined by the
//! bottleneck (the set-up of the 2006 FCT paper's RCP figures). All senders
//! are sources on the sending host; the bottleneck port is the sending host's
//! port and carries the buffer limit, so both ends are built as routers.

use super::{Graph, Shape, Topology, TopologyEntry};
use crate::config::{documented, err, ConfigError, Entry, NoParams, Table};
use crate::sim::Time;

pub const ENTRY: TopologyEntry = Entry {
    name: "single-link",
    description: "one sending host and one receiving host joined by the bottleneck (the RCP and 2006 FCT paper set-up)",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory,
};

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    t.parse::<NoParams>()?;
    let c = s.bottleneck()?;
    if s.access_given {
        return err(
            "network.access_delay_ms",
            "single-link has no access links; use dumbbell or half-dumbbell for per-sender delays",
        );
    }
    Ok(graph(s.senders, c, s.bottleneck_delay_ns).build(limit))
}

/// The graph for `senders` senders.
pub fn graph(senders: usize, rate_bps: f64, delay_ns: Time) -> Graph {
    let mut g = Graph::default();
    let s = g.node("sender", true);
    let r = g.node("receiver", true);
    g.bottleneck = g.link("bottleneck", s, r, rate_bps, delay_ns);
    g.paths = vec![(s, r); senders];
    g
}

//! `single-link`: one sending host and one receiving host joined by the
//! bottleneck (the set-up of the 2006 FCT paper's RCP figures). All senders
//! are sources on the sending host; the bottleneck port is the sending host's
//! port and carries the buffer limit.

use super::{Shape, Topology, TopologyEntry};
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
    if s.access_given {
        return err("network.access_delay_ms", "single-link has no access links; use dumbbell or half-dumbbell for per-sender delays");
    }
    Ok(build(s.senders, s.bottleneck_bps, s.bottleneck_delay_ns, limit))
}

/// The topology for `senders` senders.
pub fn build(senders: usize, rate_bps: f64, delay_ns: Time, limit: Option<usize>) -> Topology {
    let mut t = Topology::default();
    let s = t.node();
    let r = t.node();
    t.bottleneck = t.duplex("bottleneck", s, r, rate_bps, delay_ns, limit, true, true);
    t.senders = vec![s; senders];
    t.receivers = vec![r; senders];
    t
}

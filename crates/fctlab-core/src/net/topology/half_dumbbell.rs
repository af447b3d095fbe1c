//! `half-dumbbell` (Mussmann 2012, sec. 4): each sender has its own access
//! link to R0; the bottleneck joins R0 to the single receiving host.

use super::{Shape, Topology, TopologyEntry};
use crate::config::{documented, ConfigError, Entry, NoParams, Table};
use crate::sim::Time;

pub const ENTRY: TopologyEntry = Entry {
    name: "half-dumbbell",
    description: "per-sender access links into R0, the bottleneck from R0 to a single receiving host (Mussmann 2012, sec. 4)",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory,
};

fn factory(s: &Shape, t: Table, limit: Option<usize>) -> Result<Topology, ConfigError> {
    t.parse::<NoParams>()?;
    Ok(build(s.bottleneck_bps, s.bottleneck_delay_ns, s.access_bps, &s.access_delay_ns, limit))
}

/// The topology with one sender per access delay.
pub fn build(rate_bps: f64, delay_ns: Time, access_bps: f64, access_delay_ns: &[Time], limit: Option<usize>) -> Topology {
    let mut t = Topology::default();
    let r0 = t.node();
    let rx = t.node();
    t.bottleneck = t.duplex("bottleneck", r0, rx, rate_bps, delay_ns, limit, true, false);
    for (i, &d) in access_delay_ns.iter().enumerate() {
        let s = t.node();
        t.duplex(&format!("access{i}"), s, r0, access_bps, d, limit, false, true);
        t.senders.push(s);
        t.receivers.push(rx);
    }
    t
}

//! `dumbbell`: sender i -> access i -> R0 -> bottleneck -> R1 -> egress i ->
//! receiver i. Receiver i gets sender i's flows.

use super::{Shape, Topology, TopologyEntry};
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
    Ok(build(s.bottleneck_bps, s.bottleneck_delay_ns, s.access_bps, &s.access_delay_ns, s.receiver_delay_ns, limit))
}

/// The topology with one sender per access delay.
pub fn build(rate_bps: f64, delay_ns: Time, access_bps: f64, access_delay_ns: &[Time], receiver_delay_ns: Time, limit: Option<usize>) -> Topology {
    let mut t = Topology::default();
    let r0 = t.node();
    let r1 = t.node();
    t.bottleneck = t.duplex("bottleneck", r0, r1, rate_bps, delay_ns, limit, true, true);
    for (i, &d) in access_delay_ns.iter().enumerate() {
        let s = t.node();
        let r = t.node();
        t.duplex(&format!("access{i}"), s, r0, access_bps, d, limit, false, true);
        t.duplex(&format!("egress{i}"), r1, r, access_bps, receiver_delay_ns, limit, true, false);
        t.senders.push(s);
        t.receivers.push(r);
    }
    t
}

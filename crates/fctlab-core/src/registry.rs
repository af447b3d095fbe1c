//! The registries: every building block by name, one line each.
//!
//! Adding a congestion controller, a queue discipline, a topology, a size
//! distribution or an arrival process is one new file that defines its
//! [`Entry`](crate::config::Entry) (name, description, parameter table with
//! cited defaults, factory) plus one line here. The scenario layer looks names
//! up here and nowhere else; `fctlab list` shows these lists in this order.

use crate::net::queue::{self, QueueEntry};
use crate::net::topology::{self, TopologyEntry};
use crate::protocols::{rcp, xcp};
use crate::transport::cc::{hstcp, newreno, reno, scalable, tahoe};
use crate::transport::SchemeEntry;
use crate::workload::arrivals::{self, ArrivalEntry};
use crate::workload::sizes::{self, SizeEntry};

/// `transport.scheme`.
pub const SCHEMES: &[SchemeEntry] = &[
    newreno::ENTRY,
    reno::ENTRY,
    tahoe::ENTRY,
    hstcp::ENTRY,
    scalable::ENTRY,
    xcp::host::ENTRY,
    rcp::host::ENTRY,
];

/// `network.queue` (router ports; host NICs are always unlimited DropTail).
pub const QUEUES: &[QueueEntry] = &[
    queue::DROPTAIL,
    queue::red::ENTRY,
    queue::red::ENTRY_ECN,
    queue::fq::ENTRY,
    rcp::router::ENTRY,
    xcp::router::ENTRY,
];

/// `network.topology`.
pub const TOPOLOGIES: &[TopologyEntry] = &[topology::SINGLE_LINK, topology::DUMBBELL, topology::HALF_DUMBBELL];

/// `traffic[i].sizes.dist`.
pub const SIZES: &[SizeEntry] = &[sizes::PARETO, sizes::FIXED, sizes::UNIFORM, sizes::EXPONENTIAL];

/// `traffic[i].arrivals`.
pub const ARRIVALS: &[ArrivalEntry] = &[arrivals::POISSON, arrivals::CLOSED_LOOP, arrivals::LONG_LIVED];

/// Table names that may appear under `[network]`.
pub fn network_tables() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = QUEUES.iter().filter_map(|e| e.table).chain(TOPOLOGIES.iter().filter_map(|e| e.table)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Table names that may appear under `[transport]`.
pub fn transport_tables() -> Vec<&'static str> {
    SCHEMES.iter().filter_map(|e| e.table).collect()
}

//! The registries: every building block by name, one line each.
//!
//! Adding a queue discipline, a topology, a size distribution or an arrival
//! process is one new file that defines its [`Entry`](crate::config::Entry)
//! (name, description, parameter table with cited defaults, factory) plus one
//! line here; a congestion controller is one new file in `transport/cc/` plus
//! its name in that folder's `controllers!` list, which registers it in
//! [`SCHEMES`]. The scenario layer looks names up here and nowhere else;
//! `fctlab list` shows these lists in this order.

use crate::net::queue::{self, QueueEntry};
use crate::net::topology::{self, TopologyEntry};
use crate::protocols::{e2e_ef, hbh, rcp, xcp};
use crate::transport::cc;
use crate::transport::packet_pair;
use crate::transport::sack;
use crate::transport::SchemeEntry;
use crate::workload::arrivals::{self, ArrivalEntry};
use crate::workload::sizes::{self, SizeEntry};
use crate::workload::{builtin, empirical, mixture, open_loop};

/// The schemes that are not a controller on the TCP machinery.
const OTHER_SCHEMES: &[SchemeEntry] = &[
    sack::ENTRY,
    xcp::host::ENTRY,
    rcp::host::ENTRY,
    packet_pair::ENTRY,
    e2e_ef::host::ENTRY,
    hbh::host::ENTRY,
];

/// `transport.scheme`: the congestion controllers (`transport::cc`, listed
/// where their modules are declared), then the other schemes.
pub const SCHEMES: &[SchemeEntry] = &concat::<{ cc::ENTRIES.len() + OTHER_SCHEMES.len() }>(cc::ENTRIES, OTHER_SCHEMES);

/// `a` then `b`, as one array of `N = a.len() + b.len()` entries.
const fn concat<const N: usize>(a: &[SchemeEntry], b: &[SchemeEntry]) -> [SchemeEntry; N] {
    assert!(N == a.len() + b.len() && N > 0);
    let mut out = [if a.is_empty() { b[0] } else { a[0] }; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// `network.queue` (router ports; host NICs are always unlimited DropTail).
pub const QUEUES: &[QueueEntry] = &[
    queue::DROPTAIL,
    queue::red::ENTRY,
    queue::red::ENTRY_ECN,
    queue::ecn_threshold::ENTRY,
    queue::fq::ENTRY,
    rcp::router::ENTRY,
    xcp::router::ENTRY,
    queue::decbit::ENTRY,
    e2e_ef::router::ENTRY,
    hbh::router::ENTRY,
    queue::sync_drop::ENTRY,
];

/// `network.topology`.
pub const TOPOLOGIES: &[TopologyEntry] = &[
    topology::SINGLE_LINK,
    topology::DUMBBELL,
    topology::HALF_DUMBBELL,
    topology::GRAPH,
    topology::LEAF_SPINE,
    topology::FAT_TREE,
];

/// `traffic[i].sizes.dist`.
pub const SIZES: &[SizeEntry] = &[
    sizes::PARETO,
    sizes::FIXED,
    sizes::UNIFORM,
    sizes::EXPONENTIAL,
    mixture::ENTRY,
    empirical::ENTRY,
    builtin::WEBSEARCH,
    builtin::DATAMINING,
    builtin::FB_HADOOP,
    builtin::FB_WEBSERVER,
    builtin::FB_CACHE,
    builtin::HPCC_FB_HADOOP,
    builtin::GOOGLE_SEARCH_RPC,
    builtin::GOOGLE_ALL_RPC,
    builtin::HOMA_W1,
    builtin::HOMA_W2,
    builtin::HOMA_W3,
    builtin::HOMA_W4,
    builtin::HOMA_W5,
];

/// `traffic[i].arrivals`.
pub const ARRIVALS: &[ArrivalEntry] = &[
    arrivals::POISSON,
    arrivals::CLOSED_LOOP,
    arrivals::LONG_LIVED,
    arrivals::FILE,
    open_loop::POISSON_PACKETS,
    open_loop::ON_OFF,
    open_loop::PROBE,
];

/// A set of registries a scenario is resolved against: [`Registries::BUILTIN`]
/// (the lists above), or those extended by a program that embeds the engine
/// with building blocks of its own (see `tests/extending.rs`).
#[derive(Clone, Copy)]
pub struct Registries {
    pub schemes: &'static [SchemeEntry],
    pub queues: &'static [QueueEntry],
    pub topologies: &'static [TopologyEntry],
    pub sizes: &'static [SizeEntry],
    pub arrivals: &'static [ArrivalEntry],
}

fn extended<T: Copy>(list: &'static [T], e: T) -> &'static [T] {
    // Registries live for the whole program, as the built-in ones do.
    Box::leak(
        list.iter()
            .copied()
            .chain(std::iter::once(e))
            .collect::<Vec<T>>()
            .into_boxed_slice(),
    )
}

impl Registries {
    pub const BUILTIN: Registries = Registries {
        schemes: SCHEMES,
        queues: QUEUES,
        topologies: TOPOLOGIES,
        sizes: SIZES,
        arrivals: ARRIVALS,
    };

    /// These registries plus one scheme.
    pub fn with_scheme(self, e: SchemeEntry) -> Self {
        Registries {
            schemes: extended(self.schemes, e),
            ..self
        }
    }

    /// These registries plus one queue discipline.
    pub fn with_queue(self, e: QueueEntry) -> Self {
        Registries {
            queues: extended(self.queues, e),
            ..self
        }
    }

    /// These registries plus one topology.
    pub fn with_topology(self, e: TopologyEntry) -> Self {
        Registries {
            topologies: extended(self.topologies, e),
            ..self
        }
    }

    /// These registries plus one size distribution.
    pub fn with_sizes(self, e: SizeEntry) -> Self {
        Registries {
            sizes: extended(self.sizes, e),
            ..self
        }
    }

    /// These registries plus one arrival process.
    pub fn with_arrivals(self, e: ArrivalEntry) -> Self {
        Registries {
            arrivals: extended(self.arrivals, e),
            ..self
        }
    }

    /// Table names that may appear under `[network]`.
    pub fn network_tables(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self
            .queues
            .iter()
            .filter_map(|e| e.table)
            .chain(self.topologies.iter().filter_map(|e| e.table))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Table names that may appear under `[transport]`.
    pub fn transport_tables(&self) -> Vec<&'static str> {
        self.schemes.iter().filter_map(|e| e.table).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_every_table_is_documented() {
        let r = Registries::BUILTIN;
        type Row<'a> = (&'a str, Option<&'a str>, fn() -> Vec<crate::config::ParamInfo>);
        let lists: [(&str, Vec<Row>); 5] = [
            (
                "schemes",
                r.schemes.iter().map(|e| (e.name, e.table, e.params)).collect(),
            ),
            ("queues", r.queues.iter().map(|e| (e.name, e.table, e.params)).collect()),
            (
                "topologies",
                r.topologies.iter().map(|e| (e.name, e.table, e.params)).collect(),
            ),
            ("sizes", r.sizes.iter().map(|e| (e.name, e.table, e.params)).collect()),
            (
                "arrivals",
                r.arrivals.iter().map(|e| (e.name, e.table, e.params)).collect(),
            ),
        ];
        for (kind, list) in lists {
            let mut seen = HashSet::new();
            for (name, table, params) in list {
                assert!(seen.insert(name), "{kind}: {name} registered twice");
                assert_eq!(name, name.to_lowercase(), "{kind}: names are lowercase");
                // Every key documented, every documented key a key (documented() checks).
                let ps = params();
                if table.is_some() && kind != "sizes" {
                    assert!(!ps.is_empty(), "{kind}: {name} has a table without parameters");
                }
            }
        }
        // Every controller and every other scheme is registered, once each.
        let want: Vec<&str> = cc::ENTRIES.iter().chain(OTHER_SCHEMES).map(|e| e.name).collect();
        assert_eq!(crate::config::names(SCHEMES), want);
        // A scheme's required queue exists.
        for s in r.schemes {
            if let Some(q) = s.requires {
                assert!(
                    crate::config::lookup(r.queues, q).is_some(),
                    "{} requires unknown queue {q}",
                    s.name
                );
            }
        }
    }
}

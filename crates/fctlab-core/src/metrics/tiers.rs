//! Load on a fabric's tiers: each link's utilisation over the run, and the
//! ECMP imbalance of each tier, the largest load of its links over their
//! mean (1: every link of the tier carried the same).

use crate::net::topology::fabric::Fabric;
use crate::net::LinkTotals;
use crate::sim::Time;

/// One tier of a fabric (links joining the same two layers, the same way).
#[derive(Clone, Debug, PartialEq)]
pub struct TierLoad {
    /// `host-edge`, `edge-agg`, `agg-core`, `core-agg`, `agg-edge`,
    /// `edge-host` (fat-tree) or `host-leaf`, `leaf-spine`, `spine-leaf`,
    /// `leaf-host` (leaf-spine).
    pub tier: &'static str,
    pub links: u32,
    /// Busy time over the run's length, averaged over the tier's links.
    pub mean_utilization: f64,
    /// The busiest link's utilisation.
    pub max_utilization: f64,
    /// max / mean busy time (1 when nothing crossed the tier).
    pub imbalance: f64,
}

/// The load of each tier of `fabric`, from every link's totals (ids as the
/// fabric numbers them) over a run of `end_ns`.
pub fn tier_loads(fabric: &Fabric, links: &[LinkTotals], end_ns: Time) -> Vec<TierLoad> {
    let names = fabric.tier_names();
    let mut busy: Vec<Vec<u64>> = vec![Vec::new(); names.len()];
    for (l, t) in links.iter().enumerate() {
        busy[fabric.tier(l as u32)].push(t.busy_ns);
    }
    let span = end_ns.max(1) as f64;
    names
        .iter()
        .zip(busy)
        .filter(|(_, b)| !b.is_empty())
        .map(|(&tier, b)| {
            let max = *b.iter().max().unwrap_or(&0) as f64;
            let mean = b.iter().map(|&x| x as f64).sum::<f64>() / b.len() as f64;
            TierLoad {
                tier,
                links: b.len() as u32,
                mean_utilization: mean / span,
                max_utilization: max / span,
                imbalance: if mean > 0.0 { max / mean } else { 1.0 },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::fabric::{FatTree, LeafSpine};

    fn totals(busy: &[u64]) -> Vec<LinkTotals> {
        busy.iter()
            .map(|&b| LinkTotals {
                name: String::new(),
                busy_ns: b,
                retx_busy_ns: 0,
                pkts_sent: 0,
                retx_pkts_sent: 0,
            })
            .collect()
    }

    #[test]
    fn tiers_follow_the_link_numbering() {
        // k = 4: 16 host links, 16 edge-aggregation and 16
        // aggregation-core uplinks (each with its reverse): 2 x 48 links.
        let f = Fabric::FatTree(FatTree::new(4));
        let mut busy = vec![0u64; 96];
        // Edge-aggregation uplinks (ids 32, 34, .., 62): one carries 4, the
        // other 15 carry 2 each: mean (4 + 30) / 16, max 4.
        for l in (32..64).step_by(2) {
            busy[l] = 2;
        }
        busy[32] = 4;
        let t = tier_loads(&f, &totals(&busy), 10);
        let names: Vec<&str> = t.iter().map(|x| x.tier).collect();
        assert_eq!(
            names,
            ["host-edge", "edge-agg", "agg-core", "core-agg", "agg-edge", "edge-host"]
        );
        assert_eq!(t.iter().map(|x| x.links).collect::<Vec<_>>(), [16; 6]);
        let up = &t[1];
        assert!((up.imbalance - 4.0 / (34.0 / 16.0)).abs() < 1e-12);
        assert!((up.max_utilization - 0.4).abs() < 1e-12);
        assert!((up.mean_utilization - 34.0 / 16.0 / 10.0).abs() < 1e-12);
        assert_eq!(t[0].imbalance, 1.0);
        // A leaf-spine of 2 leaves of 2 hosts and 3 spines: 4 host links, 6
        // leaf-spine links, each both ways.
        let f = Fabric::LeafSpine(LeafSpine {
            hosts_per_leaf: 2,
            leaves: 2,
            spines: 3,
        });
        let t = tier_loads(&f, &totals(&[1; 20]), 10);
        let names: Vec<(&str, u32)> = t.iter().map(|x| (x.tier, x.links)).collect();
        assert_eq!(
            names,
            [("host-leaf", 4), ("leaf-spine", 6), ("spine-leaf", 6), ("leaf-host", 4)]
        );
    }
}

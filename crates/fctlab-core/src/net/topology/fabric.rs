//! Fabrics whose equal-cost paths follow from their structure: the k-ary
//! fat-tree and the two-tier leaf-spine. Nodes and links are numbered so that
//! every path, and every next hop, is arithmetic on indices: no graph search,
//! no table per pair of hosts.
//!
//! Numbering (the fat-tree's is htsim's `FatTreeTopology`, csg-htsim
//! `sim/datacenter/fat_tree_topology.cpp`, so that the same flow list takes the
//! same paths in both simulators):
//!
//! - hosts `h = 0 .. H - 1` are nodes `0 .. H - 1`; host `h` hangs under edge
//!   switch (ToR, leaf) `h / d`, `d` hosts per edge switch;
//! - fat-tree (`d = k/2`): edge switch `t` in pod `t / (k/2)`; aggregation
//!   switch `a` in pod `a / (k/2)` at position `a % (k/2)`, linked to every
//!   edge switch of its pod; core `c` linked to the aggregation switch at
//!   position `c % (k/2)` of every pod;
//! - leaf-spine: every leaf linked to every spine.
//!
//! Links (each a pair: the even id goes up, towards the core, the odd id
//! comes down): host `h`'s link is `2h` (host to edge) and `2h + 1`; then
//! edge `t` to its aggregation switch at position `a` (fat-tree) or to spine
//! `s` (leaf-spine), `B1 + 2 (t u + j)` with `u` uplinks per edge switch; then
//! (fat-tree) aggregation switch `g`'s uplink `l`, to core `g % (k/2) + (k/2) l`,
//! `B2 + 2 (g (k/2) + l)`.
//!
//! Paths between two hosts, in htsim's order: under the same edge switch, 1;
//! in the same pod (fat-tree), `k/2`, index = aggregation position; otherwise
//! `(k/2)^2`, index `p = a (k/2) + l`: aggregation position `a` in both pods
//! and core `a + (k/2) l`. Leaf-spine: one path per spine, index = spine. Path
//! `p` from `b` back to `a` crosses the same switches as path `p` from `a` to
//! `b` (the mirror path).

use crate::net::LinkId;

/// A fabric's structure, for its paths and next hops.
#[derive(Clone, Debug, PartialEq)]
pub enum Fabric {
    FatTree(FatTree),
    LeafSpine(LeafSpine),
}

/// A k-ary three-tier fat-tree (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008).
#[derive(Clone, Debug, PartialEq)]
pub struct FatTree {
    /// k / 2: hosts per edge switch, edge and aggregation switches per pod,
    /// uplinks per edge and per aggregation switch.
    pub half: u32,
    pub hosts: u32,
}

/// Leaves with `hosts_per_leaf` hosts each, every leaf linked to every spine.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafSpine {
    pub hosts_per_leaf: u32,
    pub leaves: u32,
    pub spines: u32,
}

impl FatTree {
    pub fn new(k: u32) -> Self {
        let half = k / 2;
        FatTree {
            half,
            hosts: 2 * half * half * half,
        }
    }

    /// Edge switches (and aggregation switches): k^2 / 2.
    pub fn edges(&self) -> u32 {
        2 * self.half * self.half
    }

    /// Core switches: (k/2)^2.
    pub fn cores(&self) -> u32 {
        self.half * self.half
    }

    /// First id of the edge-aggregation links.
    fn b1(&self) -> u32 {
        2 * self.hosts
    }

    /// First id of the aggregation-core links.
    fn b2(&self) -> u32 {
        self.b1() + 2 * self.edges() * self.half
    }

    fn edge_of(&self, h: u32) -> u32 {
        h / self.half
    }

    fn pod_of_edge(&self, t: u32) -> u32 {
        t / self.half
    }

    fn n_paths(&self, a: u32, b: u32) -> u32 {
        let (ta, tb) = (self.edge_of(a), self.edge_of(b));
        if ta == tb {
            1
        } else if self.pod_of_edge(ta) == self.pod_of_edge(tb) {
            self.half
        } else {
            self.half * self.half
        }
    }

    /// The link after `l` towards host `dst` on path `idx`; None at `dst`.
    #[inline]
    fn next(&self, l: LinkId, dst: u32, idx: u32) -> Option<LinkId> {
        let (h, b1, b2) = (self.half, self.b1(), self.b2());
        let down = l & 1 == 1;
        let t_dst = self.edge_of(dst);
        if l < b1 {
            if down {
                return None; // at the host
            }
            // At the source's edge switch.
            let t = self.edge_of(l / 2);
            if t == t_dst {
                return Some(2 * dst + 1);
            }
            let a = if self.pod_of_edge(t) == self.pod_of_edge(t_dst) {
                idx
            } else {
                idx / h
            };
            return Some(b1 + 2 * (t * h + a));
        }
        if l < b2 {
            let j = (l - b1) / 2;
            if down {
                return Some(2 * dst + 1); // at the destination's edge switch
            }
            // At aggregation switch g = pod * h + a.
            let (t, a) = (j / h, j % h);
            let pod = self.pod_of_edge(t);
            if pod == self.pod_of_edge(t_dst) {
                return Some(b1 + 2 * (t_dst * h + a) + 1);
            }
            let g = pod * h + a;
            return Some(b2 + 2 * (g * h + idx % h));
        }
        let j = (l - b2) / 2;
        let (g, up) = (j / h, j % h);
        if down {
            // At the destination pod's aggregation switch g.
            return Some(b1 + 2 * (t_dst * h + g % h) + 1);
        }
        // At core (g % h) + h * up: down to the destination pod's switch at the same position.
        let g2 = self.pod_of_edge(t_dst) * h + g % h;
        Some(b2 + 2 * (g2 * h + up) + 1)
    }
}

impl LeafSpine {
    pub fn hosts(&self) -> u32 {
        self.hosts_per_leaf * self.leaves
    }

    fn b1(&self) -> u32 {
        2 * self.hosts()
    }

    fn leaf_of(&self, h: u32) -> u32 {
        h / self.hosts_per_leaf
    }

    fn n_paths(&self, a: u32, b: u32) -> u32 {
        if self.leaf_of(a) == self.leaf_of(b) {
            1
        } else {
            self.spines
        }
    }

    #[inline]
    fn next(&self, l: LinkId, dst: u32, idx: u32) -> Option<LinkId> {
        let (s, b1) = (self.spines, self.b1());
        let down = l & 1 == 1;
        let leaf_dst = self.leaf_of(dst);
        if l < b1 {
            if down {
                return None;
            }
            let leaf = self.leaf_of(l / 2);
            if leaf == leaf_dst {
                return Some(2 * dst + 1);
            }
            return Some(b1 + 2 * (leaf * s + idx));
        }
        if down {
            return Some(2 * dst + 1);
        }
        let spine = ((l - b1) / 2) % s;
        Some(b1 + 2 * (leaf_dst * s + spine) + 1)
    }
}

impl Fabric {
    pub fn hosts(&self) -> u32 {
        match self {
            Fabric::FatTree(f) => f.hosts,
            Fabric::LeafSpine(f) => f.hosts(),
        }
    }

    /// The most equal-cost paths between two hosts.
    pub fn max_paths(&self) -> u32 {
        match self {
            Fabric::FatTree(f) => f.half * f.half,
            Fabric::LeafSpine(f) => f.spines,
        }
    }

    /// Hosts per edge switch (a rack).
    pub fn hosts_per_edge(&self) -> u32 {
        match self {
            Fabric::FatTree(f) => f.half,
            Fabric::LeafSpine(f) => f.hosts_per_leaf,
        }
    }

    /// The number of equal-cost paths from host `a` to host `b` (`a != b`).
    #[inline]
    pub fn n_paths(&self, a: u32, b: u32) -> u32 {
        match self {
            Fabric::FatTree(f) => f.n_paths(a, b),
            Fabric::LeafSpine(f) => f.n_paths(a, b),
        }
    }

    /// Host `h`'s link into the fabric (its NIC).
    #[inline(always)]
    pub fn uplink(&self, h: u32) -> LinkId {
        2 * h
    }

    /// The link after `l` on path `idx` towards host `dst`, None once at `dst`.
    #[inline(always)]
    pub fn next(&self, l: LinkId, dst: u32, idx: u32) -> Option<LinkId> {
        match self {
            Fabric::FatTree(f) => f.next(l, dst, idx),
            Fabric::LeafSpine(f) => f.next(l, dst, idx),
        }
    }

    /// The tier of link `l`: which layers it joins and which way
    /// (see [`Fabric::tier_names`]: host-edge, edge-agg, agg-core going up, then the same
    /// coming down; a leaf-spine has no aggregation-core tiers).
    pub fn tier(&self, l: LinkId) -> usize {
        let (b1, b2) = match self {
            Fabric::FatTree(f) => (f.b1(), f.b2()),
            Fabric::LeafSpine(f) => (f.b1(), u32::MAX),
        };
        let layer = if l < b1 {
            0
        } else if l < b2 {
            1
        } else {
            2
        };
        if l & 1 == 0 {
            layer
        } else {
            5 - layer
        }
    }

    /// The names of the tiers ([`Fabric::tier`]), up then down.
    pub fn tier_names(&self) -> [&'static str; 6] {
        match self {
            Fabric::FatTree(_) => ["host-edge", "edge-agg", "agg-core", "core-agg", "agg-edge", "edge-host"],
            Fabric::LeafSpine(_) => ["host-leaf", "leaf-spine", "", "", "spine-leaf", "leaf-host"],
        }
    }

    /// The links of path `idx` from host `a` to host `b`.
    pub fn path(&self, a: u32, b: u32, idx: u32) -> Vec<LinkId> {
        let mut out = vec![self.uplink(a)];
        while let Some(l) = self.next(*out.last().unwrap_or(&0), b, idx) {
            out.push(l);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path of a k = 4 fat-tree, checked by hand against the numbering
    /// of the module's text.
    #[test]
    fn fat_tree_paths_follow_the_numbering() {
        let f = Fabric::FatTree(FatTree::new(4));
        // k = 4: 16 hosts, 8 edge, 8 aggregation, 4 core switches; B1 = 32,
        // B2 = 32 + 2 * 8 * 2 = 64.
        assert_eq!(f.hosts(), 16);
        // Hosts 0 and 1 share edge switch 0: host 0 up, edge 0 down to host 1.
        assert_eq!(f.path(0, 1, 0), vec![0, 3]);
        // Hosts 0 and 2, same pod: via aggregation position p.
        assert_eq!(f.path(0, 2, 0), vec![0, 32, 32 + 2 * 2 + 1, 5]);
        assert_eq!(f.path(0, 2, 1), vec![0, 34, 32 + 2 * 3 + 1, 5]);
        // Host 0 (pod 0) to host 15 (edge 7, pod 3), path p = a * 2 + l.
        for p in 0..4 {
            let (a, l) = (p / 2, p % 2);
            let g_src = a; // pod 0
            let g_dst = 3 * 2 + a;
            let want = vec![
                0,
                32 + 2 * a,                   // edge 0 -> agg a
                64 + 2 * (g_src * 2 + l),     // agg -> core a + 2 l
                64 + 2 * (g_dst * 2 + l) + 1, // core -> agg of pod 3 at position a
                32 + 2 * (7 * 2 + a) + 1,     // agg -> edge 7
                31,                           // edge 7 -> host 15
            ];
            assert_eq!(f.path(0, 15, p), want, "path {p}");
        }
        assert_eq!((f.n_paths(0, 1), f.n_paths(0, 2), f.n_paths(0, 15)), (1, 2, 4));
    }

    #[test]
    fn leaf_spine_paths_cross_one_spine() {
        let f = Fabric::LeafSpine(LeafSpine {
            hosts_per_leaf: 2,
            leaves: 3,
            spines: 2,
        });
        // B1 = 12; leaf 0 -> spine 1 is 12 + 2; spine 1 -> leaf 2 is 12 + 2 * 5 + 1.
        assert_eq!(f.path(0, 5, 1), vec![0, 14, 23, 11]);
        assert_eq!(f.path(0, 1, 0), vec![0, 3]);
        assert_eq!(f.n_paths(0, 5), 2);
    }
}

//! Equal-cost shortest paths on any topology: every path from one node to
//! another whose (propagation delay, hops) is the least, the cost
//! [`Topology::route`] minimises. Paths come in a fixed order: depth first,
//! each node's outgoing links in link order (so the order of a graph's
//! `links` list decides it), at most [`MAX_EQUAL_COST`] of them.

use super::Topology;
use crate::net::{LinkId, NodeId};
use crate::sim::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The most equal-cost paths kept between two nodes (the first ones in order).
pub const MAX_EQUAL_COST: usize = 256;

impl Topology {
    /// Each node's outgoing links, in link order.
    pub fn out_links(&self) -> Vec<Vec<LinkId>> {
        let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); self.nodes as usize];
        for (i, l) in self.links.iter().enumerate() {
            out[l.from as usize].push(i as LinkId);
        }
        out
    }

    /// The least (delay, hops) from `src` to every node (None: unreachable).
    fn costs_from(&self, out: &[Vec<LinkId>], src: NodeId) -> Vec<Option<(Time, u32)>> {
        let mut best: Vec<Option<(Time, u32)>> = vec![None; self.nodes as usize];
        let mut heap = BinaryHeap::new();
        best[src as usize] = Some((0, 0));
        heap.push(Reverse((0u64, 0u32, src)));
        while let Some(Reverse((d, h, u))) = heap.pop() {
            if best[u as usize] != Some((d, h)) {
                continue;
            }
            for &li in &out[u as usize] {
                let l = &self.links[li as usize];
                let cand = (d + l.delay_ns, h + 1);
                if best[l.to as usize].is_none_or(|b| cand < b) {
                    best[l.to as usize] = Some(cand);
                    heap.push(Reverse((cand.0, cand.1, l.to)));
                }
            }
        }
        best
    }

    /// Every least-cost path from `src` to `dst` (at most
    /// [`MAX_EQUAL_COST`]), in order; empty if `dst` cannot be reached.
    pub fn equal_cost_paths(&self, out: &[Vec<LinkId>], src: NodeId, dst: NodeId) -> Vec<Vec<LinkId>> {
        let best = self.costs_from(out, src);
        if best[dst as usize].is_none() || src == dst {
            return Vec::new();
        }
        // A link is on some least-cost path from src iff it extends one.
        let tight = |li: LinkId| {
            let l = &self.links[li as usize];
            match (best[l.from as usize], best[l.to as usize]) {
                (Some((d, h)), Some(b)) => (d + l.delay_ns, h + 1) == b,
                _ => false,
            }
        };
        // Nodes from which dst is reached along tight links.
        let mut reaches = vec![false; self.nodes as usize];
        reaches[dst as usize] = true;
        let mut order: Vec<NodeId> = (0..self.nodes).filter(|&n| best[n as usize].is_some()).collect();
        order.sort_by_key(|&n| Reverse(best[n as usize]));
        for &u in &order {
            if out[u as usize]
                .iter()
                .any(|&li| tight(li) && reaches[self.links[li as usize].to as usize])
            {
                reaches[u as usize] = true;
            }
        }
        // Depth first from src, links in order.
        let mut paths = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = vec![(src, 0)];
        let mut path: Vec<LinkId> = Vec::new();
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if u == dst {
                paths.push(path.clone());
                if paths.len() == MAX_EQUAL_COST {
                    break;
                }
                stack.pop();
                path.pop();
                continue;
            }
            let links = &out[u as usize];
            match links[*next..]
                .iter()
                .position(|&li| tight(li) && reaches[self.links[li as usize].to as usize])
            {
                Some(k) => {
                    let li = links[*next + k];
                    *next += k + 1;
                    path.push(li);
                    stack.push((self.links[li as usize].to, 0));
                }
                None => {
                    stack.pop();
                    path.pop();
                }
            }
        }
        paths
    }
}

#[cfg(test)]
mod tests {
    use super::super::Graph;

    /// Two leaves, two spines, one host each side: two equal paths, in the
    /// order the links list the spines; a longer detour is not one of them.
    #[test]
    fn two_spines_give_two_paths_in_link_order() {
        let mut g = Graph::default();
        let (l0, l1, s0, s1) = (
            g.node("l0", true),
            g.node("l1", true),
            g.node("s0", true),
            g.node("s1", true),
        );
        let (a, b) = (g.node("a", false), g.node("b", false));
        let x = g.node("x", true);
        g.link("a-l0", a, l0, 1e9, 1000);
        g.link("l0-s1", l0, s1, 1e9, 1000); // link 1 (ids 2, 3)
        g.link("l0-s0", l0, s0, 1e9, 1000); // link 2 (ids 4, 5)
        g.link("s0-l1", s0, l1, 1e9, 1000); // ids 6, 7
        g.link("s1-l1", s1, l1, 1e9, 1000); // ids 8, 9
        g.link("l1-b", l1, b, 1e9, 1000); // ids 10, 11
        g.link("l0-x", l0, x, 1e9, 1000); // a detour: l0 - x - l1 is longer
        g.link("x-l1", x, l1, 1e9, 1500);
        let t = g.build(None);
        let out = t.out_links();
        let p = t.equal_cost_paths(&out, a as u32, b as u32);
        assert_eq!(p, vec![vec![0, 2, 8, 10], vec![0, 4, 6, 10]]);
        let back = t.equal_cost_paths(&out, b as u32, a as u32);
        assert_eq!(back, vec![vec![11, 7, 5, 1], vec![11, 9, 3, 1]]);
        assert_eq!(t.hosts, vec![a as u32, b as u32]);
        assert_eq!(t.racks, vec![l0 as u32, l1 as u32]);
    }
}

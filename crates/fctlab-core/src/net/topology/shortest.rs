//! Shortest routes for many pairs of one topology, each in time that does not
//! grow with the number of hosts.
//!
//! A route is Dijkstra's on (propagation delay, hops), ties broken by the
//! node popped first (smallest (delay, hops, node)) and then by link index:
//! the first link that reaches a node with its final label keeps it. Two
//! things make one route cheap without changing which route is found:
//!
//! - The search stops when the destination is popped: its label and the
//!   labels of every node before it on the path are final by then (a label
//!   is only replaced by a strictly smaller one, and none is smaller than a
//!   popped one).
//! - Links into a *stub* (a node whose every link leads to or comes from one
//!   neighbour, as every host on an access link) are left out of the search,
//!   except into the destination: a path through a stub leaves by the node it
//!   came from, a cycle with more hops and no less delay, which never replaces
//!   a label. So a router with 10^5 hosts on its ports costs nothing per route.
//!
//! The adjacency is built once, and the labels are cleared by the list of
//! nodes each search touched, so a search visits only the nodes and links
//! near its path (`visited` counts them, for the tests of linear set-up).

use super::Topology;
use crate::net::{LinkId, NodeId};
use crate::sim::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Routes of one topology, built once and asked many times.
pub struct RouteFinder<'a> {
    topo: &'a Topology,
    /// Links out of each node into non-stubs, in link-index order.
    out: Vec<Vec<LinkId>>,
    /// Links into each stub, in link-index order (empty for other nodes).
    into_stub: Vec<Vec<LinkId>>,
    best: Vec<Option<(Time, u32)>>,
    via: Vec<Option<LinkId>>,
    touched: Vec<NodeId>,
    /// Links relaxed by all searches so far.
    pub visited: u64,
}

impl<'a> RouteFinder<'a> {
    pub fn new(topo: &'a Topology) -> Self {
        let n = topo.nodes as usize;
        // The one neighbour of each node, u32::MAX when it has several.
        const NONE: u32 = u32::MAX - 1;
        let mut neighbour = vec![NONE; n];
        let mut note = |a: usize, b: NodeId| {
            neighbour[a] = match neighbour[a] {
                NONE => b,
                x if x == b => x,
                _ => u32::MAX,
            }
        };
        for l in &topo.links {
            note(l.from as usize, l.to);
            note(l.to as usize, l.from);
        }
        let stub = |v: NodeId| neighbour[v as usize] < NONE;
        let mut out = vec![Vec::new(); n];
        let mut into_stub = vec![Vec::new(); n];
        for (i, l) in topo.links.iter().enumerate() {
            if stub(l.to) {
                into_stub[l.to as usize].push(i as LinkId);
            } else {
                out[l.from as usize].push(i as LinkId);
            }
        }
        RouteFinder {
            topo,
            out,
            into_stub,
            best: vec![None; n],
            via: vec![None; n],
            touched: Vec::new(),
            visited: 0,
        }
    }

    /// The route from `src` to `dst` (None if there is none), the same as
    /// [`Topology::route`].
    pub fn route(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        for &v in &self.touched {
            self.best[v as usize] = None;
            self.via[v as usize] = None;
        }
        self.touched.clear();
        let links = &self.topo.links;
        let mut heap = BinaryHeap::new();
        self.best[src as usize] = Some((0, 0));
        self.touched.push(src);
        heap.push(Reverse((0u64, 0u32, src)));
        while let Some(Reverse((d, h, u))) = heap.pop() {
            if self.best[u as usize] != Some((d, h)) {
                continue;
            }
            if u == dst {
                break;
            }
            let to_dst = self.into_stub[dst as usize]
                .iter()
                .filter(|&&li| links[li as usize].from == u);
            // Relaxations of different nodes are independent, so the links
            // into the destination may come after the others.
            for &li in self.out[u as usize].iter().chain(to_dst) {
                self.visited += 1;
                let l = &links[li as usize];
                let cand = (d + l.delay_ns, h + 1);
                let v = l.to as usize;
                if self.best[v].is_none_or(|b| cand < b) {
                    if self.best[v].is_none() {
                        self.touched.push(l.to);
                    }
                    self.best[v] = Some(cand);
                    self.via[v] = Some(li);
                    heap.push(Reverse((cand.0, cand.1, l.to)));
                }
            }
        }
        self.best[dst as usize]?;
        let mut path = Vec::new();
        let mut v = dst;
        while v != src {
            let li = self.via[v as usize]?;
            path.push(li);
            v = links[li as usize].from;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::LinkSpec;
    use rand::Rng;

    /// Dijkstra over every node and link, as written in textbooks: the
    /// reference the finder must agree with.
    fn reference_route(t: &Topology, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        let n = t.nodes as usize;
        let mut out: Vec<Vec<LinkId>> = vec![Vec::new(); n];
        for (i, l) in t.links.iter().enumerate() {
            out[l.from as usize].push(i as LinkId);
        }
        let mut best: Vec<Option<(Time, u32)>> = vec![None; n];
        let mut via: Vec<Option<LinkId>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        best[src as usize] = Some((0, 0));
        heap.push(Reverse((0u64, 0u32, src)));
        while let Some(Reverse((d, h, u))) = heap.pop() {
            if best[u as usize] != Some((d, h)) {
                continue;
            }
            for &li in &out[u as usize] {
                let l = &t.links[li as usize];
                let cand = (d + l.delay_ns, h + 1);
                let v = l.to as usize;
                if best[v].is_none_or(|b| cand < b) {
                    best[v] = Some(cand);
                    via[v] = Some(li);
                    heap.push(Reverse((cand.0, cand.1, l.to)));
                }
            }
        }
        best[dst as usize]?;
        let mut path = Vec::new();
        let mut v = dst;
        while v != src {
            let li = via[v as usize]?;
            path.push(li);
            v = t.links[li as usize].from;
        }
        path.reverse();
        Some(path)
    }

    fn link(from: NodeId, to: NodeId, delay_ns: Time) -> LinkSpec {
        LinkSpec {
            name: format!("{from}-{to}"),
            from,
            to,
            rate_bps: 1e9,
            delay_ns,
            limit_pkts: None,
            router_port: true,
        }
    }

    #[test]
    fn agrees_with_textbook_dijkstra_on_random_graphs() {
        // Small delays (0..3) make many ties, parallel links and stubs
        // (nodes with one neighbour) are common, some pairs are unreachable.
        let mut r = crate::sim::stream_rng(7, 0);
        for _ in 0..300 {
            let n = r.random_range(2..12u32);
            let mut t = Topology {
                nodes: n,
                ..Default::default()
            };
            for _ in 0..r.random_range(1..3 * n) {
                let (a, b) = (r.random_range(0..n), r.random_range(0..n));
                let d = r.random_range(0..3);
                t.links.push(link(a, b, d));
                if r.random_bool(0.7) {
                    t.links.push(link(b, a, d));
                }
            }
            let mut f = RouteFinder::new(&t);
            for _ in 0..20 {
                let (a, b) = (r.random_range(0..n), r.random_range(0..n));
                assert_eq!(f.route(a, b), reference_route(&t, a, b), "{a} -> {b} in {:?}", t.links);
            }
        }
    }

    #[test]
    fn a_dumbbell_route_visits_a_few_links_whatever_the_senders() {
        // 20,000 senders on one router: each route relaxes the links along it
        // and into its ends, not the router's 20,000 other ports.
        let n = 20_000;
        let t = super::super::dumbbell::build(1e9, 10, 1e10, &vec![1000; n], 1000, Some(100));
        let mut f = RouteFinder::new(&t);
        for i in 0..n {
            let fwd = f.route(t.senders[i], t.receivers[i]).unwrap();
            assert_eq!(fwd.len(), 3);
            f.route(t.receivers[i], t.senders[i]).unwrap();
        }
        assert!(f.visited <= 8 * n as u64, "{} links relaxed for {n} senders", f.visited);
        for i in [0, n / 2, n - 1] {
            assert_eq!(
                f.route(t.senders[i], t.receivers[i]),
                reference_route(&t, t.senders[i], t.receivers[i])
            );
        }
    }
}

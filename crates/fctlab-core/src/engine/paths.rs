//! Which path a flow takes between its two ends, under `network.routing`:
//! the first path (`single`), one hashed path per flow and direction
//! (`ecmp`), re-hashed after a pause (flowlets), or one per packet (`spray`).
//!
//! A fabric's paths are computed from indices ([`Routes::fabric_path`]); a
//! graph's equal-cost paths between two nodes are enumerated when the first
//! flow between them is created and kept (memory per pair of nodes that
//! exchange traffic, never per flow). A flow whose path changes during its
//! life keeps a small boxed [`Multi`]; every other flow keeps two path ids.

use super::routes::{PathId, Routes, FABRIC_PATH};
use crate::net::routing::{AckPath, Dir, Mode, Routing, Spray};
use crate::net::topology::Topology;
use crate::net::LinkId;
use crate::sim::{stream_rng, Rng, Time};
use rand::Rng as _;
use std::collections::HashMap;

/// The random stream of sprayed packets' paths.
const SPRAY_STREAM: u64 = 1 << 48;

/// A flow's ends: a sender of the topology (`network.senders`), or two hosts
/// with, optionally, the index of the path the data must take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ends {
    Sender(u32),
    Hosts { src: u32, dst: u32, pin: Option<u32> },
}

/// The paths a new flow starts on.
pub(super) struct Chosen {
    pub fwd: PathId,
    pub rev: PathId,
    /// The data path's index among the equal-cost paths (None: `single` on
    /// a graph, or spraying).
    pub index: Option<u32>,
    pub multi: Option<Box<Multi>>,
}

/// Path state of a flow whose packets may change path.
pub(super) struct Multi {
    /// The destination node of each direction (data, ACKs).
    to: [u32; 2],
    /// Equal-cost paths in each direction.
    n: [u32; 2],
    /// A graph's first path id of each direction's paths (fabric: unused).
    base: [PathId; 2],
    /// Round-robin position in each direction.
    rr: [u32; 2],
    /// Flowlets: the time of the last packet in each direction (MAX: none
    /// yet) and the number of flowlets begun there.
    last_ns: [Time; 2],
    flowlets: [u32; 2],
    /// The path each direction is on (flowlets; mirrored ACKs).
    pub cur: [PathId; 2],
    /// The data keeps the path the flow was pinned to.
    pinned: bool,
}

/// The run's routing over equal-cost paths and what it keeps per pair.
pub(super) struct HostPaths {
    pub routing: Routing,
    seed: u64,
    rng: Rng,
    /// A graph's equal-cost paths between two nodes: first id and count.
    pairs: HashMap<(u32, u32), (PathId, u32)>,
    /// A graph's shortest path between two nodes (`single`).
    singles: HashMap<(u32, u32), PathId>,
    /// The mirror of a stored path, by id.
    mirrors: HashMap<PathId, PathId>,
    /// A graph's outgoing links per node, built at the first use.
    out: Option<Vec<Vec<LinkId>>>,
}

impl HostPaths {
    pub fn new(routing: Routing, seed: u64) -> Self {
        HostPaths {
            routing,
            seed,
            rng: stream_rng(seed, SPRAY_STREAM),
            pairs: HashMap::new(),
            singles: HashMap::new(),
            mirrors: HashMap::new(),
            out: None,
        }
    }

    /// Equal-cost paths from node `a` to node `b`: (first id, count) of a
    /// graph's stored paths, or (unused, count) of a fabric's.
    fn pair(&mut self, topo: &Topology, routes: &mut Routes, a: u32, b: u32) -> (PathId, u32) {
        if let Some(f) = routes.fabric() {
            return (0, f.n_paths(a, b));
        }
        if let Some(&p) = self.pairs.get(&(a, b)) {
            return p;
        }
        let out = self.out.get_or_insert_with(|| topo.out_links());
        let paths = topo.equal_cost_paths(out, a, b);
        let first = routes.len() as PathId;
        for p in &paths {
            routes.push(p);
        }
        let v = (first, paths.len().max(1) as u32);
        self.pairs.insert((a, b), v);
        v
    }

    /// The stored id of path `idx` among a graph's equal-cost paths from
    /// node `a` to node `b`, if a flow between them was created.
    pub fn stored(&self, a: u32, b: u32, idx: u32) -> Option<PathId> {
        let &(first, n) = self.pairs.get(&(a, b))?;
        (idx < n).then_some(first + idx)
    }

    /// Path `idx` of the pair whose first stored id is `base`, towards `to`.
    fn id(routes: &Routes, base: PathId, to: u32, idx: u32) -> PathId {
        if routes.fabric().is_some() {
            routes.fabric_path(to, idx)
        } else {
            base + idx
        }
    }

    /// Today's shortest path from `a` to `b` (a graph under `single`).
    fn single(&mut self, topo: &Topology, routes: &mut Routes, a: u32, b: u32) -> PathId {
        *self.singles.entry((a, b)).or_insert_with(|| {
            let p = topo
                .route(a, b)
                .expect("hosts are connected (checked when the scenario was read)");
            routes.push(&p)
        })
    }

    /// The mirror of path `p`, back to node `to` where it starts: the
    /// reverse of each of its links.
    pub fn mirror(&mut self, routes: &mut Routes, p: PathId, to: u32) -> PathId {
        if p & FABRIC_PATH != 0 {
            return routes.fabric_path(to, routes.fabric_index(p));
        }
        if let Some(&m) = self.mirrors.get(&p) {
            return m;
        }
        let back: Vec<LinkId> = routes.path(p).iter().rev().map(|&l| l ^ 1).collect();
        let m = routes.push(&back);
        self.mirrors.insert(p, m);
        m
    }

    /// The paths of new flow `id` from node `a` to node `b`.
    pub fn choose(
        &mut self,
        topo: &Topology,
        routes: &mut Routes,
        id: u32,
        a: u32,
        b: u32,
        pin: Option<u32>,
    ) -> Chosen {
        let r = self.routing;
        if r.mode == Mode::Single && routes.fabric().is_none() {
            let (fwd, rev) = (self.single(topo, routes, a, b), self.single(topo, routes, b, a));
            return Chosen {
                fwd,
                rev,
                index: None,
                multi: None,
            };
        }
        let (base_f, n_f) = self.pair(topo, routes, a, b);
        let (base_r, n_r) = self.pair(topo, routes, b, a);
        let single = r.mode == Mode::Single;
        let i_f = pin.unwrap_or(if single { 0 } else { r.hash(self.seed, id, 0, 0, n_f) });
        let fwd = Self::id(routes, base_f, b, i_f);
        let rev = match (single, r.ack) {
            (false, AckPath::Mirror) => self.mirror(routes, fwd, a),
            (true, _) => Self::id(routes, base_r, a, 0),
            (false, AckPath::Hash) => Self::id(routes, base_r, a, r.hash(self.seed, id, 1, 0, n_r)),
        };
        let multi = (!single && r.per_packet()).then(|| {
            Box::new(Multi {
                to: [b, a],
                n: [n_f, n_r],
                base: [base_f, base_r],
                rr: [0; 2],
                last_ns: [Time::MAX; 2],
                flowlets: [0; 2],
                cur: [fwd, rev],
                pinned: pin.is_some(),
            })
        });
        let sprayed = matches!(r.mode, Mode::Spray(_)) && pin.is_none();
        Chosen {
            fwd,
            rev,
            index: (!sprayed).then_some(i_f),
            multi,
        }
    }

    /// The path of the next packet of flow `id` in direction `dir` at `now`.
    pub fn pick(&mut self, routes: &Routes, m: &mut Multi, id: u32, dir: Dir, now: Time) -> PathId {
        let d = dir as usize;
        let r = self.routing;
        if dir == 1 && r.ack == AckPath::Mirror || dir == 0 && m.pinned {
            return m.cur[d];
        }
        let idx = match r.mode {
            Mode::Spray(Spray::Random) => self.rng.random_range(0..m.n[d]),
            Mode::Spray(Spray::RoundRobin) => {
                let start = r.hash(self.seed, id, dir, 0, m.n[d]);
                m.rr[d] = m.rr[d].wrapping_add(1);
                (start + m.rr[d] - 1) % m.n[d]
            }
            _ => {
                let gap = r.flowlet_gap_ns.unwrap_or(Time::MAX);
                let last = std::mem::replace(&mut m.last_ns[d], now);
                if last == Time::MAX || now.saturating_sub(last) <= gap {
                    return m.cur[d];
                }
                m.flowlets[d] += 1;
                r.hash(self.seed, id, dir, m.flowlets[d], m.n[d])
            }
        };
        m.cur[d] = Self::id(routes, m.base[d], m.to[d], idx);
        m.cur[d]
    }
}

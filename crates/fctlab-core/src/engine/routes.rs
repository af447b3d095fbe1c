//! The route table: every path a packet may follow, by path id. A packet
//! carries its path's id (`Packet::path`) and its position on it
//! (`Packet::hop`); a flow holds the ids of its forward and reverse paths.
//! Paths are handed out by [`Routes::push`] and nothing ties an id to a
//! pair of hosts, so any number of paths may join the same two hosts.
//!
//! A fabric's paths are not stored: their ids carry [`FABRIC_PATH`] and name
//! the destination host and the path's index among the equal-cost paths, and
//! each next hop is computed from the link the packet arrived on
//! ([`crate::net::topology::Fabric::next`]), as a switch forwards. So a
//! fat-tree of any size has no per-pair or per-flow route state, and spraying
//! packets over all paths costs nothing more.

use crate::net::topology::{Fabric, RouteFinder, Topology};
use crate::net::LinkId;
use crate::sim::Time;

/// A path's index in [`Routes`].
pub type PathId = u32;

/// The bit of a fabric path's id.
pub const FABRIC_PATH: PathId = 1 << 31;

/// Every path of a run, stored end to end: path `p` is
/// `links[ends[p]..ends[p + 1]]`. Memory is the total of the paths' lengths
/// (plus one word per path); a lookup is two loads and a slice.
#[derive(Clone, Debug)]
pub struct Routes {
    links: Vec<LinkId>,
    /// `ends[p + 1]`: where path `p` ends in `links` (`ends[0] = 0`).
    ends: Vec<u32>,
    /// The fabric whose paths are computed, and the bits of a path's index
    /// in a fabric path's id.
    fabric: Option<(Fabric, u32)>,
}

impl Default for Routes {
    fn default() -> Self {
        Routes {
            links: Vec::new(),
            ends: vec![0],
            fabric: None,
        }
    }
}

impl Routes {
    /// A route table whose fabric paths (if any) follow from `fabric`.
    pub fn new(fabric: Option<Fabric>) -> Self {
        Routes {
            fabric: fabric.map(|f| {
                let bits = 32 - (f.max_paths().max(2) - 1).leading_zeros();
                assert!(
                    (f.hosts() as u64) << bits < FABRIC_PATH as u64,
                    "fabric too large for its path ids"
                );
                (f, bits)
            }),
            ..Default::default()
        }
    }

    /// Add a path (its links in order) and return its id. A packet's hop
    /// counter is 16 bits wide, so a path is at most `u16::MAX` links long.
    pub fn push(&mut self, path: &[LinkId]) -> PathId {
        assert!(path.len() <= u16::MAX as usize, "a path of more than 65,535 links");
        assert!(((self.ends.len() - 1) as PathId) < FABRIC_PATH, "more than 2^31 paths");
        self.links.extend_from_slice(path);
        self.ends.push(self.links.len() as u32);
        (self.ends.len() - 2) as PathId
    }

    /// The fabric, if paths between hosts follow from its structure.
    pub fn fabric(&self) -> Option<&Fabric> {
        self.fabric.as_ref().map(|f| &f.0)
    }

    /// The id of fabric path `idx` towards host `dst`.
    #[inline]
    pub fn fabric_path(&self, dst: u32, idx: u32) -> PathId {
        let bits = self.fabric.as_ref().map_or(0, |f| f.1);
        FABRIC_PATH | dst << bits | idx
    }

    /// The index of fabric path `p` among its equal-cost paths.
    #[inline]
    pub fn fabric_index(&self, p: PathId) -> u32 {
        self.fabric_parts(p).map_or(0, |(_, _, idx)| idx)
    }

    /// The destination host and index of fabric path `p`.
    #[inline(always)]
    fn fabric_parts(&self, p: PathId) -> Option<(&Fabric, u32, u32)> {
        let (f, bits) = self.fabric.as_ref()?;
        let v = p & !FABRIC_PATH;
        Some((f, v >> bits, v & ((1 << bits) - 1)))
    }

    /// The link after `at`, the `hop`-th link of path `p` (None: `at` was
    /// the last).
    #[inline(always)]
    pub fn next(&self, p: PathId, hop: u16, at: LinkId) -> Option<LinkId> {
        if p & FABRIC_PATH == 0 {
            return self.path(p).get(hop as usize).copied();
        }
        let (f, dst, idx) = self.fabric_parts(p)?;
        f.next(at, dst, idx)
    }

    /// The first link of path `p`, which starts at host `from` (a host
    /// index; only a fabric path needs it).
    #[inline(always)]
    pub fn first(&self, p: PathId, from: u32) -> LinkId {
        if p & FABRIC_PATH == 0 {
            return self.path(p)[0];
        }
        self.fabric.as_ref().map_or(0, |f| f.0.uplink(from))
    }

    /// The links of path `p`, which starts at host `from`.
    pub fn links_of(&self, p: PathId, from: u32) -> Vec<LinkId> {
        if p & FABRIC_PATH == 0 {
            return self.path(p).to_vec();
        }
        self.fabric_parts(p)
            .map(|(f, dst, idx)| f.path(from, dst, idx))
            .unwrap_or_default()
    }

    /// The links of path `p`, in the order a packet crosses them.
    #[inline(always)]
    pub fn path(&self, p: PathId) -> &[LinkId] {
        let p = p as usize;
        &self.links[self.ends[p] as usize..self.ends[p + 1] as usize]
    }

    /// How many paths are stored.
    pub fn len(&self) -> usize {
        self.ends.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The paths of one sender's flows: to its receiver and back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SenderPaths {
    pub fwd: PathId,
    pub rev: PathId,
}

/// What the engine keeps of each sender's routes.
pub(super) struct Senders {
    pub paths: Vec<SenderPaths>,
    /// The (rate, propagation delay) of each link of the forward path: the
    /// line-rate FCT's input (`ideal::line_rate_fct_ns`).
    pub hops: Vec<Vec<(f64, Time)>>,
    /// The same for the reverse path (the ACKs'): `ideal::alone_ns`'s input.
    pub rev_hops: Vec<Vec<(f64, Time)>>,
    /// Base RTT: the propagation delay to the receiver and back.
    pub rtt: Vec<Time>,
}

impl Senders {
    /// Each sender's shortest path to its receiver and back, added to `routes`.
    pub fn new(topo: &Topology, routes: &mut Routes) -> Senders {
        let mut finder = RouteFinder::new(topo);
        let mut push = |a, b| routes.push(&finder.route(a, b).expect("topologies are connected"));
        let paths: Vec<SenderPaths> = (0..topo.senders.len())
            .map(|i| {
                let (s, r) = (topo.senders[i], topo.receivers[i]);
                let fwd = push(s, r);
                let rev = push(r, s);
                SenderPaths { fwd, rev }
            })
            .collect();
        let spec = |l: &LinkId| &topo.links[*l as usize];
        let hops_of = |p: PathId| -> Vec<(f64, Time)> {
            routes
                .path(p)
                .iter()
                .map(|l| (spec(l).rate_bps, spec(l).delay_ns))
                .collect()
        };
        let hops = paths.iter().map(|p| hops_of(p.fwd)).collect();
        let rev_hops = paths.iter().map(|p| hops_of(p.rev)).collect();
        let delay = |p: PathId| routes.path(p).iter().map(|l| spec(l).delay_ns).sum::<Time>();
        let rtt = paths.iter().map(|p| delay(p.fwd) + delay(p.rev)).collect();
        Senders {
            paths,
            hops,
            rev_hops,
            rtt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_looked_up_by_id_and_may_share_their_ends() {
        let mut r = Routes::default();
        assert!(r.is_empty());
        let a = r.push(&[3, 1, 4]);
        let b = r.push(&[]);
        let c = r.push(&[3, 5, 4]);
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(r.len(), 3);
        assert_eq!(r.path(a), &[3, 1, 4]);
        assert_eq!(r.path(b), &[] as &[LinkId]);
        assert_eq!(r.path(c), &[3, 5, 4]);
    }

    #[test]
    fn sender_routes_go_to_the_receiver_and_back() {
        let sc = r#"{"network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "access_bps": 100e6,
                     "bottleneck_delay_ms": 5, "access_delay_ms": 1, "buffer_pkts": 50},
                     "flows": [{"sender": 1, "size_pkts": 1}]}"#;
        let plan = crate::from_json(sc).unwrap();
        let topo = &plan.topology;
        let mut routes = Routes::default();
        let senders = Senders::new(topo, &mut routes);
        assert_eq!(senders.paths.len(), 2);
        for (i, p) in senders.paths.iter().enumerate() {
            let fwd = routes.path(p.fwd);
            let rev = routes.path(p.rev);
            assert_eq!(topo.links[fwd[0] as usize].from, topo.senders[i]);
            assert_eq!(topo.links[*fwd.last().unwrap() as usize].to, topo.receivers[i]);
            assert_eq!(topo.links[rev[0] as usize].from, topo.receivers[i]);
            assert_eq!(topo.links[*rev.last().unwrap() as usize].to, topo.senders[i]);
            for w in fwd.windows(2).chain(rev.windows(2)) {
                assert_eq!(topo.links[w[0] as usize].to, topo.links[w[1] as usize].from);
            }
            let delay = |p: &[LinkId]| p.iter().map(|&l| topo.links[l as usize].delay_ns).sum::<Time>();
            assert_eq!(senders.rtt[i], delay(fwd) + delay(rev));
            assert_eq!(senders.rtt[i], topo.base_rtt_ns(i));
            assert_eq!(senders.hops[i].len(), fwd.len());
        }
    }
}

//! The route table: every path a packet may follow, by path id. A packet
//! carries its path's id (`Packet::path`) and its position on it
//! (`Packet::hop`); a flow holds the ids of its forward and reverse paths.
//! Paths are handed out by [`Routes::push`] and nothing ties an id to a
//! pair of hosts, so any number of paths may join the same two hosts.

use crate::net::topology::Topology;
use crate::net::LinkId;
use crate::sim::Time;

/// A path's index in [`Routes`].
pub type PathId = u32;

/// Every path of a run, stored end to end: path `p` is
/// `links[ends[p]..ends[p + 1]]`. Memory is the total of the paths' lengths
/// (plus one word per path); a lookup is two loads and a slice.
#[derive(Clone, Debug)]
pub struct Routes {
    links: Vec<LinkId>,
    /// `ends[p + 1]`: where path `p` ends in `links` (`ends[0] = 0`).
    ends: Vec<u32>,
}

impl Default for Routes {
    fn default() -> Self {
        Routes {
            links: Vec::new(),
            ends: vec![0],
        }
    }
}

impl Routes {
    /// Add a path (its links in order) and return its id. A packet's hop
    /// counter is 16 bits wide, so a path is at most `u16::MAX` links long.
    pub fn push(&mut self, path: &[LinkId]) -> PathId {
        assert!(path.len() <= u16::MAX as usize, "a path of more than 65,535 links");
        self.links.extend_from_slice(path);
        self.ends.push(self.links.len() as u32);
        (self.ends.len() - 2) as PathId
    }

    /// The links of path `p`, in the order a packet crosses them.
    #[inline(always)]
    pub fn path(&self, p: PathId) -> &[LinkId] {
        let p = p as usize;
        &self.links[self.ends[p] as usize..self.ends[p + 1] as usize]
    }

    /// How many paths there are.
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
        let mut push = |a, b| routes.push(&topo.route(a, b).expect("topologies are connected"));
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

//! How a flow between two hosts picks among their equal-cost paths
//! (`network.routing` and its keys): one path for every flow (`single`), one
//! hashed path per flow and direction (`ecmp`, optionally re-hashed after a
//! pause: flowlets), or one path per packet (`spray`).

use crate::sim::{splitmix64, Time};

/// `network.routing`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every flow takes the first path (a graph: today's shortest path).
    #[default]
    Single,
    /// Each flow hashed onto one path per direction.
    Ecmp,
    /// Each packet on a path of its own.
    Spray(Spray),
}

/// `network.spray`: how a sprayed packet's path is picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spray {
    /// Uniformly at random, from a stream of the run's own.
    Random,
    /// The flow's paths in turn, from its ECMP hash's path on.
    RoundRobin,
}

/// `network.ecmp_hash`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Hash {
    /// SplitMix64 of (run seed, flow id, direction[, flowlet]): each direction
    /// hashed on its own, as switches hash the headers they see.
    #[default]
    Seeded,
    /// htsim's: path splitmix64(flow index) mod n for both directions (flow
    /// index = the flow's id, its 0-based line in a flows file read alone).
    FlowIndex,
}

/// `network.ack_path`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AckPath {
    /// ACKs pick their path as data does, on the reverse direction's paths.
    #[default]
    Hash,
    /// ACKs take the mirror of the data's path (the same switches).
    Mirror,
}

/// The routing settings of a run.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Routing {
    pub mode: Mode,
    pub hash: Hash,
    pub ack: AckPath,
    /// ECMP with flowlets: a flow whose packets pause longer than this in one
    /// direction is re-hashed there.
    pub flowlet_gap_ns: Option<Time>,
}

/// The data direction (0) or the ACKs' (1).
pub type Dir = u32;

/// Stream salt of the seeded hash, so it shares no key with other streams.
const ECMP_SALT: u64 = 0xEC3F_0000_0000_0001;

impl Routing {
    /// Whether flows need per-packet path state (spraying or flowlets).
    pub fn per_packet(&self) -> bool {
        matches!(self.mode, Mode::Spray(_)) || self.flowlet_gap_ns.is_some()
    }

    /// The path index (of `n`) of flow `flow` in direction `dir`, its
    /// `flowlet`-th flowlet there (0 without flowlets).
    pub fn hash(&self, seed: u64, flow: u32, dir: Dir, flowlet: u32, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        let h = match self.hash {
            Hash::FlowIndex => splitmix64(flow as u64),
            Hash::Seeded => {
                let key = flow as u64 | (dir as u64) << 32 | (flowlet as u64) << 33;
                splitmix64(splitmix64(seed ^ ECMP_SALT) ^ splitmix64(key))
            }
        };
        (h % n as u64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// htsim's hash: splitmix64 of the flow index, written out from its
    /// definition (Steele, Lea & Flood 2014), modulo the number of paths.
    #[test]
    fn flow_index_hash_is_splitmix64_mod_n() {
        let r = Routing {
            mode: Mode::Ecmp,
            hash: Hash::FlowIndex,
            ..Default::default()
        };
        let sm = |x: u64| {
            let mut z = x.wrapping_add(0x9E3779B97F4A7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            z ^ (z >> 31)
        };
        for i in 0..100u32 {
            assert_eq!(r.hash(5, i, 0, 0, 16) as u64, sm(i as u64) % 16);
            assert_eq!(r.hash(5, i, 1, 0, 16), r.hash(9, i, 0, 0, 16), "no seed, no direction");
        }
        // splitmix64(0) is a published test value of the generator.
        assert_eq!(sm(0), 0xE220A8397B1DCDAF);
    }
}

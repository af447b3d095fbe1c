//! Workloads: flow-size distributions and flow arrival processes.

pub mod sizes;

pub use sizes::SizeDist;

use crate::sim::{Rng, Time};
use rand::Rng as _;

/// How a traffic generator creates flows.
#[derive(Clone, Debug)]
pub enum Arrivals {
    /// Poisson arrivals with exponential inter-arrival times of mean `mean_gap_ns`.
    Poisson { mean_gap_ns: f64 },
    /// One flow per sender at a time: a new one starts `think_ns` after the
    /// previous one is fully acknowledged.
    ClosedLoop { think_ns: Time },
    /// One flow per sender that never ends.
    LongLived,
}

/// A traffic generator, resolved from the scenario.
#[derive(Clone, Debug)]
pub struct Generator {
    pub arrivals: Arrivals,
    pub sizes: SizeDist,
    /// Senders the generator draws from (Poisson: uniformly at random).
    pub senders: Vec<u32>,
    pub start_ns: Time,
    /// Stop creating flows at this time (None: no limit besides `count`).
    pub stop_ns: Option<Time>,
    /// Flows to create (Poisson: in total; closed loop: per sender).
    pub count: Option<u64>,
}

/// Exponential variate with mean `mean`, by inversion (libm's `log`, identical
/// on every platform).
pub fn exponential(rng: &mut Rng, mean: f64) -> f64 {
    // 1 - U is in (0, 1], so the logarithm is finite.
    -mean * libm::log(1.0 - rng.random::<f64>())
}

//! Workloads: flow-size distributions, flow arrival processes, and the
//! generators that turn them into flows during a run.

pub mod arrivals;
pub mod builtin;
pub mod empirical;
pub mod flows_file;
pub mod matrix;
pub mod mixture;
pub mod open_loop;
pub mod sizes;
pub mod sources;

pub use arrivals::{Arrivals, Generator, Measure, TrafficCfg};
pub use sizes::SizeDist;
pub use sources::Sources;

use crate::sim::Rng;
use rand::Rng as _;

/// Exponential variate with mean `mean`, by inversion (libm's `log`, identical
/// on every platform).
pub fn exponential(rng: &mut Rng, mean: f64) -> f64 {
    // 1 - U is in (0, 1], so the logarithm is finite.
    -mean * libm::log(1.0 - rng.random::<f64>())
}

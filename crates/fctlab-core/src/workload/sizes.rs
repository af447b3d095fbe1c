//! Flow-size distributions, sampled by inversion from one uniform draw each.

use crate::sim::Rng;
use rand::Rng as _;

/// A flow-size distribution, in packets (each `mss_bytes` of payload).
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Pareto with the given mean and shape (> 1): scale x_m = mean (shape-1)/shape,
    /// X = x_m / U^(1/shape); sizes are rounded up to whole packets.
    Pareto { mean_pkts: f64, shape: f64 },
    /// Every flow the same size.
    Fixed { pkts: u64 },
    /// Uniform over the integers [min_pkts, max_pkts].
    Uniform { min_pkts: u64, max_pkts: u64 },
    /// Exponential with the given mean, rounded up to whole packets.
    Exponential { mean_pkts: f64 },
}

/// The registry of size distributions: (name, parameters, description).
pub const DISTRIBUTIONS: &[(&str, &str, &str)] = &[
    ("pareto", "mean_pkts (or mean_bytes), shape > 1", "Pareto by mean and shape, rounded up to whole packets"),
    ("fixed", "pkts (or bytes)", "every flow the same size"),
    ("uniform", "min_pkts, max_pkts", "uniform over whole packets in [min, max]"),
    ("exponential", "mean_pkts (or mean_bytes)", "exponential by mean, rounded up to whole packets"),
];

impl SizeDist {
    /// Draw a size in packets (at least 1).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match *self {
            SizeDist::Pareto { mean_pkts, shape } => {
                let xm = mean_pkts * (shape - 1.0) / shape;
                let u = 1.0 - rng.random::<f64>(); // (0, 1]
                let x = xm / libm::pow(u, 1.0 / shape);
                (x.ceil() as u64).max(1)
            }
            SizeDist::Fixed { pkts } => pkts,
            SizeDist::Uniform { min_pkts, max_pkts } => rng.random_range(min_pkts..=max_pkts),
            SizeDist::Exponential { mean_pkts } => {
                let x = super::exponential(rng, mean_pkts);
                (x.ceil() as u64).max(1)
            }
        }
    }

    /// The nominal mean in packets (before rounding up), used to set the
    /// arrival rate for a target load.
    pub fn mean_pkts(&self) -> f64 {
        match *self {
            SizeDist::Pareto { mean_pkts, .. } | SizeDist::Exponential { mean_pkts } => mean_pkts,
            SizeDist::Fixed { pkts } => pkts as f64,
            SizeDist::Uniform { min_pkts, max_pkts } => (min_pkts + max_pkts) as f64 / 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::stream_rng;

    #[test]
    fn pareto_sample_mean_and_tail() {
        // Shape 2.5 has finite variance, so the sample mean converges quickly.
        let d = SizeDist::Pareto { mean_pkts: 30.0, shape: 2.5 };
        let mut r = stream_rng(1, 0);
        let n = 400_000;
        let xs: Vec<u64> = (0..n).map(|_| d.sample(&mut r)).collect();
        // Rounding up adds about half a packet to the mean of the continuous law.
        let mean = xs.iter().sum::<u64>() as f64 / n as f64;
        assert!((mean - 30.5).abs() < 0.5, "mean {mean}");
        // P(X > x) = (x_m / x)^shape with x_m = 18: P(X > 36) = 2^-2.5 = 0.1768.
        let tail = xs.iter().filter(|&&x| x > 36).count() as f64 / n as f64;
        assert!((tail - 0.1768).abs() < 0.004, "tail {tail}");
    }

    #[test]
    fn uniform_and_fixed() {
        let mut r = stream_rng(1, 0);
        let d = SizeDist::Uniform { min_pkts: 3, max_pkts: 5 };
        let xs: Vec<u64> = (0..1000).map(|_| d.sample(&mut r)).collect();
        assert!(xs.iter().all(|&x| (3..=5).contains(&x)));
        assert!((3..=5).all(|v| xs.contains(&v)));
        assert_eq!(SizeDist::Fixed { pkts: 7 }.sample(&mut r), 7);
    }
}

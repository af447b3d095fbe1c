//! Fluid simulators against queueing theory: Poisson arrivals on one link, the
//! fluid PS run against the M/G/1-PS formula and the fluid SRPT run against the
//! Schrage–Miller formula.

use fctlab_core::ideal::{fluid_ps, fluid_srpt, srpt_sojourn_many_ns, SizeLaw};
use fctlab_core::sim::stream_rng;
use rand::Rng as _;

const CAPACITY_BPS: f64 = 100e6;
const MEAN_BYTES: f64 = 12_500.0; // 1 ms of service on average

#[derive(Clone, Copy)]
enum Law {
    Exponential,
    Pareto(f64),
    /// Equally likely 2500, 12 500 or 22 500 B (mean 12 500 B): atoms, so
    /// SRPT ties happen and the atom-aware Schrage–Miller form is exercised.
    ThreeSizes,
}

const THREE_SIZES: [f64; 3] = [2_500.0, 12_500.0, 22_500.0];

/// Poisson arrivals at load `rho` with continuous sizes of mean `MEAN_BYTES`,
/// drawn by inversion: (start_ns, size_bytes).
fn workload(law: Law, rho: f64, n: usize, seed: u64) -> (Vec<u64>, Vec<f64>) {
    let mut rng = stream_rng(seed, 0);
    let mean_gap_ns = 8.0 * MEAN_BYTES / CAPACITY_BPS * 1e9 / rho;
    let mut t = 0.0f64;
    let mut starts = Vec::with_capacity(n);
    let mut sizes = Vec::with_capacity(n);
    for _ in 0..n {
        t += -mean_gap_ns * (1.0 - rng.random::<f64>()).ln();
        starts.push(t.round() as u64);
        let u = 1.0 - rng.random::<f64>(); // (0, 1]
        sizes.push(match law {
            Law::Exponential => -MEAN_BYTES * u.ln(),
            Law::Pareto(a) => MEAN_BYTES * (a - 1.0) / a / u.powf(1.0 / a),
            Law::ThreeSizes => THREE_SIZES[((u * 3.0).ceil() as usize).clamp(1, 3) - 1],
        });
    }
    (starts, sizes)
}

/// Service time of `bytes` alone on the link, ns.
fn service_ns(bytes: f64) -> f64 {
    8.0 * bytes / CAPACITY_BPS * 1e9
}

/// Batch-means estimate of the mean of `values` (in arrival order) and its
/// standard error: the values are correlated (flows that overlap share the
/// link), so the i.i.d. formula would understate the error; the means of 25
/// contiguous batches, each thousands of flows long (much longer than a busy
/// period at these loads), are close to independent.
fn batch_mean(values: &[f64]) -> (f64, f64) {
    let b = 25;
    let len = values.len() / b;
    let means: Vec<f64> = (0..b)
        .map(|k| values[k * len..(k + 1) * len].iter().sum::<f64>() / len as f64)
        .collect();
    let m = means.iter().sum::<f64>() / b as f64;
    let var = means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (b - 1) as f64;
    (m, (var / b as f64).sqrt())
}

/// The flows to judge, in arrival order: the first and last 5% are dropped (the
/// run starts empty and, after the last arrival, drains with no newcomers).
fn steady_state(n: usize) -> std::ops::Range<usize> {
    n / 20..n - n / 20
}

/// Size terciles of the judged flows: [lo, hi) bounds in bytes.
fn terciles(sizes: &[f64]) -> [(f64, f64); 3] {
    let mut s = sizes.to_vec();
    s.sort_by(f64::total_cmp);
    let (a, b) = (s[s.len() / 3], s[2 * s.len() / 3]);
    [(0.0, a), (a, b), (b, f64::INFINITY)]
}

/// Fluid PS on Poisson arrivals: in every size tercile the mean of T / (x / C)
/// must be 1 / (1 − ρ), the M/G/1-PS conditional slowdown (E[T | x] =
/// x / (C (1 − ρ)) for every x, Kleinrock 1976 §4.4).
///
/// Tolerance: the statistic's standard error is estimated by batch means (see
/// `batch_mean`). For the smallest flows T / (x/C) ≈ 1 + N, N the number in
/// system at arrival, geometric with standard deviation √ρ / (1 − ρ); with
/// n / 3 ≈ 10⁵ flows per tercile the i.i.d. error would be ≈ 0.3% of the
/// target at ρ = 0.8, and correlation between overlapping flows inflates it a
/// few times. We require (a) the error estimate itself below 3% of the target,
/// so the check has power to see a 10% bias, and (b) the deviation within 5
/// standard errors (t with 24 degrees of freedom: a false alarm has probability
/// below 10⁻⁴, and the seeds are fixed).
fn check_ps(law: Law, rho: f64, seed: u64) {
    let n = 300_000;
    let (starts, sizes) = workload(law, rho, n, seed);
    let finish = fluid_ps(&starts, &sizes, CAPACITY_BPS).unwrap();
    let keep = steady_state(n);
    let target = 1.0 / (1.0 - rho);
    for (lo, hi) in terciles(&sizes[keep.clone()]) {
        let slowdown: Vec<f64> = keep
            .clone()
            .filter(|&i| sizes[i] >= lo && sizes[i] < hi)
            .map(|i| (finish[i] - starts[i]) as f64 / service_ns(sizes[i]))
            .collect();
        let (m, se) = batch_mean(&slowdown);
        eprintln!(
            "PS rho={rho} bucket [{lo:.0},{hi:.0}) mean T/x = {m:.4} target {target:.4} se {se:.4} dev {:.2} se",
            (m - target) / se
        );
        assert!(
            se < 0.03 * target,
            "standard error {se} too large to judge against {target}"
        );
        assert!(
            (m - target).abs() < 5.0 * se,
            "mean slowdown {m} vs 1/(1-rho) = {target} (se {se})"
        );
    }
}

#[test]
fn fluid_ps_matches_mg1_ps_exponential() {
    check_ps(Law::Exponential, 0.5, 11);
    check_ps(Law::Exponential, 0.8, 12);
}

#[test]
fn fluid_ps_matches_mg1_ps_pareto() {
    check_ps(Law::Pareto(2.2), 0.5, 13);
    check_ps(Law::Pareto(2.2), 0.8, 14);
}

/// Fluid SRPT on Poisson arrivals against the Schrage–Miller conditional mean
/// E[T(x)] (Schrage & Miller, Operations Research 14(4), 1966): in every size tercile the mean of T_i / E[T(x_i)]
/// must be 1. Same tolerance argument as `check_ps`: batch-means standard
/// error below 3% and the deviation within 5 of them.
fn check_srpt(law: Law, rho: f64, seed: u64) {
    let n = 300_000;
    let (starts, sizes) = workload(law, rho, n, seed);
    let finish = fluid_srpt(&starts, &sizes, CAPACITY_BPS).unwrap();
    let size_law = match law {
        Law::Exponential => SizeLaw::exponential(MEAN_BYTES).unwrap(),
        Law::Pareto(a) => SizeLaw::pareto(MEAN_BYTES, a).unwrap(),
        Law::ThreeSizes => SizeLaw::empirical(&THREE_SIZES).unwrap(),
    };
    let expected = srpt_sojourn_many_ns(&sizes, &size_law, CAPACITY_BPS, rho).unwrap();
    let keep = steady_state(n);
    for (lo, hi) in terciles(&sizes[keep.clone()]) {
        let ratio: Vec<f64> = keep
            .clone()
            .filter(|&i| sizes[i] >= lo && sizes[i] < hi)
            .map(|i| (finish[i] - starts[i]) as f64 / expected[i])
            .collect();
        let (m, se) = batch_mean(&ratio);
        eprintln!(
            "SRPT rho={rho} bucket [{lo:.0},{hi:.0}) mean T/E[T(x)] = {m:.4} se {se:.4} dev {:.2} se",
            (m - 1.0) / se
        );
        assert!(se < 0.03, "standard error {se} too large to judge");
        assert!((m - 1.0).abs() < 5.0 * se, "mean T / E[T(x)] = {m} (se {se})");
    }
}

#[test]
fn fluid_srpt_matches_schrage_miller() {
    check_srpt(Law::Exponential, 0.5, 21);
    check_srpt(Law::Exponential, 0.8, 22);
    check_srpt(Law::Pareto(2.2), 0.5, 23);
    check_srpt(Law::Pareto(2.2), 0.8, 24);
    check_srpt(Law::ThreeSizes, 0.8, 25);
}

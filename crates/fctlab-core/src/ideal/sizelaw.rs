//! Flow-size laws for the analytic baselines, in bytes and continuous (the
//! workload generator's [`crate::workload::SizeDist`] rounds up to whole packets;
//! to match it exactly, pass the generated sizes as an [`SizeLaw::empirical`]).
//!
//! Each law gives what the Schrage–Miller SRPT formula needs: F(x), the partial
//! moments ∫_[0,x] t dF and ∫_[0,x] t² dF (closed at x, so an atom at x counts),
//! their left limits, and the residence integral ∫₀ˣ dt / (1 − λb ∫_[0,t] y dF).

use super::error::{bad, positive, IdealResult};

/// A flow-size distribution in bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeLaw {
    /// Pareto by mean and shape α > 1: scale x_m = mean (α − 1) / α,
    /// F(x) = 1 − (x_m / x)^α for x ≥ x_m (as the workload's `pareto`).
    Pareto { mean_bytes: f64, shape: f64 },
    /// Exponential by mean m: F(x) = 1 − e^(−x/m).
    Exponential { mean_bytes: f64 },
    /// Every flow `bytes` long.
    Fixed { bytes: f64 },
    /// Uniform on [min_bytes, max_bytes], min < max.
    Uniform { min_bytes: f64, max_bytes: f64 },
    /// The empirical law of a sample: an atom of mass 1/n at each value.
    Empirical(Empirical),
}

/// A sorted sample with prefix sums of x and x², so every partial moment is a
/// binary search.
#[derive(Clone, Debug, PartialEq)]
pub struct Empirical {
    sorted: Vec<f64>,
    /// cum1[k] = Σ_{i<k} sorted[i]; cum2 likewise for squares.
    cum1: Vec<f64>,
    cum2: Vec<f64>,
}

impl Empirical {
    fn n(&self) -> f64 {
        self.sorted.len() as f64
    }
    /// Number of samples ≤ x.
    fn count_le(&self, x: f64) -> usize {
        self.sorted.partition_point(|&v| v <= x)
    }
    /// Number of samples < x.
    fn count_lt(&self, x: f64) -> usize {
        self.sorted.partition_point(|&v| v < x)
    }
    /// The sorted sample.
    pub fn values(&self) -> &[f64] {
        &self.sorted
    }
}

impl SizeLaw {
    /// Pareto by mean (bytes) and shape, validated (shape > 1 for a finite mean).
    pub fn pareto(mean_bytes: f64, shape: f64) -> IdealResult<Self> {
        positive("mean_bytes", mean_bytes)?;
        if !(shape.is_finite() && shape > 1.0) {
            return bad("shape", format!("must be > 1 (a finite mean), got {shape}"));
        }
        Ok(SizeLaw::Pareto { mean_bytes, shape })
    }

    /// Exponential by mean (bytes), validated.
    pub fn exponential(mean_bytes: f64) -> IdealResult<Self> {
        positive("mean_bytes", mean_bytes)?;
        Ok(SizeLaw::Exponential { mean_bytes })
    }

    /// One fixed size (bytes), validated.
    pub fn fixed(bytes: f64) -> IdealResult<Self> {
        positive("bytes", bytes)?;
        Ok(SizeLaw::Fixed { bytes })
    }

    /// Uniform on [min_bytes, max_bytes]; min = max is the fixed law.
    pub fn uniform(min_bytes: f64, max_bytes: f64) -> IdealResult<Self> {
        positive("min_bytes", min_bytes)?;
        positive("max_bytes", max_bytes)?;
        if max_bytes < min_bytes {
            return bad(
                "max_bytes",
                format!("must be >= min_bytes = {min_bytes}, got {max_bytes}"),
            );
        }
        if max_bytes == min_bytes {
            return Ok(SizeLaw::Fixed { bytes: min_bytes });
        }
        Ok(SizeLaw::Uniform { min_bytes, max_bytes })
    }

    /// The empirical law of `samples_bytes` (any order, at least one, all > 0).
    pub fn empirical(samples_bytes: &[f64]) -> IdealResult<Self> {
        if samples_bytes.is_empty() {
            return bad("samples_bytes", "must hold at least one size");
        }
        for (i, &v) in samples_bytes.iter().enumerate() {
            positive(&format!("samples_bytes[{i}]"), v)?;
        }
        let mut sorted = samples_bytes.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mut cum1 = Vec::with_capacity(sorted.len() + 1);
        let mut cum2 = Vec::with_capacity(sorted.len() + 1);
        let (mut s1, mut s2) = (0.0, 0.0);
        cum1.push(0.0);
        cum2.push(0.0);
        for &v in &sorted {
            s1 += v;
            s2 += v * v;
            cum1.push(s1);
            cum2.push(s2);
        }
        Ok(SizeLaw::Empirical(Empirical { sorted, cum1, cum2 }))
    }

    /// E[X] in bytes.
    pub fn mean_bytes(&self) -> f64 {
        match self {
            SizeLaw::Pareto { mean_bytes, .. } | SizeLaw::Exponential { mean_bytes } => *mean_bytes,
            SizeLaw::Fixed { bytes } => *bytes,
            SizeLaw::Uniform { min_bytes, max_bytes } => 0.5 * (min_bytes + max_bytes),
            SizeLaw::Empirical(e) => e.cum1[e.sorted.len()] / e.n(),
        }
    }

    /// Pareto scale x_m = mean (α − 1) / α.
    fn pareto_scale(mean: f64, shape: f64) -> f64 {
        mean * (shape - 1.0) / shape
    }

    /// F(x) = P(X ≤ x).
    pub fn cdf(&self, x: f64) -> f64 {
        match self {
            SizeLaw::Pareto { mean_bytes, shape } => {
                let xm = Self::pareto_scale(*mean_bytes, *shape);
                if x <= xm {
                    0.0
                } else {
                    1.0 - (xm / x).powf(*shape)
                }
            }
            SizeLaw::Exponential { mean_bytes } => -(-x.max(0.0) / mean_bytes).exp_m1(),
            SizeLaw::Fixed { bytes } => f64::from(u8::from(x >= *bytes)),
            SizeLaw::Uniform {
                min_bytes: a,
                max_bytes: b,
            } => ((x - a) / (b - a)).clamp(0.0, 1.0),
            SizeLaw::Empirical(e) => e.count_le(x) as f64 / e.n(),
        }
    }

    /// ∫_[0,x] t dF(t), bytes.
    pub fn partial_mean(&self, x: f64) -> f64 {
        match self {
            SizeLaw::Pareto { mean_bytes, shape } => {
                // α x_m / (α − 1) · (1 − (x_m/x)^(α−1)) for x > x_m.
                let xm = Self::pareto_scale(*mean_bytes, *shape);
                if x <= xm {
                    return 0.0;
                }
                let a = *shape;
                a * xm / (a - 1.0) * -((a - 1.0) * (xm / x).ln()).exp_m1()
            }
            SizeLaw::Exponential { mean_bytes: m } => m * exp_partial1(x.max(0.0) / m),
            SizeLaw::Fixed { bytes } => {
                if x >= *bytes {
                    *bytes
                } else {
                    0.0
                }
            }
            SizeLaw::Uniform {
                min_bytes: a,
                max_bytes: b,
            } => {
                let y = x.clamp(*a, *b);
                (y * y - a * a) / (2.0 * (b - a))
            }
            SizeLaw::Empirical(e) => e.cum1[e.count_le(x)] / e.n(),
        }
    }

    /// ∫_[0,x) t dF(t): equal to [`Self::partial_mean`] except at an atom.
    pub fn partial_mean_left(&self, x: f64) -> f64 {
        match self {
            SizeLaw::Fixed { bytes } => {
                if x > *bytes {
                    *bytes
                } else {
                    0.0
                }
            }
            SizeLaw::Empirical(e) => e.cum1[e.count_lt(x)] / e.n(),
            _ => self.partial_mean(x),
        }
    }

    /// ∫_[0,x] t² dF(t), bytes².
    pub fn partial_second(&self, x: f64) -> f64 {
        match self {
            SizeLaw::Pareto { mean_bytes, shape } => {
                // α x_m² ∫ (integrand) = α x_m² (1 − r^(α−2)) / (α − 2), r = x_m / x;
                // the limit α → 2 is α x_m² ln(x / x_m).
                let xm = Self::pareto_scale(*mean_bytes, *shape);
                if x <= xm {
                    return 0.0;
                }
                let (a, ln_r) = (*shape, (xm / x).ln());
                let e = a - 2.0;
                let g = if e.abs() < 1e-9 {
                    -ln_r
                } else {
                    -(e * ln_r).exp_m1() / e
                };
                a * xm * xm * g
            }
            SizeLaw::Exponential { mean_bytes: m } => m * m * exp_partial2(x.max(0.0) / m),
            SizeLaw::Fixed { bytes } => {
                if x >= *bytes {
                    bytes * bytes
                } else {
                    0.0
                }
            }
            SizeLaw::Uniform {
                min_bytes: a,
                max_bytes: b,
            } => {
                let y = x.clamp(*a, *b);
                (y * y * y - a * a * a) / (3.0 * (b - a))
            }
            SizeLaw::Empirical(e) => e.cum2[e.count_le(x)] / e.n(),
        }
    }

    /// R(x) = ∫₀ˣ dt / (1 − λb · partial_mean(t)) for every x of `xs_sorted`
    /// (ascending, ≥ 0), with `lam_b` = λ times seconds per byte, so that
    /// λb · partial_mean(t) is the load ρ(t) of sizes ≤ t. Exact for the
    /// piecewise-constant ρ of the fixed and empirical laws; adaptive Simpson on
    /// a geometric grid for the continuous ones (relative error ~1e-10).
    pub fn residence_integrals(&self, xs_sorted: &[f64], lam_b: f64) -> Vec<f64> {
        match self {
            SizeLaw::Fixed { bytes: s } => {
                let rho = lam_b * s;
                xs_sorted
                    .iter()
                    .map(|&x| if x <= *s { x } else { s + (x - s) / (1.0 - rho) })
                    .collect()
            }
            SizeLaw::Empirical(e) => empirical_residence(e, xs_sorted, lam_b),
            _ => {
                let mut out = Vec::with_capacity(xs_sorted.len());
                let (mut at, mut acc) = (0.0, 0.0);
                for &x in xs_sorted {
                    acc += self.residence_between(at, x, lam_b);
                    at = x;
                    out.push(acc);
                }
                out
            }
        }
    }

    /// ∫ₐᵇ dt / (1 − ρ(t)) for a continuous law, a ≤ b.
    fn residence_between(&self, a: f64, b: f64, lam_b: f64) -> f64 {
        if b <= a {
            return 0.0;
        }
        // Below `lo` no size is smaller, so ρ = 0; above `hi` ρ is the full load.
        let (lo, hi, scale) = match *self {
            SizeLaw::Pareto { mean_bytes, shape } => {
                let xm = Self::pareto_scale(mean_bytes, shape);
                (xm, f64::INFINITY, xm)
            }
            SizeLaw::Exponential { mean_bytes } => (0.0, f64::INFINITY, mean_bytes),
            SizeLaw::Uniform { min_bytes, max_bytes } => (min_bytes, max_bytes, max_bytes - min_bytes),
            _ => unreachable!("residence_between is only called for continuous laws"),
        };
        let mut total = 0.0;
        if a < lo {
            total += b.min(lo) - a;
        }
        if b > hi {
            let rho_all = lam_b * self.mean_bytes();
            total += (b - a.max(hi)) / (1.0 - rho_all);
        }
        let (ma, mb) = (a.max(lo), b.min(hi));
        if mb > ma {
            let f = |t: f64| 1.0 / (1.0 - lam_b * self.partial_mean(t));
            // Break points lo + scale·2^k (k ≥ −40) keep each Simpson piece within
            // one octave of the law's own scale, where ρ(t) is smooth.
            let mut left = ma;
            let mut k = -40i32;
            while left < mb {
                let mut edge = lo + scale * 2f64.powi(k);
                while edge <= left {
                    k += 1;
                    edge = lo + scale * 2f64.powi(k);
                }
                let right = edge.min(mb);
                total += adaptive_simpson(&f, left, right);
                left = right;
            }
        }
        total
    }
}

/// ∫₀ᵘ t e^(−t) dt = 1 − e^(−u)(1 + u), by its series where that cancels badly.
fn exp_partial1(u: f64) -> f64 {
    if u < 1e-2 {
        u * u * (0.5 - u * (1.0 / 3.0 - u * (1.0 / 8.0 - u / 30.0)))
    } else {
        -(-u).exp_m1() - u * (-u).exp()
    }
}

/// ∫₀ᵘ t² e^(−t) dt = 2 − e^(−u)(2 + 2u + u²), by its series where that cancels.
fn exp_partial2(u: f64) -> f64 {
    if u < 1e-2 {
        u * u * u * (1.0 / 3.0 - u * (0.25 - u * (0.1 - u / 36.0)))
    } else {
        2.0 * -(-u).exp_m1() - (-u).exp() * u * (2.0 + u)
    }
}

/// R(x) for an empirical law: ρ(t) is constant between sample values, so the
/// integral is a sum of lengths over (1 − ρ); one pass over the sorted sample
/// and the sorted queries.
fn empirical_residence(e: &Empirical, xs_sorted: &[f64], lam_b: f64) -> Vec<f64> {
    let n = e.n();
    let mut out = Vec::with_capacity(xs_sorted.len());
    // `acc` = R(prev), `prev` = the last sample value passed, `k` = samples < next.
    let (mut acc, mut prev, mut k) = (0.0, 0.0, 0usize);
    for &x in xs_sorted {
        while k < e.sorted.len() && e.sorted[k] < x {
            // On (prev, sorted[k]) the samples ≤ t are the first k.
            acc += (e.sorted[k] - prev) / (1.0 - lam_b * e.cum1[k] / n);
            prev = e.sorted[k];
            k += 1;
        }
        out.push(acc + (x - prev).max(0.0) / (1.0 - lam_b * e.cum1[k] / n));
    }
    out
}

/// Adaptive Simpson quadrature of a smooth function on [a, b] (Lyness 1969),
/// relative tolerance 1e-12 of the interval's mean value, depth at most 40.
fn adaptive_simpson(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let (fa, fb) = (f(a), f(b));
    let m = 0.5 * (a + b);
    let fm = f(m);
    let whole = (b - a) / 6.0 * (fa + 4.0 * fm + fb);
    let tol = 1e-12 * whole.abs().max(f64::MIN_POSITIVE);
    simpson_step(f, a, b, fa, fm, fb, whole, tol, 40)
}

#[allow(clippy::too_many_arguments)]
fn simpson_step(
    f: &impl Fn(f64) -> f64,
    a: f64,
    b: f64,
    fa: f64,
    fm: f64,
    fb: f64,
    whole: f64,
    tol: f64,
    depth: u32,
) -> f64 {
    let m = 0.5 * (a + b);
    let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
    let (flm, frm) = (f(lm), f(rm));
    let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
    let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
    let delta = left + right - whole;
    if depth == 0 || delta.abs() <= 15.0 * tol {
        return left + right + delta / 15.0;
    }
    simpson_step(f, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1)
        + simpson_step(f, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_moments_reach_the_full_moments() {
        // E[X] = m and E[X²] = 2m² (exponential); α x_m² / (α − 2) (Pareto, α > 2);
        // (a² + ab + b²) / 3 (uniform).
        let e = SizeLaw::exponential(3.0).unwrap();
        assert!((e.partial_mean(1e4) - 3.0).abs() < 1e-12);
        assert!((e.partial_second(1e4) - 18.0).abs() < 1e-10);
        let p = SizeLaw::pareto(30.0, 2.5).unwrap(); // x_m = 18
        assert!((p.partial_mean(1e12) - 30.0).abs() < 1e-6);
        assert!((p.partial_second(1e300) - 2.5 * 18.0 * 18.0 / 0.5).abs() < 1e-6);
        let u = SizeLaw::uniform(2.0, 4.0).unwrap();
        assert!((u.partial_mean(5.0) - 3.0).abs() < 1e-12);
        assert!((u.partial_second(5.0) - 28.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn series_match_closed_forms_at_the_switch() {
        let u: f64 = 1e-2;
        let closed1 = -(-u).exp_m1() - u * (-u).exp();
        let closed2 = 2.0 * -(-u).exp_m1() - (-u).exp() * u * (2.0 + u);
        assert!((exp_partial1(u * (1.0 - 1e-12)) / closed1 - 1.0).abs() < 1e-9);
        assert!((exp_partial2(u * (1.0 - 1e-12)) / closed2 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn empirical_atoms_and_left_limits() {
        let l = SizeLaw::empirical(&[3.0, 1.0, 3.0, 5.0]).unwrap();
        assert_eq!(l.cdf(3.0), 0.75);
        assert_eq!(l.partial_mean(3.0), 7.0 / 4.0);
        assert_eq!(l.partial_mean_left(3.0), 1.0 / 4.0);
        assert_eq!(l.partial_second(3.0), 19.0 / 4.0);
        assert_eq!(l.mean_bytes(), 3.0);
        // R(4) with λb = 0.1: (0,1): 1; (1,3): 2/(1 − 0.025); (3,4): 1/(1 − 0.175).
        let r = l.residence_integrals(&[0.5, 4.0], 0.1);
        assert!((r[0] - 0.5).abs() < 1e-15);
        assert!((r[1] - (1.0 + 2.0 / 0.975 + 1.0 / 0.825)).abs() < 1e-12);
    }

    #[test]
    fn simpson_integrates_the_uniform_residence_in_closed_form() {
        // Uniform on [0+, 1] as [1e-300, 1] ~ [0, 1]: ρ(t) = λb t²/2, and
        // ∫₀¹ dt / (1 − c t²) = atanh(√c) / √c with c = λb / 2.
        let l = SizeLaw::uniform(1e-300, 1.0).unwrap();
        let lam_b = 1.2;
        let c: f64 = lam_b / 2.0;
        let r = l.residence_integrals(&[1.0], lam_b);
        assert!((r[0] - c.sqrt().atanh() / c.sqrt()).abs() < 1e-10, "{}", r[0]);
    }

    #[test]
    fn refuses_bad_laws() {
        assert_eq!(SizeLaw::pareto(10.0, 1.0).unwrap_err().arg, "shape");
        assert_eq!(SizeLaw::uniform(5.0, 4.0).unwrap_err().arg, "max_bytes");
        assert_eq!(SizeLaw::empirical(&[]).unwrap_err().arg, "samples_bytes");
        assert_eq!(SizeLaw::empirical(&[1.0, -2.0]).unwrap_err().arg, "samples_bytes[1]");
        assert_eq!(SizeLaw::exponential(f64::INFINITY).unwrap_err().arg, "mean_bytes");
    }
}

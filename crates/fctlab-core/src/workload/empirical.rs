//! `empirical`: a size law given by data, in one of three forms:
//!
//! - `values` (with optional `weights`, equal by default): each value drawn
//!   with probability weight / total weight;
//! - `cdf = [[size, P(X <= size)], ...]`: rows of a cumulative distribution;
//! - `cdf_file = "path"`: the same rows in a text file, one per line, either
//!   `size cumulative` or ns-2's three columns `size count cumulative` (the
//!   middle column is ignored), as ns-2's `RandomVariable/Empirical` reads
//!   them (`tools/ranvar.cc`, `loadCDF`) and as the usual web-search and
//!   data-mining workload files (`CDF_search.tcl`, `CDF_dctcp.tcl`, `CDF.tcl`)
//!   are written. Blank lines and lines starting with `#` are skipped. A
//!   relative path is taken from the current directory.
//!
//! Sizes are in `unit = "pkts"` (default; those files count packets) or
//! `"bytes"` (payload bytes, `mss_bytes` to a packet). Every draw is rounded
//! up to whole packets.
//!
//! A CDF is read as ns-2's `EmpiricalRandomVariable::value()` reads it: one
//! uniform u; the first row with cumulative >= u is chosen; the first row is
//! an atom (probability its cumulative). With `interpolate = true` (the
//! default for a CDF: the pFabric simulation scripts, Alizadeh et al.,
//! SIGCOMM 2013, load those files with `interpolation_ 2`), a u between rows
//! i-1 and i gives the size linearly interpolated between theirs, rounded up
//! (`INTER_INTEGRAL`); with `interpolate = false` it gives row i's size (a
//! step CDF: row i has probability cumulative_i - cumulative_{i-1}).
//!
//! The mean is computed exactly from the rows (a linear piece rounded up has
//! the mean of the ceiling of a uniform variable, summed unit by unit), so
//! the Poisson rate for a load is exact.

use super::sizes::SizeEntry;
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, MAX_FLOW_PKTS};
use crate::sim::Rng;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// A size law from data, normalised to sizes in packets (real numbers before
/// rounding up) with cumulative bounds ending at exactly 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Empirical {
    /// Cumulative probability of each row (the last is 1).
    cum: Vec<f64>,
    /// Each row's size in packets, before rounding up.
    x: Vec<f64>,
    /// Each row's size rounded up to whole packets (at least 1).
    pkts: Vec<u64>,
    interpolate: bool,
    mean: f64,
}

/// The integral of ceil(x) over (a, b], 0 <= a <= b.
fn ceil_integral(a: f64, b: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    let m = a.floor();
    // On (a, m + 1] the ceiling is m + 1.
    if b <= m + 1.0 {
        return (b - a) * (m + 1.0);
    }
    let k = b.ceil();
    // Whole unit intervals (j - 1, j] for j = m + 2 .. k - 1, each worth j.
    let (lo, hi) = (m + 2.0, k - 1.0);
    let whole = if hi >= lo {
        (lo + hi) * (hi - lo + 1.0) / 2.0
    } else {
        0.0
    };
    (m + 1.0 - a) * (m + 1.0) + whole + (b - (k - 1.0)) * k
}

impl Empirical {
    /// A step or interpolated CDF from rows (size in packets, cumulative
    /// probability); checked by the caller.
    fn from_rows(x: Vec<f64>, mut cum: Vec<f64>, interpolate: bool) -> Empirical {
        if let Some(last) = cum.last_mut() {
            *last = 1.0;
        }
        let pkts: Vec<u64> = x.iter().map(|&v| (v.ceil() as u64).max(1)).collect();
        let mut mean = cum[0] * pkts[0] as f64;
        for i in 1..x.len() {
            let p = cum[i] - cum[i - 1];
            if p <= 0.0 {
                continue;
            }
            let m = if interpolate && x[i] > x[i - 1] {
                ceil_integral(x[i - 1], x[i]) / (x[i] - x[i - 1])
            } else {
                pkts[i] as f64
            };
            mean += p * m;
        }
        Empirical {
            cum,
            x,
            pkts,
            interpolate,
            mean,
        }
    }

    /// Draw a size in packets from one uniform number.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u = rng.random::<f64>();
        // The first row whose cumulative exceeds u (the last is 1 > u).
        let i = self.cum.partition_point(|&c| c <= u).min(self.cum.len() - 1);
        if !self.interpolate || i == 0 || self.x[i] == self.x[i - 1] {
            return self.pkts[i];
        }
        let (c0, c1) = (self.cum[i - 1], self.cum[i]);
        let x = self.x[i - 1] + (u - c0) / (c1 - c0) * (self.x[i] - self.x[i - 1]);
        (x.ceil() as u64).max(1)
    }

    /// The exact mean of the draws, in packets.
    pub fn mean_pkts(&self) -> f64 {
        self.mean
    }
}

/// `sizes = { dist = "empirical", ... }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EmpiricalCfg {
    pub values: Option<Vec<f64>>,
    pub weights: Option<Vec<f64>>,
    pub cdf: Option<Vec<Vec<f64>>>,
    pub cdf_file: Option<String>,
    pub unit: String,
    pub interpolate: Option<bool>,
}

impl Default for EmpiricalCfg {
    fn default() -> Self {
        EmpiricalCfg {
            values: None,
            weights: None,
            cdf: None,
            cdf_file: None,
            unit: "pkts".into(),
            interpolate: None,
        }
    }
}

impl Params for EmpiricalCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::new("values", "sizes drawn with the given weights (give values, cdf or cdf_file)"),
        ParamDoc::derived("weights", "equal weights", "one weight >= 0 per value"),
        ParamDoc::new("cdf", "rows [size, P(size' <= size)], sizes and probabilities non-decreasing, the last probability 1"),
        ParamDoc::new("cdf_file", "a file of rows 'size cumulative' or ns-2's 'size count cumulative' (tools/ranvar.cc loadCDF)"),
        ParamDoc::new("unit", "\"pkts\" or \"bytes\" (payload bytes, rounded up to packets of mss_bytes)"),
        ParamDoc::derived(
            "interpolate",
            "true for cdf and cdf_file; values are drawn as given",
            "ns-2 RandomVariable/Empirical interpolation_ 2 (linear between rows, rounded up), as the pFabric scripts load CDF_search.tcl; false: a step CDF",
        ),
    ];
}

/// The largest CDF file read (a CDF of this size has millions of rows).
const MAX_CDF_FILE_BYTES: u64 = 64 << 20;

/// Rows of a CDF file: `size cumulative` or `size count cumulative`. Only a
/// regular file of at most 64 MiB is read (not a device, a pipe or a
/// directory, which could block or never end).
fn read_cdf_file(path: &str, field: &str) -> Result<Vec<Vec<f64>>, ConfigError> {
    let cannot = |e: std::io::Error| ConfigError::new(field, format!("cannot read {path:?}: {e}"));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return err(field, format!("{path:?} is not a regular file"));
    }
    if meta.len() > MAX_CDF_FILE_BYTES {
        return err(
            field,
            format!("{path:?} has {} bytes; a CDF file may have at most 64 MiB", meta.len()),
        );
    }
    let text = std::fs::read_to_string(path).map_err(cannot)?;
    parse_cdf_text(&text, path, field)
}

/// Rows of a CDF text (`path` names it in refusals): `size cumulative` or
/// `size count cumulative` per line; blank lines and `#` lines skipped.
pub(super) fn parse_cdf_text(text: &str, path: &str, field: &str) -> Result<Vec<Vec<f64>>, ConfigError> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let nums: Result<Vec<f64>, _> = line.split_whitespace().map(str::parse::<f64>).collect();
        match nums {
            Ok(v) if v.len() == 2 => rows.push(v),
            Ok(v) if v.len() == 3 => rows.push(vec![v[0], v[2]]),
            _ => {
                return err(
                    field,
                    format!(
                        "{path}: line {}: expected 'size cumulative' or 'size count cumulative', got {line:?}",
                        n + 1
                    ),
                )
            }
        }
    }
    Ok(rows)
}

/// Check CDF rows (size in the given unit, cumulative) and scale sizes to packets.
pub(super) fn check_cdf(
    rows: &[Vec<f64>],
    unit: f64,
    field: &str,
    interpolate: bool,
) -> Result<Empirical, ConfigError> {
    if rows.is_empty() {
        return err(field, "needs at least one row [size, cumulative probability]");
    }
    let (mut x, mut cum) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
    for (i, r) in rows.iter().enumerate() {
        if r.len() != 2 {
            return err(
                format!("{field}[{i}]"),
                format!("expected [size, cumulative probability], got {} numbers", r.len()),
            );
        }
        let (s, c) = (r[0], r[1]);
        if !(s.is_finite() && s >= 0.0) {
            return err(format!("{field}[{i}]"), format!("size must be a number >= 0, got {s}"));
        }
        if !(c.is_finite() && (0.0..=1.0).contains(&c)) {
            return err(
                format!("{field}[{i}]"),
                format!("cumulative probability must be in [0, 1], got {c}"),
            );
        }
        if i > 0 && (s < rows[i - 1][0] || c < rows[i - 1][1]) {
            return err(
                format!("{field}[{i}]"),
                "sizes and cumulative probabilities must not decrease",
            );
        }
        let prev = if i == 0 { 0.0 } else { rows[i - 1][1] };
        // A size of 0 may only carry no probability (a CDF that starts at "0 ... 0").
        if s == 0.0 && c > prev {
            return err(format!("{field}[{i}]"), "a size with probability must be > 0");
        }
        if (s / unit).ceil() > MAX_FLOW_PKTS as f64 {
            return err(
                format!("{field}[{i}]"),
                format!("size must be at most {MAX_FLOW_PKTS} packets, got {s}"),
            );
        }
        x.push(s / unit);
        cum.push(c);
    }
    let last = cum[cum.len() - 1];
    if (last - 1.0).abs() > 1e-6 {
        return err(
            format!("{field}[{}]", rows.len() - 1),
            format!("the last cumulative probability must be 1, got {last}"),
        );
    }
    Ok(Empirical::from_rows(x, cum, interpolate))
}

pub const ENTRY: SizeEntry = Entry {
    name: "empirical",
    description: "sizes from data: values with weights, or a CDF (inline or a file, ns-2 format), step or interpolated; rounded up to whole packets",
    table: None,
    params: documented::<EmpiricalCfg>,
    requires: None,
    factory: |t, cx| {
        let c: EmpiricalCfg = t.parse()?;
        let unit = match c.unit.as_str() {
            "pkts" => 1.0,
            "bytes" => cx.mss_bytes as f64,
            u => return err(t.key("unit"), format!("unknown value {u:?}; allowed: pkts, bytes")),
        };
        let given = [c.values.is_some(), c.cdf.is_some(), c.cdf_file.is_some()].iter().filter(|&&g| g).count();
        if given != 1 {
            return err(t.key("values"), "give exactly one of values, cdf or cdf_file");
        }
        if let Some(values) = &c.values {
            if c.interpolate == Some(true) {
                return err(t.key("interpolate"), "applies to cdf and cdf_file, not to values");
            }
            if values.is_empty() {
                return err(t.key("values"), "needs at least one size");
            }
            let weights = match &c.weights {
                Some(w) if w.len() != values.len() => return err(t.key("weights"), format!("has {} weights for {} values", w.len(), values.len())),
                Some(w) => w.clone(),
                None => vec![1.0; values.len()],
            };
            for (i, (&v, &w)) in values.iter().zip(&weights).enumerate() {
                if !(v.is_finite() && v > 0.0 && (v / unit).ceil() <= MAX_FLOW_PKTS as f64) {
                    return err(format!("{}[{i}]", t.key("values")), format!("must be a size > 0 of at most {MAX_FLOW_PKTS} packets, got {v}"));
                }
                if !(w.is_finite() && w >= 0.0) {
                    return err(format!("{}[{i}]", t.key("weights")), format!("must be a number >= 0, got {w}"));
                }
            }
            let total: f64 = weights.iter().sum();
            if total <= 0.0 {
                return err(t.key("weights"), "at least one weight must be > 0");
            }
            let mut acc = 0.0;
            let cum: Vec<f64> = weights.iter().map(|w| {
                acc += w;
                acc / total
            }).collect();
            return Ok(super::sizes::SizeDist::Empirical(Empirical::from_rows(values.iter().map(|v| v / unit).collect(), cum, false)));
        }
        if c.weights.is_some() {
            return err(t.key("weights"), "weights go with values, not with a cdf");
        }
        let interpolate = c.interpolate.unwrap_or(true);
        let (rows, field) = match (&c.cdf, &c.cdf_file) {
            (Some(rows), None) => (rows.clone(), t.key("cdf")),
            (None, Some(path)) => (read_cdf_file(path, &t.key("cdf_file"))?, t.key("cdf_file")),
            _ => unreachable!("exactly one form is given"),
        };
        Ok(super::sizes::SizeDist::Empirical(check_cdf(&rows, unit, &field, interpolate)?))
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The integral of ceil over (a, b], by summing thin slices.
    fn slices(a: f64, b: f64) -> f64 {
        let n = 200_000;
        let h = (b - a) / n as f64;
        (0..n).map(|i| (a + (i as f64 + 0.5) * h).ceil() * h).sum()
    }

    #[test]
    fn ceil_integral_by_hand_and_by_slices() {
        // (0.5, 1]: ceil 1 over length 0.5; (1, 3]: 2 + 3; (0.5, 2.5]: 0.5 + 2 + 1.5.
        assert_eq!(ceil_integral(0.5, 1.0), 0.5);
        assert_eq!(ceil_integral(1.0, 3.0), 5.0);
        assert_eq!(ceil_integral(0.5, 2.5), 0.5 + 2.0 + 1.5);
        for &(a, b) in &[
            (0.0, 1.0),
            (0.2, 0.7),
            (1.0, 1.5),
            (3.3, 17.9),
            (6.0, 13.0),
            (100.0, 1075.25),
        ] {
            let s = slices(a, b);
            // The midpoint sum errs by at most one slice width per unit step.
            let tol = (b - a + 1.0) * (b - a) / 200_000.0;
            assert!(
                (ceil_integral(a, b) - s).abs() <= tol,
                "({a}, {b}]: {} vs {s}",
                ceil_integral(a, b)
            );
        }
    }
}

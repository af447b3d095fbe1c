//! Streaming FCT statistics per flow size (the `size_stats` table), for runs
//! too long to keep or query every flow: per size in packets, exact counts,
//! mean, minimum and maximum, and quantiles with a stated relative error.
//!
//! The quantiles come from a log-bucketed histogram, the DDSketch of Masson,
//! Rim & Lee ("DDSketch: a fast and fully-mergeable quantile sketch with
//! relative-error guarantees", PVLDB 12(12), 2019): with gamma = (1 + alpha) /
//! (1 - alpha), a value x > 0 is counted in bucket i = ceil(log_gamma x), which
//! holds the values in (gamma^(i-1), gamma^i]; the q-quantile is reported as
//! 2 gamma^i / (gamma + 1) for the bucket i holding the value of rank
//! floor(q (n - 1)) (0-based; numpy's `method="lower"`). Every value of that
//! bucket is within a relative error alpha of it, so the reported quantile x'
//! of the exact one x satisfies |x' - x| <= alpha x. It is then clamped to the
//! exact [min, max], which can only bring it closer.
//!
//! Memory: one counter per bucket between the smallest and the largest FCT of
//! a size, about ln(max / min) / ln(gamma) (230 per factor of 10 at alpha =
//! 0.005), whatever the number of flows.

use crate::config::{err, ConfigError};
use crate::sim::Time;
use std::collections::BTreeMap;

/// The finest relative accuracy `size_stats_alpha` may ask for. A sketch
/// keeps one counter per bucket between a size's smallest and largest FCT;
/// FCTs lie in [1 ns, 10^15 ns] (`config::MAX_SECONDS`), a ratio whose
/// logarithm is 34.5, so a sketch holds at most 34.5 / ln gamma buckets, with
/// ln gamma = ln((1 + a)/(1 - a)) ~ 2a: at a = 1e-4, 172,694 buckets (1.4 MB)
/// per flow size at worst. Far below it the sketch is also wrong: gamma is
/// computed in f64 with an absolute error of about 1.1e-16, a relative error
/// of 5.5e-17 / a in ln gamma, which shifts bucket ln(x)/ln gamma of an FCT x
/// by up to 34.5 x 5.5e-17 / (2 a^2) buckets: more than one below a = 3e-8;
/// below a = 1.1e-16 gamma rounds to 1 and every value falls in one bucket.
pub const MIN_ALPHA: f64 = 1e-4;

/// What the scenario asked for: which quantiles, at what relative accuracy.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeStatsSpec {
    pub quantiles: Vec<f64>,
    pub alpha: f64,
    /// Only flows starting in [from_ns, until_ns) are counted.
    pub from_ns: Time,
    pub until_ns: Option<Time>,
}

/// The column name of quantile q: `p50_fct_ns`, `p99_fct_ns`, `p99_9_fct_ns`.
pub fn quantile_column(q: f64) -> String {
    let pct = format!("{:.6}", q * 100.0);
    let pct = pct.trim_end_matches('0').trim_end_matches('.');
    format!("p{}_fct_ns", pct.replace('.', "_"))
}

impl SizeStatsSpec {
    /// Check `size_stats_quantiles` and `size_stats_alpha` (keys under `section`).
    pub fn new(quantiles: &[f64], alpha: f64, section: &str) -> Result<SizeStatsSpec, ConfigError> {
        let qf = format!("{section}.size_stats_quantiles");
        let mut names = Vec::new();
        for (i, &q) in quantiles.iter().enumerate() {
            if !(q.is_finite() && (0.0..=1.0).contains(&q)) {
                return err(format!("{qf}[{i}]"), format!("must be in [0, 1], got {q}"));
            }
            let n = quantile_column(q);
            if names.contains(&n) {
                return err(format!("{qf}[{i}]"), format!("{q} is given twice"));
            }
            names.push(n);
        }
        if !(alpha.is_finite() && (MIN_ALPHA..1.0).contains(&alpha)) {
            return err(
                format!("{section}.size_stats_alpha"),
                format!("must be in [1e-4, 1) (0.005: quantiles within 0.5%; below 1e-4 a sketch may need over 1.4 MB per flow size), got {alpha}"),
            );
        }
        Ok(SizeStatsSpec {
            quantiles: quantiles.to_vec(),
            alpha,
            from_ns: 0,
            until_ns: None,
        })
    }

    /// Count only flows that start in [from_ns, until_ns).
    pub fn window(mut self, from_ns: Time, until_ns: Option<Time>) -> SizeStatsSpec {
        self.from_ns = from_ns;
        self.until_ns = until_ns;
        self
    }

    /// Whether a flow that starts at `start_ns` is counted.
    #[inline]
    pub fn counts(&self, start_ns: Time) -> bool {
        start_ns >= self.from_ns && self.until_ns.is_none_or(|u| start_ns < u)
    }
}

/// A DDSketch of positive integers with a dense range of buckets.
#[derive(Clone, Debug, Default)]
pub struct Sketch {
    /// Bucket index of `counts[0]`.
    offset: i32,
    counts: Vec<u64>,
    zeros: u64,
    n: u64,
}

/// The bucket mapping shared by every sketch of a run.
#[derive(Clone, Copy, Debug)]
pub struct Mapping {
    gamma: f64,
    ln_gamma: f64,
}

impl Mapping {
    pub fn new(alpha: f64) -> Mapping {
        let gamma = (1.0 + alpha) / (1.0 - alpha);
        Mapping {
            gamma,
            ln_gamma: libm::log(gamma),
        }
    }

    /// The bucket of x > 0: ceil(log_gamma x).
    #[inline]
    pub fn index(&self, x: f64) -> i32 {
        (libm::log(x) / self.ln_gamma).ceil() as i32
    }

    /// The value reported for bucket i: 2 gamma^i / (gamma + 1).
    pub fn value(&self, i: i32) -> f64 {
        2.0 * libm::exp(i as f64 * self.ln_gamma) / (self.gamma + 1.0)
    }
}

impl Sketch {
    pub fn add(&mut self, m: &Mapping, x: u64) {
        self.n += 1;
        if x == 0 {
            self.zeros += 1;
            return;
        }
        let i = m.index(x as f64);
        if self.counts.is_empty() {
            self.offset = i;
            self.counts.push(0);
        } else if i < self.offset {
            let grow = (self.offset - i) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.offset = i;
        } else if (i - self.offset) as usize >= self.counts.len() {
            self.counts.resize((i - self.offset) as usize + 1, 0);
        }
        self.counts[(i - self.offset) as usize] += 1;
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The non-empty buckets as (index, count); FCTs of 0 (if any) under
    /// index `i32::MIN`. Sketches of the same alpha merge by adding counts.
    pub fn buckets_nonzero(&self) -> impl Iterator<Item = (i32, u64)> + '_ {
        (self.zeros > 0).then_some((i32::MIN, self.zeros)).into_iter().chain(
            self.counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(move |(k, &c)| (self.offset + k as i32, c)),
        )
    }

    /// Buckets held (the sketch's memory, in counters).
    pub fn buckets(&self) -> usize {
        self.counts.len()
    }

    /// The q-quantile (rank floor(q (n - 1)), 0-based), within a relative
    /// error alpha; None if empty.
    pub fn quantile(&self, m: &Mapping, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = (q * (self.n - 1) as f64).floor() as u64;
        if rank < self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        for (k, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                return Some(m.value(self.offset + k as i32));
            }
        }
        None
    }
}

/// One size's statistics.
#[derive(Clone, Debug, Default)]
struct Row {
    started: u64,
    completed: u64,
    sum_ns: u128,
    min_ns: Time,
    max_ns: Time,
    sketch: Sketch,
}

/// Streaming FCT statistics of every flow size of a run.
#[derive(Clone, Debug)]
pub struct SizeStats {
    spec: SizeStatsSpec,
    map: Mapping,
    rows: BTreeMap<u64, Row>,
}

/// The `size_stats` table: one row per flow size (packets), in increasing size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SizeStatsTable {
    pub size_pkts: Vec<u64>,
    /// Flows of this size started / completed.
    pub flows_started: Vec<u64>,
    pub flows_completed: Vec<u64>,
    /// Exact mean, minimum and maximum FCT of the completed ones (None: none completed).
    pub mean_fct_ns: Vec<Option<f64>>,
    pub min_fct_ns: Vec<Option<Time>>,
    pub max_fct_ns: Vec<Option<Time>>,
    /// One column per requested quantile: its name and values.
    pub quantiles: Vec<(String, Vec<Option<f64>>)>,
    /// The relative accuracy of the quantile columns.
    pub alpha: f64,
    /// Exact sum of the completed flows' FCTs, per size (so runs merge exactly).
    pub sum_fct_ns: Vec<u128>,
    /// The sketches themselves, one row per non-empty bucket: (size_pkts,
    /// bucket index i, count), where bucket i holds the FCTs in
    /// (gamma^(i-1), gamma^i] ns (FCTs of 0 under `i32::MIN`). Runs with the
    /// same alpha merge by adding counts per (size, bucket).
    pub sketch: Vec<(u64, i32, u64)>,
}

impl SizeStats {
    pub fn new(spec: SizeStatsSpec) -> SizeStats {
        SizeStats {
            map: Mapping::new(spec.alpha),
            spec,
            rows: BTreeMap::new(),
        }
    }

    /// Whether a flow starting at `start_ns` is counted (the spec's window).
    #[inline]
    pub fn counts(&self, start_ns: Time) -> bool {
        self.spec.counts(start_ns)
    }

    /// A flow of `pkts` packets started.
    pub fn started(&mut self, pkts: u64) {
        self.rows.entry(pkts).or_default().started += 1;
    }

    /// A flow of `pkts` packets completed in `fct_ns`.
    pub fn completed(&mut self, pkts: u64, fct_ns: Time) {
        let r = self.rows.entry(pkts).or_default();
        if r.completed == 0 || fct_ns < r.min_ns {
            r.min_ns = fct_ns;
        }
        r.max_ns = r.max_ns.max(fct_ns);
        r.completed += 1;
        r.sum_ns += fct_ns as u128;
        r.sketch.add(&self.map, fct_ns);
    }

    /// Counters held in all sketches (memory use).
    pub fn buckets(&self) -> usize {
        self.rows.values().map(|r| r.sketch.buckets()).sum()
    }

    /// The table.
    pub fn table(&self) -> SizeStatsTable {
        let mut t = SizeStatsTable {
            alpha: self.spec.alpha,
            ..Default::default()
        };
        t.quantiles = self
            .spec
            .quantiles
            .iter()
            .map(|&q| (quantile_column(q), Vec::with_capacity(self.rows.len())))
            .collect();
        for (&size, r) in &self.rows {
            t.size_pkts.push(size);
            t.flows_started.push(r.started);
            t.flows_completed.push(r.completed);
            let done = r.completed > 0;
            t.mean_fct_ns.push(done.then(|| r.sum_ns as f64 / r.completed as f64));
            t.min_fct_ns.push(done.then_some(r.min_ns));
            t.max_fct_ns.push(done.then_some(r.max_ns));
            t.sum_fct_ns.push(r.sum_ns);
            t.sketch.extend(r.sketch.buckets_nonzero().map(|(i, c)| (size, i, c)));
            for (k, &q) in self.spec.quantiles.iter().enumerate() {
                let v = r
                    .sketch
                    .quantile(&self.map, q)
                    .map(|v| v.clamp(r.min_ns as f64, r.max_ns as f64));
                t.quantiles[k].1.push(v);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names() {
        assert_eq!(quantile_column(0.5), "p50_fct_ns");
        assert_eq!(quantile_column(0.99), "p99_fct_ns");
        assert_eq!(quantile_column(0.999), "p99_9_fct_ns");
        assert_eq!(quantile_column(0.0), "p0_fct_ns");
        assert_eq!(quantile_column(1.0), "p100_fct_ns");
    }

    #[test]
    fn buckets_hold_values_within_alpha() {
        // Every x in (gamma^(i-1), gamma^i] maps to i, and 2 gamma^i / (gamma + 1)
        // is within alpha of both ends.
        let m = Mapping::new(0.01);
        for x in [1u64, 2, 3, 10, 999, 1_000_000, 123_456_789_012] {
            let i = m.index(x as f64);
            let v = m.value(i);
            assert!(
                (v - x as f64).abs() <= 0.01 * x as f64 * (1.0 + 1e-12),
                "x {x}: bucket {i} value {v}"
            );
        }
    }

    #[test]
    fn one_value_and_hand_quantiles() {
        let spec = SizeStatsSpec::new(&[0.0, 0.5, 1.0], 0.005, "metrics").unwrap();
        let mut s = SizeStats::new(spec);
        s.started(3);
        s.completed(3, 1000);
        let t = s.table();
        // One value: every quantile clamps to it exactly.
        assert_eq!(
            t.quantiles.iter().map(|q| q.1[0]).collect::<Vec<_>>(),
            vec![Some(1000.0); 3]
        );
        assert_eq!(
            (t.mean_fct_ns[0], t.min_fct_ns[0], t.max_fct_ns[0]),
            (Some(1000.0), Some(1000), Some(1000))
        );
        // Sizes that never completed have counts but no statistics.
        s.started(7);
        let t = s.table();
        assert_eq!(t.size_pkts, vec![3, 7]);
        assert_eq!(
            (t.flows_started[1], t.flows_completed[1], t.mean_fct_ns[1]),
            (1, 0, None)
        );
    }
}

//! Streaming per-size FCT statistics: the quantiles of 10^6 values are within
//! the stated relative error alpha of the exact ones (rank floor(q (n - 1)),
//! numpy's `method="lower"`), memory does not grow with the number of values,
//! and a run's `size_stats` table agrees with its own flows table: the same
//! counts, the exact mean, minimum and maximum, quantiles within alpha.

mod common;
use common::run_json;
use fctlab_core::metrics::size_stats::{SizeStats, SizeStatsSpec};
use fctlab_core::sim::stream_rng;
use rand::Rng;
use serde_json::json;

/// The exact q-quantile of sorted values: rank floor(q (n - 1)).
fn lower_quantile(sorted: &[u64], q: f64) -> f64 {
    sorted[(q * (sorted.len() - 1) as f64).floor() as usize] as f64
}

const QS: [f64; 13] = [
    0.0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0,
];

/// 10^6 heavy-tailed values spread over nine decades (ns): a log-uniform
/// body and a Pareto tail.
fn values(n: usize, seed: u64) -> Vec<u64> {
    let mut r = stream_rng(seed, 0);
    (0..n)
        .map(|_| {
            if r.random_bool(0.8) {
                10f64.powf(r.random_range(3.0..9.0)).round() as u64
            } else {
                (1e6 / (1.0 - r.random::<f64>()).powf(1.0 / 1.1)).min(1e12) as u64
            }
        })
        .collect()
}

#[test]
fn quantiles_of_a_million_values_are_within_alpha() {
    for (alpha, seed) in [(0.005, 1u64), (0.001, 2), (0.02, 3)] {
        let xs = values(1_000_000, seed);
        let spec = SizeStatsSpec::new(&QS, alpha, "metrics").unwrap();
        let mut s = SizeStats::new(spec);
        for &x in &xs {
            s.started(1);
            s.completed(1, x);
        }
        let t = s.table();
        let mut sorted = xs.clone();
        sorted.sort_unstable();
        for (k, &q) in QS.iter().enumerate() {
            let exact = lower_quantile(&sorted, q);
            let est = t.quantiles[k].1[0].unwrap();
            // The bound, plus the rounding of one logarithm and one exponential.
            assert!(
                (est - exact).abs() <= alpha * exact * (1.0 + 1e-9),
                "alpha {alpha} q {q}: {est} vs exact {exact}"
            );
        }
        assert_eq!((t.flows_started[0], t.flows_completed[0]), (1_000_000, 1_000_000));
        let sum: u128 = xs.iter().map(|&x| x as u128).sum();
        assert_eq!(t.mean_fct_ns[0], Some(sum as f64 / 1e6));
        assert_eq!(
            (t.min_fct_ns[0], t.max_fct_ns[0]),
            (Some(sorted[0]), Some(sorted[999_999]))
        );
        // Memory: at most one counter per bucket between min and max,
        // ln(max / min) / ln gamma + 1, whatever the count.
        let gamma: f64 = (1.0 + alpha) / (1.0 - alpha);
        let bound = ((sorted[999_999] as f64 / sorted[0] as f64).ln() / gamma.ln()).ceil() as usize + 1;
        assert!(s.buckets() <= bound, "{} buckets > {bound}", s.buckets());
    }
}

#[test]
fn memory_does_not_grow_with_the_number_of_flows() {
    // Values drawn from a fixed range: the counters after 10^4 and after 10^6
    // values are bounded alike (buckets of (1e4, 1e7] at alpha 0.005: 691).
    let spec = SizeStatsSpec::new(&[0.5], 0.005, "metrics").unwrap();
    let mut s = SizeStats::new(spec);
    let mut r = stream_rng(9, 0);
    let mut at = Vec::new();
    for i in 1..=1_000_000u64 {
        s.completed(1 + i % 3, r.random_range(10_001..=10_000_000));
        if i == 10_000 || i == 1_000_000 {
            at.push(s.buckets());
        }
    }
    let gamma: f64 = 1.005 / 0.995;
    let per_size = (1000f64.ln() / gamma.ln()).ceil() as usize + 1;
    assert!(at.iter().all(|&b| b <= 3 * per_size), "{at:?} > 3 x {per_size}");
}

#[test]
fn a_runs_size_stats_agree_with_its_flows_table() {
    let v = json!({
        "seed": 4,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                     "access_delay_ms": [1, 5, 10, 20], "buffer_pkts": 30},
        "traffic": [{"arrivals": "poisson", "load": 0.8, "sizes": {"dist": "mixture", "components": [
            {"weight": 9, "dist": "uniform", "min_pkts": 1, "max_pkts": 6},
            {"weight": 1, "dist": "pareto", "mean_pkts": 30, "shape": 1.3}]}, "count": 3000}],
        "metrics": {"series": false, "size_stats": true, "size_stats_quantiles": [0.1, 0.5, 0.99], "size_stats_alpha": 0.005}
    });
    let out = run_json(&v);
    let t = out.size_stats.as_ref().expect("asked for");
    let names: Vec<&str> = t.quantiles.iter().map(|q| q.0.as_str()).collect();
    assert_eq!(names, ["p10_fct_ns", "p50_fct_ns", "p99_fct_ns"]);
    let mut sizes: Vec<u64> = out.flows.iter().map(|f| f.size_pkts).collect();
    sizes.sort_unstable();
    sizes.dedup();
    assert_eq!(t.size_pkts, sizes, "one row per size, in order");
    for (i, &size) in t.size_pkts.iter().enumerate() {
        let of: Vec<_> = out.flows.iter().filter(|f| f.size_pkts == size).collect();
        let mut fct: Vec<u64> = of.iter().filter_map(|f| f.fct_ns()).collect();
        fct.sort_unstable();
        assert_eq!(t.flows_started[i], of.len() as u64);
        assert_eq!(t.flows_completed[i], fct.len() as u64);
        let sum: u128 = fct.iter().map(|&x| x as u128).sum();
        assert_eq!(t.mean_fct_ns[i], Some(sum as f64 / fct.len() as f64), "size {size}");
        assert_eq!(
            (t.min_fct_ns[i], t.max_fct_ns[i]),
            (fct.first().copied(), fct.last().copied())
        );
        for (k, &q) in [0.1, 0.5, 0.99].iter().enumerate() {
            let exact = lower_quantile(&fct, q);
            let est = t.quantiles[k].1[i].unwrap();
            assert!(
                (est - exact).abs() <= 0.005 * exact * (1.0 + 1e-9),
                "size {size} q {q}: {est} vs {exact}"
            );
        }
    }
    // Asking for it changes nothing else; not asking gives no table.
    let mut plain = v.clone();
    plain["metrics"] = json!({"series": false});
    let p = run_json(&plain);
    assert_eq!(p.flows, out.flows);
    assert!(p.size_stats.is_none());
}

#[test]
fn size_stats_keys_are_checked() {
    let base = json!({
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
        "flows": [{"size_pkts": 3}],
        "metrics": {"size_stats": true}
    });
    for (k, val, field) in [
        (
            "size_stats_quantiles",
            json!([0.5, 1.2]),
            "metrics.size_stats_quantiles[1]",
        ),
        (
            "size_stats_quantiles",
            json!([0.5, 0.5]),
            "metrics.size_stats_quantiles[1]",
        ),
        ("size_stats_alpha", json!(0.0), "metrics.size_stats_alpha"),
        ("size_stats_alpha", json!(1.0), "metrics.size_stats_alpha"),
        ("size_stats_from_s", json!(-1.0), "metrics.size_stats_from_s"),
        ("size_stats_until_s", json!(0.0), "metrics.size_stats_until_s"),
        ("flows", json!(0), "metrics.flows"),
    ] {
        let mut v = base.clone();
        v["metrics"][k] = val;
        let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
        assert_eq!(e.field, field, "{e}");
    }
}

/// A busy run with many short flows and a heavy tail (flows that outlive
/// many later ones), a measuring flow in every 1000.
fn busy(count: u64, keep: bool) -> serde_json::Value {
    json!({
        "seed": 11,
        "network": {"topology": "single-link", "bottleneck_bps": 100e6, "bottleneck_delay_ms": 2.0, "buffer_pkts": 60},
        "traffic": [{"arrivals": "poisson", "load": 0.9, "measure_every": 1000, "sizes": {"dist": "mixture", "components": [
            {"weight": 95, "dist": "uniform", "min_pkts": 1, "max_pkts": 4},
            {"weight": 5, "dist": "pareto", "mean_pkts": 40, "shape": 1.1}]}, "count": count}],
        "metrics": {"series": false, "size_stats": true, "flows": keep, "size_stats_alpha": 0.01}
    })
}

#[test]
fn without_flow_records_the_streaming_tables_are_the_same() {
    // 150,000 flows: more than the two windows of 65,536 flow entries the
    // engine keeps before it drops finished flows (and sets the unfinished
    // ones of the older window aside), so that path is taken.
    let kept = run_json(&busy(150_000, true));
    let lean = run_json(&busy(150_000, false));
    assert_eq!(kept.flows.len(), 150_000);
    assert!(lean.flows.is_empty());
    assert_eq!(lean.size_stats, kept.size_stats);
    assert_eq!(lean.prefixes, kept.prefixes);
    assert!(!kept.prefixes.k.is_empty());
    assert_eq!(
        (lean.counters.events, lean.counters.flows_completed, lean.end_ns),
        (kept.counters.events, kept.counters.flows_completed, kept.end_ns)
    );
    // Some flow outlived the next 65,536 flows' arrivals (it was set aside, not dropped).
    let starts: Vec<u64> = kept.flows.iter().map(|f| f.start_ns).collect();
    let outlived = kept.flows.iter().enumerate().any(|(i, f)| {
        let later = starts[i..].partition_point(|&s| s < f.acked_ns.unwrap());
        later > 65_536
    });
    assert!(outlived, "no flow spans a compaction; make the tail heavier");
}

#[test]
fn the_window_counts_flows_by_start_time() {
    let mut v = busy(4000, true);
    v["metrics"]["size_stats_from_s"] = json!(0.05);
    v["metrics"]["size_stats_until_s"] = json!(0.2);
    let out = run_json(&v);
    let t = out.size_stats.as_ref().unwrap();
    let inside: Vec<_> = out
        .flows
        .iter()
        .filter(|f| f.start_ns >= 50_000_000 && f.start_ns < 200_000_000)
        .collect();
    assert!(inside.len() > 100 && inside.len() < 4000);
    let mut sizes: Vec<u64> = inside.iter().map(|f| f.size_pkts).collect();
    sizes.sort_unstable();
    sizes.dedup();
    assert_eq!(t.size_pkts, sizes);
    for (i, &size) in t.size_pkts.iter().enumerate() {
        let of: Vec<_> = inside.iter().filter(|f| f.size_pkts == size).collect();
        let fct: Vec<u64> = of.iter().filter_map(|f| f.fct_ns()).collect();
        assert_eq!(
            (t.flows_started[i], t.flows_completed[i]),
            (of.len() as u64, fct.len() as u64)
        );
        assert_eq!(t.sum_fct_ns[i], fct.iter().map(|&x| x as u128).sum::<u128>());
        assert_eq!(
            (t.min_fct_ns[i], t.max_fct_ns[i]),
            (fct.iter().min().copied(), fct.iter().max().copied())
        );
        // The sketch holds each completed flow once, in its bucket.
        let gamma: f64 = 1.01 / 0.99;
        let mut want: Vec<(i32, u64)> = Vec::new();
        for &x in &fct {
            let b = ((x as f64).ln() / gamma.ln()).ceil() as i32;
            match want.iter_mut().find(|w| w.0 == b) {
                Some(w) => w.1 += 1,
                None => want.push((b, 1)),
            }
        }
        want.sort_unstable();
        let got: Vec<(i32, u64)> = t.sketch.iter().filter(|r| r.0 == size).map(|r| (r.1, r.2)).collect();
        assert_eq!(got, want, "size {size}");
    }
}

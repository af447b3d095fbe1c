//! The `mixture`, `empirical` and stepped `uniform` size laws: frequencies of
//! many draws against the probabilities derived by hand from the scenario
//! (Pearson's chi-square test at significance 0.001), the exact means the
//! Poisson rate is set from, refusals naming the key, and the same draws for
//! the same seed.

mod common;
use common::{assert_chi_square, chi2_critical, run_json};
use fctlab_core::sim::stream_rng;
use fctlab_core::workload::{Arrivals, SizeDist};
use serde_json::{json, Value};

/// The size law a `sizes` table resolves to, through a Poisson traffic entry.
fn law(sizes: Value) -> SizeDist {
    let plan = fctlab_core::from_json(&scenario(sizes).to_string()).unwrap_or_else(|e| panic!("refused: {e}"));
    plan.generators[0].sizes.clone().unwrap()
}

fn scenario(sizes: Value) -> Value {
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": sizes, "count": 10}],
        "metrics": {"series": false}
    })
}

fn refused(sizes: Value) -> fctlab_core::ConfigError {
    fctlab_core::from_json(&scenario(sizes).to_string())
        .err()
        .expect("refused")
}

/// `n` draws with the stream generator 0 uses.
fn draws(d: &SizeDist, n: usize) -> Vec<u64> {
    let mut r = stream_rng(11, 1);
    (0..n).map(|_| d.sample(&mut r)).collect()
}

/// Counts of draws per bin, `bin` mapping a size to a bin index.
fn counts(xs: &[u64], bins: usize, bin: impl Fn(u64) -> usize) -> Vec<u64> {
    let mut c = vec![0u64; bins];
    for &x in xs {
        c[bin(x)] += 1;
    }
    c
}

#[test]
fn chi_square_critical_values_match_the_tables() {
    // Upper 0.1% points of the chi-square distribution (e.g. NIST/SEMATECH
    // e-Handbook of Statistical Methods, table 1.3.6.7.4).
    for &(df, c) in &[
        (1usize, 10.828),
        (2, 13.816),
        (10, 29.588),
        (50, 86.661),
        (100, 149.449),
    ] {
        let x = chi2_critical(df, 0.001);
        assert!((x - c).abs() < 0.002 * c, "df {df}: {x} vs {c}");
    }
}

/// P(ceil(X) = s) for the workload's Pareto (mean m, shape a): F(s) - F(s - 1)
/// with F(x) = 1 - (x_m / x)^a above x_m = m (a - 1) / a.
fn pareto_pmf(m: f64, a: f64, s: u64) -> f64 {
    let xm = m * (a - 1.0) / a;
    let f = |x: f64| if x <= xm { 0.0 } else { 1.0 - (xm / x).powf(a) };
    f(s as f64) - f(s as f64 - 1.0)
}

#[test]
fn the_thesis_mixture_has_the_stated_frequencies_and_mean() {
    // Mussmann 2012, section 5.1: 1 flow in 500 uniform over {100, 125, ..., 1075}
    // (40 sizes, mean 587.5), the rest Pareto with mean 25 and shape 1.2.
    let sizes = json!({"dist": "mixture", "components": [
        {"weight": 499, "dist": "pareto", "mean_pkts": 25, "shape": 1.2},
        {"weight": 1, "dist": "uniform", "min_pkts": 100, "max_pkts": 1075, "step_pkts": 25}]});
    let d = law(sizes.clone());
    let (wp, wm) = (499.0 / 500.0, 1.0 / 500.0);
    // Its mean: 0.998 x 25 + 0.002 x 587.5 = 26.125 packets.
    assert!(
        (d.mean_pkts() - (wp * 25.0 + wm * 587.5)).abs() < 1e-12,
        "mean {}",
        d.mean_pkts()
    );
    // The Poisson rate of load 0.5 on 10 Mb/s with 1040 B packets follows from it.
    let plan = fctlab_core::from_json(&scenario(sizes).to_string()).unwrap();
    let Arrivals::Poisson { mean_gap_ns } = plan.generators[0].arrivals else {
        panic!("poisson")
    };
    let lambda = 0.5 * 10e6 / (8.0 * 26.125 * 1040.0);
    assert!((mean_gap_ns - 1e9 / lambda).abs() < 1e-6 * mean_gap_ns);

    // Bins: sizes 5..=40 one by one, 41..=99, each marker size 100, 125, ...,
    // 1075, the other sizes in 101..=1074, and above 1075.
    let markers: Vec<u64> = (0..40).map(|i| 100 + 25 * i).collect();
    let nb = 36 + 1 + 40 + 1 + 1;
    let bin = |s: u64| match s {
        5..=40 => (s - 5) as usize,
        41..=99 => 36,
        100..=1075 if (s - 100).is_multiple_of(25) => 37 + ((s - 100) / 25) as usize,
        101..=1074 => 77,
        _ if s > 1075 => 78,
        _ => panic!("size {s} below the Pareto scale"),
    };
    let pp = |s: u64| pareto_pmf(25.0, 1.2, s);
    let mut p = vec![0.0; nb];
    for s in 5..=40 {
        p[bin(s)] = wp * pp(s);
    }
    let xm = 25.0 * 0.2 / 1.2;
    let tail = |x: f64| (xm / x).powf(1.2); // P(X > x)
    p[36] = wp * (tail(40.0) - tail(99.0));
    for (i, &m) in markers.iter().enumerate() {
        p[37 + i] = wp * pp(m) + wm / 40.0;
    }
    p[77] = wp * (tail(99.0) - tail(1075.0)) - markers.iter().map(|&m| wp * pp(m)).sum::<f64>();
    p[78] = wp * tail(1075.0);
    let n = 4_000_000;
    let xs = draws(&d, n);
    assert_chi_square(&counts(&xs, nb, bin), &p, "mixture");
    // The marker component alone would have 8,000 draws; a weight read as 1 in
    // 250 instead of 1 in 500 would be far outside the test: its mass on the
    // marker bins is 0.002 + 0.998 x P(Pareto on a marker).
}

#[test]
fn stepped_uniform_is_uniform_on_its_lattice() {
    let d = law(json!({"dist": "uniform", "min_pkts": 100, "max_pkts": 1075, "step_pkts": 25}));
    assert_eq!(d.mean_pkts(), 587.5);
    let xs = draws(&d, 200_000);
    assert!(xs.iter().all(|&x| (100..=1075).contains(&x) && (x - 100) % 25 == 0));
    assert_chi_square(
        &counts(&xs, 40, |s| ((s - 100) / 25) as usize),
        &[1.0 / 40.0; 40],
        "uniform step 25",
    );
    // Step 1 is the plain law, drawn exactly as before.
    assert_eq!(
        law(json!({"dist": "uniform", "min_pkts": 3, "max_pkts": 9, "step_pkts": 1})),
        SizeDist::Uniform {
            min_pkts: 3,
            max_pkts: 9
        }
    );
    let e = refused(json!({"dist": "uniform", "min_pkts": 100, "max_pkts": 1070, "step_pkts": 25}));
    assert_eq!(e.field, "traffic[0].sizes.max_pkts");
    let e = refused(json!({"dist": "uniform", "min_pkts": 1, "max_pkts": 9, "step_pkts": 0}));
    assert_eq!(e.field, "traffic[0].sizes.step_pkts");
}

#[test]
fn empirical_values_with_weights() {
    let d = law(json!({"dist": "empirical", "values": [3, 7, 100], "weights": [1, 2, 7]}));
    assert!((d.mean_pkts() - (0.1 * 3.0 + 0.2 * 7.0 + 0.7 * 100.0)).abs() < 1e-12);
    let xs = draws(&d, 100_000);
    let bin = |s: u64| match s {
        3 => 0,
        7 => 1,
        100 => 2,
        _ => panic!("size {s} is not a value"),
    };
    assert_chi_square(&counts(&xs, 3, bin), &[0.1, 0.2, 0.7], "values with weights");
    // Equal weights by default; sizes in bytes round up to packets of mss_bytes (1000).
    let d = law(json!({"dist": "empirical", "values": [1500, 2000, 2001, 40], "unit": "bytes"}));
    assert_eq!(d.mean_pkts(), (2.0 + 2.0 + 3.0 + 1.0) / 4.0);
    let xs = draws(&d, 100_000);
    assert_chi_square(
        &counts(&xs, 3, |s| (s - 1) as usize),
        &[0.25, 0.5, 0.25],
        "values in bytes",
    );
}

/// A small CDF, as the web-search and data-mining files are written, and the
/// probabilities of each size worked out by hand (see the test).
const ROWS: [[f64; 2]; 4] = [[1.0, 0.2], [3.0, 0.5], [10.0, 0.9], [20.0, 1.0]];

#[test]
fn empirical_cdf_interpolated_as_ns2() {
    // ns-2 RandomVariable/Empirical with interpolation_ 2: u < 0.2 gives the
    // first row's size 1; u in [0.2, 0.5) gives ceil of x uniform on [1, 3),
    // so 2 or 3 with 0.15 each; u in [0.5, 0.9): ceil of x on [3, 10), 4..10
    // with 0.4 / 7 each; u in [0.9, 1): ceil of x on [10, 20), 11..20 with
    // 0.01 each.
    let d = law(json!({"dist": "empirical", "cdf": ROWS}));
    let mut p = [0.0; 21];
    p[1] = 0.2;
    p[2] = 0.15;
    p[3] = 0.15;
    p[4..=10].fill(0.4 / 7.0);
    p[11..=20].fill(0.01);
    let mean: f64 = p.iter().enumerate().map(|(s, q)| s as f64 * q).sum();
    assert!((d.mean_pkts() - mean).abs() < 1e-12, "mean {} vs {mean}", d.mean_pkts());
    let xs = draws(&d, 400_000);
    assert!(xs.iter().all(|&x| (1..=20).contains(&x)));
    assert_chi_square(&counts(&xs, 20, |s| (s - 1) as usize), &p[1..], "interpolated cdf");

    // The same rows from a file in ns-2's three columns (size, count, cumulative).
    let dir = std::env::temp_dir().join(format!("fctlab-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("CDF_test.tcl");
    let text: String = ROWS.iter().map(|r| format!("{} 1 {}\n", r[0], r[1])).collect();
    std::fs::write(&path, format!("# size count cumulative\n{text}\n")).unwrap();
    let f = law(json!({"dist": "empirical", "cdf_file": path.to_str().unwrap()}));
    assert_eq!(f, d);
    // Two columns read alike.
    let text2: String = ROWS.iter().map(|r| format!("{}\t{}\n", r[0], r[1])).collect();
    std::fs::write(&path, text2).unwrap();
    assert_eq!(law(json!({"dist": "empirical", "cdf_file": path.to_str().unwrap()})), d);
    std::fs::write(&path, "1 0.5\n2 x 1\n").unwrap();
    let e = refused(json!({"dist": "empirical", "cdf_file": path.to_str().unwrap()}));
    assert_eq!(e.field, "traffic[0].sizes.cdf_file");
    assert!(e.message.contains("line 2"), "{}", e.message);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cdf_file_must_be_a_small_regular_file() {
    // A device, a directory, a named pipe or a file over 64 MiB is refused at
    // once, naming the key (none of them is read: /dev/zero never ends, a pipe
    // blocks until someone writes).
    let dir = std::env::temp_dir().join(format!("fctlab-cdf-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let big = dir.join("big");
    std::fs::File::create(&big).unwrap().set_len((64 << 20) + 1).unwrap();
    let mut paths = vec![("/dev/zero".to_string(), "not a regular file")];
    paths.push((dir.to_str().unwrap().to_string(), "not a regular file"));
    paths.push((big.to_str().unwrap().to_string(), "at most 64 MiB"));
    if made.is_ok_and(|s| s.success()) {
        paths.push((fifo.to_str().unwrap().to_string(), "not a regular file"));
    }
    for (path, why) in paths {
        let e = refused(json!({"dist": "empirical", "cdf_file": path}));
        assert_eq!(e.field, "traffic[0].sizes.cdf_file");
        assert!(e.message.contains(why), "{path}: {}", e.message);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empirical_cdf_as_steps() {
    // interpolate = false: each row's size with probability cumulative_i - cumulative_{i-1}.
    let d = law(json!({"dist": "empirical", "cdf": ROWS, "interpolate": false}));
    assert!((d.mean_pkts() - (0.2 * 1.0 + 0.3 * 3.0 + 0.4 * 10.0 + 0.1 * 20.0)).abs() < 1e-12);
    let xs = draws(&d, 100_000);
    let bin = |s: u64| match s {
        1 => 0,
        3 => 1,
        10 => 2,
        20 => 3,
        _ => panic!("size {s} is not a row"),
    };
    assert_chi_square(&counts(&xs, 4, bin), &[0.2, 0.3, 0.4, 0.1], "step cdf");
    // In bytes: rows of 1000-byte packets, the same law.
    let bytes: Vec<[f64; 2]> = ROWS.iter().map(|r| [r[0] * 1000.0, r[1]]).collect();
    assert_eq!(
        law(json!({"dist": "empirical", "cdf": bytes, "interpolate": false, "unit": "bytes"})),
        d
    );
}

#[test]
fn empirical_and_mixture_refusals_name_the_key() {
    let cases = [
        (json!({"dist": "empirical"}), "traffic[0].sizes.values"),
        (
            json!({"dist": "empirical", "values": [1], "cdf": [[1, 1]]}),
            "traffic[0].sizes.values",
        ),
        (
            json!({"dist": "empirical", "values": [1, 0]}),
            "traffic[0].sizes.values[1]",
        ),
        (
            json!({"dist": "empirical", "values": [1, 2], "weights": [1]}),
            "traffic[0].sizes.weights",
        ),
        (
            json!({"dist": "empirical", "values": [1, 2], "weights": [0, 0]}),
            "traffic[0].sizes.weights",
        ),
        (
            json!({"dist": "empirical", "values": [1], "interpolate": true}),
            "traffic[0].sizes.interpolate",
        ),
        (
            json!({"dist": "empirical", "values": [1], "unit": "kb"}),
            "traffic[0].sizes.unit",
        ),
        (
            json!({"dist": "empirical", "cdf": [[1, 0.5], [2, 0.9]]}),
            "traffic[0].sizes.cdf[1]",
        ),
        (
            json!({"dist": "empirical", "cdf": [[2, 0.5], [1, 1.0]]}),
            "traffic[0].sizes.cdf[1]",
        ),
        (
            json!({"dist": "empirical", "cdf": [[1, 0.5, 3], [2, 1.0]]}),
            "traffic[0].sizes.cdf[0]",
        ),
        (
            json!({"dist": "empirical", "cdf": [[0, 0.5], [2, 1.0]]}),
            "traffic[0].sizes.cdf[0]",
        ),
        (
            json!({"dist": "empirical", "cdf_file": "/nonexistent/cdf"}),
            "traffic[0].sizes.cdf_file",
        ),
        (json!({"dist": "mixture"}), "traffic[0].sizes.components"),
        (
            json!({"dist": "mixture", "components": [{"dist": "fixed", "pkts": 3}]}),
            "traffic[0].sizes.components[0].weight",
        ),
        (
            json!({"dist": "mixture", "components": [{"weight": -1, "dist": "fixed", "pkts": 3}]}),
            "traffic[0].sizes.components[0].weight",
        ),
        (
            json!({"dist": "mixture", "components": [{"weight": 1, "dist": "zipf"}]}),
            "traffic[0].sizes.components[0].dist",
        ),
        (
            json!({"dist": "mixture", "components": [{"weight": 1, "dist": "pareto", "mean_pkts": 3}]}),
            "traffic[0].sizes.components[0].shape",
        ),
    ];
    for (sizes, field) in cases {
        let e = refused(sizes.clone());
        assert_eq!(e.field, field, "{sizes}: {e}");
        assert!(!e.to_string().contains('\n'));
    }
    // A CDF starting at "0 ... 0" (no probability at 0) is accepted.
    let d = law(json!({"dist": "empirical", "cdf": [[0, 0.0], [4, 1.0]]}));
    assert_eq!(d.mean_pkts(), 2.5);
}

#[test]
fn nested_mixtures_and_the_same_flows_for_the_same_seed() {
    // A mixture of a mixture: the mean is the weighted mean of means.
    let inner = json!({"weight": 3, "dist": "mixture", "components": [
        {"weight": 1, "dist": "fixed", "pkts": 2}, {"weight": 1, "dist": "fixed", "pkts": 4}]});
    let d = law(json!({"dist": "mixture", "components": [inner, {"weight": 1, "dist": "empirical", "values": [40]}]}));
    assert_eq!(d.mean_pkts(), 0.75 * 3.0 + 0.25 * 40.0);
    let xs = draws(&d, 80_000);
    let bin = |s: u64| match s {
        2 => 0,
        4 => 1,
        40 => 2,
        _ => panic!("{s}"),
    };
    assert_chi_square(&counts(&xs, 3, bin), &[0.375, 0.375, 0.25], "nested mixture");
    // Whole runs: the same seed gives the same flows.
    let mut v = scenario(json!({"dist": "mixture", "components": [
        {"weight": 4, "dist": "empirical", "cdf": ROWS}, {"weight": 1, "dist": "uniform", "min_pkts": 10, "max_pkts": 50, "step_pkts": 10}]}));
    v["traffic"][0]["count"] = json!(300);
    let (a, b) = (run_json(&v), run_json(&v));
    assert_eq!(a.flows, b.flows);
    assert!(a.flows.iter().all(|f| f.completed()));
}

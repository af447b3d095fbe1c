//! The built-in datacenter workloads: each mean against the figure its
//! tabulation's authors publish with it, sampled means against the exact
//! means, and the scenario keys.

use fctlab_core::sim::stream_rng;
use fctlab_core::workload::builtin::{find, LAWS};
use fctlab_core::workload::sizes::SizeContext;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

/// The mean of each table in bytes, against the mean published with it.
#[test]
fn means_match_their_published_figures() {
    // Web search, HPCC's table read piecewise linearly: by hand, each piece's
    // midpoint times its probability: 5000 x .15 + 15000 x .05 + 25000 x .1
    // + 40000 x .1 + 65000 x .13 + 140000 x .07 + 600000 x .1 + 1.5e6 x .1
    // + 3.5e6 x .1 + 7.5e6 x .07 + 2e7 x .03 = 1,711,250 B.
    assert!((find("websearch").mean_bytes() - 1_711_250.0).abs() < 1e-6);
    // The pFabric/PIAS ns-2 scripts tabulate the same CDF in packets of about
    // 1500 B (CDF_dctcp.tcl: 10 kB -> 6, 1 MB -> 667, 30 MB -> 20000) and state
    // its mean as meanFlowSize = 1138 x 1460 B (github.com/HKUST-SING/PIAS-NS2,
    // scripts/run_pias_dctcp.py). In those packets the byte table's mean is
    // 1,711,250 / 1500 = 1140.8; the scripts' rows round sizes to whole packets
    // (30 kB to 19, 28.5 kB), which moves the mean by a few tenths of a percent.
    assert!(rel(find("websearch").mean_bytes() / 1500.0, 1138.0) < 0.005);

    // Data mining: PIAS-NS2 scripts/run_pias_vl2.py, meanFlowSize = 5117 x 1460
    // B: the table's mean, 5116.6 packets, to the nearest packet.
    assert!(rel(find("datamining").mean_bytes(), 5117.0 * 1460.0) < 0.5 / 5117.0);

    // Homa's simulator states each table's mean on its first line
    // (github.com/PlatformLab/HomaSimulation, homatransport/sizeDistributions/,
    // commit 91967ec6): the mean of the step CDF, printed to the digits below,
    // so the exact mean must agree to half a unit of the last digit.
    for (name, published, last_digit) in [
        ("fb-hadoop", 127_796.6, 0.1),
        ("fb-webserver", 62_874.27, 0.01),
        ("fb-cache", 692_975.6, 0.1),
        ("google-search-rpc", 440.7907, 0.0001),
        ("google-all-rpc", 2927.354, 0.001),
    ] {
        let m = find(name).mean_bytes();
        assert!((m - published).abs() <= last_digit / 2.0, "{name}: {m} vs {published}");
    }
    // W5 is stated in packets (1744.70) and written here at 1430 B a packet.
    let w5 = find("homa-w5").mean_bytes() / 1430.0;
    assert!((w5 - 1744.70).abs() <= 0.005, "homa-w5: {w5} packets");

    // W1: the simulator's file states 185.0 B. The law's own mean is
    // 2.73 B (sizes 1-15) + 0.53 (15 + sigma / (1 - k)) = 185.09 B; the table
    // reads the tail linearly between points 5% apart, whose chords lie under
    // the concave CDF and add about 0.05% (see the file's header).
    let k = 0.348238;
    let sigma = 214.476;
    let head: f64 = [
        (1.0, 0.00583),
        (2.0, 0.18403 - 0.00583),
        (3.0, 0.27642 - 0.18403),
        (4.0, 0.27660 - 0.27642),
        (5.0, 0.30400 - 0.27660),
        (6.0, 0.30465 - 0.30400),
        (7.0, 0.31071 - 0.30465),
        (8.0, 0.31094 - 0.31071),
        (9.0, 0.31931 - 0.31094),
        (10.0, 0.32768 - 0.31931),
        (11.0, 0.41757 - 0.32768),
        (12.0, 0.41849 - 0.41757),
        (13.0, 0.42175 - 0.41849),
        (14.0, 0.44155 - 0.42175),
        (15.0, 0.47 - 0.44155),
    ]
    .iter()
    .map(|(s, p)| s * p)
    .sum();
    let law = head + 0.53 * (15.0 + sigma / (1.0 - k));
    let w1 = find("homa-w1").mean_bytes();
    assert!(rel(w1, law) < 0.001, "homa-w1: {w1} vs the law's {law}");
    assert!(rel(w1, 185.0) < 0.002, "homa-w1: {w1} vs 185.0");

    // HPCC's Hadoop table has no stated mean; it tabulates the same measured
    // CDF as fb-hadoop with 20 points read linearly instead of 461 steps.
    let (h, f) = (find("hpcc-fb-hadoop").mean_bytes(), find("fb-hadoop").mean_bytes());
    assert!(rel(h, f) < 0.07, "hpcc-fb-hadoop {h} vs fb-hadoop {f}");
}

/// Every table: sizes and probabilities never decrease, the last probability
/// is 1, and the law built from it has the mean the rows give.
#[test]
fn sampled_means_match_exact_means() {
    let registry = fctlab_core::registry::SIZES;
    for law in LAWS {
        let rows = law.rows();
        assert!(
            rows.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 >= w[0].1),
            "{}",
            law.name
        );
        assert_eq!(rows.last().unwrap().1, 1.0, "{}", law.name);
        // With 1-byte packets a draw is its size in bytes, rounded up.
        let cx = SizeContext {
            mss_bytes: 1,
            sizes: registry,
        };
        let d = cx.resolve(&serde_json::json!({ "dist": law.name }), "sizes").unwrap();
        let exact = d.mean_pkts();
        // Rounding up adds less than one byte to the table's mean.
        assert!(
            exact >= law.mean_bytes() - 1e-6 && exact < law.mean_bytes() + 1.0,
            "{}",
            law.name
        );
        let mut rng = stream_rng(7, 0);
        let n = 400_000;
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Five standard errors of the sample mean.
        let tol = 5.0 * (var / n as f64).sqrt();
        assert!(
            (mean - exact).abs() < tol,
            "{}: sampled {mean} vs exact {exact} (tol {tol})",
            law.name
        );
    }
}

/// In packets: data mining's first row is an atom, half the flows are one
/// 1460-B packet; and with 1460-B packets the mean is the tabulation's own
/// 5116.6 packets plus the rounding up of the interpolated sizes.
#[test]
fn datamining_in_1460_byte_packets() {
    let cx = SizeContext {
        mss_bytes: 1460,
        sizes: fctlab_core::registry::SIZES,
    };
    let d = cx
        .resolve(&serde_json::json!({ "dist": "datamining" }), "sizes")
        .unwrap();
    let mut rng = stream_rng(3, 0);
    let n = 200_000;
    let ones = (0..n).filter(|_| d.sample(&mut rng) == 1).count() as f64 / n as f64;
    // P(1 packet) = 0.5 (the atom) + 0 (interpolated draws above 1 round up to 2).
    assert!((ones - 0.5).abs() < 0.005, "{ones}");
    // Each interpolated piece rounds up by about half a packet: the mean is
    // 5116.6 plus at most one packet for the pieces above the atom.
    assert!(
        d.mean_pkts() > 5116.6 && d.mean_pkts() < 5116.6 + 0.5 + 1e-9,
        "{}",
        d.mean_pkts()
    );
}

/// A built-in law takes no parameters: a key is refused, naming it.
#[test]
fn builtin_laws_refuse_parameters() {
    let sc = r#"{"network": {"topology": "single-link", "bottleneck_bps": 1e9, "bottleneck_delay_ms": 1},
                 "traffic": [{"arrivals": "poisson", "load": 0.5, "count": 10,
                              "sizes": {"dist": "websearch", "mean_bytes": 5}}]}"#;
    let Err(e) = fctlab_core::from_json(sc) else {
        panic!("a key of a built-in law was accepted")
    };
    assert!(e.to_string().contains("traffic[0].sizes.mean_bytes"), "{e}");
    let ok = sc.replace(r#", "mean_bytes": 5"#, "");
    fctlab_core::from_json(&ok).unwrap();
}

/// The mean each entry's description states (what `fctlab list` and the
/// reference pages show) is the table's, to its last printed digit.
#[test]
fn descriptions_state_the_exact_means() {
    for law in LAWS {
        let e = fctlab_core::registry::SIZES
            .iter()
            .find(|e| e.name == law.name)
            .expect("every table is registered");
        let stated = e
            .description
            .rsplit_once("mean ")
            .and_then(|(_, m)| m.strip_suffix(" B"))
            .unwrap_or_else(|| panic!("{}: no 'mean ... B' in {:?}", law.name, e.description))
            .replace(',', "");
        let decimals = stated.split_once('.').map_or(0, |(_, d)| d.len());
        let half_unit = 0.5 * 10f64.powi(-(decimals as i32));
        let m = law.mean_bytes();
        assert!(
            (stated.parse::<f64>().unwrap() - m).abs() <= half_unit + 1e-9,
            "{}: states {stated}, the table gives {m}",
            law.name
        );
    }
}

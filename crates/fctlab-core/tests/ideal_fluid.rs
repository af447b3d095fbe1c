//! Fluid simulators on hand-worked examples and against the definitions of
//! processor sharing, SRPT and max-min fairness.

use fctlab_core::ideal::{fluid_maxmin, fluid_maxmin_general, fluid_ps, fluid_srpt, maxmin_rates};
use fctlab_core::sim::stream_rng;
use rand::Rng as _;

const MS: u64 = 1_000_000;

#[test]
fn three_flows_ps_and_srpt_by_hand() {
    // One 8 Mb/s link: 1000 B per ms. A = 3000 B at 0 ms, B = 1000 B at 1 ms,
    // C = 2500 B at 2 ms (6500 B in all: the link is busy until 6.5 ms).
    //
    // PS:  0-1 ms   A alone at 1000 B/ms               A 2000 left
    //      1-2 ms   A, B at 500 B/ms                   A 1500, B 500 left
    //      2-3.5    A, B, C at 333.3 B/ms: B ends after 500 / 333.3 = 1.5 ms
    //                                                  A 1000, C 2000 left
    //      3.5-5.5  A, C at 500 B/ms: A ends after 2 ms     C 1000 left
    //      5.5-6.5  C alone at 1000 B/ms.
    //      => A 5.5 ms, B 3.5 ms, C 6.5 ms.
    let starts = [0, MS, 2 * MS];
    let sizes = [3000.0, 1000.0, 2500.0];
    assert_eq!(
        fluid_ps(&starts, &sizes, 8e6).unwrap(),
        vec![5_500_000, 3_500_000, 6_500_000]
    );
    //
    // SRPT: 0-1 ms A alone (2000 left); at 1 ms B (1000) < 2000 preempts and ends
    //       at 2 ms; at 2 ms A (2000 left) < C (2500): A ends at 4 ms, then C at 6.5.
    //      => A 4 ms, B 2 ms, C 6.5 ms.
    assert_eq!(
        fluid_srpt(&starts, &sizes, 8e6).unwrap(),
        vec![4 * MS, 2 * MS, 6_500_000]
    );
    // The general max-min simulator on one link is PS.
    let routes = vec![vec![0]; 3];
    assert_eq!(
        fluid_maxmin_general(&[8e6], &starts, &sizes, &routes).unwrap(),
        vec![5_500_000, 3_500_000, 6_500_000]
    );
}

#[test]
fn parking_lot_maxmin_rates_by_hand() {
    // Links: L0 = 12, L1 = 6, L2 = 10 Mb/s. Flows: F0 crosses L0, L1, L2 (the
    // long flow); F1 only L0; F2 only L1; F3 only L2; F4 crosses L1 and L2.
    // Progressive filling: fair shares L0 12/2 = 6, L1 6/3 = 2, L2 10/3 = 3.33.
    // L1 fills first at 2: F0, F2, F4 frozen at 2 Mb/s. Left: L0 has 12 − 2 = 10
    // for F1 alone; L2 has 10 − 2 − 2 = 6 for F3 alone.
    // => F0 2, F1 10, F2 2, F3 6, F4 2 Mb/s. Each flow's rate is the largest on
    // one saturated link of its route (F0, F2, F4 on L1; F1 on L0; F3 on L2).
    let routes = vec![vec![0, 1, 2], vec![0], vec![1], vec![2], vec![1, 2]];
    let r = maxmin_rates(&[12e6, 6e6, 10e6], &routes).unwrap();
    let want = [2e6, 10e6, 2e6, 6e6, 2e6];
    for (got, want) in r.iter().zip(want) {
        assert!((got - want).abs() < 1e-3, "{r:?}");
    }
    // The classic parking lot: three 10 Mb/s links, one long flow over all and
    // one short flow per link. Every link has two flows: 5 Mb/s each.
    let routes = vec![vec![0, 1, 2], vec![0], vec![1], vec![2]];
    let r = maxmin_rates(&[10e6; 3], &routes).unwrap();
    assert!(r.iter().all(|&x| (x - 5e6).abs() < 1e-3), "{r:?}");
}

#[test]
fn parking_lot_completion_times_by_hand() {
    // Two 8 Mb/s links (1000 B/ms). At 0: F0 = 3000 B over L0 and L1, F1 = 1000 B
    // on L0, F2 = 2000 B on L1.
    //  0-2 ms: each link carries two flows: 500 B/ms each. F1 ends at 2 ms.
    //          F0 2000, F2 1000 left.
    //  2-4 ms: L0 has F0 alone but L1 still two flows: F0, F2 at 500 B/ms.
    //          F2 ends at 4 ms; F0 1000 left.
    //  4-5 ms: F0 alone at 1000 B/ms: ends at 5 ms.
    let routes = vec![vec![0, 1], vec![0], vec![1]];
    let f = fluid_maxmin(&[8e6, 8e6], &[0, 0, 0], &[3000.0, 1000.0, 2000.0], &routes).unwrap();
    assert_eq!(f, vec![5 * MS, 2 * MS, 4 * MS]);
}

/// A random workload: `n` flows, starts over `span_ns`, sizes 100 B..100 kB.
fn random_flows(n: usize, span_ns: u64, seed: u64) -> (Vec<u64>, Vec<f64>) {
    let mut rng = stream_rng(seed, 0);
    let starts = (0..n).map(|_| rng.random_range(0..span_ns)).collect();
    let sizes = (0..n).map(|_| 100.0 * 1000f64.powf(rng.random::<f64>())).collect();
    (starts, sizes)
}

#[test]
fn virtual_time_ps_agrees_with_progressive_filling() {
    // Two independent implementations of PS on one link: the O(log n) virtual-time
    // heap and the general progressive filling recomputed at every event.
    for seed in 0..5 {
        let (starts, sizes) = random_flows(3000, 2_000 * MS, seed);
        let a = fluid_ps(&starts, &sizes, 100e6).unwrap();
        let b = fluid_maxmin_general(&[100e6], &starts, &sizes, &vec![vec![0]; starts.len()]).unwrap();
        for i in 0..a.len() {
            assert!(a[i].abs_diff(b[i]) <= 2, "flow {i}: {} vs {}", a[i], b[i]);
        }
    }
}

#[test]
fn single_link_routes_take_the_per_link_shortcut_correctly() {
    let (starts, sizes) = random_flows(2000, 1_000 * MS, 9);
    let routes: Vec<Vec<usize>> = (0..starts.len()).map(|i| vec![i % 3]).collect();
    let links = [50e6, 100e6, 20e6];
    let a = fluid_maxmin(&links, &starts, &sizes, &routes).unwrap();
    let b = fluid_maxmin_general(&links, &starts, &sizes, &routes).unwrap();
    for i in 0..a.len() {
        assert!(a[i].abs_diff(b[i]) <= 2, "flow {i}: {} vs {}", a[i], b[i]);
    }
}

#[test]
fn ps_and_srpt_are_work_conserving_and_srpt_minimises_the_mean() {
    // Both policies keep the link busy whenever work is present, so the last
    // flow leaves at the same instant; SRPT minimises the total sojourn time on
    // every sample path (Schrage 1968), so its mean FCT is at most PS's.
    for seed in 10..15 {
        let (starts, sizes) = random_flows(5000, 3_000 * MS, seed);
        let ps = fluid_ps(&starts, &sizes, 100e6).unwrap();
        let srpt = fluid_srpt(&starts, &sizes, 100e6).unwrap();
        let last = |f: &[u64]| *f.iter().max().unwrap();
        assert!(last(&ps).abs_diff(last(&srpt)) <= 2);
        let total = |f: &[u64]| f.iter().zip(&starts).map(|(f, s)| (f - s) as f64).sum::<f64>();
        assert!(total(&srpt) <= total(&ps));
        // No flow beats its line-rate time under either policy.
        for i in 0..starts.len() {
            let alone = (8.0 * sizes[i] / 100e6 * 1e9) as u64;
            assert!(ps[i] - starts[i] + 1 >= alone && srpt[i] - starts[i] + 1 >= alone);
        }
    }
}

#[test]
fn random_topologies_satisfy_the_maxmin_definition() {
    // A rate vector is max-min fair iff it is feasible and every flow crosses a
    // saturated link on which no other flow has a larger rate (Bertsekas &
    // Gallager 1992, §6.5.2). Check it on random routes over 8 links.
    let mut rng = stream_rng(77, 0);
    for _ in 0..200 {
        let links: Vec<f64> = (0..8).map(|_| rng.random_range(1.0..100.0)).collect();
        let n = rng.random_range(1..30);
        let routes: Vec<Vec<usize>> = (0..n)
            .map(|_| {
                let mut r: Vec<usize> = (0..8).filter(|_| rng.random::<f64>() < 0.3).collect();
                if r.is_empty() {
                    r.push(rng.random_range(0..8));
                }
                r
            })
            .collect();
        let rates = maxmin_rates(&links, &routes).unwrap();
        let load: Vec<f64> = (0..8)
            .map(|l| {
                routes
                    .iter()
                    .zip(&rates)
                    .filter(|(r, _)| r.contains(&l))
                    .map(|(_, x)| x)
                    .sum()
            })
            .collect();
        for l in 0..8 {
            assert!(load[l] <= links[l] * (1.0 + 1e-9), "link {l} over capacity");
        }
        for (f, r) in routes.iter().enumerate() {
            let has_bottleneck = r.iter().any(|&l| {
                let saturated = load[l] >= links[l] * (1.0 - 1e-9);
                let largest = routes
                    .iter()
                    .zip(&rates)
                    .filter(|(q, _)| q.contains(&l))
                    .all(|(_, &x)| x <= rates[f] * (1.0 + 1e-9));
                saturated && largest
            });
            assert!(has_bottleneck, "flow {f} has no bottleneck link");
        }
    }
}

/// Speed, not correctness (no timed assertion): 10⁶ Poisson flows at load 0.9 on
/// one 1 Gb/s link, Pareto sizes (mean 25 kB, shape 1.2). Run with
/// `cargo test --release -p fctlab-core --test ideal_fluid -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed_of_a_million_flows() {
    let n = 1_000_000;
    let mut rng = stream_rng(1, 0);
    let (mean, shape, c, rho) = (25_000.0, 1.2, 1e9, 0.9);
    let gap = 8.0 * mean / c * 1e9 / rho;
    let mut t = 0.0f64;
    let mut starts = Vec::with_capacity(n);
    let mut sizes = Vec::with_capacity(n);
    for _ in 0..n {
        t += -gap * (1.0 - rng.random::<f64>()).ln();
        starts.push(t as u64);
        sizes.push(mean * (shape - 1.0) / shape / (1.0 - rng.random::<f64>()).powf(1.0 / shape));
    }
    for (name, f) in [
        ("fluid_ps", fluid_ps as fn(&[u64], &[f64], f64) -> _),
        ("fluid_srpt", fluid_srpt),
    ] {
        let t0 = std::time::Instant::now();
        let out = f(&starts, &sizes, c).unwrap();
        eprintln!(
            "{name}: {n} flows in {:.3} s (last finish {} ns)",
            t0.elapsed().as_secs_f64(),
            out.iter().max().unwrap()
        );
    }
    let routes = vec![vec![0]; n];
    let t0 = std::time::Instant::now();
    fluid_maxmin(&[c], &starts, &sizes, &routes).unwrap();
    eprintln!(
        "fluid_maxmin (one-link routes): {n} flows in {:.3} s",
        t0.elapsed().as_secs_f64()
    );
    // A dumbbell: 100 access links of 100 Mb/s into the 1 Gb/s bottleneck, the
    // first 10⁵ flows spread over the senders: progressive filling at every event.
    let m = 100_000;
    let mut links = vec![100e6; 100];
    links.push(c);
    let routes: Vec<Vec<usize>> = (0..m).map(|i| vec![i % 100, 100]).collect();
    let t0 = std::time::Instant::now();
    fluid_maxmin(&links, &starts[..m], &sizes[..m], &routes).unwrap();
    eprintln!(
        "fluid_maxmin (dumbbell, 101 links): {m} flows in {:.3} s",
        t0.elapsed().as_secs_f64()
    );
}

//! Analytic baselines against values derived by hand or from closed forms.

use fctlab_core::ideal::{
    ps_fct_ns, ps_sojourn_ns, slow_start_fct_ns, srpt_sojourn_many_ns, srpt_sojourn_ns, Handshake, SizeLaw,
};

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

#[test]
fn ps_fct_of_the_rcp_figure() {
    // Seed 000 Fig 12: C = 2.4 Gb/s, RTT = 0.1 s, ρ = 0.9. A 25-packet flow of
    // 1000 B: L / C = 200 000 bit / 2.4e9 = 83.33 µs, / (1 − 0.9) = 833.33 µs;
    // plus 1.5 RTT = 150 ms: 150.8333 ms.
    let t = ps_fct_ns(25_000.0, 2.4e9, 0.9, 100e6, Handshake::On).unwrap();
    assert!(close(t, 150e6 + 200_000.0 / 2.4e9 / 0.1 * 1e9, 1e-12), "{t}");
    // Without the handshake only half an RTT of propagation is left.
    let t = ps_fct_ns(25_000.0, 2.4e9, 0.9, 100e6, Handshake::Off).unwrap();
    assert!(close(t, 50e6 + 200_000.0 / 2.4e9 / 0.1 * 1e9, 1e-12), "{t}");
    // The sojourn alone at load 0: the line-rate time.
    assert!(close(
        ps_sojourn_ns(25_000.0, 2.4e9, 0.0).unwrap(),
        200_000.0 / 2.4e9 * 1e9,
        1e-12
    ));
}

#[test]
fn slow_start_matches_the_2006_formula_for_window_one() {
    // Seed 000 §II-A: FCT = (⌈log2(L + 1)⌉ + 1/2) RTT + L / C, handshake included,
    // window 1. 1000 B packets, 1 Gb/s (8 µs per packet), RTT 40 ms.
    let (rtt, c) = (40e6, 1e9);
    for l in 1..=5000u64 {
        let rounds = ((l + 1) as f64).log2().ceil();
        let want = (rounds + 0.5) * rtt + l as f64 * 8_000.0;
        let got = slow_start_fct_ns(l, 1000.0, c, rtt, 1, Handshake::On).unwrap();
        assert!(close(got, want, 1e-12), "L = {l}: {got} vs {want}");
    }
}

#[test]
fn slow_start_with_a_larger_window_by_hand() {
    // w = 10, no handshake: round 1 sends 10, round 2 another 20 (30 in all),
    // round 3 another 40 (70). L = 10: 0.5 RTT; 11..=30: 1.5 RTT; 31: 2.5 RTT.
    // RTT 100 ms, 1500 B packets at 12 Mb/s: 1 ms each.
    let f = |l| slow_start_fct_ns(l, 1500.0, 12e6, 100e6, 10, Handshake::Off).unwrap();
    assert!(close(f(10), 50e6 + 10e6, 1e-12));
    assert!(close(f(11), 150e6 + 11e6, 1e-12));
    assert!(close(f(30), 150e6 + 30e6, 1e-12));
    assert!(close(f(31), 250e6 + 31e6, 1e-12));
    // With the handshake every case takes one more RTT.
    let g = slow_start_fct_ns(31, 1500.0, 12e6, 100e6, 10, Handshake::On).unwrap();
    assert!(close(g, 350e6 + 31e6, 1e-12));
}

#[test]
fn srpt_with_one_size_is_md1() {
    // All flows of s bytes: SRPT serves them first-come first-served, so
    // E[T] = S + λ S² / (2 (1 − ρ)) = S (1 + ρ / (2 (1 − ρ))) (Pollaczek–Khinchine,
    // deterministic service). s = 1250 B at 10 Mb/s: S = 1 ms; ρ = 0.6: 1.75 ms.
    let law = SizeLaw::fixed(1250.0).unwrap();
    let t = srpt_sojourn_ns(1250.0, &law, 10e6, 0.6).unwrap();
    assert!(close(t, 1e6 * (1.0 + 0.6 / 0.8), 1e-12), "{t}");
    // A hypothetical smaller job x = s/2 (S_x = 0.5 ms): no size is below x, so
    // ρ(x) = 0 and nothing preempts it once started (residence S_x); it waits
    // only for a job in service with less than x left, m₂(x) = x² (1 − F(x)) =
    // x²: waiting λ S_x² / 2 with λ = ρ / S = 600 /s, i.e. 75 µs, + 0.5 ms.
    let t = srpt_sojourn_ns(625.0, &law, 10e6, 0.6).unwrap();
    assert!(close(t, 0.5e6 + 600.0 * 0.5e-3 * 0.5e-3 / 2.0 * 1e9, 1e-12), "{t}");
}

#[test]
fn srpt_uniform_matches_its_closed_form() {
    // Uniform on [0, B] bytes, b = 8 / C s per byte, λ = ρ / (b B / 2). Then
    // ρ(t) = λ b t² / (2B) = k t² and ∫₀ˣ dt / (1 − k t²) = atanh(√k x) / √k;
    // m₂(x) = b² (x³ / (3B) + x² (1 − x / B)).
    let (big_b, c, rho) = (100_000.0, 80e6, 0.7);
    let law = SizeLaw::uniform(1e-9, big_b).unwrap(); // [0+, B]
    let b = 8.0 / c;
    let lam = rho / (b * big_b / 2.0);
    let k = lam * b / (2.0 * big_b);
    for x in [1.0, 5_000.0, 50_000.0, 99_000.0] {
        let m2 = b * b * (x * x * x / (3.0 * big_b) + x * x * (1.0 - x / big_b));
        let want = (lam * m2 / (2.0 * (1.0 - k * x * x).powi(2)) + b * (k.sqrt() * x).atanh() / k.sqrt()) * 1e9;
        let got = srpt_sojourn_ns(x, &law, c, rho).unwrap();
        assert!(close(got, want, 1e-9), "x = {x}: {got} vs {want}");
    }
    // Beyond B, ρ(t) = ρ: residence grows by (x − B) b / (1 − ρ), m₂ = b² B² / 3.
    let x = 150_000.0;
    let want = (lam * b * b * big_b * big_b / 3.0 / (2.0 * (1.0 - rho).powi(2))
        + b * ((k.sqrt() * big_b).atanh() / k.sqrt() + (x - big_b) / (1.0 - rho)))
        * 1e9;
    assert!(close(srpt_sojourn_ns(x, &law, c, rho).unwrap(), want, 1e-9));
}

#[test]
fn srpt_at_light_load_is_line_rate() {
    // ρ → 0: nothing to wait for, E[T(x)] → x / C.
    let law = SizeLaw::pareto(30_000.0, 1.2).unwrap();
    let t = srpt_sojourn_ns(40_000.0, &law, 1e9, 1e-9).unwrap();
    assert!(close(t, 320_000.0, 1e-6), "{t}");
}

#[test]
fn srpt_beats_ps_for_every_size_at_half_load() {
    // Bansal & Harchol-Balter (SIGMETRICS 2001), Thm 1: for ρ ≤ 1/2 every job
    // size has E[T(x)] under SRPT ≤ x / (C (1 − ρ)) under PS, for any law.
    let laws = [
        SizeLaw::pareto(30_000.0, 1.2).unwrap(),
        SizeLaw::exponential(30_000.0).unwrap(),
        SizeLaw::uniform(1_000.0, 59_000.0).unwrap(),
        SizeLaw::fixed(30_000.0).unwrap(),
        SizeLaw::empirical(&[1_000.0, 1_000.0, 5_000.0, 200_000.0]).unwrap(),
    ];
    let xs: Vec<f64> = (0..60).map(|k| 100.0 * 1.25f64.powi(k)).collect();
    for law in &laws {
        let srpt = srpt_sojourn_many_ns(&xs, law, 1e9, 0.5).unwrap();
        for (x, t) in xs.iter().zip(&srpt) {
            let ps = ps_sojourn_ns(*x, 1e9, 0.5).unwrap();
            assert!(*t <= ps * (1.0 + 1e-9), "{law:?} x = {x}: SRPT {t} > PS {ps}");
        }
    }
}

#[test]
fn continuous_laws_agree_with_their_quantile_samples() {
    // The exponential and Pareto closed forms against the empirical law of
    // 400 000 evenly spaced quantiles F⁻¹((i − ½) / n) of the same law: two code
    // paths (partial moments in closed form + Simpson, prefix sums + exact
    // step integral). The discretisation error is O(1/n) in the body of the law.
    let n = 400_000;
    let q = |i: usize| (i as f64 + 0.5) / n as f64;
    let m = 10_000.0;
    let exp_sample: Vec<f64> = (0..n).map(|i| -m * (1.0 - q(i)).ln()).collect();
    let (a, xm) = (2.5, m * 1.5 / 2.5);
    let par_sample: Vec<f64> = (0..n).map(|i| xm / (1.0 - q(i)).powf(1.0 / a)).collect();
    let cases = [
        (SizeLaw::exponential(m).unwrap(), exp_sample),
        (SizeLaw::pareto(m, a).unwrap(), par_sample),
    ];
    let xs = [1_000.0, 7_000.0, 10_000.0, 25_000.0, 60_000.0];
    for (law, sample) in &cases {
        let emp = SizeLaw::empirical(sample).unwrap();
        // Use the sample's own mean for its load so both laws carry the same λ.
        let rho = 0.8;
        let rho_emp = rho * emp.mean_bytes() / law.mean_bytes();
        let a_ = srpt_sojourn_many_ns(&xs, law, 1e8, rho).unwrap();
        let b_ = srpt_sojourn_many_ns(&xs, &emp, 1e8, rho_emp).unwrap();
        for k in 0..xs.len() {
            assert!(
                close(b_[k], a_[k], 2e-3),
                "{law:?} x = {}: closed {} vs sample {}",
                xs[k],
                a_[k],
                b_[k]
            );
        }
    }
}

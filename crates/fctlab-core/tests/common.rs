//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fctlab_core::metrics::FlowRecord;
use fctlab_core::{from_json, run, RunOutput};
use serde_json::Value;

pub fn run_json(v: &Value) -> RunOutput {
    let plan = from_json(&v.to_string()).unwrap_or_else(|e| panic!("scenario refused: {e}"));
    run(plan)
}

pub fn flows(v: &Value) -> Vec<FlowRecord> {
    run_json(v).flows
}

/// Serialisation time in ns as the engine documents it: round(bytes * 8e9 / rate).
pub fn ser(bytes: u64, rate_bps: f64) -> u64 {
    (bytes as f64 * 8e9 / rate_bps).round() as u64
}

/// The RTO after the RTT samples `r` by RFC 6298 section 2 (SRTT = R, RTTVAR =
/// R/2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R;
/// RTO = SRTT + 4 RTTVAR), in integer ns, with fctlab's 200 ms floor.
pub fn rfc6298_rto(r: &[u64]) -> u64 {
    let (mut srtt, mut var) = (r[0], r[0] / 2);
    for &x in &r[1..] {
        var = (3 * var + srtt.abs_diff(x)) / 4;
        srtt = (7 * srtt + x) / 8;
    }
    (srtt + 4 * var).max(200_000_000)
}

/// A random finite workload on a random built-in topology: 1-5 senders, a
/// bottleneck of 2, 10 or 100 Mb/s with a buffer of 2..`max_buffer` packets,
/// Poisson arrivals at load 0.3-1.2 (Pareto, uniform or exponential sizes) plus
/// one explicit flow. Callers set the scheme, queue and tables they test.
pub fn random_scenario(r: &mut rand_pcg::Pcg64Mcg, seed: u64, max_buffer: u64) -> Value {
    use rand::Rng;
    use serde_json::json;
    let topo = ["single-link", "dumbbell", "half-dumbbell"][r.random_range(0..3)];
    let senders = if topo == "single-link" { 1 } else { r.random_range(1..6) };
    let rate = [2e6, 10e6, 100e6][r.random_range(0..3)];
    let mut net = json!({
        "topology": topo, "senders": senders, "bottleneck_bps": rate,
        "bottleneck_delay_ms": r.random_range(0.0..30.0),
        "buffer_pkts": r.random_range(2..max_buffer),
    });
    if topo != "single-link" {
        let delays: Vec<f64> = (0..senders).map(|_| r.random_range(0.0..20.0)).collect();
        net["access_delay_ms"] = json!(delays);
        net["access_bps"] = json!(rate * [1.0, 10.0][r.random_range(0..2)]);
    }
    let dist = match r.random_range(0..3) {
        0 => json!({"dist": "pareto", "mean_pkts": 20, "shape": 1.3}),
        1 => json!({"dist": "uniform", "min_pkts": 1, "max_pkts": 60}),
        _ => json!({"dist": "exponential", "mean_pkts": 15}),
    };
    let iw = [1, 2, 4, 10][r.random_range(0..4)];
    json!({
        "seed": seed,
        "network": net,
        "transport": {"init_cwnd_pkts": iw, "handshake": r.random_bool(0.5), "delayed_ack": r.random_bool(0.3)},
        "traffic": [{"arrivals": "poisson", "load": r.random_range(0.3..1.2), "sizes": dist, "count": r.random_range(20..300)}],
        "flows": [{"sender": 0, "size_pkts": r.random_range(1..500), "start_s": 0.01}],
        "metrics": {"interval_ms": 5.0}
    })
}

/// The invariants every finite run keeps: packet conservation (sent =
/// delivered + dropped + still in the network), no queue above its limit,
/// every flow completes, no FCT below the line-rate ideal (itself at least the
/// bottleneck serialisation plus propagation), the handshake's two bottleneck
/// crossings on top when there is one, the last ACK after the last byte, and
/// series samples in time order. Returns (packets dropped, retransmissions).
pub fn assert_invariants(v: &Value, out: &RunOutput, label: &str) -> (u64, u64) {
    let c = &out.counters;
    assert_eq!(
        c.packets_sent,
        c.packets_delivered + c.packets_dropped + out.in_network,
        "{label}: conservation: {v}"
    );
    assert!(c.max_queue_excess <= 0, "{label}: queue above its limit: {v}");
    let handshake = v["transport"]["handshake"].as_bool().unwrap_or(true);
    let rate = v["network"]["bottleneck_bps"].as_f64().unwrap();
    let d_bn = (v["network"]["bottleneck_delay_ms"].as_f64().unwrap() * 1e6).round() as u64;
    for f in &out.flows {
        let fct = f
            .fct_ns()
            .unwrap_or_else(|| panic!("{label}: flow {} did not complete: {v}", f.flow_id));
        assert!(
            fct >= f.ideal_ns,
            "{label}: FCT {fct} below ideal {} (flow {})",
            f.ideal_ns,
            f.flow_id
        );
        assert!(
            f.ideal_ns >= ser(f.size_bytes + 40 * f.size_pkts, rate) + d_bn,
            "{label}"
        );
        if handshake {
            assert!(fct >= f.ideal_ns + 2 * d_bn, "{label}: flow {}", f.flow_id);
        }
        assert!(f.acked_ns.unwrap() > f.finish_ns.unwrap(), "{label}");
        // Every packet of a completed flow was delivered in order, once.
        assert_eq!(
            f.delivered_pkts, f.size_pkts,
            "{label}: flow {} delivered in order",
            f.flow_id
        );
    }
    assert_eq!(c.flows_completed as usize, out.flows.len(), "{label}");
    // Unique deliveries never exceed arrivals (which count copies too).
    assert!(
        out.flows.iter().map(|f| f.delivered_pkts).sum::<u64>() <= c.data_delivered,
        "{label}"
    );
    assert!(
        out.series.t_ns.windows(2).all(|w| w[0] <= w[1]),
        "{label}: series out of order"
    );
    (c.packets_dropped, out.flows.iter().map(|f| f.retransmits).sum())
}

/// Per-hop (rate, delay) of a path.
pub type Path = Vec<(f64, u64)>;

/// The arrival time at the receiver of every data packet of a lone flow that
/// starts at 0 on an empty path, by the hand model of `empty_path.rs`: slow
/// start with an ACK per packet (RFC 5681, +1 packet per ACK) releases packet
/// k >= w on the ACK of packet floor((k - w) / 2) and packets k < w at t0 (the
/// end of the handshake, if any); each hop is a FIFO server (the Lindley
/// recursion s_k = max(r_k, s_{k-1} + T_k)), packets arrive one propagation
/// delay after their serialisation ends, and ACKs return the same way.
pub fn slow_start_arrivals(n: u64, w: u64, fwd: &Path, rev: &Path, handshake: bool, last_payload: u64) -> Vec<u64> {
    let hop = |t: u64, bytes: u64, path: &Path, free: &mut [u64]| {
        let mut t = t;
        for (h, &(rate, d)) in path.iter().enumerate() {
            let start = t.max(free[h]);
            free[h] = start + ser(bytes, rate);
            t = free[h] + d;
        }
        t
    };
    let ta = |p: &Path| p.iter().map(|&(r, d)| ser(40, r) + d).sum::<u64>();
    let t0 = if handshake { ta(fwd) + ta(rev) } else { 0 };
    let (mut ffree, mut rfree) = (vec![0u64; fwd.len()], vec![0u64; rev.len()]);
    let mut arrive = vec![0u64; n as usize];
    let mut ack_at = vec![0u64; n as usize];
    for k in 0..n as usize {
        let release = if (k as u64) < w {
            t0
        } else {
            ack_at[(k - w as usize) / 2]
        };
        let bytes = if k as u64 == n - 1 { last_payload + 40 } else { 1040 };
        arrive[k] = hop(release, bytes, fwd, &mut ffree);
        ack_at[k] = hop(arrive[k], 40, rev, &mut rfree);
    }
    arrive
}

/// ln Gamma(x), x > 0 (Lanczos approximation, g = 7, n = 9; relative error
/// below 1e-13 for x > 0.5).
pub fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised upper incomplete gamma function Q(a, x) = Gamma(a, x) /
/// Gamma(a): the series of Abramowitz & Stegun 6.5.29 for x < a + 1, else
/// the continued fraction 6.5.31 (Lentz's method).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let lead = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        1.0 - sum * lead.exp()
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        lead.exp() * h
    }
}

/// The critical value of the chi-square distribution with `df` degrees of
/// freedom at significance `alpha`: P(X > c) = alpha = Q(df / 2, c / 2).
pub fn chi2_critical(df: usize, alpha: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 10.0 * df as f64 + 100.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gamma_q(df as f64 / 2.0, mid / 2.0) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Pearson's chi-square statistic of `observed` counts against probabilities
/// `p` (which sum to 1), and its degrees of freedom (bins - 1).
pub fn chi_square(observed: &[u64], p: &[f64]) -> (f64, usize) {
    assert_eq!(observed.len(), p.len());
    let n: u64 = observed.iter().sum();
    let stat = observed
        .iter()
        .zip(p)
        .map(|(&o, &q)| {
            let e = q * n as f64;
            assert!(e >= 5.0, "bin with expected count {e} < 5: merge bins");
            (o as f64 - e).powi(2) / e
        })
        .sum();
    (stat, p.len() - 1)
}

/// Assert that counts `observed` follow probabilities `p` at significance
/// 0.001 (Pearson's chi-square test).
pub fn assert_chi_square(observed: &[u64], p: &[f64], what: &str) {
    let total: f64 = p.iter().sum();
    assert!((total - 1.0).abs() < 1e-9, "{what}: probabilities sum to {total}");
    let (stat, df) = chi_square(observed, p);
    let crit = chi2_critical(df, 0.001);
    assert!(
        stat < crit,
        "{what}: chi-square {stat:.1} >= {crit:.1} (df {df}, significance 0.001)"
    );
}

//! RTT fairness (Gavaletz & Kaur 2010): slow start's bias (eq. 3) measured on
//! two NewReno flows, and Tarheel's scaling removing it.

mod common;
use common::run_json;
use fctlab_core::RunOutput;
use serde_json::json;

/// cwnd of `flow` at each sample time, from the run's series.
fn cwnd(out: &RunOutput, flow: u32) -> Vec<(u64, f64)> {
    let s = &out.series;
    let m = s
        .metric_names
        .iter()
        .position(|n| n == "cwnd_pkts")
        .expect("cwnd series") as u16;
    let names = [format!("flow{flow}"), format!("{flow}")];
    let el = s
        .element_names
        .iter()
        .position(|n| names.contains(n))
        .expect("flow's series") as u32;
    (0..s.len())
        .filter(|&i| s.metric[i] == m && s.element[i] == el)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

fn at(series: &[(u64, f64)], t_ns: u64) -> f64 {
    series
        .iter()
        .find(|x| x.0 == t_ns)
        .unwrap_or_else(|| panic!("no sample at {t_ns}"))
        .1
}

/// Two flows from time 0 on a dumbbell whose bottleneck never queues (10 Gb/s
/// everywhere): base RTTs 2 (access + 1 ms), i.e. `rtt_ms`.
fn two_flows(rtt_ms: [f64; 2], transport: serde_json::Value, stop_s: f64, interval_ms: f64) -> serde_json::Value {
    json!({
        "stop_s": stop_s,
        "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e9, "access_bps": 10e9,
                    "bottleneck_delay_ms": 1.0, "access_delay_ms": [rtt_ms[0] / 2.0 - 1.0, rtt_ms[1] / 2.0 - 1.0],
                    "buffer_pkts": 100000},
        "transport": transport,
        "flows": [{"sender": 0, "long_lived": true}, {"sender": 1, "long_lived": true}],
        "metrics": {"interval_ms": interval_ms, "cwnd_flows": [0, 1], "links": []}
    })
}

/// Eq. 3: delta = (r_b / r_a) 2^(t/r_a - t/r_b). In packets the window
/// doubles once per round: after the handshake (one RTT) the first window's
/// ACKs return at 2 r, so at time t a flow has completed floor(t / r) - 1
/// rounds and cwnd = w0 2^(floor(t/r) - 1) (between bursts: a round's ACKs
/// come back within w x 0.83 us at 10 Gb/s). The measured ratio is therefore
/// (r_b / r_a) 2^(floor(t/r_a) - floor(t/r_b)), which is within a factor 2 of
/// eq. 3 either way.
#[test]
fn newreno_slow_start_ratio_is_equation_3_up_to_whole_rounds() {
    let (ra, rb) = (20.0f64, 60.0f64);
    let out = run_json(&two_flows(
        [ra, rb],
        json!({"scheme": "tcp-newreno", "init_cwnd_pkts": 2}),
        0.25,
        1.0,
    ));
    assert_eq!(out.counters.data_dropped, 0);
    let (a, b) = (cwnd(&out, 0), cwnd(&out, 1));
    let mut checked = 0;
    for t_ms in 130..=240u64 {
        let t = t_ms as f64;
        // Stay clear of round boundaries (bursts and serialisation).
        let clear = |r: f64| ((t / r).fract() - 0.5).abs() < 0.4;
        if !(clear(ra) && clear(rb)) {
            continue;
        }
        let (wa, wb) = (at(&a, t_ms * 1_000_000), at(&b, t_ms * 1_000_000));
        assert_eq!(wa, 2.0 * ((t / ra).floor() - 1.0).exp2(), "flow a at {t_ms} ms");
        assert_eq!(wb, 2.0 * ((t / rb).floor() - 1.0).exp2(), "flow b at {t_ms} ms");
        let measured = (wa / ra) / (wb / rb);
        let discrete = rb / ra * ((t / ra).floor() - (t / rb).floor()).exp2();
        let eq3 = rb / ra * (t / ra - t / rb).exp2();
        assert!(
            (measured / discrete - 1.0).abs() < 1e-9,
            "t = {t_ms}: {measured} vs {discrete}"
        );
        assert!(
            measured / eq3 < 2.0 && eq3 / measured < 2.0,
            "t = {t_ms}: {measured} vs eq. 3 {eq3}"
        );
        checked += 1;
    }
    assert!(checked > 30, "{checked} sample times checked");
}

/// Tarheel without queuing (q = 0): every flow's window is s times REF's, so
/// cwnd / r is REF's throughput. In slow start the window reaches SST = s
/// SST_ref after ceil(L / s) of its rounds, L = log2(SST_ref / w0_ref), i.e.
/// after L r_ref of time and at most one round r more; with the handshake
/// (one r) flow i enters congestion avoidance at t_i in
/// [r_i + L r_ref, 2 r_i + L r_ref]. From there cwnd / r = (SST_ref + (t - t_i)
/// / r_ref) / r_ref (eq. 13), so two flows differ by at most
/// |t_a - t_b| / r_ref^2 <= (2 r_b - r_a) / r_ref^2 packets per second.
/// NewReno with the same window and threshold misses that bound by far.
#[test]
fn tarheel_flows_with_different_rtts_get_equal_throughput() {
    let (ra, rb, rref) = (20.0f64, 80.0f64, 40.0f64);
    let tarheel = json!({"scheme": "tcp-tarheel", "init_cwnd_pkts": 4,
                         "tarheel": {"ref_rtt_ms": rref, "ssthresh_ref_pkts": 32, "queue_delay": "none"}});
    let out = run_json(&two_flows([ra, rb], tarheel, 3.0, 10.0));
    assert_eq!(out.counters.data_dropped, 0);
    let (a, b) = (cwnd(&out, 0), cwnd(&out, 1));
    // Eq. 7: w0 = 4 x 20/40 = 2 and 4 x 80/40 = 8 (after the handshake, before the first ACK).
    assert!((at(&a, 30_000_000) - 2.0).abs() < 0.01, "{}", at(&a, 30_000_000));
    assert!((at(&b, 100_000_000) - 8.0).abs() < 0.01, "{}", at(&b, 100_000_000));
    let bound = (2.0 * rb - ra) / 1e3 / (rref / 1e3).powi(2); // packets per second
    for t_ms in [1000u64, 2000, 3000] {
        let ta = at(&a, t_ms * 1_000_000) / (ra / 1e3);
        let tb = at(&b, t_ms * 1_000_000) / (rb / 1e3);
        let reference = (32.0 + (t_ms as f64 / 1e3 - 0.2) / (rref / 1e3)) / (rref / 1e3);
        assert!(
            (ta - tb).abs() <= bound,
            "t = {t_ms} ms: {ta:.1} vs {tb:.1} pkts/s (bound {bound:.1})"
        );
        assert!(
            (ta / reference - 1.0).abs() < 0.1 && (tb / reference - 1.0).abs() < 0.1,
            "REF {reference:.1}"
        );
    }
    let newreno = json!({"scheme": "tcp-newreno", "init_cwnd_pkts": 4, "init_ssthresh_pkts": 32});
    let out = run_json(&two_flows([ra, rb], newreno, 3.0, 10.0));
    let (a, b) = (cwnd(&out, 0), cwnd(&out, 1));
    let ta = at(&a, 3_000_000_000) / (ra / 1e3);
    let tb = at(&b, 3_000_000_000) / (rb / 1e3);
    assert!(ta - tb > 10.0 * bound, "NewReno {ta:.1} vs {tb:.1}");
}

/// Tarheel's oracle reaches the controller: on a loaded bottleneck a flow
/// whose q comes from the oracle and one using RTT - min RTT run differently,
/// both complete, and the run is deterministic.
#[test]
fn oracle_and_end_to_end_runs_differ_and_repeat() {
    let sc = |mode: &str| {
        json!({
            "seed": 1,
            "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 20e6, "bottleneck_delay_ms": 5,
                        "access_delay_ms": [5, 20, 60], "buffer_pkts": 200, "queue": "sync-drop"},
            "transport": {"scheme": "tcp-tarheel", "tarheel": {"ref_rtt_ms": 50, "queue_delay": mode}},
            "flows": [{"sender": 0, "size_pkts": 3000}, {"sender": 1, "size_pkts": 3000}, {"sender": 2, "size_pkts": 3000}],
            "metrics": {"series": false}
        })
    };
    let fcts = |mode: &str| {
        run_json(&sc(mode))
            .flows
            .iter()
            .map(|f| f.fct_ns().expect("completed"))
            .collect::<Vec<_>>()
    };
    let (o, e) = (fcts("oracle"), fcts("end-to-end"));
    assert_eq!(o, fcts("oracle"));
    assert_ne!(o, e);
}

//! Tahoe, Reno, HighSpeed TCP and Scalable TCP: forced-loss hand traces, the
//! window growth of the high-speed variants against their formulas, bad input,
//! and the invariants on random scenarios with many drops.
//!
//! Hand-trace set-up (as tests/loss_recovery.rs): one flow on a single link of
//! 8.32 Mb/s, so a 1040 B data packet takes T = 1 ms exactly; d = 50 ms one
//! way; 40 B ACKs take Ta. No handshake, an ACK per packet, IW 4. D = T + 2d +
//! Ta is the time from a data packet starting serialisation to its ACK reaching
//! the sender (the reverse link never queues). Packet j of the first window
//! starts serialisation at jT and its ACK (cumulative ACK j + 1) arrives at jT + D.

mod common;
use common::{assert_invariants, flows, rfc6298_rto, run_json, ser};
use fctlab_core::from_json;
use rand::{Rng, SeedableRng};
use serde_json::json;

const RATE: f64 = 8.32e6;
const D_ONE_WAY: u64 = 50_000_000;

fn scenario(scheme: &str, n: u64, lost: &[u64]) -> serde_json::Value {
    let losses: Vec<_> = lost.iter().map(|&s| json!({"flow": 0, "seq": s})).collect();
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 50.0, "buffer_pkts": 1000},
        "transport": {"scheme": scheme, "init_cwnd_pkts": 4, "handshake": false, "min_rto_ms": 200.0},
        "flows": [{"size_pkts": n}],
        "losses": losses,
        "metrics": {"series": false}
    })
}

/// (T, Ta, d, D) of the hand-trace set-up.
fn times() -> (u64, u64, u64, u64) {
    let t = ser(1040, RATE);
    let ta = ser(40, RATE);
    assert_eq!(t, 1_000_000);
    (t, ta, D_ONE_WAY, t + 2 * D_ONE_WAY + ta)
}

// The first part of every single-loss trace below (12 packets, packet 2's first
// copy lost) is common to all schemes (slow start, ssthresh infinite):
//   0          send 0,1,2,3 at 0, T, 2T, 3T
//   D          ACK 1: cwnd 5, send 4,5 at D, D+T
//   D+T        ACK 2: cwnd 6, send 6,7 at D+2T, D+3T
//   D+3T, 2D   dupACKs 1 and 2 (from 3 and 4)
//   2D+T       dupACK 3 (from 5): FlightSize = 8 - 2 = 6, ssthresh = 3 for every
//              scheme here (6 is below HSTCP's 38 and Scalable's 16 packets).

#[test]
fn tahoe_single_loss_hand_trace() {
    //   2D+T       Tahoe: cwnd = 1, go back to 2: retransmit 2 (link idle since D+4T)
    //   2D+2T, 2D+3T  dupACKs 4, 5: nothing (no fast recovery)
    //   3D+T       ACK 8 (the receiver holds 3..7): slow start, cwnd 2; send 8, 9
    //              at 3D+T, 3D+2T (snd_nxt jumps to 8: nothing is resent)
    //   4D+T       ACK 9: cwnd 3; 1 out -> send 10, 11 at 4D+T, 4D+2T
    //   4D+3T+d    packet 11 reaches the receiver: complete.
    // The RTO (armed at D+T, at least 200 ms) cannot fire first: 3D+T - (D+T) = 2D
    // but its RTO from samples D, D+T is 2.5 D + 1.1 T > 2D.
    let (t, ta, d, dd) = times();
    let f = &flows(&scenario("tcp-tahoe", 12, &[2]))[0];
    assert_eq!((f.retransmits, f.drops), (1, 1));
    assert_eq!(f.fct_ns(), Some(4 * dd + 3 * t + d));
    assert_eq!(f.acked_ns, Some(4 * dd + 3 * t + d + ta + d));
}

#[test]
fn reno_single_loss_equals_newreno() {
    //   2D+T       Reno: retransmit 2, cwnd = ssthresh + 3 = 6 (6 out: nothing new)
    //   2D+2T      dupACK 4: cwnd 7 -> send 8;  2D+3T  dupACK 5: cwnd 8 -> send 9
    //   3D+T       ACK 8 (new): Reno deflates to ssthresh 3 and leaves recovery;
    //              2 out (8, 9) -> send 10
    //   3D+2T      ACK 9: congestion avoidance, cwnd 3 + 1/3; 2 out -> send 11
    //   3D+3T+d    packet 11 arrives: the same FCT as NewReno's trace in
    //              loss_recovery.rs (NewReno's full ACK gives min(3, 2 + 1) = 3 too).
    // HSTCP (window below Low_Window 38) and Scalable (below 16) are standard TCP
    // here and run NewReno recovery, so all four give the same time.
    let (t, ta, d, dd) = times();
    for scheme in ["tcp-reno", "tcp-newreno", "tcp-hstcp", "tcp-scalable"] {
        let f = &flows(&scenario(scheme, 12, &[2]))[0];
        assert_eq!((f.retransmits, f.drops), (1, 1), "{scheme}");
        assert_eq!(f.fct_ns(), Some(3 * dd + 3 * t + d), "{scheme}");
        assert_eq!(f.acked_ns, Some(3 * dd + 3 * t + d + ta + d), "{scheme}");
    }
}

#[test]
fn two_losses_in_one_window_newreno_recovers_reno_times_out() {
    // 9 packets (0..8); the first copies of 2 and 3 are lost.
    //   0, D, D+T  as above: 0..3 at 0..3T; 4,5 at D, D+T; 6,7 at D+2T, D+3T
    //   2D, 2D+T   dupACKs 1, 2 (from 4, 5)
    //   2D+2T      dupACK 3 (from 6): FlightSize 8 - 2 = 6 -> ssthresh 3, recover = 8;
    //              retransmit 2; cwnd = 3 + 3 = 6 (6 out)
    //   2D+3T      dupACK 4 (from 7): cwnd 7 -> send 8 (the last packet)
    //   3D+2T      ACK 3 (the retransmitted 2; 3 is still missing):
    //     NewReno: partial ACK (3 < recover 8): retransmit 3 at once; it arrives
    //              at 3D+3T+d and completes the flow.
    //     Reno:    a new ACK ends recovery: cwnd = 3 with 6 out (3..8), nothing to
    //              send; only packet 8's ACK (3D+3T) follows: 1 dupACK, not 3. So
    //              no second fast retransmit: the RTO, restarted by this ACK at
    //              3D+2T, fires at 3D+2T+RTO and resends 3, which arrives T + d later.
    //              RTT samples: ACK 1 at D (packet 0 stamped at 0), ACK 2 at D+T
    //              (packet 1 also handed to the port at 0), ACK 3 at 3D+2T for the
    //              copy of 2 sent at 2D+2T: D. RTO = RFC 6298 over (D, D+T, D).
    //     Tahoe:   at 2D+2T cwnd = 1 and go back to 2; dupACK 4 does nothing (no
    //              window inflation, so packet 8 is not sent); ACK 3 at 3D+2T:
    //              cwnd 2, send 3 and 4 (4 needlessly: go-back-N); ACK 8 (the
    //              receiver holds 4..7) at 4D+2T: cwnd 3, send 8, which arrives at
    //              4D+3T+d: one round trip after NewReno, before Reno (RTO > D).
    let (t, _ta, d, dd) = times();
    let newreno = &flows(&scenario("tcp-newreno", 9, &[2, 3]))[0];
    assert_eq!((newreno.retransmits, newreno.drops), (2, 2));
    assert_eq!(newreno.fct_ns(), Some(3 * dd + 3 * t + d));

    let rto = rfc6298_rto(&[dd, dd + t, dd]);
    assert!(rto > 200_000_000, "the RTO is the estimator's, not the floor: {rto}");
    let reno = &flows(&scenario("tcp-reno", 9, &[2, 3]))[0];
    assert_eq!((reno.retransmits, reno.drops), (2, 2));
    assert_eq!(reno.fct_ns(), Some(3 * dd + 2 * t + rto + t + d));
    assert_eq!(reno.fct_ns().unwrap() - newreno.fct_ns().unwrap(), rto);

    let tahoe = &flows(&scenario("tcp-tahoe", 9, &[2, 3]))[0];
    assert_eq!((tahoe.retransmits, tahoe.drops), (3, 2));
    assert_eq!(tahoe.fct_ns(), Some(4 * dd + 3 * t + d));
    assert!(rto > dd);
}

// ---------------------------------------------------------------------------
// Window growth of the high-speed variants, end to end.
//
// One long-lived flow on 1 Gb/s with d = 50 ms and a 100 000-packet buffer (no
// drops). A forced loss of packet 1000 ends slow start; NewReno recovery leaves
// congestion avoidance at some window w_a (read from the cwnd series). The
// window stays far below the 12 000-packet BDP, so the flow is window-limited
// and every round trip of R = 2d + T + Ta delivers cwnd ACKs: the fluid law is
// dw/dt = (per-ACK increase) x w / R.
//   HSTCP:    per ACK a(w)/w   -> dw/dt = a(w) / R   (RFC 3649: a(w) per RTT)
//   Scalable: per ACK a = 0.01 -> dw/dt = 0.01 w / R, so w_b = w_a e^{0.01 (t_b - t_a)/R}
// Samples are taken every 100 ms; the ACKs of a round arrive in a burst, so a
// sample can be off by up to one round's growth (~1%): allow 2%.

fn long_lived(scheme: &str, table: Option<(&str, serde_json::Value)>) -> (Vec<u64>, Vec<f64>) {
    let mut v = json!({
        "stop_s": 16.0,
        "network": {"topology": "single-link", "bottleneck_bps": 1e9, "bottleneck_delay_ms": 50.0, "buffer_pkts": 100000},
        "transport": {"scheme": scheme, "init_cwnd_pkts": 10, "handshake": false},
        "flows": [{"long_lived": true}],
        "losses": [{"flow": 0, "seq": 1000}],
        "metrics": {"interval_ms": 100.0, "cwnd_flows": [0], "links": [], "ps_fct": false}
    });
    if let Some((k, t)) = table {
        v["transport"][k] = t;
    }
    let out = run_json(&v);
    assert_eq!(out.flows[0].drops, 1, "only the forced loss");
    let s = &out.series;
    let m = s.metric_names.iter().position(|n| n == "cwnd_pkts").unwrap() as u16;
    let (mut ts, mut ws) = (Vec::new(), Vec::new());
    for i in 0..s.t_ns.len() {
        if s.metric[i] == m {
            ts.push(s.t_ns[i]);
            ws.push(s.value[i]);
        }
    }
    (ts, ws)
}

fn at(ts: &[u64], ws: &[f64], t_ns: u64) -> f64 {
    ws[ts.iter().position(|&t| t == t_ns).expect("a sample at that time")]
}

fn rtt_1g() -> f64 {
    (2 * D_ONE_WAY + ser(1040, 1e9) + ser(40, 1e9)) as f64 / 1e9
}

/// RFC 3649 section 5 written out, for the default constants and ns-2's Low_P.
fn hstcp_a(w: f64, low_window: f64) -> f64 {
    if w <= low_window {
        return 1.0;
    }
    let low_p = 1.5 / (low_window * low_window);
    let x = (w.ln() - low_window.ln()) / (83000f64.ln() - low_window.ln());
    let b = (0.1 - 0.5) * x + 0.5;
    let p = (low_p.ln() + x * (1e-7f64.ln() - low_p.ln())).exp();
    w * w * p * 2.0 * b / (2.0 - b)
}

/// Integrate dw/dt = a(w)/R with fourth-order Runge-Kutta.
fn hstcp_fluid(w0: f64, secs: f64, r: f64, low_window: f64) -> f64 {
    let f = |w: f64| hstcp_a(w, low_window) / r;
    let n = 10_000;
    let h = secs / n as f64;
    let mut w = w0;
    for _ in 0..n {
        let k1 = f(w);
        let k2 = f(w + h * k1 / 2.0);
        let k3 = f(w + h * k2 / 2.0);
        let k4 = f(w + h * k3);
        w += h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0;
    }
    w
}

#[test]
fn hstcp_grows_by_a_of_w_per_round_trip() {
    let (ts, ws) = long_lived("tcp-hstcp", None);
    let (ta, tb) = (4_000_000_000u64, 14_000_000_000u64);
    let (wa, wb) = (at(&ts, &ws, ta), at(&ts, &ws, tb));
    assert!(
        wa > 200.0 && wb < 6000.0,
        "w_a {wa}, w_b {wb}: outside the intended regime"
    );
    let expect = hstcp_fluid(wa, 10.0, rtt_1g(), 38.0);
    assert!(
        ((wb - wa) / (expect - wa) - 1.0).abs() < 0.02,
        "grew {} (from {wa}), the RFC law gives {}",
        wb - wa,
        expect - wa
    );
    // Standard TCP would add one packet per round trip: about 100 in 10 s.
    assert!(wb - wa > 5.0 * 100.0);
    // With a larger Low_Window the growth is smaller (a(w) = 1 up to it).
    let (ts2, ws2) = long_lived(
        "tcp-hstcp",
        Some((
            "hstcp",
            json!({"low_window": 100000.0, "high_window": 200000.0, "high_p": 1e-11}),
        )),
    );
    let (wa2, wb2) = (at(&ts2, &ws2, ta), at(&ts2, &ws2, tb));
    let rounds = 10.0 / rtt_1g();
    assert!(
        (wb2 - wa2 - rounds).abs() < 0.02 * rounds,
        "standard AIMD below Low_Window: {}",
        wb2 - wa2
    );
}

#[test]
fn scalable_grows_one_percent_per_round_trip() {
    let (ts, ws) = long_lived("tcp-scalable", None);
    let (ta, tb) = (3_000_000_000u64, 11_000_000_000u64);
    let (wa, wb) = (at(&ts, &ws, ta), at(&ts, &ws, tb));
    assert!(
        wa > 100.0 && wb < 8000.0,
        "w_a {wa}, w_b {wb}: outside the intended regime"
    );
    let expect = 0.01 * 8.0 / rtt_1g();
    let got = (wb / wa).ln();
    assert!(
        (got / expect - 1.0).abs() < 0.02,
        "ln(w_b/w_a) = {got}, Kelly's law gives {expect}"
    );
    // a = 0.02 doubles the exponent.
    let (ts2, ws2) = long_lived("tcp-scalable", Some(("scalable", json!({"a": 0.02}))));
    let got2 = (at(&ts2, &ws2, 3_000_000_000) / at(&ts2, &ws2, 6_000_000_000)).ln();
    let expect2 = -0.02 * 3.0 / rtt_1g();
    assert!((got2 / expect2 - 1.0).abs() < 0.02, "a = 0.02: {got2} vs {expect2}");
}

// ---------------------------------------------------------------------------
// Bad input.

fn refused(v: serde_json::Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

fn with_table(scheme: &str, key: &str, t: serde_json::Value) -> serde_json::Value {
    json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}],
           "transport": {"scheme": scheme, key: t}})
}

#[test]
fn scheme_tables_are_checked() {
    // Good tables are accepted.
    assert!(from_json(&with_table("tcp-hstcp", "hstcp", json!({"low_window": 20, "low_p": 1e-3})).to_string()).is_ok());
    assert!(from_json(
        &with_table(
            "tcp-scalable",
            "scalable",
            json!({"a": 0.02, "b": 0.25, "low_window": 0})
        )
        .to_string()
    )
    .is_ok());
    // Unknown key: named, with the allowed ones.
    let (field, msg) = refused(with_table("tcp-hstcp", "hstcp", json!({"low_windw": 20})));
    assert!(field.starts_with("transport.hstcp"), "{field}");
    assert!(msg.contains("unknown key") && msg.contains("low_window"), "{msg}");
    let (field, msg) = refused(with_table("tcp-scalable", "scalable", json!({"alpha": 0.1})));
    assert!(field.starts_with("transport.scalable"), "{field}");
    assert!(msg.contains("unknown key") && msg.contains("low_window"), "{msg}");
    // Wrong type.
    assert_eq!(
        refused(with_table("tcp-hstcp", "hstcp", json!({"high_p": "small"}))).0,
        "transport.hstcp.high_p"
    );
    // Out of range: named key, the allowed range and the value.
    let (field, msg) = refused(with_table("tcp-hstcp", "hstcp", json!({"high_p": 0.5})));
    assert_eq!(field, "transport.hstcp.high_p");
    assert!(msg.contains("(0, low_p)") && msg.contains("0.5"), "{msg}");
    assert_eq!(
        refused(with_table("tcp-hstcp", "hstcp", json!({"high_window": 10}))).0,
        "transport.hstcp.high_window"
    );
    assert_eq!(
        refused(with_table("tcp-hstcp", "hstcp", json!({"high_decrease": 0.7}))).0,
        "transport.hstcp.high_decrease"
    );
    let (field, msg) = refused(with_table("tcp-scalable", "scalable", json!({"b": 1.5})));
    assert_eq!(field, "transport.scalable.b");
    assert!(msg.contains("(0, 1)") && msg.contains("1.5"), "{msg}");
    assert_eq!(
        refused(with_table("tcp-scalable", "scalable", json!({"a": -0.01}))).0,
        "transport.scalable.a"
    );
    // A table for a scheme not in use is refused.
    for (scheme, key) in [
        ("tcp-newreno", "hstcp"),
        ("tcp-reno", "scalable"),
        ("tcp-scalable", "hstcp"),
        ("tcp-hstcp", "scalable"),
    ] {
        let (field, msg) = refused(with_table(scheme, key, json!({})));
        assert_eq!(field, format!("transport.{key}"));
        assert!(msg.contains(scheme), "{msg}");
    }
}

// ---------------------------------------------------------------------------
// Invariants on random scenarios with small buffers (many drops), per scheme.

fn random_scenario(r: &mut rand_pcg::Pcg64Mcg, scheme: &str, seed: u64) -> serde_json::Value {
    let mut v = common::random_scenario(r, seed, 25);
    let transport = &mut v["transport"];
    transport["scheme"] = json!(scheme);
    // Low legacy windows half the time, so the high-speed laws act at small windows too.
    if scheme == "tcp-hstcp" && r.random_bool(0.5) {
        transport["hstcp"] = json!({"low_window": r.random_range(2.0..38.0)});
    }
    if scheme == "tcp-scalable" && r.random_bool(0.5) {
        transport["scalable"] = json!({"low_window": r.random_range(0.0..16.0)});
    }
    v
}

#[test]
fn random_scenarios_keep_the_invariants_for_every_variant() {
    for (k, scheme) in ["tcp-tahoe", "tcp-reno", "tcp-hstcp", "tcp-scalable"]
        .into_iter()
        .enumerate()
    {
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(100 + k as u64);
        let (mut drops, mut retx) = (0, 0);
        for case in 0..8 {
            let v = random_scenario(&mut r, scheme, case);
            let (d, x) = assert_invariants(&v, &run_json(&v), &format!("{scheme} case {case}"));
            drops += d;
            retx += x;
        }
        // The cases must exercise loss recovery for the checks to mean anything.
        assert!(drops > 200 && retx > 200, "{scheme}: drops {drops}, retransmits {retx}");
    }
}

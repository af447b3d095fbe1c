//! CUBIC, DCTCP, Vegas and BBR end to end, against what their papers and RFCs
//! predict, and the ECN-threshold queue they (DCTCP) need.

mod common;
use common::run_json;
use fctlab_core::from_json;
use serde_json::{json, Value};

/// Samples of `metric` on the bottleneck after `from_ns`.
fn samples(out: &fctlab_core::RunOutput, metric: &str, from_ns: u64) -> Vec<f64> {
    let s = &out.series;
    let Some(m) = s.metric_names.iter().position(|n| n == metric) else {
        return vec![];
    };
    (0..s.len())
        .filter(|&i| s.metric[i] == m as u16 && s.t_ns[i] >= from_ns)
        .map(|i| s.value[i])
        .collect()
}

/// `senders` long-lived flows of `scheme` over a 1 Gb/s dumbbell: bottleneck
/// delay 20 us, access 10 us, so a base RTT of 2 x 30 us plus serialisation;
/// a 300-packet buffer behind `queue`.
fn dumbbell(scheme: &str, senders: u32, queue: Value, stop_s: f64) -> Value {
    let mut net = json!({"topology": "dumbbell", "senders": senders, "bottleneck_bps": 1e9,
        "bottleneck_delay_ms": 0.02, "access_delay_ms": 0.01, "access_bps": 10e9, "buffer_pkts": 300});
    for (k, v) in queue.as_object().unwrap() {
        net[k] = v.clone();
    }
    json!({
        "seed": 1,
        "stop_s": stop_s,
        "network": net,
        "transport": {"scheme": scheme},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 0.1, "links": ["bottleneck"]}
    })
}

#[test]
fn dctcp_holds_the_queue_near_k_without_loss_or_idling() {
    // Alizadeh et al. 2010 sec. 3.3: the queue peaks at K + N and its
    // oscillation has amplitude A = sqrt(2N(C RTT + K)) / 2, here about 4.5
    // packets (C RTT about 8 packets, K 20, N 2): it never empties.
    let k = 20.0;
    let n = 2.0;
    let out = run_json(&dumbbell(
        "tcp-dctcp",
        2,
        json!({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 20}}),
        1.0,
    ));
    assert_eq!(out.counters.packets_dropped, 0);
    assert!(out.counters.marks > 100, "{} marks", out.counters.marks);
    let q = samples(&out, "queue_pkts", 200_000_000);
    assert!(q.len() > 5000);
    let max = q.iter().cloned().fold(0.0, f64::max);
    let min = q.iter().cloned().fold(f64::MAX, f64::min);
    assert!(max <= k + n + 2.0, "queue peaked at {max}");
    assert!(min >= 1.0 && min <= k, "queue fell to {min}");
    // The same with NewReno fills the 300-packet buffer and loses.
    let out = run_json(&dumbbell(
        "tcp-newreno",
        2,
        json!({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 20}}),
        1.0,
    ));
    assert!(out.counters.packets_dropped > 0);
}

#[test]
fn dctcp_with_delayed_acks_still_holds_the_queue() {
    let mut s = dumbbell(
        "tcp-dctcp",
        2,
        json!({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 20}}),
        1.0,
    );
    s["transport"]["delayed_ack"] = json!(true);
    let out = run_json(&s);
    assert_eq!(out.counters.packets_dropped, 0);
    let q = samples(&out, "queue_pkts", 200_000_000);
    let max = q.iter().cloned().fold(0.0, f64::max);
    let min = q.iter().cloned().fold(f64::MAX, f64::min);
    // One ACK per two packets: each window step can let two more packets in.
    assert!(max <= 20.0 + 2.0 * 2.0 + 2.0, "queue peaked at {max}");
    assert!(min >= 1.0, "queue fell to {min}");
}

#[test]
fn ecn_threshold_k_at_or_above_the_buffer_is_refused() {
    let s = dumbbell(
        "tcp-dctcp",
        1,
        json!({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 300}}),
        0.1,
    );
    let Err(e) = from_json(&s.to_string()) else {
        panic!("K = 300 with a 300-packet buffer was accepted")
    };
    assert_eq!(e.field, "network.ecn-threshold.k_pkts");
    assert!(e.message.contains("300 packets"), "{}", e.message);
}

/// One long-lived flow over 100 Mb/s with a base RTT of 20 ms (240 packets)
/// and a 5000-packet buffer.
fn cubic_path(hystart: bool) -> Value {
    json!({
        "seed": 1,
        "stop_s": 3.0,
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 100e6,
            "bottleneck_delay_ms": 5.0, "access_delay_ms": 5.0, "buffer_pkts": 5000},
        "transport": {"scheme": "tcp-cubic", "cubic": {"hystart": hystart}},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 1.0, "links": ["bottleneck"]}
    })
}

#[test]
fn cubic_with_hystart_leaves_slow_start_before_the_buffer_overflows() {
    // RFC 9406 (per round, the minimum of the RTT samples against last
    // round's plus RttThresh = 4 ms, 50 packets of queue): slow start's
    // rounds double the window, and the first round sent wholly into a
    // standing queue (the one starting at 1024 packets, four times the 240
    // the path holds without queue) shows a rise of hundreds of packets, so
    // CSS begins at about 1030 packets. Its rounds grow the window by a
    // quarter each (1030 x 1.25^6 is 3930 even counting a partial round),
    // below the 5240 packets the path and buffer hold. Without HyStart++
    // slow start doubles past them.
    let on = run_json(&cubic_path(true));
    assert_eq!(on.counters.packets_dropped, 0);
    let q = samples(&on, "queue_pkts", 0);
    let max = q.iter().cloned().fold(0.0, f64::max);
    assert!(max > 50.0 && max < 5000.0, "queue peaked at {max}");
    let off = run_json(&cubic_path(false));
    assert!(off.counters.packets_dropped > 0);
}

#[test]
fn vegas_keeps_alpha_to_beta_packets_queued_per_flow() {
    // Brakmo & Peterson 1995: each flow holds between alpha = 2 and beta = 4
    // packets in the bottleneck queue. 100 Mb/s, 20 ms base RTT, a deep
    // droptail buffer that Reno would fill.
    for n in [1u32, 2] {
        let s = json!({
            "seed": 1,
            "stop_s": 20.0,
            "network": {"topology": "dumbbell", "senders": n, "bottleneck_bps": 100e6,
                "bottleneck_delay_ms": 5.0, "access_delay_ms": 5.0, "buffer_pkts": 1000},
            "transport": {"scheme": "tcp-vegas"},
            "traffic": [{"arrivals": "long-lived"}],
            "metrics": {"interval_ms": 1.0, "links": ["bottleneck"]}
        });
        let out = run_json(&s);
        assert_eq!(out.counters.packets_dropped, 0);
        let q = samples(&out, "queue_pkts", 10_000_000_000);
        let mean = q.iter().sum::<f64>() / q.len() as f64;
        let n = n as f64;
        assert!(
            mean >= 2.0 * n - 1.0 && mean <= 4.0 * n + 1.0,
            "{n} flows: mean queue {mean}"
        );
    }
}

/// One long-lived flow of `scheme` over 100 Mb/s with 10 ms of delay each
/// way (5 ms access, 5 ms bottleneck), 10 Gb/s access links, 1000-byte
/// segments in 1040-byte packets and a 1000-packet buffer.
fn empty_path(scheme: &str, stop_s: f64) -> Value {
    json!({
        "seed": 1,
        "stop_s": stop_s,
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 100e6, "access_bps": 10e9,
            "bottleneck_delay_ms": 5.0, "access_delay_ms": 5.0, "buffer_pkts": 1000},
        "transport": {"scheme": scheme, "mss_bytes": 1000, "header_bytes": 40},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": 1.0, "links": ["bottleneck"], "cwnd_flows": [0]}
    })
}

/// The sampled values of a per-flow metric, with their times.
fn flow_series(out: &fctlab_core::RunOutput, metric: &str) -> Vec<(u64, f64)> {
    let s = &out.series;
    let Some(m) = s.metric_names.iter().position(|n| n == metric) else {
        return vec![];
    };
    (0..s.len())
        .filter(|&i| s.metric[i] == m as u16)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

#[test]
fn bbr_estimates_the_bottleneck_rate_and_the_propagation_rtt_on_an_empty_path() {
    // The bottleneck carries 100e6 / (8 x 1040) = 12,019.2 packets/s. The
    // least RTT is the handshake's (Linux's BBR starts from tcp_min_rtt,
    // which the SYN-ACK sets): the propagation (20 ms) plus a 40-byte SYN's
    // and SYN-ACK's serialisation on the access, bottleneck and egress links
    // (2 x (0.032 + 3.2 + 0.032) us): 20.006528 ms. No data packet's RTT
    // (83.2 us more at the bottleneck) is lower.
    let out = run_json(&empty_path("tcp-bbr", 3.0));
    let rate = 100e6 / (8.0 * 1040.0);
    let rtt_ms = 20.0 + 2.0 * (0.032 + 3.2 + 0.032) / 1e3;
    let bw = flow_series(&out, "model_bw_pps");
    let rtt = flow_series(&out, "model_min_rtt_ms");
    assert!(bw.len() > 2000 && rtt.len() == bw.len());
    for &(t, v) in bw.iter().filter(|(t, _)| *t >= 500_000_000) {
        assert!(
            (v / rate - 1.0).abs() < 0.005,
            "bandwidth {v} at {t} ns, the path's {rate}"
        );
    }
    for &(t, v) in &rtt {
        assert!(
            (v - rtt_ms).abs() < 1e-5,
            "min RTT {v} ms at {t} ns, the path's {rtt_ms}"
        );
    }
    assert_eq!(out.counters.packets_dropped, 0);
    // Pacing at the estimate keeps the queue to what the 5/4 phase adds: it
    // ends once 5/4 of the BDP (241.5 packets) is in flight, with Linux's
    // allowance of 3 x 14 segments (1 ms at the pacing rate of 1.25 x 0.99
    // x 12,019 x 1000 B/s) and 2, rounded up to even: 346 packets, a queue
    // of at most 105 (a window-limited NewReno would keep up to 1000).
    let q = samples(&out, "queue_pkts", 1_000_000_000);
    let max = q.iter().cloned().fold(0.0, f64::max);
    assert!(max > 0.2 * 241.5 && max <= 105.0, "queue peaked at {max}");
    let u = samples(&out, "utilization", 1_000_000_000);
    let mean = u.iter().sum::<f64>() / u.len() as f64;
    assert!(mean > 0.97, "utilisation {mean}");
}

#[test]
fn bbr_without_pacing_is_refused_naming_the_key() {
    let mut s = empty_path("tcp-bbr", 0.1);
    s["transport"]["pacing"] = json!(false);
    let Err(e) = from_json(&s.to_string()) else {
        panic!("tcp-bbr without pacing was accepted")
    };
    assert_eq!(e.field, "transport.pacing");
    s["transport"]["pacing"] = json!(true);
    assert!(from_json(&s.to_string()).is_ok());
}

#[test]
fn pacing_newreno_keeps_its_throughput_and_an_unpaced_run_is_unchanged() {
    // Paced at 120 % of cwnd / SRTT in congestion avoidance (from an
    // initial ssthresh of 200 packets, under the 241-packet BDP), NewReno
    // fills the path once its window passes the BDP, a packet per RTT
    // later: within 41 RTTs (0.9 s). The pacing keys at their defaults
    // leave a run as it was.
    let mut paced = empty_path("tcp-newreno", 3.0);
    paced["transport"]["pacing"] = json!(true);
    paced["transport"]["init_ssthresh_pkts"] = json!(200);
    let p = run_json(&paced);
    let u = samples(&p, "utilization", 1_500_000_000);
    let mean = u.iter().sum::<f64>() / u.len() as f64;
    assert!(mean > 0.99, "paced utilisation {mean}");
    assert_eq!(p.counters.packets_dropped, 0);
    let mut off = empty_path("tcp-newreno", 1.0);
    let a = run_json(&off);
    off["transport"]["pacing"] = json!(false);
    off["transport"]["pacing_ca_ratio"] = json!(150);
    let b = run_json(&off);
    assert_eq!(a.counters.packets_dropped, b.counters.packets_dropped);
    assert_eq!(samples(&a, "queue_pkts", 0), samples(&b, "queue_pkts", 0));
}

//! `utilization_pkts`, the utilisation as Mussmann 2012 counts it (section
//! 5.2: "the number of packets delivered during a second divided by 1250, the
//! maximum possible number of packets that can be delivered in a second"):
//! data packets that reached the far end of a link in the interval, over the
//! number of full-sized data packets (mss_bytes + header_bytes on the wire)
//! its line rate carries in an interval. Worked by hand for one closed-loop
//! sender on an empty single link.
//!
//! Flows of n packets with an initial window of n and no handshake: flow i
//! starts at s_i and sends its n packets back to back; packet j reaches the
//! receiver at s_i + (j + 1) T + d, its ACK is back at s_i + (j + 1) T + 2d +
//! Ta, and the next flow starts when the last ACK is back plus the think
//! time: s_{i+1} = s_i + n T + 2d + Ta + think. The sample at t counts the
//! arrivals in (t - interval, t].

mod common;
use common::{run_json, ser};
use serde_json::json;

fn case(n: u64, think_s: f64) {
    let (rate, d, interval, stop) = (10e6, 10_000_000u64, 100_000_000u64, 2_000_000_000u64);
    let (t, ta) = (ser(1040, rate), ser(40, rate));
    let v = json!({
        "stop_s": stop as f64 / 1e9,
        "network": {"topology": "single-link", "bottleneck_bps": rate, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "transport": {"init_cwnd_pkts": n, "handshake": false},
        "traffic": [{"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": n}, "think_s": think_s}],
        "metrics": {"interval_ms": 100.0, "utilization_pkts": true}
    });
    let out = run_json(&v);
    let s = &out.series;
    let m = s.metric_names.iter().position(|x| x == "utilization_pkts").unwrap() as u16;
    let e = s.element_names.iter().position(|x| x == "bottleneck").unwrap() as u32;
    let got: Vec<(u64, f64)> = (0..s.len())
        .filter(|&i| s.metric[i] == m && s.element[i] == e)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect();

    let period = n * t + 2 * d + ta + (think_s * 1e9).round() as u64;
    let arrivals: Vec<u64> = (0..)
        .map(|i| i * period)
        .take_while(|&s0| s0 < stop)
        .flat_map(|s0| (0..n).map(move |j| s0 + (j + 1) * t + d))
        .collect();
    let line = rate * (interval as f64 / 1e9) / (8.0 * 1040.0); // 120.19 packets per 100 ms
    let samples: Vec<u64> = (1..=stop / interval).map(|k| k * interval).collect();
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        samples,
        "one sample per interval after 0"
    );
    for (ts, value) in got {
        assert!(
            !arrivals.contains(&ts),
            "an arrival falls on a sample time: choose other numbers"
        );
        let count = arrivals.iter().filter(|&&a| a + interval > ts && a <= ts).count();
        assert!(
            (value - count as f64 / line).abs() < 1e-12,
            "n {n} think {think_s}: at {ts}: {value} vs {count} / {line}"
        );
    }
}

#[test]
fn one_closed_loop_sender_by_hand() {
    // n = 4: a period of 4 T + 2d + Ta = 23.36 ms, 4 packets each: about 17
    // packets per 100 ms, 0.143 of the 120.19 the line carries.
    case(4, 0.0);
    case(10, 0.0);
    case(3, 0.0137);
}

#[test]
fn it_needs_the_series_and_is_off_by_default() {
    let v = json!({
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
        "flows": [{"size_pkts": 30}],
        "metrics": {"series": false, "utilization_pkts": true}
    });
    let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
    assert_eq!(e.field, "metrics.utilization_pkts");
    let mut v = v.clone();
    v["metrics"] = json!({});
    let out = run_json(&v);
    let m = out
        .series
        .metric_names
        .iter()
        .position(|x| x == "utilization_pkts")
        .unwrap() as u16;
    assert!(!out.series.metric.contains(&m));
}

//! The retransmitted share of a link's busy time: the link counts the
//! serialisation time of packets their senders flag `RETX` (the link totals
//! of every run, and the `utilization_retx` series metric), checked against
//! the NewReno fast-retransmit hand trace of `loss_recovery.rs`.
//!
//! Set-up: one flow of 12 packets, IW 4, no handshake, on a single link of
//! 8.32 Mb/s (a 1040 B data packet takes T = 1 ms exactly), d = 50 ms one
//! way; the first copy of packet 2 is lost at the receiver (after crossing
//! the link). With D = T + 2d + Ta, the retransmission of packet 2 starts on
//! the wire at 2D + T (the third duplicate ACK) and takes T. The link carries
//! 13 data packets: 12 first copies and the one retransmission.

mod common;
use common::{run_json, ser};
use serde_json::json;

const RATE: f64 = 8.32e6;

fn scenario(interval_ms: f64, retx_series: bool) -> serde_json::Value {
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 50.0, "buffer_pkts": 1000},
        "transport": {"init_cwnd_pkts": 4, "handshake": false, "min_rto_ms": 200.0},
        "flows": [{"size_pkts": 12}],
        "losses": [{"flow": 0, "seq": 2}],
        "metrics": {"interval_ms": interval_ms, "utilization_retx": retx_series}
    })
}

fn series(out: &fctlab_core::RunOutput, metric: &str) -> Vec<(u64, f64)> {
    let s = &out.series;
    let Some(m) = s.metric_names.iter().position(|x| x == metric) else {
        return vec![];
    };
    let e = s.element_names.iter().position(|x| x == "bottleneck").unwrap() as u32;
    (0..s.len())
        .filter(|&i| s.metric[i] == m as u16 && s.element[i] == e)
        .map(|i| (s.t_ns[i], s.value[i]))
        .collect()
}

#[test]
fn link_totals_count_the_one_retransmission() {
    let t = ser(1040, RATE);
    assert_eq!(t, 1_000_000);
    let out = run_json(&scenario(10.0, false));
    assert_eq!(out.flows[0].retransmits, 1);
    let b = out
        .links
        .iter()
        .find(|l| l.name == "bottleneck")
        .expect("bottleneck totals");
    assert_eq!((b.pkts_sent, b.retx_pkts_sent), (13, 1));
    assert_eq!((b.busy_ns, b.retx_busy_ns), (13 * t, t));
    // The ACK link carries no retransmission.
    for l in out.links.iter().filter(|l| l.name != "bottleneck") {
        assert_eq!((l.retx_pkts_sent, l.retx_busy_ns), (0, 0), "{}", l.name);
    }
    // Off by default: no utilization_retx samples.
    assert!(series(&out, "utilization_retx").is_empty());
}

#[test]
fn the_series_puts_the_retransmission_in_its_interval() {
    let (t, ta, d) = (ser(1040, RATE), ser(40, RATE), 50_000_000u64);
    let big_d = t + 2 * d + ta;
    let (start, end) = (2 * big_d + t, 2 * big_d + 2 * t);
    // 10 ms samples: the retransmission [203.08, 204.08] ms lies inside (200, 210].
    let out = run_json(&scenario(10.0, true));
    let got = series(&out, "utilization_retx");
    assert!(!got.is_empty());
    for (ts, v) in &got {
        let want = if *ts == 210_000_000 { 0.1 } else { 0.0 };
        assert!((v - want).abs() < 1e-12, "at {ts}: {v} (want {want})");
    }
    // 0.5 ms samples: it straddles three; each gets the part sent in it.
    let out = run_json(&scenario(0.5, true));
    let iv = 500_000u64;
    for (ts, v) in series(&out, "utilization_retx") {
        let lo = ts - iv;
        let overlap = end.min(ts).saturating_sub(start.max(lo));
        let want = overlap as f64 / iv as f64;
        assert!((v - want).abs() < 1e-12, "at {ts}: {v} (want {want})");
    }
    // Never more than the whole utilisation of the same interval.
    let all = series(&out, "utilization");
    for ((t1, r), (t2, u)) in series(&out, "utilization_retx").iter().zip(all.iter()) {
        assert_eq!(t1, t2);
        assert!(r <= u, "at {t1}: retx {r} > busy {u}");
    }
}

#[test]
fn it_needs_the_series() {
    let mut v = scenario(10.0, true);
    v["metrics"]["series"] = json!(false);
    let e = fctlab_core::from_json(&v.to_string()).err().expect("refused");
    assert_eq!(e.field, "metrics.utilization_retx");
}

#[test]
fn drops_at_the_port_are_not_counted_and_totals_match_the_series() {
    // Many flows into 20 packets of buffer: retransmissions dropped at the
    // bottleneck port never reach its wire, so the link counts at most the
    // senders' retransmissions; every data packet is full-sized, so its busy
    // time is T per packet; and the series adds up to the total.
    let t = ser(1040, RATE);
    let v = json!({
        "seed": 3,
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 10.0, "buffer_pkts": 20},
        "transport": {"init_cwnd_pkts": 2, "handshake": false},
        "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "fixed", "pkts": 40}, "count": 300}],
        "metrics": {"interval_ms": 7.0, "utilization_retx": true}
    });
    let out = run_json(&v);
    let b = out.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let sent: u64 = out.flows.iter().map(|f| f.retransmits).sum();
    let dropped: u64 = out.flows.iter().map(|f| f.drops).sum();
    assert!(b.retx_pkts_sent > 0 && dropped > 0);
    assert!(b.retx_pkts_sent <= sent);
    assert_eq!(b.retx_busy_ns, b.retx_pkts_sent * t);
    let total: f64 = series(&out, "utilization_retx").iter().map(|x| x.1).sum::<f64>() * 7e6;
    assert!(
        (total - b.retx_busy_ns as f64).abs() < 1.0,
        "{total} vs {}",
        b.retx_busy_ns
    );
}

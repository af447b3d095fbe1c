//! RCP against processor sharing: N equal flows started together on an idle
//! RCP bottleneck.

mod common;
use common::run_json;
use serde_json::{json, Value};

/// One cell: N flows of `size` packets from one host over a single link of
/// rate `c`, RTT `rtt_ms` (one-way delay rtt/2), buffer 1 BDP, all starting
/// at `start_s`. Returns (mean, max) of fct / ps_fct and the packets dropped.
fn cell(n: u64, rtt_ms: f64, c: f64, start_s: f64, size: u64, rcp: Option<Value>) -> (f64, f64, u64) {
    let mut net = json!({"topology": "single-link", "senders": n, "bottleneck_bps": c, "bottleneck_delay_ms": rtt_ms / 2.0,
                         "buffer_pkts": buffer_rule(n, rtt_ms, c), "queue": "rcp"});
    if let Some(r) = rcp {
        net["rcp"] = r;
    }
    let flows: Vec<Value> = (0..n).map(|i| json!({"sender": i, "start_s": start_s, "size_pkts": size})).collect();
    let v = json!({"seed": 1, "network": net, "transport": {"scheme": "rcp"}, "flows": flows, "metrics": {"series": false}});
    let out = run_json(&v);
    let r: Vec<f64> = out.flows.iter().map(|f| f.fct_ns().expect("completed") as f64 / f.ps_fct_ns.unwrap() as f64).collect();
    (r.iter().sum::<f64>() / r.len() as f64, r.iter().cloned().fold(0.0, f64::max), out.counters.packets_dropped)
}

/// Buffer: 1 BDP (C x RTT in 1040-byte packets, rounded up), but at least
/// one packet per flow, so the N simultaneous SYNs fit.
fn buffer_rule(n: u64, rtt_ms: f64, c: f64) -> u64 {
    ((c * rtt_ms / 1e3 / 8320.0).ceil() as u64).max(n)
}

/// Flow size: 20 RTTs of the PS share C/N in 1040-byte packets, at most
/// 20,000/N packets (a cell's packet budget), at least 10.
fn size_rule(n: u64, rtt_ms: f64, c: f64) -> u64 {
    let share = 20.0 * c * rtt_ms / 1e3 / 8.0 / 1040.0 / n as f64;
    (share.min(20_000.0 / n as f64).floor() as u64).max(10)
}

#[test]
fn explore() {
    let rcp: Option<Value> = std::env::var("RCP").ok().map(|s| serde_json::from_str(&s).unwrap());
    let ns: Vec<u64> = std::env::var("NS").map(|s| s.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or(vec![1, 10, 100, 1000]);
    let mut bad = 0;
    for &n in &ns {
        for rtt in [1.0, 100.0, 1000.0] {
            for c in [1e6, 1e8, 1e11] {
                for start in [0.0, 10.0] {
                    let size = size_rule(n, rtt, c);
                    let t = std::time::Instant::now();
                    let (m, x, d) = cell(n, rtt, c, start, size, rcp.clone());
                    let flag = if x > 1.1 { bad += 1; " <--" } else { "" };
                    eprintln!("N={n:5} rtt={rtt:6}ms C={c:.0e} start={start:4} size={size:6}: mean {m:.3} max {x:.3} drops {d} ({:.2}s){flag}", t.elapsed().as_secs_f64());
                }
            }
        }
    }
    eprintln!("bad {bad}");
}

#[test]
fn debug_one() {
    let Ok(spec) = std::env::var("ONE") else { return };
    let p: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
    let (n, rtt, c, start) = (p[0] as u64, p[1], p[2], p[3]);
    let size = if p.len() > 4 { p[4] as u64 } else { size_rule(n, rtt, c) };
    let mut net = json!({"topology": "single-link", "senders": n, "bottleneck_bps": c, "bottleneck_delay_ms": rtt / 2.0, "buffer_bdp": 1.0, "queue": "rcp"});
    if let Ok(s) = std::env::var("RCP") { net["rcp"] = serde_json::from_str(&s).unwrap(); }
    let flows: Vec<Value> = (0..n).map(|i| json!({"sender": i, "start_s": start, "size_pkts": size})).collect();
    let v = json!({"seed": 1, "network": net, "transport": {"scheme": "rcp"}, "flows": flows, "metrics": {"interval_ms": rtt, "cwnd_flows": [0]}});
    let out = run_json(&v);
    eprintln!("{:?}", out.counters);
    for f in out.flows.iter().take(12) {
        eprintln!("flow {} fct {:.3} ms ps {:.3} ms retx {} drops {}", f.flow_id, f.fct_ns().unwrap() as f64 / 1e6, f.ps_fct_ns.unwrap() as f64 / 1e6, f.retransmits, f.drops);
    }
    let s = &out.series;
    let m = s.metric_names.iter().position(|x| x == "cwnd_pkts").unwrap() as u16;
    let q = s.metric_names.iter().position(|x| x == "queue_pkts").unwrap() as u16;
    let lim: usize = std::env::var("LIM").map(|x| x.parse().unwrap()).unwrap_or(40);
    let mut k = 0;
    for i in 0..s.len() {
        if (s.metric[i] == m || s.metric[i] == q) && s.t_ns[i] >= (start * 1e9) as u64 && k < lim {
            eprintln!("t {:.4} {} {} {:.3}", s.t_ns[i] as f64 / 1e9, s.metric_names[s.metric[i] as usize], s.element_names[s.element[i] as usize], s.value[i]);
            k += 1;
        }
    }
}

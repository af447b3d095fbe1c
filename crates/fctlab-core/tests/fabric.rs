//! Flows across the built-in fabrics against what can be derived without the
//! engine: a lone flow's FCT in closed form, the spread of ECMP's hash and of
//! sprayed packets, the incast's synchronised answers, the slowdown of a lone
//! flow, and fluid max-min on pinned equal-cost paths worked by hand.
//!
//! Fat-tree numbering (Al-Fares et al. 2008, as `net::topology::fabric`
//! documents it): host h under edge switch h / (k/2), k/2 edge switches per
//! pod, so on k = 4 hosts 0 and 1 share an edge switch (2 links apart), hosts
//! 0 and 2 a pod (4 links), hosts 0 and 15 are in different pods (6 links).

mod common;
use common::{run_json, ser, slow_start_arrivals};
use fctlab_core::RunOutput;
use serde_json::{json, Value};

const MSS: u64 = 1000;
const HDR: u64 = 40;

fn fat_tree(k: u32, delay_us: f64, routing: &str) -> Value {
    json!({"topology": "fat-tree", "routing": routing, "buffer_pkts": 10_000,
           "fat-tree": {"k": k, "host_bps": 10e9, "fabric_bps": 10e9, "link_delay_us": delay_us}})
}

fn transport(iw: u64, handshake: bool) -> Value {
    json!({"mss_bytes": MSS, "header_bytes": HDR, "init_cwnd_pkts": iw,
           "handshake": handshake, "delayed_ack": false})
}

/// One flow of `n` full packets from `src` to `dst`, alone on a k = 4 fat-tree.
fn lone(src: u32, dst: u32, n: u64, iw: u64, handshake: bool, delay_us: f64) -> RunOutput {
    run_json(&json!({
        "network": fat_tree(4, delay_us, "ecmp"),
        "transport": transport(iw, handshake),
        "flows": [{"src": src, "dst": dst, "size_pkts": n, "start_s": 0.0}],
    }))
}

/// The closed form of a lone flow of `n` full packets over `h` hops of equal
/// rate (data serialisation `t`, ACK serialisation `ta`, propagation `d` per
/// hop), slow start from window `w` with an ACK per packet, when each round's
/// window is serialised within a round trip: round j (w 2^j packets) leaves
/// back to back one round trip R = h (t + ta + 2 d) after round j - 1 began
/// (the ACK of its first packet releases it, two packets per ACK); the
/// handshake adds h (ta + d) each way. Packet p of round J arrives
/// t0 + J R + p t + h (t + d).
fn closed_form(n: u64, w: u64, h: u64, t: u64, ta: u64, d: u64, handshake: bool) -> u64 {
    let t0 = if handshake { 2 * h * (ta + d) } else { 0 };
    let round_trip = h * (t + ta + 2 * d);
    // Round J holds packets w (2^J - 1) .. w (2^{J+1} - 1) - 1.
    let last = n - 1;
    let mut j = 0;
    while w * ((1 << (j + 1)) - 1) <= last {
        j += 1;
    }
    assert!(
        w << j.max(1) >> 1 <= round_trip / t,
        "a round's window outlasts the round trip"
    );
    let p = last - w * ((1 << j) - 1);
    t0 + j * round_trip + p * t + h * (t + d)
}

#[test]
fn lone_flow_matches_the_closed_form_at_every_distance() {
    let (t, ta) = (ser(MSS + HDR, 10e9), ser(HDR, 10e9));
    // 10 us links: a round trip of 6 hops is 125 us, more than the 64-packet
    // round's 53 us of serialisation, so rounds do not overlap.
    let d = 10_000;
    for (dst, hops) in [(1u32, 2u64), (2, 4), (15, 6)] {
        for (n, w, hs) in [
            (1u64, 2u64, true),
            (2, 2, false),
            (3, 2, true),
            (100, 2, true),
            (100, 10, false),
            (37, 4, true),
        ] {
            let out = lone(0, dst, n, w, hs, 10.0);
            let f = &out.flows[0];
            assert_eq!(f.retransmits, 0);
            let want = closed_form(n, w, hops, t, ta, d, hs);
            assert_eq!(
                f.fct_ns(),
                Some(want),
                "dst {dst} ({hops} hops), n {n}, iw {w}, handshake {hs}"
            );
        }
    }
}

#[test]
fn lone_flow_follows_the_fifo_model_when_rounds_overlap() {
    // 1 us links: the windows outgrow the round trip and queue at the
    // sender's NIC; the FIFO hand model (common::slow_start_arrivals) still
    // gives every packet's arrival.
    for (dst, hops) in [(1u32, 2usize), (2, 4), (15, 6)] {
        let path = vec![(10e9, 1_000u64); hops];
        for (n, w, hs) in [(50u64, 2u64, true), (300, 10, false), (1000, 4, true)] {
            let out = lone(0, dst, n, w, hs, 1.0);
            let arrive = slow_start_arrivals(n, w, &path, &path, hs, MSS);
            assert_eq!(
                out.flows[0].fct_ns(),
                Some(arrive[n as usize - 1]),
                "dst {dst}, n {n}, iw {w}"
            );
        }
    }
}

#[test]
fn lone_flow_slowdown_is_one() {
    // No handshake and a window larger than the flow: every packet leaves back
    // to back, the line-rate ideal exactly, so acked - start = alone_ns and
    // finish - start = ideal_ns (slowdown 1). On equal-rate hops alone_ns is
    // (n - 1) T + h (T + d) + h (Ta + d) for full packets.
    let (t, ta, d) = (ser(MSS + HDR, 10e9), ser(HDR, 10e9), 1_000);
    for (dst, hops) in [(1u32, 2u64), (2, 4), (15, 6)] {
        for n in [1u64, 7, 64, 500] {
            let out = lone(0, dst, n, 1000, false, 1.0);
            let f = &out.flows[0];
            assert_eq!(f.alone_ns, (n - 1) * t + hops * (t + d) + hops * (ta + d));
            assert_eq!(f.acked_ns.unwrap() - f.start_ns, f.alone_ns, "dst {dst}, n {n}");
            assert_eq!(f.fct_ns(), Some(f.ideal_ns), "dst {dst}, n {n}");
        }
    }
    // A shorter last packet: still slowdown 1.
    let out = run_json(&json!({
        "network": fat_tree(4, 1.0, "ecmp"), "transport": transport(1000, false),
        "flows": [{"src": 3, "dst": 12, "size_bytes": 12_345, "start_s": 0.0}],
    }));
    let f = &out.flows[0];
    assert_eq!(f.acked_ns.unwrap() - f.start_ns, f.alone_ns);
}

/// Pearson's chi-square statistic of `counts` against equal expectations.
fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let e = total as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// The 0.999 quantile of chi-square with 15 degrees of freedom (tables,
/// e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
const CHI2_15_999: f64 = 37.697;

/// Packets sent on each aggregation-to-core link leaving aggregation switches
/// `aggs` (the one core link of each of the 16 paths out of a k = 8 pod).
fn core_uplinks(out: &RunOutput, aggs: std::ops::Range<u32>) -> Vec<u64> {
    let mut v = Vec::new();
    for a in aggs {
        let prefix = format!("a{a}-c");
        for l in &out.links {
            if l.name.starts_with(&prefix) && !l.name.ends_with("-rev") {
                v.push(l.pkts_sent);
            }
        }
    }
    assert_eq!(v.len(), 16);
    v
}

#[test]
fn ecmp_spreads_ten_thousand_flows_binomially() {
    // 10^4 one-packet flows from host 0 (pod 0) to host 127 (pod 7) of a k = 8
    // fat-tree: 16 equal-cost paths. Each path's count is Binomial(10^4, 1/16):
    // mean 625, sd sqrt(10^4 / 16 x 15 / 16) = 24.2; every count within 4.5 sd
    // and the counts' chi-square under its 0.999 quantile.
    let n = 10_000u64;
    let flows: Vec<Value> = (0..n)
        .map(|i| json!({"src": 0, "dst": 127, "size_pkts": 1, "start_s": i as f64 * 2e-6}))
        .collect();
    let out = run_json(&json!({
        "seed": 7, "network": fat_tree(8, 1.0, "ecmp"), "transport": transport(2, false), "flows": flows,
    }));
    let mut by_path = vec![0u64; 16];
    for f in &out.flows {
        assert!(f.completed());
        by_path[f.path.expect("ecmp keeps one path per flow") as usize] += 1;
    }
    let sd = (n as f64 / 16.0 * 15.0 / 16.0).sqrt();
    for (p, &c) in by_path.iter().enumerate() {
        assert!((c as f64 - 625.0).abs() < 4.5 * sd, "path {p}: {c} flows");
    }
    assert!(chi_square(&by_path) < CHI2_15_999, "{by_path:?}");
    // The data crossed exactly the core links of the paths recorded (one
    // packet per flow, no handshake): the same counts, link by link.
    let mut up = core_uplinks(&out, 0..4);
    let mut want = by_path.clone();
    up.sort_unstable();
    want.sort_unstable();
    assert_eq!(up, want);
    // The ACKs are hashed on their own in their direction: also binomial, and
    // not the data's assignment.
    let acks = core_uplinks(&out, 28..32);
    assert_eq!(acks.iter().sum::<u64>(), n);
    assert!(chi_square(&acks) < CHI2_15_999, "{acks:?}");
}

/// One flow of `n` packets from host 0 to host 127 of a k = 8 fat-tree,
/// sprayed `how`.
fn sprayed(n: u64, how: &str) -> RunOutput {
    let mut net = fat_tree(8, 1.0, "spray");
    net["spray"] = json!(how);
    run_json(&json!({
        "seed": 3, "network": net, "transport": transport(10_000, false),
        "flows": [{"src": 0, "dst": 127, "size_pkts": n, "start_s": 0.0}],
    }))
}

#[test]
fn spraying_round_robin_gives_every_path_the_same_count() {
    // Round-robin over 16 paths: 1,600 packets put exactly 100 on each core
    // link and 400 on each of the edge switch's 4 uplinks. The paths are of
    // equal length and the network empty, so nothing is reordered.
    let out = sprayed(1600, "round-robin");
    assert_eq!(out.flows[0].retransmits, 0);
    assert_eq!(core_uplinks(&out, 0..4), vec![100; 16]);
    for a in 0..4 {
        let l = out.links.iter().find(|l| l.name == format!("e0-a{a}")).unwrap();
        assert_eq!(l.pkts_sent, 400);
    }
    // The tiers, by busy time: 128 aggregation-core uplinks (32 switches, 4
    // each); 16 of them carry 100 data packets each (T each) and 16 others
    // 100 ACKs (Ta each, sprayed the same way out of pod 7), so the busiest
    // carries 100 T / (1600 (T + Ta) / 128) = 8 T / (T + Ta) times the mean;
    // of the 128 edge-aggregation uplinks 4 carry 400 data packets and 4
    // others 400 ACKs: 32 T / (T + Ta).
    let tier = |name: &str| out.tiers.iter().find(|t| t.tier == name).unwrap().clone();
    let (agg, edge) = (tier("agg-core"), tier("edge-agg"));
    assert_eq!((agg.links, edge.links), (128, 128));
    let (t, ta) = (ser(MSS + HDR, 10e9) as f64, ser(HDR, 10e9) as f64);
    assert!((agg.imbalance - 8.0 * t / (t + ta)).abs() < 1e-12, "{agg:?}");
    assert!((edge.imbalance - 32.0 * t / (t + ta)).abs() < 1e-12, "{edge:?}");
    let busy = 100.0 * t;
    assert!((agg.max_utilization - busy / out.end_ns as f64).abs() < 1e-12);
}

#[test]
fn spraying_at_random_is_multinomial() {
    // 16,000 packets, each on a path drawn uniformly: counts Binomial(16000,
    // 1/16), mean 1000, sd 30.6.
    let out = sprayed(16_000, "random");
    let counts = core_uplinks(&out, 0..4);
    assert_eq!(counts.iter().sum::<u64>(), 16_000);
    for &c in &counts {
        assert!((c as f64 - 1000.0).abs() < 4.5 * 30.6, "{counts:?}");
    }
    assert!(chi_square(&counts) < CHI2_15_999, "{counts:?}");
    assert!(
        counts.iter().any(|&c| c != 1000),
        "random spraying drew a perfect round robin"
    );
}

#[test]
fn incast_answers_start_together() {
    // Each query: fan_in distinct senders, none of them the receiver, all
    // starting at the query's instant; count queries make count x fan_in flows.
    for (fan_in, receiver) in [(8u32, None), (15, Some(5u32))] {
        let mut traffic = json!({"arrivals": "poisson", "load": 0.2, "matrix": "incast", "fan_in": fan_in,
                                 "count": 40, "sizes": {"dist": "fixed", "pkts": 20}});
        if let Some(r) = receiver {
            traffic["receiver"] = json!(r);
        }
        let out = run_json(&json!({
            "network": fat_tree(4, 1.0, "ecmp"), "transport": transport(10, true), "traffic": [traffic],
        }));
        assert_eq!(out.flows.len(), 40 * fan_in as usize);
        let mut by_start: std::collections::BTreeMap<u64, Vec<(u32, u32)>> = Default::default();
        for f in &out.flows {
            by_start.entry(f.start_ns).or_default().push((f.sender, f.dst.unwrap()));
        }
        assert_eq!(by_start.len(), 40, "one start instant per query");
        for (t, q) in &by_start {
            let dst = q[0].1;
            let mut srcs: Vec<u32> = q.iter().map(|x| x.0).collect();
            srcs.sort_unstable();
            srcs.dedup();
            assert_eq!(q.len(), fan_in as usize, "query at {t}");
            assert_eq!(srcs.len(), fan_in as usize, "distinct senders at {t}");
            assert!(q.iter().all(|&(s, d)| d == dst && s != dst), "query at {t}: {q:?}");
            if let Some(r) = receiver {
                assert_eq!(dst, r);
            }
        }
    }
}

/// Leaf-spine of 2 leaves with 2 hosts each, 2 spines; host links 10 Gb/s,
/// leaf-spine links 4 Gb/s, 1 us per link. Flows from t = 0, no handshake,
/// pinned to the given spines: A 0 -> 2 (1,000 packets), B 1 -> 3 (2,000),
/// C 1 -> 2 (3,000), each packet 1,040 B on the wire.
fn pinned_maxmin(spines: [u32; 3]) -> Vec<u64> {
    let flows: Vec<Value> = [(0, 2, 1000), (1, 3, 2000), (1, 2, 3000)]
        .iter()
        .zip(spines)
        .map(|(&(s, d, n), p)| json!({"src": s, "dst": d, "size_pkts": n, "path": p, "start_s": 0.0}))
        .collect();
    let out = run_json(&json!({
        "network": {"topology": "leaf-spine", "routing": "ecmp", "buffer_pkts": 1000,
                    "leaf-spine": {"hosts_per_leaf": 2, "leaves": 2, "spines": 2, "host_bps": 10e9,
                                   "fabric_bps": 4e9, "link_delay_us": 1.0}},
        "transport": transport(10, false), "flows": flows,
    }));
    for (f, p) in out.flows.iter().zip(spines) {
        assert_eq!(f.path, Some(p));
    }
    // ps_fct_ns = the fluid finish time + the path's one-way propagation (4 us).
    out.flows.iter().map(|f| f.ps_fct_ns.unwrap() - 4_000).collect()
}

#[test]
fn fluid_maxmin_on_pinned_paths_matches_the_hand_worked_case() {
    // Sizes on the wire: A 8.32 Mb, B 16.64 Mb, C 24.96 Mb.
    //
    // A, B on spine 0, C on spine 1. Leaf 0's uplink to spine 0 (4 Gb/s)
    // carries A and B: 2 Gb/s each. C is then limited by its own uplink to
    // spine 1: 4 Gb/s (host 1's link carries B + C = 6 <= 10; host 2's A + C
    // = 6 <= 10). A ends at 8.32 / 2 = 4.16 ms; B and C have 8.32 Mb left,
    // each now at 4 Gb/s (host 1's link: 8 <= 10): both end 2.08 ms later.
    assert_eq!(pinned_maxmin([0, 0, 1]), vec![4_160_000, 6_240_000, 6_240_000]);
    // All three on spine 0: 4/3 Gb/s each. A ends at 8.32 / (4/3) = 6.24 ms;
    // B (8.32 Mb left) and C (16.64) at 2 Gb/s: B ends 4.16 ms later; C has
    // 8.32 Mb left, alone at 4 Gb/s: 2.08 ms more.
    assert_eq!(pinned_maxmin([0, 0, 0]), vec![6_240_000, 10_400_000, 12_480_000]);
}

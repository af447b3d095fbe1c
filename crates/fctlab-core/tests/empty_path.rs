//! Single flows on an empty path: the FCT equals the value derived by hand.
//!
//! Notation: T = serialisation of a 1040 B data packet (1000 B payload + 40 B
//! header), Ta = serialisation of a 40 B SYN/SYN-ACK/ACK, d = one-way
//! propagation delay. With a SYN handshake the data starts at t0 = 2 (Ta + d):
//! the SYN crosses the link and the SYN-ACK comes back. The FCT is from the SYN
//! (or first data packet) leaving to the last payload byte arriving.
//!
//! Slow start with an ACK per packet (RFC 5681, +1 packet per ACK): the ACK of
//! packet j (cumulative ACK j+1) makes cwnd = w + j + 1, so packets up to
//! 2(j+1) + w - 1 may be out: packet k >= w is released by the ACK of packet
//! floor((k - w) / 2); packets k < w are released at t0. A packet leaves when
//! released and the port is free (FIFO): s_k = max(r_k, s_{k-1} + T_k) per hop
//! (the Lindley recursion of a FIFO server), and arrives one propagation delay
//! after its serialisation ends. ACKs return on the reverse links the same way.

mod common;
use common::{flows, ser};
use serde_json::json;

/// Per-hop (rate, delay) of a path.
type Path = Vec<(f64, u64)>;

/// Carry packets released at `release` (sizes `bytes`) through FIFO hops; return
/// the arrival times at the far end. Tracks each hop's port-free time.
fn tandem(release: &[u64], bytes: &[u64], path: &Path, free: &mut [u64]) -> Vec<u64> {
    let mut t: Vec<u64> = release.to_vec();
    for (h, &(rate, d)) in path.iter().enumerate() {
        for k in 0..t.len() {
            let start = t[k].max(free[h]);
            free[h] = start + ser(bytes[k], rate);
            t[k] = free[h] + d;
        }
    }
    t
}

/// The hand model: slow start with initial window `w`, n packets, no loss.
/// Returns (finish of the last packet at the receiver, ACK of the last packet at the sender).
fn slow_start_model(n: u64, w: u64, fwd: &Path, rev: &Path, handshake: bool, last_payload: u64) -> (u64, u64) {
    let ta = |p: &Path| p.iter().map(|&(r, d)| ser(40, r) + d).sum::<u64>();
    let t0 = if handshake { ta(fwd) + ta(rev) } else { 0 };
    let mut release = vec![0u64; n as usize];
    let mut arrive = vec![0u64; n as usize];
    let mut ack_at = vec![0u64; n as usize];
    let mut ffree = vec![0u64; fwd.len()];
    let mut rfree = vec![0u64; rev.len()];
    // Packets are released in order, and a packet's release depends only on
    // earlier packets' ACKs, so one pass in sequence order is exact.
    for k in 0..n as usize {
        release[k] = if (k as u64) < w {
            t0
        } else {
            ack_at[(k - w as usize) / 2]
        };
        let bytes = if k as u64 == n - 1 { last_payload + 40 } else { 1040 };
        arrive[k] = tandem(&[release[k]], &[bytes], fwd, &mut ffree)[0];
        ack_at[k] = tandem(&[arrive[k]], &[40], rev, &mut rfree)[0];
    }
    (arrive[n as usize - 1], ack_at[n as usize - 1])
}

fn single_link(rate: f64, delay_ms: f64, iw: u64, size_pkts: u64, handshake: bool) -> serde_json::Value {
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": rate, "bottleneck_delay_ms": delay_ms, "buffer_pkts": 100000},
        "transport": {"init_cwnd_pkts": iw, "handshake": handshake},
        "flows": [{"size_pkts": size_pkts}],
        "metrics": {"series": false}
    })
}

#[test]
fn one_window_closed_form() {
    // n <= w: t0 + n T + d, with t0 = 2 (Ta + d).
    for &(rate, delay_ms, iw, n) in &[
        (10e6f64, 10.0f64, 2u64, 1u64),
        (10e6, 10.0, 4, 4),
        (1e9, 50.0, 10, 7),
        (2.4e9, 50.0, 10, 10),
    ] {
        let d = (delay_ms * 1e6) as u64;
        let (t, ta) = (ser(1040, rate), ser(40, rate));
        let expect = 2 * (ta + d) + n * t + d;
        let f = &flows(&single_link(rate, delay_ms, iw, n, true))[0];
        assert_eq!(f.fct_ns(), Some(expect), "rate {rate} delay {delay_ms} iw {iw} n {n}");
        // The ACK of the last packet returns Ta + d later.
        assert_eq!(f.acked_ns, Some(expect + ta + d));
        assert_eq!(f.retransmits, 0);
    }
}

#[test]
fn two_rounds_closed_form() {
    // w = 2, n = 4, no handshake, long delay: packets 0,1 at 0; the ACK of 0 at
    // T + 2d + Ta releases 2 and 3 (cwnd 3, una 1), sent back to back; 3
    // arrives at (T + 2d + Ta) + 2T + d.
    let (rate, delay_ms) = (10e6, 20.0);
    let d = 20_000_000;
    let (t, ta) = (ser(1040, rate), ser(40, rate));
    let f = &flows(&single_link(rate, delay_ms, 2, 4, false))[0];
    assert_eq!(f.fct_ns(), Some(t + 2 * d + ta + 2 * t + d));
}

#[test]
fn slow_start_single_link_matches_hand_model() {
    for &(rate, delay_ms, iw, n, hs) in &[
        (10e6f64, 10.0f64, 2u64, 2u64, true),
        (10e6, 10.0, 2u64, 50u64, true),
        (10e6, 10.0, 1, 31, true),
        (100e6, 5.0, 3, 200, false),
        (1e9, 50.0, 10, 1000, true),
        (2.4e9, 50.0, 2, 300, true),
        (8.32e6, 1.0, 4, 100, true), // serialisation-bound: the port queues
    ] {
        let d = (delay_ms * 1e6).round() as u64;
        let fwd = vec![(rate, d)];
        let (fin, ack) = slow_start_model(n, iw, &fwd, &fwd, hs, 1000);
        let f = &flows(&single_link(rate, delay_ms, iw, n, hs))[0];
        assert_eq!(f.fct_ns(), Some(fin), "rate {rate} delay {delay_ms} iw {iw} n {n}");
        assert_eq!(f.acked_ns, Some(ack));
    }
}

#[test]
fn dumbbell_three_hops_matches_hand_model() {
    // access 100 Mb/s (5 ms) -> bottleneck 10 Mb/s (10 ms) -> egress 100 Mb/s (2 ms).
    for &(iw, n, size_bytes) in &[(2u64, 40u64, 40_000u64), (10, 100, 99_500)] {
        let v = json!({
            "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0,
                         "access_bps": 100e6, "access_delay_ms": 5.0, "receiver_delay_ms": 2.0, "buffer_pkts": 100000},
            "transport": {"init_cwnd_pkts": iw},
            "flows": [{"size_bytes": size_bytes}],
            "metrics": {"series": false}
        });
        let fwd: Path = vec![(100e6, 5_000_000), (10e6, 10_000_000), (100e6, 2_000_000)];
        let rev: Path = fwd.iter().rev().cloned().collect();
        let last_payload = size_bytes - (n - 1) * 1000;
        let (fin, ack) = slow_start_model(n, iw, &fwd, &rev, true, last_payload);
        let f = &flows(&v)[0];
        assert_eq!(f.size_pkts, n);
        assert_eq!(f.fct_ns(), Some(fin), "iw {iw} n {n}");
        assert_eq!(f.acked_ns, Some(ack));
    }
}

#[test]
fn half_dumbbell_per_sender_delays() {
    // Two senders with access delays 5 and 40 ms, a 10 ms bottleneck, flows far
    // apart in time so they never meet: each sees its own empty path.
    let v = json!({
        "network": {"topology": "half-dumbbell", "senders": 2, "bottleneck_bps": 20e6, "bottleneck_delay_ms": 10.0,
                     "access_bps": 20e6, "access_delay_ms": [5.0, 40.0], "buffer_pkts": 1000},
        "flows": [{"sender": 0, "size_pkts": 3}, {"sender": 1, "start_s": 5.0, "size_pkts": 3}],
        "metrics": {"series": false}
    });
    let fl = flows(&v);
    for (i, a) in [(0usize, 5_000_000u64), (1, 40_000_000)] {
        let fwd: Path = vec![(20e6, a), (20e6, 10_000_000)];
        let rev: Path = fwd.iter().rev().cloned().collect();
        let (fin, _) = slow_start_model(3, 2, &fwd, &rev, true, 1000);
        assert_eq!(fl[i].fct_ns(), Some(fin), "sender {i}");
    }
}

#[test]
fn delayed_ack_trace() {
    // w = 2, n = 3, delayed ACKs: packet 0 arrives (ACK held), packet 1 arrives
    // -> ACK 2 at once (every second segment); it returns Ta + d later, cwnd = 3,
    // una = 2: packet 2 leaves and arrives T + d later; it completes the flow.
    // FCT = t0 + 2T + d + (Ta + d) + T + d, t0 = 2 (Ta + d).
    let (rate, d) = (10e6, 10_000_000u64);
    let (t, ta) = (ser(1040, rate), ser(40, rate));
    let v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": rate, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "transport": {"init_cwnd_pkts": 2, "delayed_ack": true},
        "flows": [{"size_pkts": 3}],
        "metrics": {"series": false}
    });
    let f = &flows(&v)[0];
    assert_eq!(f.fct_ns(), Some(2 * (ta + d) + 2 * t + d + ta + d + t + d));
    // One packet alone: delayed ACK for a lone segment would wait 100 ms, but
    // the segment completes the flow, which is acknowledged at once.
    let v1 = json!({
        "network": {"topology": "single-link", "bottleneck_bps": rate, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "transport": {"init_cwnd_pkts": 2, "delayed_ack": true},
        "flows": [{"size_pkts": 1}],
        "metrics": {"series": false}
    });
    let f = &flows(&v1)[0];
    assert_eq!(f.acked_ns, Some(2 * (ta + d) + t + d + ta + d));
}

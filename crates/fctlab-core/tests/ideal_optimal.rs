//! The 1991 benchmark suite's 'optimal' transfer time (Kanakia, Keshav & Mishra 1991): a hand-worked
//! example and the optimal values the suite itself publishes.
//!
//! Common set-up of the suite (sec. 4): bottleneck ("slow") lines of
//! 40 Mb/s = 5000 B per ms, 500 B packets, file sizes in 10⁶-byte MB, round-trip
//! propagation delay 44 ms unless stated.

use fctlab_core::ideal::optimal_transfer_ns;

const MS: u64 = 1_000_000;
const SLOW_BPS: f64 = 40e6;

fn assert_ns(got: u64, want: u64) {
    assert!(got.abs_diff(want) <= 1, "got {got} ns, want {want} ns");
}

#[test]
fn two_connections_by_hand() {
    // Connection 1: 1 MB at 0 ms, RTT 44 ms. Connection 2: 250 kB at 100 ms, RTT 82 ms.
    //   0-100 ms: 1 alone at 5000 B/ms: 500 kB served, 500 kB left.
    // 100-200 ms: both at 2500 B/ms: 2 finishes its 250 kB at 200 ms; 1 has 250 kB left.
    // 200-250 ms: 1 alone: finishes at 250 ms.
    // Optimal: 1: 250 − 0 + 44 = 294 ms; 2: 200 − 100 + 82 = 182 ms.
    let t = optimal_transfer_ns(
        &[SLOW_BPS],
        &[0, 100 * MS],
        &[1e6, 250e3],
        &[vec![0], vec![0]],
        &[44 * MS, 82 * MS],
    )
    .unwrap();
    assert_ns(t[0], 294 * MS);
    assert_ns(t[1], 182 * MS);
}

/// Experiment 1 (and 2) cross traffic: ten 500 kB streams from `first_ms`,
/// `gap_ms` apart, each with a 44 ms RTT.
fn cross(first_ms: u64, gap_ms: u64) -> (Vec<u64>, Vec<f64>) {
    ((0..10).map(|k| (first_ms + k * gap_ms) * MS).collect(), vec![500e3; 10])
}

#[test]
fn table_4_1_and_4_2_slow_and_sudden_cross_traffic() {
    // Connection 1 sends 2 MB from 0; the link never idles (conn 1 alone fills it
    // until the cross traffic comes), and conn 1 always holds the most remaining
    // work, so under fair sharing it ends last, when all 7 MB are through:
    // 7e6 B / 5000 B/ms = 1400 ms, + 44 ms = 1444 ms (both tables print 1444).
    for gap_ms in [44, 4] {
        let (mut starts, mut sizes) = cross(100, gap_ms);
        starts.insert(0, 0);
        sizes.insert(0, 2e6);
        let routes = vec![vec![0]; 11];
        let t = optimal_transfer_ns(&[SLOW_BPS], &starts, &sizes, &routes, &[44 * MS; 11]).unwrap();
        assert_ns(t[0], 1444 * MS);
    }
}

#[test]
fn table_4_3_short_files() {
    // No cross traffic: 44 ms + size / 40 Mb/s: 4, 20, 200 packets of 500 B take
    // 0.4, 2 and 20 ms: 44.4, 46 and 64 ms as printed.
    for (pkts, want_us) in [(4.0, 44_400), (20.0, 46_000), (200.0, 64_000)] {
        let t = optimal_transfer_ns(&[SLOW_BPS], &[0], &[500.0 * pkts], &[vec![0]], &[44 * MS]).unwrap();
        assert_ns(t[0], want_us * 1000);
    }
}

#[test]
fn table_4_4_fairness() {
    // Connections 1 and 2 send 2 MB each from 0 with the cross traffic of
    // experiment 1: 9 MB in all, 1800 ms; the two are identical for the
    // bottleneck, so both end at 1800 ms. Conn 1: 1844 ms as printed. Conn 2's
    // path has "approximately twice" the delay; the printed 1882 ms implies an
    // 82 ms RTT, which we take as given (so only its 1800 ms is checked).
    let (mut starts, mut sizes) = cross(100, 44);
    starts.splice(0..0, [0, 0]);
    sizes.splice(0..0, [2e6, 2e6]);
    let mut rtts = vec![44 * MS; 12];
    rtts[1] = 82 * MS;
    let t = optimal_transfer_ns(&[SLOW_BPS], &starts, &sizes, &vec![vec![0]; 12], &rtts).unwrap();
    assert_ns(t[0], 1844 * MS);
    assert_ns(t[1], 1882 * MS);
}

#[test]
fn table_4_5_migrating_bottleneck() {
    // Links: 0 = S1-S2, 1 = S2-H2, both 40 Mb/s. Connection 1: 2 MB at 0 over
    // both; connection 2: 1 MB at 100 ms over S1-S2; connections 3 and 4: 250 kB
    // each at 250 ms over S2-H2. Max-min fair shares (B/ms):
    //   0-100:   1 alone: 5000. 500 kB sent, 1.5 MB left.
    // 100-250:   S1-S2 shared by 1, 2: 2500 each. 1: 1.125 MB left, 2: 625 kB.
    // 250-400:   S2-H2 shared by 1, 3, 4: 1666.7 each; 2 takes the rest of
    //            S1-S2, 3333.3. 3 and 4 end at 250 + 250/1.6667 = 400 ms.
    //            1: 875 kB left; 2: 625 − 500 = 125 kB left.
    // 400-450:   S1-S2 shared by 1, 2: 2500 each; 2 ends at 450. 1: 750 kB left.
    // 450-600:   1 alone: ends at 600 ms. Optimal: 600 + 44 = 644 ms, as printed.
    let starts = [0, 100 * MS, 250 * MS, 250 * MS];
    let sizes = [2e6, 1e6, 250e3, 250e3];
    let routes = vec![vec![0, 1], vec![0], vec![1], vec![1]];
    let t = optimal_transfer_ns(&[SLOW_BPS, SLOW_BPS], &starts, &sizes, &routes, &[44 * MS; 4]).unwrap();
    assert_ns(t[0], 644 * MS);
    // Connection 2 by the same walk: ends at 450 ms, 350 + 44 = 394 ms.
    assert_ns(t[1], 394 * MS);
}

#[test]
fn table_4_6_two_way_traffic() {
    // Experiment 1 mirrored: each bottleneck direction carries its own 7 MB of
    // data plus the 40 B ACKs of the opposite direction's 14 000 data packets,
    // 560 kB. Model those ACK streams as flows: 160 kB from 0 (for the reverse
    // connection 1) and 40 kB with each reverse cross stream. The link never
    // idles and connection 1 ends last: 7.56e6 B / 5000 B/ms = 1512 ms, + 44 ms
    // = 1556 ms, as printed for both directions.
    let (mut starts, mut sizes) = cross(100, 44);
    starts.insert(0, 0);
    sizes.insert(0, 2e6);
    starts.push(0);
    sizes.push(2e6 / 500.0 * 40.0);
    for k in 0..10 {
        starts.push((100 + 44 * k) * MS);
        sizes.push(500e3 / 500.0 * 40.0);
    }
    let n = starts.len();
    let t = optimal_transfer_ns(&[SLOW_BPS], &starts, &sizes, &vec![vec![0]; n], &vec![44 * MS; n]).unwrap();
    assert_ns(t[0], 1556 * MS);
}

//! BBR's rules traced by hand against Linux `tcp_bbr.c`.

use super::*;

const MS: Time = 1_000_000;

fn bbr() -> Bbr {
    Bbr::new(1000.0, 0)
}

fn window(cwnd: f64) -> Window {
    Window {
        cwnd,
        ssthresh: f64::MAX,
    }
}

fn ack(now: Time, delivered: u64, in_flight: u64, state: CaState) -> Delivery {
    Delivery {
        now,
        echoed_ts: 0,
        delivered,
        losses: 0,
        prior_in_flight: in_flight + delivered,
        in_flight,
        rtt_ns: 12 * MS,
        min_rtt_ns: 10 * MS,
        srtt_ns: Some(10 * MS),
        state,
        edt_ns: now,
    }
}

/// A flow past STARTUP with a bandwidth of 1000 segments/s and a minimum
/// RTT of 100 ms: a BDP of 100 segments.
fn steady() -> Bbr {
    let mut b = bbr();
    b.bw.update(BW_ROUNDS, 0, 1000.0);
    b.min_rtt = 100 * MS;
    b.min_rtt_stamp = Some(0);
    b.full_bw_reached = true;
    b.mode = Mode::ProbeBw;
    b.cycle_idx = 2;
    b.update_gains();
    b.pacing_rate = 990_000.0;
    b
}

#[test]
fn the_gains_are_linuxs_roundings_of_two_over_ln2_and_the_cycle_averages_one() {
    let g = 2.0 / std::f64::consts::LN_2;
    assert!((HIGH_GAIN / g - 1.0).abs() < 1e-3, "{HIGH_GAIN} vs {g}");
    assert!((DRAIN_GAIN * g - 1.0).abs() < 1e-2, "{DRAIN_GAIN} vs {}", 1.0 / g);
    assert_eq!(PACING_GAINS.iter().sum::<f64>(), 8.0);
}

#[test]
fn startup_ends_after_three_rounds_without_a_quarter_more_bandwidth() {
    // Per round: the bandwidth doubles to 80, then 100 (+25 %: still
    // growth), then 110, 120, 124 (each under 125 = 100 x 1.25).
    let mut b = bbr();
    let rs = RateSample {
        rate: Some((1, 1)),
        prior_delivered: 0,
        app_limited: false,
    };
    let bws = [10.0, 20.0, 40.0, 80.0, 100.0, 110.0, 120.0, 124.0];
    for (i, bw) in bws.iter().enumerate() {
        b.rounds = i as u64 + 1;
        b.bw.update(BW_ROUNDS, b.rounds, *bw);
        b.round_start = true;
        b.check_full_bw_reached(&rs);
        assert_eq!(b.full_bw_reached, i == bws.len() - 1, "round {}", i + 1);
    }
    assert_eq!(b.full_bw_round, Some(8));
    // An app-limited round, or an ACK that starts no round, does not count.
    let mut b = bbr();
    b.full_bw = 100.0;
    b.bw.update(BW_ROUNDS, 1, 100.0);
    b.round_start = false;
    b.check_full_bw_reached(&rs);
    b.round_start = true;
    b.check_full_bw_reached(&RateSample { app_limited: true, ..rs });
    assert_eq!(b.full_bw_cnt, 0);
}

#[test]
fn the_target_window_is_twice_the_bdp_plus_the_offload_allowance() {
    let mut b = steady();
    // 990,000 B/s: 966 bytes a ms, under one segment: 2 segments (above
    // 1.2 Mb/s), an allowance of 6.
    assert_eq!(b.tso_segs_goal(), 2.0);
    assert_eq!(b.bdp(b.max_bw(), CWND_GAIN), 200.0);
    assert_eq!(b.inflight(b.max_bw(), CWND_GAIN), 206.0);
    // In the 5/4 phase, two more.
    b.cycle_idx = 0;
    assert_eq!(b.inflight(b.max_bw(), CWND_GAIN), 208.0);
    // An odd sum is rounded up to even: a BDP of 0.1011 s x 1000 = 101.1,
    // 102 with the ceiling, 108 with the allowance.
    b.cycle_idx = 2;
    b.min_rtt = 101_100_000;
    assert_eq!(b.inflight(b.max_bw(), 1.0), 108.0);
    // Below 1.2 Mb/s one segment; at 125 MB/s, 64 KB less headers: 65.
    b.pacing_rate = 100_000.0;
    assert_eq!(b.tso_segs_goal(), 1.0);
    b.pacing_rate = 125e6;
    assert_eq!(b.tso_segs_goal(), 65.0);
    // No RTT sample yet: the initial window.
    assert_eq!(bbr().bdp(1000.0, 2.0), 10.0);
}

#[test]
fn probe_bw_starts_at_a_random_phase_but_never_the_draining_one() {
    let mut seen = [false; 8];
    for draw in 0..200 {
        let mut b = Bbr::new(1000.0, draw);
        b.reset_probe_bw_mode();
        assert_eq!(b.mode, Mode::ProbeBw);
        seen[b.cycle_idx] = true;
    }
    assert_eq!(seen, [true, false, true, true, true, true, true, true]);
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_the_window() {
    let mut b = steady();
    let mut w = window(100.0);
    // The loss: ssthresh unchanged, the window noted.
    assert_eq!(b.ssthresh_after_loss(&w, 100), f64::MAX);
    // The ACK that starts recovery: one loss, 60 in flight, 1 delivered:
    // cwnd = 60 + 1.
    let mut d = ack(0, 1, 60, CaState::Recovery);
    d.losses = 1;
    b.set_cwnd(&mut w, &d);
    assert_eq!(w.cwnd, 61.0);
    // Packet conservation: at least what is in flight plus what left.
    b.set_cwnd(&mut w, &ack(1, 1, 59, CaState::Recovery));
    assert_eq!(w.cwnd, 61.0);
    b.set_cwnd(&mut w, &ack(2, 3, 62, CaState::Recovery));
    assert_eq!(w.cwnd, 65.0);
    // A new round ends conservation: growth by what is delivered.
    b.packet_conservation = false;
    b.set_cwnd(&mut w, &ack(3, 2, 60, CaState::Recovery));
    assert_eq!(w.cwnd, 67.0);
    // Recovery over: the noted 100, then + 1 delivered, under the target 206.
    b.set_cwnd(&mut w, &ack(4, 1, 60, CaState::Open));
    assert_eq!(w.cwnd, 101.0);
}

#[test]
fn probe_rtt_holds_four_segments_for_200_ms_and_a_round_every_10_s() {
    let mut b = steady();
    let mut w = window(150.0);
    let t0 = 10_000 * MS + 1;
    // 10 s without a lower RTT: the 12 ms sample replaces the 100 ms
    // estimate and PROBE_RTT begins, the window noted.
    let d = ack(t0, 1, 50, CaState::Open);
    b.update_min_rtt(&mut w, &d);
    assert_eq!((b.mode, b.min_rtt), (Mode::ProbeRtt, 12 * MS));
    b.set_cwnd(&mut w, &d);
    assert_eq!(w.cwnd, 4.0);
    // In flight at 4: 200 ms from now.
    let t1 = t0 + 30 * MS;
    b.update_min_rtt(&mut w, &ack(t1, 1, 4, CaState::Open));
    assert_eq!(b.probe_rtt_done, Some(t1 + 200 * MS));
    // A round ends before the 200 ms: still in PROBE_RTT.
    b.round_start = true;
    b.update_min_rtt(&mut w, &ack(t1 + 100 * MS, 1, 4, CaState::Open));
    assert_eq!(b.mode, Mode::ProbeRtt);
    // After 200 ms: back to PROBE_BW with the noted window.
    b.round_start = false;
    b.update_min_rtt(&mut w, &ack(t1 + 200 * MS + 1, 1, 4, CaState::Open));
    assert_eq!(b.mode, Mode::ProbeBw);
    assert_eq!(w.cwnd, 150.0);
    // The 10 s start again from the exit.
    b.update_min_rtt(&mut w, &ack(t1 + 10_000 * MS, 1, 50, CaState::Open));
    assert_eq!(b.mode, Mode::ProbeBw);
}

#[test]
fn the_pacing_rate_starts_from_the_handshake_and_only_rises_in_startup() {
    let mut b = bbr();
    let mut w = window(10.0);
    // 10 segments over the 20 ms handshake at 2/ln2, less 1 %.
    b.on_established(&mut w, Some(20 * MS));
    let want = 10.0 / 0.02 * 1000.0 * HIGH_GAIN * 0.99;
    assert!((b.pacing_rate().unwrap() / want - 1.0).abs() < 1e-12);
    assert_eq!(w.ssthresh, f64::MAX);
    // A lower bandwidth does not lower it in STARTUP ...
    b.bw.update(BW_ROUNDS, 1, 100.0);
    b.set_pacing_rate(10.0, Some(20 * MS));
    assert!((b.pacing_rate().unwrap() / want - 1.0).abs() < 1e-12);
    // ... once the pipe is full it follows gain x bandwidth.
    b.full_bw_reached = true;
    b.pacing_gain = 1.0;
    b.set_pacing_rate(10.0, Some(20 * MS));
    assert!((b.pacing_rate().unwrap() - 100.0 * 1000.0 * 0.99).abs() < 1e-6);
}

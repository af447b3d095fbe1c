//! TCP SACK (`tcp-sack`): forced-loss hand traces of RFC 6675 recovery,
//! NewReno and Reno on the same losses, bad input, and the invariants on
//! random scenarios with many drops.
//!
//! Set-up (as tests/loss_recovery.rs): one flow on a single link of 8.32 Mb/s,
//! so a 1040 B data packet takes T = 1 ms exactly; d = 50 ms one way; 40 B ACKs
//! take Ta. No handshake, an ACK per packet, initial window 10 (RFC 6928), 12
//! packets (0..=11). D = T + 2d + Ta is the time from a data packet starting
//! serialisation to its ACK reaching the sender (the reverse link never
//! queues). The ten packets of the first window are handed to the link at 0,
//! so packet j starts serialisation at jT and its ACK arrives at jT + D.
//!
//! The first copies of packets 1, 3 and 5 are lost: three losses in one window.
//! The part common to every trace below:
//!   D          ACK 1 (from 0): slow start, cwnd 11; 9 out -> send 10, 11 at
//!              D, D+T: all 12 packets are now sent (HighData + 1 = 12).
//!   D+2T       ACK 1 (from 2), D+4T (from 4), D+6T (from 6): three duplicate
//!              ACKs; with SACK they carry [2,3); [4,5) [2,3); [6,7) [4,5) [2,3)
//!              (RFC 2018: the newest block first).

mod common;
use common::{assert_invariants, flows, rfc6298_rto, run_json, ser};
use fctlab_core::from_json;
use rand::{Rng, SeedableRng};
use serde_json::json;

const RATE: f64 = 8.32e6;
const D_ONE_WAY: u64 = 50_000_000;

/// `lost`: (seq, transmission) pairs.
fn scenario(scheme: &str, lost: &[(u64, u32)], sack: Option<serde_json::Value>) -> serde_json::Value {
    let losses: Vec<_> = lost
        .iter()
        .map(|&(s, n)| json!({"flow": 0, "seq": s, "transmission": n}))
        .collect();
    let mut v = json!({
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 50.0, "buffer_pkts": 1000},
        "transport": {"scheme": scheme, "init_cwnd_pkts": 10, "handshake": false, "min_rto_ms": 200.0},
        "flows": [{"size_pkts": 12}],
        "losses": losses,
        "metrics": {"series": false}
    });
    if let Some(t) = sack {
        v["transport"]["sack"] = t;
    }
    v
}

/// (T, Ta, d, D) of the set-up.
fn times() -> (u64, u64, u64, u64) {
    let t = ser(1040, RATE);
    let ta = ser(40, RATE);
    assert_eq!(t, 1_000_000);
    (t, ta, D_ONE_WAY, t + 2 * D_ONE_WAY + ta)
}

const THREE: [(u64, u32); 3] = [(1, 1), (3, 1), (5, 1)];

#[test]
fn sack_recovers_three_losses_in_one_round_trip() {
    // RFC 6675, DupThresh 3. HighRxt and RescueRxt name packets; "lost" is
    // IsLost: 3 or more SACKed packets above. pipe = SetPipe: unSACKed packets
    // in [HighACK+1, HighData] not lost, plus those at or below HighRxt.
    //   D+6T   third duplicate ACK: enter recovery. RecoveryPoint = 11,
    //          FlightSize = 12 - 1 = 11 -> ssthresh = cwnd = 5.5. Retransmit 1
    //          (the link is idle since D+2T); HighRxt = RescueRxt = 1.
    //          SACKed 2, 4, 6: 1 is lost. pipe = 7 (3, 5, 7..11) + 1 (1) = 8.
    //   D+7T   SACK [6,8): 5 SACKed above 3, so 1, 3 lost; pipe = 5 (5, 8..11) + 1 = 6.
    //   D+8T   SACK [6,9): 5 is lost too (6, 7, 8 above); pipe = 3 (9..11) + 1 = 4
    //          <= cwnd - 1 = 4.5: NextSeg rule 1, the first lost packet above
    //          HighRxt: retransmit 3 (HighRxt = 3). pipe 5: stop.
    //   D+9T   SACK [6,10): pipe = 2 (10, 11) + 2 (1, 3) = 4: rule 1 -> retransmit 5
    //          (the link finished 3 at D+9T). HighRxt = 5.
    //   2D, 2D+T  SACKs of 10, 11: pipe 4, then 3, but nothing to send: no lost
    //          packet above HighRxt (rule 1), no new data (2), no unSACKed packet
    //          above HighRxt below the highest SACK (3), and HighACK (0) is not
    //          beyond RescueRxt (1) for the rescue (4).
    //   2D+6T  ACK 3 (1's retransmission; 2 was held): HighACK = 2 > RescueRxt = 1,
    //          pipe = 0 + 2 (3, 5) = 2, and rules 1-3 still fail, so rule 4 sends
    //          the rescue: the highest unSACKed packet, 5, again (its
    //          retransmission is still on its way); RescueRxt = RecoveryPoint.
    //   2D+8T  ACK 5 (3's retransmission): nothing to send.
    //   D+9T+T+d  5's retransmission completes the flow; its ACK (12) reaches
    //          the sender at 2D+9T and ends recovery.
    // The timer (restarted at D+6T and by each advancing ACK, RTO >= 200 ms > D)
    // never fires. Without the rescue the times are the same, one retransmission fewer.
    let (t, _ta, d, dd) = times();
    let f = &flows(&scenario("tcp-sack", &THREE, None))[0];
    assert_eq!((f.retransmits, f.drops), (4, 3));
    assert_eq!(f.fct_ns(), Some(dd + 10 * t + d));
    assert_eq!(f.acked_ns, Some(2 * dd + 9 * t));
    let f = &flows(&scenario("tcp-sack", &THREE, Some(json!({"rescue": false}))))[0];
    assert_eq!((f.retransmits, f.drops), (3, 3));
    assert_eq!(f.fct_ns(), Some(dd + 10 * t + d));
    assert_eq!(f.acked_ns, Some(2 * dd + 9 * t));
}

#[test]
fn newreno_needs_two_more_round_trips_and_reno_a_timeout() {
    // The same losses without SACK.
    //   D+6T   NewReno: third duplicate ACK, retransmit 1, ssthresh 5.5, cwnd
    //          5.5 + 3, recover = 12; the later duplicate ACKs inflate the window
    //          but every packet has been sent.
    //   2D+6T  ACK 3: partial ACK (RFC 6582): retransmit 3 (timer restarted).
    //   3D+6T  ACK 5: partial: retransmit 5, which arrives at 3D+7T+d.
    //   One retransmission per round trip: 2D - 3T later than SACK. The timer,
    //   restarted at 2D+6T with RTO = RFC 6298 over (D, D) = 2.5 D, does not fire.
    let (t, _ta, d, dd) = times();
    let nr = &flows(&scenario("tcp-newreno", &THREE, None))[0];
    assert_eq!((nr.retransmits, nr.drops), (3, 3));
    assert_eq!(nr.fct_ns(), Some(3 * dd + 7 * t + d));
    let sack = &flows(&scenario("tcp-sack", &THREE, None))[0];
    assert_eq!(nr.fct_ns().unwrap() - sack.fct_ns().unwrap(), 2 * dd - 3 * t);
    //   Reno: ACK 3 at 2D+6T is new data: recovery ends, cwnd = 5.5 with 9 out,
    //          and no duplicate ACK follows (everything else has arrived). The
    //          timer, restarted then, fires at 2D+6T+RTO (RTO over samples D, D);
    //          go back N: 3 (cwnd 1), whose ACK (5) at +D sends 5 and 6 (cwnd 2);
    //          5 arrives T + d later.
    let rto = rfc6298_rto(&[dd, dd]);
    let reno = &flows(&scenario("tcp-reno", &THREE, None))[0];
    assert_eq!(reno.fct_ns(), Some(2 * dd + 6 * t + rto + dd + t + d));
    assert!(reno.fct_ns() > nr.fct_ns());
}

#[test]
fn a_lost_first_retransmission_needs_the_timeout() {
    // Packet 1's retransmission (sent at D+6T) is lost too. As in the first
    // trace, 3 and 5 are retransmitted at D+8T and D+9T and their ACKs (2D+8T,
    // 2D+9T) SACK them, leaving only 1 unSACKed: it is at or below HighRxt, so
    // rules 1 and 3 skip it; there is no new data; and the rescue needs HighACK
    // beyond RescueRxt (1), which 1's loss holds at 0. RFC 6675 has nothing
    // left to send: the retransmission timer, restarted on entering recovery
    // at D+6T, fires RTO later with no advancing ACK in between. The only RTT
    // sample is the ACK at D (packet 0, sent at 0): RTO = RFC 6298 over (D) =
    // 3D. The timeout empties the scoreboard and goes back N with cwnd 1:
    // packet 1 again, which arrives T + d later and completes the flow.
    let (t, ta, d, dd) = times();
    let rto = rfc6298_rto(&[dd]);
    assert_eq!(rto, 3 * dd);
    let f = &flows(&scenario("tcp-sack", &[(1, 1), (1, 2), (3, 1), (5, 1)], None))[0];
    assert_eq!((f.retransmits, f.drops), (4, 4));
    assert_eq!(f.fct_ns(), Some(dd + 6 * t + rto + t + d));
    assert_eq!(f.acked_ns, Some(dd + 6 * t + rto + t + d + ta + d));
}

#[test]
fn a_lost_retransmission_at_the_tail_is_rescued() {
    // 5's retransmission (sent at D+9T) is lost. At 2D+6T the ACK of 1's
    // retransmission (ACK 3) moves HighACK beyond RescueRxt: as in the first
    // trace the rescue resends the highest unSACKed packet, 5, which this time
    // is the copy that completes the flow, T + d later: one round trip after
    // the lost copy, where the timer would have waited an RTO.
    let (t, _ta, d, dd) = times();
    let lost = [(1, 1), (3, 1), (5, 1), (5, 2)];
    let f = &flows(&scenario("tcp-sack", &lost, None))[0];
    assert_eq!((f.retransmits, f.drops), (4, 4));
    assert_eq!(f.fct_ns(), Some(2 * dd + 7 * t + d));
    assert_eq!(f.acked_ns, Some(3 * dd + 6 * t));
    // Without the rescue: nothing is sent at 2D+6T or 2D+8T (ACK 5, of 3's
    // retransmission). The timer, restarted by those two advancing ACKs, fires
    // at 2D+8T+RTO; the samples are D (ACK at D) and D twice (each
    // retransmission is acknowledged D after it left): RTO = RFC 6298 over
    // (D, D, D). Go back N from 5: it arrives T + d later.
    let rto = rfc6298_rto(&[dd, dd, dd]);
    let f = &flows(&scenario("tcp-sack", &lost, Some(json!({"rescue": false}))))[0];
    assert_eq!((f.retransmits, f.drops), (4, 4));
    assert_eq!(f.fct_ns(), Some(2 * dd + 8 * t + rto + t + d));
}

#[test]
fn without_losses_sack_is_newreno() {
    // No loss, no SACK block: the window grows as NewReno's, so every flow of a
    // loss-free run (large buffer) finishes at the same time.
    let v = |scheme: &str| {
        json!({
            "seed": 3,
            "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0, "access_delay_ms": [1.0, 2.0, 3.0], "buffer_pkts": 10000},
            "transport": {"scheme": scheme, "delayed_ack": true},
            "traffic": [{"arrivals": "poisson", "load": 0.5, "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3}, "count": 100}],
            "metrics": {"series": false}
        })
    };
    let a = run_json(&v("tcp-sack"));
    let b = run_json(&v("tcp-newreno"));
    assert_eq!(a.counters.packets_dropped, 0);
    assert_eq!(a.flows, b.flows);
}

#[test]
fn router_assisted_queues_leave_sack_acks_alone() {
    // An ACK's SACK blocks travel in its header words, which RCP and XCP
    // routers read and write on the packets of their own protocols. TCP
    // traffic through those queues is forwarded as by DropTail, SACK ACKs
    // included: a lossy tcp-sack run gives the same flows, record for record,
    // over droptail, rcp and xcp ports. (The words are negative, so RCP's RTT
    // average, which samples positive RTT words, ignores them: see the unit
    // test `sack_blocks_round_trip_as_offsets`.)
    let v = |queue: &str| {
        json!({
            "seed": 9,
            "network": {"topology": "dumbbell", "senders": 3, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0, "access_delay_ms": [1.0, 2.0, 3.0], "buffer_pkts": 8, "queue": queue},
            "transport": {"scheme": "tcp-sack"},
            "traffic": [{"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3}, "count": 150}],
            "metrics": {"series": false}
        })
    };
    let base = run_json(&v("droptail"));
    assert!(
        base.counters.packets_dropped > 50,
        "the run should exercise SACK recovery"
    );
    for q in ["rcp", "xcp"] {
        assert_eq!(run_json(&v(q)).flows, base.flows, "{q}");
    }
}

// ---------------------------------------------------------------------------
// Bad input.

fn refused(v: serde_json::Value) -> (String, String) {
    match from_json(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => (e.field, e.message),
    }
}

#[test]
fn its_table_is_checked() {
    let with = |scheme: &str, t: serde_json::Value| json!({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}], "transport": {"scheme": scheme, "sack": t}});
    assert!(from_json(&with("tcp-sack", json!({"blocks": 1, "rescue": false})).to_string()).is_ok());
    for b in [0, 4] {
        let (field, msg) = refused(with("tcp-sack", json!({"blocks": b})));
        assert_eq!(field, "transport.sack.blocks");
        assert!(msg.contains("1 to 3") && msg.contains(&b.to_string()), "{msg}");
    }
    assert_eq!(
        refused(with("tcp-sack", json!({"rescue": "yes"}))).0,
        "transport.sack.rescue"
    );
    let (field, msg) = refused(with("tcp-sack", json!({"block": 2})));
    assert!(field.starts_with("transport.sack"), "{field}");
    assert!(msg.contains("unknown key") && msg.contains("blocks"), "{msg}");
    // Its table beside another scheme is refused, naming the scheme in use.
    let (field, msg) = refused(with("tcp-newreno", json!({})));
    assert_eq!(field, "transport.sack");
    assert!(msg.contains("tcp-newreno"), "{msg}");
}

// ---------------------------------------------------------------------------
// Invariants on random scenarios with small buffers (many drops).

#[test]
fn random_scenarios_keep_the_invariants() {
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(6675);
    let (mut drops, mut retx) = (0, 0);
    for case in 0..16 {
        let mut v = common::random_scenario(&mut r, case, 25);
        v["transport"]["scheme"] = json!("tcp-sack");
        v["transport"]["sack"] = json!({"blocks": r.random_range(1..4), "rescue": r.random_bool(0.7)});
        if r.random_bool(0.25) {
            v["network"]["queue"] = json!("red-ecn");
            v["transport"]["ecn"] = json!(true);
        }
        if r.random_bool(0.2) {
            v["transport"]["dupack_threshold"] = json!(r.random_range(1..6));
        }
        let out = run_json(&v);
        let (d, x) = assert_invariants(&v, &out, &format!("tcp-sack case {case}"));
        drops += d;
        retx += x;
        // Determinism: the same scenario and seed, the same records.
        if case % 4 == 0 {
            assert_eq!(run_json(&v).flows, out.flows, "case {case}");
        }
    }
    // The cases must exercise loss recovery for the checks to mean anything.
    assert!(drops > 400 && retx > 400, "drops {drops}, retransmits {retx}");
}

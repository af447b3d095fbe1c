//! RACK-TLP (RFC 8985, `rack`): forced-loss hand traces on `tcp-sack`, the
//! option's reach (SACK schemes only; refused where it cannot act) and
//! loss-free runs that it leaves alone.
//!
//! Set-up (as tests/sack.rs): one flow on a single link of 8.32 Mb/s, so a
//! 1040 B data packet takes T = 1 ms exactly; d = 50 ms one way; 40 B ACKs
//! take Ta. No handshake, an ACK per packet, initial window 10. D = T + 2d +
//! Ta is the time from a data packet starting serialisation to its ACK
//! reaching the sender. The packets of the first window are all handed to
//! the link (and stamped) at 0, so packet j starts serialisation at jT and
//! its ACK arrives at jT + D, echoing send time 0: an RTT sample of jT + D.

mod common;
use common::{flows, run_json, ser};
use fctlab_core::from_json;
use serde_json::{json, Value};

const RATE: f64 = 8.32e6;
const D_ONE_WAY: u64 = 50_000_000;
const MS: u64 = 1_000_000;

fn scenario(pkts: u64, lost: &[(u64, u32)], transport: Value) -> Value {
    let losses: Vec<_> = lost
        .iter()
        .map(|&(s, n)| json!({"flow": 0, "seq": s, "transmission": n}))
        .collect();
    let mut t = json!({"scheme": "tcp-sack", "init_cwnd_pkts": 10, "handshake": false});
    for (k, v) in transport.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 50.0, "buffer_pkts": 1000},
        "transport": t,
        "flows": [{"size_pkts": pkts}],
        "losses": losses,
        "metrics": {"series": false}
    })
}

/// (T, d, D) of the set-up.
fn times() -> (u64, u64, u64) {
    let t = ser(1040, RATE);
    assert_eq!(t, MS);
    (t, D_ONE_WAY, t + 2 * D_ONE_WAY + ser(40, RATE))
}

/// SRTT after the samples `r`, RFC 6298 2.2 and 2.3 in integer ns.
fn srtt(r: &[u64]) -> u64 {
    r[1..].iter().fold(r[0], |s, &x| (7 * s + x) / 8)
}

#[test]
fn a_lost_tail_is_probed_instead_of_waiting_for_the_timeout() {
    // 12 packets (0..=11); the first copy of the last, 11, is lost.
    //   D       ACK 1 (from 0): slow start, cwnd 11, 9 out: send 10 and 11,
    //           which start serialisation at D and D+T (all 12 now sent).
    //   D+jT    ACK j+1 (from j), j = 1..9; 2D: ACK 11 (from 10, sent at D).
    //   RTT samples: D, D+T, ..., D+9T, then D. Nothing more comes back.
    // Without RACK the timer, restarted at 2D, fires an RTO later; with
    // min_rto_ms = 1000 the RTO is 1 s (SRTT + 4 RTTVAR is far below it).
    // Go back N: 11 again, which arrives T + d later.
    // With RACK, each ACK that advances snd_una restarts the probe timer
    // (RFC 8985 7.2): at 2D, one segment outstanding, PTO = 2 SRTT + WCDelAckT
    // (200 ms), below the RTO. It fires with no new data to send, so the
    // probe resends the highest segment, 11, which arrives T + d later.
    let (t, d, dd) = times();
    let mut samples: Vec<u64> = (0..10).map(|j| dd + j * t).collect();
    samples.push(dd);
    let pto = 2 * srtt(&samples) + 200 * MS;
    assert!(pto < 1000 * MS);
    let base = json!({"min_rto_ms": 1000.0});
    let f = &flows(&scenario(12, &[(11, 1)], base.clone()))[0];
    assert_eq!((f.retransmits, f.drops), (1, 1));
    assert_eq!(f.fct_ns(), Some(2 * dd + 1000 * MS + t + d));
    let f = &flows(&scenario(12, &[(11, 1)], json!({"min_rto_ms": 1000.0, "rack": true})))[0];
    assert_eq!((f.retransmits, f.drops), (1, 1));
    assert_eq!(f.fct_ns(), Some(2 * dd + pto + t + d));
}

#[test]
fn rack_finds_a_lost_first_packet_from_two_sacks_where_dupacks_wait_for_the_timeout() {
    // 3 packets, all sent at 0; the first copy of 0 is lost.
    //   D+T     ACK 0 with SACK [1,2): a duplicate ACK. RFC 6675: one of three,
    //           and IsLost (0) needs three SACKed packets above it.
    //   D+2T    ACK 0 with SACK [1,3): two. Nothing more comes back.
    // Without RACK the timer, set at 0 with the initial RTO (1 s, no RTT
    // sample yet), fires: go back N, 0 again, T + d later.
    // With RACK (RFC 8985 6.2): at D+T, step 2 takes 1 (sent at 0, end 2):
    // RACK.xmit_ts = 0, RACK.rtt = D+T, min_RTT = D+T. Step 4: no
    // reordering seen, one SACKed (< DupThresh), not in recovery: reo_wnd =
    // min_RTT / 4 (no SRTT yet to cap it). Step 5: 0 (sent at 0, end 1) was
    // sent before 1 (the same time, a lower end), and is due at 0 + RACK.rtt
    // + reo_wnd: the reordering timer. At D+2T, 2 becomes RACK's segment,
    // RACK.rtt = D+2T, and 0 is due at D+2T + (D+T)/4. The timer fires then:
    // 0 is lost, fast recovery starts (ssthresh = max(3/2, 2)) and 0 is
    // resent on the idle link, T + d before the flow completes.
    let (t, d, dd) = times();
    let f = &flows(&scenario(3, &[(0, 1)], json!({})))[0];
    assert_eq!((f.retransmits, f.drops), (1, 1));
    assert_eq!(f.fct_ns(), Some(1000 * MS + t + d));
    let f = &flows(&scenario(3, &[(0, 1)], json!({"rack": true})))[0];
    assert_eq!((f.retransmits, f.drops), (1, 1));
    let resent = dd + 2 * t + (dd + t) / 4;
    assert_eq!(f.fct_ns(), Some(resent + t + d));
}

#[test]
fn with_three_sacks_the_window_closes_and_recovery_starts_at_once() {
    // 5 packets, 0 lost: the third SACK (from 3, at D+3T) gives DupThresh
    // SACKed segments with no reordering seen, so reo_wnd = 0 (RFC 8985 6.2
    // step 4): 0, sent before 3, was due at 0 + RACK.rtt = D+3T, now. Fast
    // recovery starts on that ACK as RFC 6675's third duplicate ACK would,
    // and both resend 0 at D+3T.
    let (t, d, dd) = times();
    for transport in [json!({}), json!({"rack": true})] {
        let f = &flows(&scenario(5, &[(0, 1)], transport.clone()))[0];
        assert_eq!((f.retransmits, f.drops), (1, 1), "{transport}");
        assert_eq!(f.fct_ns(), Some(dd + 3 * t + t + d), "{transport}");
    }
}

#[test]
fn rack_is_refused_where_no_scoreboard_is_kept_but_the_preset_sets_it_quietly() {
    let v = |t: Value| {
        json!({
            "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "senders": 1},
            "transport": t,
            "flows": [{"sender": 0, "size_pkts": 10}]
        })
    };
    for scheme in ["tcp-newreno", "tcp-cubic", "tcp-reno"] {
        let e = from_json(&v(json!({"scheme": scheme, "rack": true})).to_string())
            .err()
            .expect(scheme);
        assert_eq!(e.field, "transport.rack", "{scheme}: {}", e.message);
        assert!(
            e.message.contains("tcp-sack") && e.message.contains(scheme),
            "{}",
            e.message
        );
        for ok in [
            json!({"scheme": scheme, "preset": "linux"}),
            json!({"scheme": scheme, "rack": false}),
        ] {
            let p = from_json(&v(ok.clone()).to_string()).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(p.transport.tcp.rack, ok.get("preset").is_some(), "{ok}");
        }
    }
    for scheme in ["tcp-sack", "tcp-bbr"] {
        let p = from_json(&v(json!({"scheme": scheme, "rack": true})).to_string()).unwrap();
        assert!(p.transport.tcp.rack);
    }
}

#[test]
fn a_flow_alone_without_losses_is_unchanged() {
    // Nothing is lost, so RACK marks nothing; and no probe fires: before an
    // RTT sample the PTO is 1 s, the initial RTO; after, an ACK comes back
    // at least once per RTT (every segment's, or with delayed ACKs every
    // second one's, or the 100 ms delayed-ACK timer's with one segment
    // out, when the PTO has WCDelAckT, 200 ms, added), within 2 SRTT.
    for delayed_ack in [false, true] {
        for pkts in [1, 2, 10, 57, 400] {
            let v = |rack: bool| {
                json!({
                    "network": {"topology": "single-link", "bottleneck_bps": 10e6, "bottleneck_delay_ms": 20.0, "buffer_pkts": 1000},
                    "transport": {"scheme": "tcp-sack", "rack": rack, "delayed_ack": delayed_ack},
                    "flows": [{"size_pkts": pkts}],
                    "metrics": {"series": false}
                })
            };
            let a = run_json(&v(true));
            assert_eq!(a.counters.packets_dropped, 0);
            assert_eq!(
                a.flows,
                run_json(&v(false)).flows,
                "{pkts} packets, delayed ACKs {delayed_ack}"
            );
        }
    }
}

#[test]
fn a_lost_retransmission_is_resent_when_a_later_one_arrives() {
    // tests/sack.rs `a_lost_first_retransmission_needs_the_timeout` with
    // RACK: 12 packets, the first copies of 1, 3, 5 and the first
    // retransmission of 1 lost. Without RACK the timer (3D after recovery
    // began at D+6T) resends 1 (see that test).
    //   D       ACK 1 (from 0): RTT D, SRTT D, min RTT D; 10, 11 sent at D.
    //   D+2T    SACK 2: reo_wnd = D/4 (one SACKed): 1 due at D+2T + D/4.
    //   D+4T    SACK 4, 2: 1 and 3 due at D+4T + D/4.
    //   D+6T    SACK 6, 4, 2: three SACKed, no reordering: reo_wnd = 0, so 1,
    //           3 and 5 (sent at 0, before 6) are lost now. Recovery:
    //           ssthresh = cwnd = 11/2; resend 1 (idle link). pipe = 11
    //           outstanding - 3 SACKed - 3 lost + 1 resent = 6: no more.
    //   D+8T    SACK up to 8: pipe 4: resend 3. D+9T: pipe 4: resend 5.
    //   2D, 2D+T  SACKs of 10, 11 (sent at D): nothing left to send.
    //   2D+8T   3's retransmission (sent D+8T) is SACKed: RACK.xmit_ts =
    //           D+8T, RACK.rtt = D (not below the min RTT: not ambiguous).
    //           1's retransmission, sent at D+6T, before it, was due at
    //           D+6T + D + 0 (in recovery, reo_wnd 0): lost. pipe = 11 - 9
    //           SACKed - 2 lost (1, 5) + 1 (5's retransmission) = 1: resend
    //           1, which arrives T + d later and completes the flow.
    let (t, d, dd) = times();
    let lost = [(1, 1), (1, 2), (3, 1), (5, 1)];
    let f = &flows(&scenario(12, &lost, json!({"rack": true})))[0];
    assert_eq!((f.retransmits, f.drops), (4, 4));
    assert_eq!(f.fct_ns(), Some(2 * dd + 8 * t + t + d));
    let without = &flows(&scenario(12, &lost, json!({})))[0];
    assert_eq!(without.fct_ns(), Some(dd + 6 * t + 3 * dd + t + d));
}

#[test]
fn random_lossy_scenarios_keep_the_invariants_with_rack() {
    // tcp-sack (with and without PRR, the linux preset or rack alone) and
    // tcp-bbr under random drop-heavy workloads: every packet accounted for,
    // every flow completes, delivered in order once, and the run is
    // deterministic.
    use rand::{Rng, SeedableRng};
    let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(8985);
    let (mut drops, mut retx) = (0, 0);
    for case in 0..16 {
        let mut v = common::random_scenario(&mut r, case, 25);
        let t = &mut v["transport"];
        t["scheme"] = json!(if case % 4 == 3 { "tcp-bbr" } else { "tcp-sack" });
        match case % 3 {
            0 => t["preset"] = json!("linux"),
            1 => t["rack"] = json!(true),
            _ => {
                t["rack"] = json!(true);
                t["prr"] = json!(true);
            }
        }
        if r.random_bool(0.3) {
            t["delayed_ack"] = json!(true);
        }
        let out = run_json(&v);
        let (d, x) = common::assert_invariants(&v, &out, &format!("rack case {case}"));
        drops += d;
        retx += x;
        if case % 4 == 0 {
            assert_eq!(run_json(&v).flows, out.flows, "case {case}");
        }
    }
    assert!(drops > 400 && retx > 400, "drops {drops}, retransmits {retx}");
}

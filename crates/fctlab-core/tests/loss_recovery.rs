//! Forced losses checked against hand traces: NewReno fast retransmit and
//! recovery (RFC 5681 / RFC 6582), and a tail loss that needs a timeout
//! (RFC 6298).
//!
//! Set-up for both: one flow on a single link of 8.32 Mb/s, so a 1040 B data
//! packet takes T = 1 ms exactly; d = 50 ms one way; ACKs (40 B) take Ta.
//! No handshake; an ACK per packet. D = T + 2d + Ta is the time from a data
//! packet starting serialisation to its ACK reaching the sender (the reverse
//! link never queues: ACKs are at least T apart and Ta < T).

mod common;
use common::{flows, rfc6298_rto, ser};
use serde_json::json;

const RATE: f64 = 8.32e6;
const D_ONE_WAY: u64 = 50_000_000;

fn scenario(iw: u64, n: u64, lost_seq: u64) -> serde_json::Value {
    json!({
        "network": {"topology": "single-link", "bottleneck_bps": RATE, "bottleneck_delay_ms": 50.0, "buffer_pkts": 1000},
        "transport": {"init_cwnd_pkts": iw, "handshake": false, "min_rto_ms": 200.0},
        "flows": [{"size_pkts": n}],
        "losses": [{"flow": 0, "seq": lost_seq}],
        "metrics": {"series": false}
    })
}

#[test]
fn newreno_fast_retransmit_hand_trace() {
    // IW 4, 12 packets, the first copy of packet 2 is lost.
    //   0          send 0,1,2,3 at 0, T, 2T, 3T
    //   D          ACK 1: cwnd 5, send 4,5 at D, D+T
    //   D+T        ACK 2: cwnd 6, send 6,7 at D+2T, D+3T
    //   D+3T       dupACK 1 (from 3)
    //   2D         dupACK 2 (from 4)
    //   2D+T       dupACK 3 (from 5): FlightSize 6 -> ssthresh 3, recover = 8,
    //              retransmit 2, cwnd = 3 + 3 = 6 (6 out: nothing new)
    //   2D+2T      dupACK 4 (from 6): cwnd 7 -> send 8
    //   2D+3T      dupACK 5 (from 7): cwnd 8 -> send 9
    //   3D+T       ACK 8 (the retransmission): full ACK (>= recover):
    //              cwnd = min(ssthresh 3, max(FlightSize 2, 1) + 1) = 3; send 10
    //   3D+2T      ACK 9 (from 8): congestion avoidance, cwnd 3 + 1/3; 2 out -> send 11
    //   3D+3T+d    packet 11 (sent at 3D+2T) reaches the receiver: the flow is complete.
    let t = ser(1040, RATE);
    assert_eq!(t, 1_000_000);
    let ta = ser(40, RATE);
    let d = D_ONE_WAY;
    let rtt = t + 2 * d + ta;
    let f = &flows(&scenario(4, 12, 2))[0];
    assert_eq!(f.retransmits, 1);
    assert_eq!(f.drops, 1);
    assert_eq!(f.fct_ns(), Some(3 * rtt + 3 * t + d));
    // The last ACK: packet 11's ACK returns Ta + d after it arrives.
    assert_eq!(f.acked_ns, Some(3 * rtt + 3 * t + d + ta + d));
}

#[test]
fn tail_loss_needs_a_timeout() {
    // IW 4, 4 packets, the first copy of packet 3 is lost: no duplicate ACKs
    // follow, so only the retransmission timer can recover it.
    //   ACKs 1, 2, 3 arrive at D, D+T, D+2T. All four packets were handed to the
    //   network at 0 (timestamped then; packet j waits jT at the port), so the RTT
    //   samples are D, D+T, D+2T.
    //   RFC 6298: SRTT = R, RTTVAR = R/2; then RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|,
    //   SRTT = 7/8 SRTT + 1/8 R (integer ns); RTO = SRTT + 4 RTTVAR, at least 200 ms.
    //   The timer restarts with each new ACK, so it fires at D + 2T + RTO; packet 3
    //   is resent (cwnd 1) and arrives T + d later.
    let t = ser(1040, RATE);
    let ta = ser(40, RATE);
    let d = D_ONE_WAY;
    let rtt = t + 2 * d + ta;
    let rto = rfc6298_rto(&[rtt, rtt + t, rtt + 2 * t]);
    let f = &flows(&scenario(4, 4, 3))[0];
    assert_eq!(f.retransmits, 1);
    assert_eq!(f.drops, 1);
    assert_eq!(f.fct_ns(), Some(rtt + 2 * t + rto + t + d));
}

#[test]
fn repeated_loss_of_the_retransmission_backs_off() {
    // As above, but the retransmission of packet 3 is lost too: the second
    // timeout waits twice the RTO (RFC 6298 5.5) and no new RTT sample resets it.
    let t = ser(1040, RATE);
    let ta = ser(40, RATE);
    let d = D_ONE_WAY;
    let rtt = t + 2 * d + ta;
    let rto = rfc6298_rto(&[rtt, rtt + t, rtt + 2 * t]);
    let mut v = scenario(4, 4, 3);
    v["losses"] = json!([{"flow": 0, "seq": 3, "transmission": 1}, {"flow": 0, "seq": 3, "transmission": 2}]);
    let f = &flows(&v)[0];
    assert_eq!(f.retransmits, 2);
    assert_eq!(f.drops, 2);
    assert_eq!(f.fct_ns(), Some(rtt + 2 * t + rto + 2 * rto + t + d));
}

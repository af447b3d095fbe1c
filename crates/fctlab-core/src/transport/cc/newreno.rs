//! TCP NewReno's window policy: RFC 5681 slow start and congestion avoidance,
//! halving on loss. Its loss recovery (RFC 6582) lives in the sender machinery.

use super::{additive_increase, slow_start, AckSample, CongestionControl, Recovery, Window};
use crate::config::{documented, Entry, NoParams};
use crate::transport::{tcp, SchemeEntry};

/// `tcp-newreno`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-newreno",
    description: "TCP NewReno: RFC 5681 slow start and congestion avoidance, RFC 6582 fast recovery",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |t, p| {
        t.parse::<NoParams>()?;
        Ok(tcp::endpoints(p, || Box::new(NewReno)))
    },
};

pub struct NewReno;

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if w.cwnd < w.ssthresh {
            // Slow start; an ACK that takes cwnd past ssthresh is not re-used.
            slow_start(w, s.acked_pkts);
        } else {
            additive_increase(w, 1.0);
        }
    }

    /// RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 SMSS).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(acked: u64) -> AckSample {
        AckSample { now: 0, acked_pkts: acked, rtt_ns: 1, srtt_ns: 1, min_rtt_ns: 1, flight_pkts: 10 }
    }

    #[test]
    fn slow_start_then_one_packet_per_window() {
        let mut w = Window { cwnd: 2.0, ssthresh: 4.0 };
        let mut cc = NewReno;
        cc.on_ack(&mut w, &sample(1));
        cc.on_ack(&mut w, &sample(3)); // at most one packet per ACK
        assert_eq!(w.cwnd, 4.0);
        // Congestion avoidance: four ACKs at cwnd = 4 add about one packet.
        for _ in 0..4 {
            cc.on_ack(&mut w, &sample(1));
        }
        let mut expect = 4.0f64;
        for _ in 0..4 {
            expect += 1.0 / expect;
        }
        assert_eq!(w.cwnd, expect);
        assert!(w.cwnd > 4.9 && w.cwnd < 5.0);
        assert_eq!(cc.ssthresh_after_loss(&w, 9), 4.5);
        assert_eq!(cc.ssthresh_after_loss(&w, 1), 2.0);
    }
}

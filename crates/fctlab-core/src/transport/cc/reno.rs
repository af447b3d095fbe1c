//! TCP Reno (RFC 5681): slow start, congestion avoidance, halving on loss, and
//! fast recovery that ends on the first ACK of new data (the sender machinery
//! runs it for [`Recovery::Reno`]). Unlike NewReno (RFC 6582) a partial ACK ends
//! recovery, so a second loss in the same window needs three more duplicate
//! ACKs or a retransmission timeout.

use super::{AckSample, CongestionControl, NewReno, Recovery, Window};
use crate::config::{documented, Entry, NoParams};
use crate::transport::{tcp, SchemeEntry};

/// `tcp-reno`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-reno",
    description: "TCP Reno: RFC 5681 slow start, congestion avoidance and fast recovery (ends on the first new ACK)",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |t, p| {
        t.parse::<NoParams>()?;
        Ok(tcp::endpoints(p, || Box::new(Reno)))
    },
};

pub struct Reno;

impl CongestionControl for Reno {
    /// RFC 5681 slow start and congestion avoidance, shared with NewReno.
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        NewReno.on_ack(w, s);
    }

    /// RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 SMSS).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(acked: u64) -> AckSample {
        AckSample {
            now: 0,
            acked_pkts: acked,
            rtt_ns: 1,
            srtt_ns: 1,
            min_rtt_ns: 1,
            flight_pkts: 10,
        }
    }

    #[test]
    fn reno_window_arithmetic() {
        let mut cc = Reno;
        assert_eq!(cc.recovery(), Recovery::Reno);
        // Congestion avoidance from 10: ten ACKs add sum 1/w_i, just under one packet.
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        let mut expect = 10.0f64;
        for _ in 0..10 {
            cc.on_ack(&mut w, &sample(1));
            expect += 1.0 / expect;
        }
        assert_eq!(w.cwnd, expect);
        assert!(w.cwnd > 10.95 && w.cwnd < 11.0);
        // RFC 5681 eq. 4 on FlightSize, floor 2 segments.
        assert_eq!(cc.ssthresh_after_loss(&w, 11), 5.5);
        assert_eq!(cc.ssthresh_after_loss(&w, 2), 2.0);
    }
}

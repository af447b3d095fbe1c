//! TCP Tahoe (Jacobson 1988; ns-2 `Agent/TCP`): slow start and congestion
//! avoidance as NewReno, but a loss detected by three duplicate ACKs sends the
//! window back to one packet and goes back N (the sender machinery does that
//! for [`Recovery::Tahoe`]); there is no fast recovery.

use super::{AckSample, CongestionControl, NewReno, Recovery, Window};
use crate::config::{documented, Entry, NoParams};
use crate::transport::{tcp, SchemeEntry};

/// `tcp-tahoe`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-tahoe",
    description: "TCP Tahoe: slow start and congestion avoidance; on 3 dupACKs retransmit, window 1, go back N (no fast recovery)",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |t, p| {
        t.parse::<NoParams>()?;
        Ok(tcp::endpoints(p, || Box::new(Tahoe)))
    },
};

pub struct Tahoe;

impl CongestionControl for Tahoe {
    /// RFC 5681 slow start and congestion avoidance, shared with NewReno.
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        NewReno.on_ack(w, s);
    }

    /// ssthresh = max(FlightSize / 2, 2) (RFC 5681 eq. 4; ns-2's Tahoe halves
    /// min(cwnd, rwnd), the same quantity when the sender is window-limited).
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn recovery(&self) -> Recovery {
        Recovery::Tahoe
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
    fn grows_like_newreno_and_halves_the_flight() {
        let mut cc = Tahoe;
        assert_eq!(cc.recovery(), Recovery::Tahoe);
        // Slow start: +1 per ACK whatever it covers, until ssthresh.
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: 3.0,
        };
        cc.on_ack(&mut w, &sample(6));
        assert_eq!(w.cwnd, 2.0);
        cc.on_ack(&mut w, &sample(1));
        assert_eq!(w.cwnd, 3.0);
        // Congestion avoidance at cwnd 3: +1/3, then +1/(3 + 1/3) = 3/10.
        cc.on_ack(&mut w, &sample(1));
        cc.on_ack(&mut w, &sample(1));
        assert!((w.cwnd - (3.0 + 1.0 / 3.0 + 0.3)).abs() < 1e-12);
        // 6 packets in flight -> 3; 7 -> 3.5; never below 2.
        assert_eq!(cc.ssthresh_after_loss(&w, 6), 3.0);
        assert_eq!(cc.ssthresh_after_loss(&w, 7), 3.5);
        assert_eq!(cc.ssthresh_after_loss(&w, 3), 2.0);
    }
}

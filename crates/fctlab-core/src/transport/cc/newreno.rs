//! TCP NewReno's window policy: RFC 5681 slow start and congestion avoidance,
//! halving on loss. Its loss recovery (RFC 6582) lives in the sender machinery.

use super::{additive_increase, slow_start, AckSample, CongestionControl, Recovery, Window};
use crate::config::{documented, Entry, NoParams};
use crate::transport::tcp::options::WindowGrowth;
use crate::transport::{tcp, SchemeEntry, TransportParams};

/// `tcp-newreno`.
pub const ENTRY: SchemeEntry = Entry {
    name: "tcp-newreno",
    description: "TCP NewReno: RFC 5681 slow start and congestion avoidance, RFC 6582 fast recovery",
    table: None,
    params: documented::<NoParams>,
    requires: None,
    factory: |t, p| {
        t.parse::<NoParams>()?;
        Ok(tcp::endpoints(p, newreno_for(p)))
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

/// The NewReno controller the TCP model options ask for
/// (`window_growth`): [`NewReno`] or [`NewRenoBytes`].
pub fn newreno_for(p: &TransportParams) -> impl Fn() -> Box<dyn CongestionControl> + Send + Sync + 'static {
    let bytes = p.tcp.window_growth == WindowGrowth::Bytes;
    let mss = p.mss_bytes as f64;
    move || {
        if bytes {
            Box::new(NewRenoBytes { mss }) as Box<dyn CongestionControl>
        } else {
            Box::new(NewReno)
        }
    }
}

/// NewReno's window policy counted in bytes, as ns-3's `TcpNewReno`
/// (`src/internet/model/tcp-congestion-ops.cc`, ns-3.44) runs it:
/// `IncreaseWindow` slow-starts one SMSS per ACK while cwnd < ssthresh and
/// then, if cwnd >= ssthresh and the ACK acknowledged more segments than
/// slow start used, makes one congestion-avoidance step, adding
/// max(1, floor(SMSS^2 / cwnd)) bytes (`CongestionAvoidance`, with the
/// window in whole bytes); `GetSsThresh` is max(2 SMSS, floor(bytes / 2)).
/// The window is kept in packets of `mss` bytes, its byte count exact.
pub struct NewRenoBytes {
    pub mss: f64,
}

impl NewRenoBytes {
    fn bytes(&self, pkts: f64) -> f64 {
        (pkts * self.mss).round()
    }
}

impl CongestionControl for NewRenoBytes {
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        let mut acked = s.acked_pkts;
        if w.cwnd < w.ssthresh {
            acked = slow_start(w, acked);
        }
        if w.cwnd >= w.ssthresh && acked > 0 {
            let cwnd = self.bytes(w.cwnd);
            let adder = (self.mss * self.mss / cwnd).max(1.0).floor();
            w.cwnd = (cwnd + adder) / self.mss;
        }
    }

    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        let bytes = flight_pkts as f64 * self.mss;
        (bytes / 2.0).floor().max(2.0 * self.mss) / self.mss
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
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
    fn slow_start_then_one_packet_per_window() {
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: 4.0,
        };
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

    #[test]
    fn bytes_growth_as_ns3_newreno() {
        // SMSS 1000 B. After a timeout (cwnd 1000 B, ssthresh 2000 B), an ACK of
        // four segments: slow start adds 1000 B and reaches ssthresh; the three
        // segments left make one congestion-avoidance step of 10^6 / 2000 = 500 B.
        let mut cc = NewRenoBytes { mss: 1000.0 };
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: 2.0,
        };
        cc.on_ack(&mut w, &sample(4));
        assert_eq!((w.cwnd * 1000.0).round(), 2500.0);
        // Then 10^6 / 2500 = 400 B, and floor(10^6 / 2900) = 344 B (not 344.8).
        cc.on_ack(&mut w, &sample(3));
        assert_eq!((w.cwnd * 1000.0).round(), 2900.0);
        cc.on_ack(&mut w, &sample(1));
        assert_eq!((w.cwnd * 1000.0).round(), 3244.0);
        // An ACK of one segment that reaches ssthresh in slow start only slow-starts.
        let mut w = Window {
            cwnd: 3.0,
            ssthresh: 4.0,
        };
        cc.on_ack(&mut w, &sample(1));
        assert_eq!(w.cwnd, 4.0);
        // Slow start below ssthresh: one SMSS per ACK, however many it acknowledges.
        let mut w = Window {
            cwnd: 2.0,
            ssthresh: 100.0,
        };
        cc.on_ack(&mut w, &sample(42));
        assert_eq!(w.cwnd, 3.0);
        // At least one byte per ACK: SMSS^2 / cwnd < 1 when cwnd > SMSS^2 (10^6 B).
        let mut w = Window {
            cwnd: 2000.0,
            ssthresh: 2.0,
        };
        cc.on_ack(&mut w, &sample(1));
        assert_eq!((w.cwnd * 1000.0).round(), 2_000_001.0);
        // ssthresh: max(2 SMSS, floor(bytes / 2)), with an odd SMSS too.
        assert_eq!(cc.ssthresh_after_loss(&w, 103), 51.5);
        assert_eq!(cc.ssthresh_after_loss(&w, 3), 2.0);
        let mut odd = NewRenoBytes { mss: 1001.0 };
        assert_eq!((odd.ssthresh_after_loss(&w, 5) * 1001.0).round(), 2502.0);
    }
}

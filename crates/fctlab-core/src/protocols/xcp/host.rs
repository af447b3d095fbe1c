//! XCP's end host (Katabi, Handley & Rohrs 2002; ns-2 `xcp/xcp-end-sys.cc`):
//! a TCP whose window is set by router feedback instead of AIMD. It runs on
//! the shared TCP machinery ([`crate::transport::tcp`]): handshake, ACK
//! clocking and NewReno loss recovery, as ns-2's XCP agents are its
//! Reno/NewReno TCP agents with an XCP header added.
//!
//! - Every data packet carries `[H_cwnd, H_rtt, H_feedback]`
//!   ([`super`] for the layout): the window in packets, the
//!   smoothed RTT in seconds (0 before the first sample, which the routers
//!   answer with zero feedback), and the desired change of throughput,
//!   1e24 − cwnd·size/srtt bytes/s, i.e. "no limit" (ns-2 `MAX_THROUGHPUT`).
//! - The receiver echoes the header, summing the feedback of every data packet
//!   an ACK covers (ns-2's `XcpTcpSink` sums `delta_throughput_`).
//! - On each ACK of new data outside loss recovery:
//!   cwnd ← max(1, cwnd + H_feedback·srtt/size) packets (ns-2
//!   `XcpEndsys::recv`). No slow start and no additive increase.
//! - A loss halves the window as NewReno does (ssthresh = max(flight/2, 2)).
//!
//! Choices, stated: `size` is the data packet's size on the wire (mss +
//! header), the unit in which routers measure input and capacity (ns-2
//! divides by the payload size `size_`, 4% off with 1000 + 40 B packets). The
//! initial window is the transport's `init_cwnd_pkts` (ns-2 XCP agents inherit
//! TCP's `windowInit_`). Feedback on duplicate ACKs and during recovery is not
//! applied (ns-2's Reno XCP agent applies it in `recv_newack_helper`, on new
//! ACKs only). An echoed feedback of 1e23 or more means no XCP router stamped
//! the packet (a path without XCP ports); it is ignored, so such a flow keeps
//! its window.

use super::XcpHeader;
use crate::config::{documented, ConfigError, Entry, NoParams, Table};
use crate::net::packet::Header;
use crate::sim::{Time, NS_PER_S};
use crate::transport::cc::{AckSample, CongestionControl, Window};
use crate::transport::{tcp, EndpointBuilder, SchemeEntry, TransportParams};

/// `xcp` (the scheme).
pub const ENTRY: SchemeEntry = Entry {
    name: "xcp",
    description: "XCP (Katabi et al. 2002, ns-2 xcp-end-sys.cc): TCP machinery with NewReno recovery whose window follows the routers' explicit feedback (cwnd += feedback x srtt / size); needs queue = \"xcp\"",
    table: None,
    params: documented::<NoParams>,
    requires: Some("xcp"),
    factory,
};

/// The endpoints: a [`TcpSender`] driven by [`Xcp`] and a [`TcpReceiver`]
/// (which echoes the header). No parameters of its own; the transport's
/// `init_cwnd_pkts`, `mss_bytes` and `header_bytes` apply.
fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    t.parse::<NoParams>()?;
    let pkt_bytes = (p.mss_bytes + p.header_bytes) as f64;
    Ok(tcp::endpoints(p, move || Box::new(Xcp::new(pkt_bytes))))
}

/// ns-2 `MAX_THROUGHPUT`: the desired feedback a sender asks for.
pub const MAX_THROUGHPUT: f64 = 1e24;

/// The XCP window policy of one flow.
pub struct Xcp {
    /// Data packet size on the wire, bytes.
    pkt_bytes: f64,
}

impl Xcp {
    pub fn new(pkt_bytes: f64) -> Self {
        Xcp { pkt_bytes }
    }

    /// cwnd after an echoed feedback of `fb` bytes/s with smoothed RTT `srtt_s`.
    pub fn apply(&self, cwnd: f64, fb: f64, srtt_s: f64) -> f64 {
        if fb.is_nan() || fb.abs() >= MAX_THROUGHPUT / 10.0 {
            return cwnd;
        }
        (cwnd + fb * srtt_s / self.pkt_bytes).max(1.0)
    }
}

impl CongestionControl for Xcp {
    fn on_ack(&mut self, _w: &mut Window, _s: &AckSample) {}

    fn on_router_feedback(&mut self, w: &mut Window, s: &AckSample, hdr: &Header) {
        let fb = hdr.get::<XcpHeader>().feedback;
        w.cwnd = self.apply(w.cwnd, fb, s.srtt_ns as f64 / NS_PER_S as f64);
    }

    /// RFC 5681 eq. 4, as the TCP agent ns-2's XCP is built on.
    fn ssthresh_after_loss(&mut self, _w: &Window, flight_pkts: u64) -> f64 {
        (flight_pkts as f64 / 2.0).max(2.0)
    }

    fn data_header(&self, w: &Window, srtt_ns: Option<Time>) -> Option<Header> {
        let mut h = XcpHeader {
            cwnd_pkts: w.cwnd,
            ..XcpHeader::default()
        };
        if let Some(srtt) = srtt_ns.filter(|&s| s > 0) {
            let srtt_s = srtt as f64 / NS_PER_S as f64;
            h.rtt_s = srtt_s;
            h.feedback = MAX_THROUGHPUT - w.cwnd * self.pkt_bytes / srtt_s;
        }
        Some(Header::of(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xcp(cwnd_pkts: f64, rtt_s: f64, feedback: f64) -> Header {
        Header::of(XcpHeader {
            cwnd_pkts,
            rtt_s,
            feedback,
        })
    }

    fn sample(srtt_ns: Time) -> AckSample {
        AckSample {
            now: 0,
            acked_pkts: 1,
            rtt_ns: srtt_ns,
            srtt_ns,
            min_rtt_ns: srtt_ns,
            flight_pkts: 10,
        }
    }

    #[test]
    fn window_follows_the_feedback() {
        // 1040 B packets, srtt 0.1 s. Feedback +52 000 B/s is 52 000 · 0.1 =
        // 5200 B per RTT = 5 packets: cwnd 10 -> 15. Feedback −104 000 B/s is
        // −10 packets: 15 -> 5. A huge negative feedback floors cwnd at 1.
        let mut cc = Xcp::new(1040.0);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::MAX,
        };
        let s = sample(100_000_000);
        cc.on_ack(&mut w, &s);
        assert_eq!(w.cwnd, 10.0, "no growth without feedback");
        cc.on_router_feedback(&mut w, &s, &xcp(10.0, 0.1, 52_000.0));
        assert!((w.cwnd - 15.0).abs() < 1e-12);
        cc.on_router_feedback(&mut w, &s, &xcp(15.0, 0.1, -104_000.0));
        assert!((w.cwnd - 5.0).abs() < 1e-12);
        cc.on_router_feedback(&mut w, &s, &xcp(5.0, 0.1, -1e9));
        assert_eq!(w.cwnd, 1.0);
        // No router stamped it: "no limit" comes back and is ignored.
        cc.on_router_feedback(&mut w, &s, &xcp(1.0, 0.1, MAX_THROUGHPUT - 10_400.0));
        assert_eq!(w.cwnd, 1.0);
        assert_eq!(cc.ssthresh_after_loss(&w, 9), 4.5);
    }

    #[test]
    fn header_asks_for_no_limit() {
        // cwnd 10, srtt 50 ms, 1040 B: current throughput 10 · 1040 / 0.05 =
        // 208 000 B/s; H_feedback = 1e24 − 208 000 (which rounds to 1e24 in f64).
        let cc = Xcp::new(1040.0);
        let w = Window {
            cwnd: 10.0,
            ssthresh: f64::MAX,
        };
        let h: XcpHeader = cc.data_header(&w, Some(50_000_000)).unwrap().get();
        assert_eq!(h.cwnd_pkts, 10.0);
        assert_eq!(h.rtt_s, 0.05);
        assert_eq!(h.feedback, 1e24 - 208_000.0);
        // No RTT sample yet: rtt 0, which routers answer with zero feedback.
        let h: XcpHeader = cc.data_header(&w, None).unwrap().get();
        assert_eq!((h.cwnd_pkts, h.rtt_s, h.feedback), (10.0, 0.0, 0.0));
    }
}

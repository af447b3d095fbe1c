//! XCP, the eXplicit Control Protocol (Katabi, Handley & Rohrs 2002; ns-2
//! `xcp/`): routers compute per-packet window feedback; hosts apply it.
//!
//! Its header ([`XcpHeader`], a layout of `Packet::hdr`) is shared by both
//! halves: the sender writes it into every data packet, routers lower the
//! feedback, the receiver echoes it (the feedback summed over the packets an
//! ACK covers) and the sender applies the echoed feedback.

pub mod host;
pub mod router;

use crate::net::packet::Layout;

/// XCP's congestion header.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XcpHeader {
    /// H_cwnd: the sender's window, packets (> 0 marks the packet as XCP's).
    pub cwnd_pkts: f64,
    /// H_rtt: the sender's smoothed RTT, seconds (0: none yet).
    pub rtt_s: f64,
    /// H_feedback: the desired change of throughput, bytes/s; written by the
    /// sender (desired), lowered by routers (min with theirs), summed and
    /// echoed by the receiver, applied by the sender.
    pub feedback: f64,
}

impl Layout for XcpHeader {
    fn read(w: &[f64; 3]) -> Self {
        XcpHeader {
            cwnd_pkts: w[0],
            rtt_s: w[1],
            feedback: w[2],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        *w = [self.cwnd_pkts, self.rtt_s, self.feedback];
    }
}

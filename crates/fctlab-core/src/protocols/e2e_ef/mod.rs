//! e2e-ef, end-to-end explicit feedback (Mishra & Kanakia, "A hop by hop rate
//! based congestion control scheme", SIGCOMM 1992, which compares its
//! hop-by-hop scheme with this end-to-end equivalent; the 1991 benchmark of
//! Kanakia, Keshav & Mishra runs both).
//!
//! Read from the abstract and the benchmark (the equations were out of
//! reach): each switch serves conversations round robin and knows the rate it
//! gives each and how many of its packets it holds; the source learns both
//! for its bottleneck explicitly and runs the same control law as
//! packet-pair ([`crate::transport::packet_pair`]),
//! `lambda* = mu + (B - n_b) / RTT`, with `mu` and `n_b` stamped by the
//! routers instead of estimated from ACK spacing.
//!
//! Its header ([`EfHeader`], a layout of `Packet::hdr`) travels on data
//! packets and the receiver echoes it on each ACK.

pub mod host;
pub mod router;

use crate::net::packet::Layout;

/// e2e-ef's header; also hbh's report on an ACK ([`crate::protocols::hbh`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EfHeader {
    /// The smallest per-conversation service rate on the path so far,
    /// packets/s: senders write `f64::MAX` (none yet, and > 0 marks the
    /// packet as the scheme's), routers the minimum of it and theirs.
    pub rate_pps: f64,
    /// The conversation's packets queued at the port that set `rate_pps`.
    pub queue_pkts: f64,
}

/// The first two words; the third is left as it is.
impl Layout for EfHeader {
    fn read(w: &[f64; 3]) -> Self {
        EfHeader {
            rate_pps: w[0],
            queue_pkts: w[1],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        w[0] = self.rate_pps;
        w[1] = self.queue_pkts;
    }
}

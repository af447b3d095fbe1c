//! hbh, hop-by-hop rate control (Mishra & Kanakia, "A hop by hop rate-based
//! congestion control scheme", SIGCOMM 1992; AT&T Bell Labs TM
//! 11273-920225-01, 1992), as the 1991 benchmark of Kanakia, Keshav & Mishra
//! runs it.
//!
//! The scheme's idea (the abstract and the benchmark's description; the
//! paper's equations were out of reach, so the control law below is our
//! reading): every switch serves conversations round robin and knows, per
//! conversation, the rate at which it serves it and how many of its packets
//! it holds. It tells both to the upstream switch (or the source host), and
//! each upstream node sets the rate at which it sends that conversation
//! downstream so that the downstream queue of the conversation stays near a
//! set point. The control loop is one hop long instead of one round trip.
//!
//! Our reading of the law, the packet-pair form (Keshav 1991) applied per
//! hop: every hop round trip `d` (twice the link's propagation delay plus a
//! packet's serialisation), a switch port sets conversation `f`'s rate to
//!
//! ```text
//! lambda_f = max(mu_D + g (B - n_D) / d, mu_D / 16)
//! ```
//!
//! from the latest report of the next switch downstream: `mu_D`, the rate at
//! which that switch can keep serving `f` (its round-robin share: max-min
//! water filling of its line `C` over the other conversations' arrival rates,
//! each an exponentially weighted count of bits over 10 ms; or the rate its
//! own next switch reports if lower: the path's smallest share from there on)
//! and `n_D`, `f`'s packets there; `g` (1/4, chosen) damps the
//! loop, whose report is half a hop round trip old. The report reaches the port
//! one propagation delay of its link after the downstream switch sent it (it
//! reports what it was one propagation delay earlier). A port with no
//! switch downstream (the last hop) does not shape. The source host is the
//! first hop: the first switch's report (its service rate and the
//! conversation's queue there) reaches it on each ACK, written by the first
//! switch's port toward the host as the ACK passes (fctlab's hosts have no
//! router port the report could come through otherwise). The host half is
//! e2e-ef's source ([`crate::transport::packet_pair`] with explicit
//! feedback), whose rate law is the same form, `mu + (B - n_b) / RTT`.
//!
//! Its header has two layouts of `Packet::hdr`: [`HbhData`] on data
//! packets, which the receiver echoes on the ACK ([`HbhEcho`]), and on the
//! ACK the first switch's report ([`crate::protocols::e2e_ef::EfHeader`],
//! the layout e2e-ef's source reads), written over the echo by the first
//! switch's port toward the source.
//!
//! The extra-hop variant of the benchmark (three more switches between the
//! source and the bottleneck, the round trip unchanged) is a topology, built
//! with `topology = "graph"` (see docs/guide/topologies.md and the `kanakia1991`
//! reproductions).

pub mod host;
pub mod router;

use crate::net::packet::Layout;

/// hbh's header on data packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HbhData {
    /// `f64::MAX`, written by the sender: marks the packet as hbh's.
    pub rate_pps: f64,
    /// The id of the first switch's port (0: none yet), written by it.
    pub first_port: f64,
    /// The id of the last hbh port the packet left (0: none yet).
    pub last_port: f64,
}

impl Layout for HbhData {
    fn read(w: &[f64; 3]) -> Self {
        HbhData {
            rate_pps: w[0],
            first_port: w[1],
            last_port: w[2],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        *w = [self.rate_pps, self.first_port, self.last_port];
    }
}

/// hbh's ACK as the receiver echoes it, until the first switch's port
/// toward the source writes its report (`EfHeader`: its service rate of the
/// conversation and the conversation's packets queued there) over these two
/// words. Every hbh port that an ACK with a positive rate and a port id
/// passes writes the report of the port it names, so a port behind the one
/// that wrote a report reads the report's queue length as a port id.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HbhEcho {
    /// The data packet's `rate_pps` (> 0: an hbh ACK).
    pub rate_pps: f64,
    /// The data packet's `first_port`.
    pub first_port: f64,
}

/// The first two words; the third is left as it is.
impl Layout for HbhEcho {
    fn read(w: &[f64; 3]) -> Self {
        HbhEcho {
            rate_pps: w[0],
            first_port: w[1],
        }
    }

    fn write(self, w: &mut [f64; 3]) {
        w[0] = self.rate_pps;
        w[1] = self.first_port;
    }
}

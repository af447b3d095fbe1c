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
//! which that switch can keep serving `f` (its round-robin share `C / k`,
//! `k` the conversations holding packets there, `f` included, or the rate its
//! own next switch reports if lower: the path's smallest share from there on)
//! and `n_D`, `f`'s packets there; `g` (1/4, chosen) damps the
//! loop, whose report is half a hop round trip old. The report reaches the port
//! one propagation delay of its link after the downstream switch sent it (it
//! reports on each arrival and departure of one of `f`'s packets). A port with
//! no switch downstream (the last hop) does not shape. The source host's
//! rate is set by the first switch's report, which in fctlab rides on the
//! data packet to the receiver and back on its ACK (host interfaces are not
//! router ports): the host half is e2e-ef's source
//! ([`crate::transport::packet_pair`] with explicit feedback), whose rate
//! law is the same, `mu + (B - n_b) / RTT`, with `mu` and the queue from the
//! first switch.
//!
//! Header layout (`Packet::hdr`) of hbh data packets:
//!
//! | slot | field | written by |
//! | --- | --- | --- |
//! | [`HDR_RATE`] | the first switch's service rate of the conversation, packets/s (`f64::MAX` until then; marks the packet as hbh's) | sender, first switch |
//! | [`HDR_QUEUE`] | the conversation's packets at the first switch | first switch |
//! | [`HDR_PORT`] | the last hbh port the packet left (0: none yet) | switches |
//!
//! The extra-hop variant of the benchmark (three more switches between the
//! source and the bottleneck, the round trip unchanged) is a topology, built
//! with `topology = "graph"` (see the README and the `kanakia1991`
//! reproductions).

pub mod host;
pub mod router;

/// Index of the rate field (packets per second), shared with e2e-ef.
pub const HDR_RATE: usize = crate::protocols::e2e_ef::HDR_RATE;
/// Index of the queue field (packets), shared with e2e-ef.
pub const HDR_QUEUE: usize = crate::protocols::e2e_ef::HDR_QUEUE;
/// Index of the last hbh port's id.
pub const HDR_PORT: usize = 2;

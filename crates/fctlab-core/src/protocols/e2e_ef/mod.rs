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
//! Header layout (`Packet::hdr`) of data packets, echoed by the receiver on
//! each ACK:
//!
//! | slot | field | written by |
//! | --- | --- | --- |
//! | [`HDR_RATE`] | the smallest per-conversation service rate on the path so far, packets/s (`f64::MAX`: none yet) | senders (`f64::MAX`), routers (min) |
//! | [`HDR_QUEUE`] | the conversation's packets queued at the port that set `HDR_RATE` | routers |

pub mod host;
pub mod router;

/// Index of the rate field (packets per second).
pub const HDR_RATE: usize = 0;
/// Index of the queue field (packets).
pub const HDR_QUEUE: usize = 1;

//! XCP, the eXplicit Control Protocol (Katabi, Handley & Rohrs 2002; ns-2
//! `xcp/`): routers compute per-packet window feedback; hosts apply it.
//!
//! Header layout (`Packet::hdr`), shared by both halves:
//!
//! | slot | field | written by | read by |
//! | --- | --- | --- | --- |
//! | [`H_CWND`] | the sender's window, packets | the sender | routers |
//! | [`H_RTT`] | the sender's smoothed RTT, seconds (0 = none yet) | the sender | routers |
//! | [`H_FEEDBACK`] | desired change of throughput, bytes/s | the sender (desired), routers (min with their feedback) | the receiver, which sums and echoes it; the sender |

pub mod host;
pub mod router;

/// The sender's congestion window, packets.
pub const H_CWND: usize = 0;
/// The sender's smoothed RTT, seconds.
pub const H_RTT: usize = 1;
/// The feedback, bytes/s.
pub const H_FEEDBACK: usize = 2;

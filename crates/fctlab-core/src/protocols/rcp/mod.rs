//! RCP, the Rate Control Protocol (Dukkipati & McKeown 2006; ns-2 RCP patch):
//! routers give every flow one rate; hosts pace at the smallest rate on their
//! path.
//!
//! Header layout (`Packet::hdr`), shared by both halves:
//!
//! | slot | field | written by | read by |
//! | --- | --- | --- | --- |
//! | [`HDR_RATE`] | rate in bits/s (negative = infinity) | senders (-1), routers (min with R) on SYN and data | the receiver, which echoes it; the sender |
//! | [`HDR_RTT`] | the sender's RTT estimate in seconds (<= 0 = none) | senders | routers (average RTT d0) |
//! | [`HDR_SACK`] | on ACKs: the sequence number the ACK is for | the receiver | the sender |
//! | [`HDR_MARK`] (same slot) | on data: [`LAST`] on the flow's last packet, else 0 | senders | routers (flow count, mode `ps`) |

pub mod host;
pub mod router;

/// Index of the rate field in `Packet::hdr` (bits/s; negative = infinity).
pub const HDR_RATE: usize = 0;
/// Index of the RTT field in `Packet::hdr` (seconds; <= 0 = no estimate).
pub const HDR_RTT: usize = 1;
/// Index of the "acknowledges this sequence number" field on ACKs.
pub const HDR_SACK: usize = 2;
/// On data packets the same slot marks the flow's last packet.
pub const HDR_MARK: usize = 2;
/// `hdr[HDR_MARK]` of the flow's last data packet.
pub const LAST: f64 = 2.0;

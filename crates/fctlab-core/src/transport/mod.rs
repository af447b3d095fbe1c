//! Sans-IO transports: sender and receiver state machines.
//!
//! A transport never touches the event queue or a socket. The engine (or, later,
//! a real-clock driver over UDP) hands it `now` and the packets that arrive, and
//! it returns the packets to send through an outbox plus the time it next wants
//! to be woken ([`Sender::next_timer`]). The engine keeps at most one pending
//! wake-up per endpoint and cancels the rest lazily.

pub mod cc;
pub mod packet_pair;
pub mod rtt;
pub mod sack;
pub mod tcp;

pub use tcp::options::{Preset, TcpOptions};

use crate::config::{ConfigError, Entry, Table};
use crate::net::Packet;
use crate::sim::Time;
use std::sync::Arc;

/// The sending half of one flow.
pub trait Sender: Send {
    /// The flow's data becomes available at `now`.
    fn start(&mut self, now: Time, out: &mut Vec<Packet>);
    /// A packet (ACK, SYN-ACK, feedback) for this sender arrives.
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>);
    /// The time returned by `next_timer` has come.
    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>);
    /// When the sender next needs `on_timer` (None: no timer armed).
    fn next_timer(&self) -> Option<Time>;
    /// The whole flow has been acknowledged.
    fn done(&self) -> bool;
    /// Data packets sent more than once.
    fn retransmits(&self) -> u64;
    /// Retransmission timeouts so far, and how many of them were found
    /// spurious and undone (TCP's F-RTO); none for other transports.
    fn timeouts(&self) -> (u64, u64) {
        (0, 0)
    }
    /// Congestion window in packets (for rate-based schemes: rate x RTT).
    fn cwnd_pkts(&self) -> f64;
    /// Smoothed RTT estimate, if any sample was taken.
    fn srtt_ns(&self) -> Option<Time>;
    /// Whether the engine should write the path's queuing delay into this
    /// flow's ACKs ([`crate::net::packet::Header::path_queue_ns`]); asked once.
    fn wants_path_delay(&self) -> bool {
        false
    }
    /// The sender's model of its path, for a scheme that keeps one: each
    /// estimate by name (`model_bw_pps`, `model_min_rtt_ms`, `model_alpha`),
    /// sampled into the per-flow series.
    fn model(&self, _put: &mut dyn FnMut(&'static str, f64)) {}
}

/// The receiving half of one flow.
pub trait Receiver: Send {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>);
    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>);
    fn next_timer(&self) -> Option<Time>;
    /// When the last payload byte arrived, once it has.
    fn finished_at(&self) -> Option<Time>;
    /// The cumulative in-order point: data packets 0..n have all arrived
    /// (TCP's RCV.NXT in packets). Measuring flows record when it advances.
    fn in_order_pkts(&self) -> u64;
}

/// A flow's size as the transport sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSize {
    /// A flow of `bytes` payload bytes in `pkts` data packets.
    Finite { bytes: u64, pkts: u64 },
    /// A flow that never ends (it runs until the run's `stop_s`).
    LongLived,
}

impl FlowSize {
    /// `pkts` full packets of `mss` bytes.
    pub fn of_pkts(pkts: u64, mss: u32) -> Self {
        FlowSize::Finite {
            bytes: pkts * mss as u64,
            pkts,
        }
    }

    /// `bytes` of payload in packets of at most `mss` bytes.
    pub fn from_bytes(bytes: u64, mss: u32) -> Self {
        FlowSize::Finite {
            bytes,
            pkts: bytes.div_ceil(mss as u64).max(1),
        }
    }

    pub fn is_long_lived(&self) -> bool {
        matches!(self, FlowSize::LongLived)
    }

    /// Data packets (None: long-lived).
    pub fn pkts(&self) -> Option<u64> {
        match *self {
            FlowSize::Finite { pkts, .. } => Some(pkts),
            FlowSize::LongLived => None,
        }
    }

    /// Payload bytes (None: long-lived).
    pub fn bytes(&self) -> Option<u64> {
        match *self {
            FlowSize::Finite { bytes, .. } => Some(bytes),
            FlowSize::LongLived => None,
        }
    }

    /// The sequence number one past the last data packet: every data packet
    /// has `seq < end_seq()`. A long-lived flow has no last packet; its end is
    /// beyond any sequence number a run can reach.
    #[inline]
    pub fn end_seq(&self) -> u64 {
        match *self {
            FlowSize::Finite { pkts, .. } => pkts,
            FlowSize::LongLived => u64::MAX,
        }
    }

    /// Payload bytes carried by data packet `seq`.
    pub fn payload_of(&self, seq: u64, mss: u32) -> u32 {
        match *self {
            FlowSize::Finite { bytes, pkts } if seq + 1 >= pkts => (bytes - (pkts - 1) * mss as u64) as u32,
            _ => mss,
        }
    }
}

/// Settings every transport gets, whatever its scheme (checked and defaulted
/// by the scenario layer).
#[derive(Clone, Debug)]
pub struct TransportParams {
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub init_cwnd_pkts: f64,
    pub handshake: bool,
    pub delayed_ack: bool,
    pub delack_timeout_ns: Time,
    pub min_rto_ns: Time,
    pub initial_rto_ns: Time,
    pub max_rto_ns: Time,
    pub dupack_threshold: u32,
    /// Receiver-window cap on the congestion window, in packets.
    pub max_cwnd_pkts: f64,
    pub ecn: bool,
    /// The TCP model options (docs/guide/tcp-options.md): where
    /// implementations differ; the defaults follow the RFCs.
    pub tcp: TcpOptions,
}

impl TransportParams {
    /// Bytes on the wire of a full-sized data packet.
    pub fn pkt_bytes(&self) -> u32 {
        self.mss_bytes + self.header_bytes
    }
}

/// A flow's two endpoints.
pub type Endpoints = (Box<dyn Sender>, Box<dyn Receiver>);

/// Makes the endpoints of flow `id` of the given size, from checked parameters.
pub type EndpointBuilder = Arc<dyn Fn(u32, FlowSize) -> Endpoints + Send + Sync>;

/// Checks a scheme's parameter table (`[transport.<table>]`) and returns the
/// builder of its endpoints.
pub type SchemeFactory = fn(Table, &TransportParams) -> Result<EndpointBuilder, ConfigError>;

/// A registered scheme (see `crate::registry::SCHEMES`): a window-based TCP
/// (a [`cc::CongestionControl`] on the [`tcp`] machinery) or any other
/// transport. `requires` names the router queue a router-assisted scheme needs.
pub type SchemeEntry = Entry<SchemeFactory>;

//! Sans-IO transports: sender and receiver state machines.
//!
//! A transport never touches the event queue or a socket. The engine (or, later,
//! a real-clock driver over UDP) hands it `now` and the packets that arrive, and
//! it returns the packets to send through an outbox plus the time it next wants
//! to be woken ([`Sender::next_timer`]). The engine keeps at most one pending
//! wake-up per endpoint and cancels the rest lazily.

pub mod cc;
pub mod rcp;
pub mod rtt;
pub mod tcp;

use crate::net::Packet;
use crate::scenario::{ConfigError, TransportCfg};
use crate::sim::Time;
use cc::Param;
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
    /// Congestion window in packets (for rate-based schemes: rate x RTT).
    fn cwnd_pkts(&self) -> f64;
    /// Smoothed RTT estimate, if any sample was taken.
    fn srtt_ns(&self) -> Option<Time>;
}

/// The receiving half of one flow.
pub trait Receiver: Send {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>);
    fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>);
    fn next_timer(&self) -> Option<Time>;
    /// When the last payload byte arrived, once it has.
    fn finished_at(&self) -> Option<Time>;
}

/// A flow's size as the transport sees it.
#[derive(Clone, Copy, Debug)]
pub struct FlowSize {
    /// Payload bytes; `u64::MAX` for a long-lived flow that never ends.
    pub bytes: u64,
    /// Data packets.
    pub pkts: u64,
}

impl FlowSize {
    pub const LONG_LIVED: FlowSize = FlowSize { bytes: u64::MAX, pkts: u64::MAX };

    pub fn from_bytes(bytes: u64, mss: u32) -> Self {
        FlowSize { bytes, pkts: bytes.div_ceil(mss as u64).max(1) }
    }

    pub fn is_long_lived(&self) -> bool {
        self.pkts == u64::MAX
    }

    /// Payload bytes carried by data packet `seq`.
    pub fn payload_of(&self, seq: u64, mss: u32) -> u32 {
        if self.is_long_lived() || seq + 1 < self.pkts {
            mss
        } else {
            (self.bytes - (self.pkts - 1) * mss as u64) as u32
        }
    }
}

/// Transport parameters common to the TCP family (defaults in `scenario`).
#[derive(Clone, Debug)]
pub struct TcpParams {
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
}

/// A flow's two endpoints.
pub type Endpoints = (Box<dyn Sender>, Box<dyn Receiver>);

/// Makes the endpoints of flow `id` of the given size, from checked parameters.
pub type EndpointBuilder = Arc<dyn Fn(u32, FlowSize) -> Endpoints + Send + Sync>;

/// A transport that is not a window-based TCP (rate-based and router-assisted
/// schemes): one file each, one entry in [`PROTOCOLS`].
pub struct Protocol {
    pub name: &'static str,
    pub description: &'static str,
    /// Its parameter table under `[transport]`, if it has parameters.
    pub table: Option<&'static str>,
    pub params: &'static [Param],
    /// The router queue discipline it needs (its router half), if any.
    pub queue: Option<&'static str>,
    pub factory: fn(&TransportCfg, &TcpParams) -> Result<EndpointBuilder, ConfigError>,
}

/// Rate-based and router-assisted transports.
pub const PROTOCOLS: &[Protocol] = &[cc::xcp::PROTOCOL, rcp::PROTOCOL];

/// What `transport.scheme` names: a window-based TCP or another protocol.
pub enum SchemeRef {
    Tcp(&'static cc::Scheme),
    Other(&'static Protocol),
}

impl SchemeRef {
    pub fn table(&self) -> Option<&'static str> {
        match self {
            SchemeRef::Tcp(s) => s.table,
            SchemeRef::Other(p) => p.table,
        }
    }

    /// The router queue the scheme needs, if any.
    pub fn queue(&self) -> Option<&'static str> {
        match self {
            SchemeRef::Tcp(_) => None,
            SchemeRef::Other(p) => p.queue,
        }
    }

    /// Check the scheme's parameters and return the builder of its endpoints.
    pub fn endpoints(&self, t: &TransportCfg, p: &TcpParams) -> Result<EndpointBuilder, ConfigError> {
        match self {
            SchemeRef::Tcp(s) => {
                let cc = (s.factory)(t)?;
                let p = p.clone();
                Ok(Arc::new(move |id, size| {
                    (Box::new(tcp::TcpSender::new(id, size, p.clone(), cc())) as Box<dyn Sender>, Box::new(tcp::TcpReceiver::new(id, size, &p)) as Box<dyn Receiver>)
                }))
            }
            SchemeRef::Other(o) => (o.factory)(t, p),
        }
    }
}

/// Every scheme name, window-based TCPs first.
pub fn scheme_names() -> Vec<&'static str> {
    cc::SCHEMES.iter().map(|s| s.name).chain(PROTOCOLS.iter().map(|p| p.name)).collect()
}

/// Look up `transport.scheme`.
pub fn lookup(name: &str) -> Option<SchemeRef> {
    cc::lookup(name).map(SchemeRef::Tcp).or_else(|| PROTOCOLS.iter().find(|p| p.name == name).map(SchemeRef::Other))
}

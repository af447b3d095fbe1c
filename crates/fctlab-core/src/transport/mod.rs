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
    /// Congestion window in packets (for rate-based schemes: rate x RTT).
    fn cwnd_pkts(&self) -> f64;
    /// Smoothed RTT estimate, if any sample was taken.
    fn srtt_ns(&self) -> Option<Time>;
    /// Whether the engine should write the path's queuing delay into this
    /// flow's ACKs ([`crate::net::packet::PATH_QUEUE_WORD`]); asked once.
    fn wants_path_delay(&self) -> bool {
        false
    }
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
    /// Choices of the TCP model where implementations differ (README, "TCP
    /// model options"); the defaults follow the RFCs.
    pub model: TcpModel,
}

/// TCP model options: where the RFCs leave room, or where ns-3's TCP
/// (`src/internet/model/tcp-socket-base.cc`, ns-3.44) behaves otherwise.
/// `Default` is fctlab's RFC-faithful model; [`TcpModel::ns3`] is ns-3's.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpModel {
    /// The SYN's retransmission timeout, doubled per retry (None: the initial
    /// RTO, RFC 6298 2.1, which treats the SYN as any segment). ns-3:
    /// `TcpSocket::ConnTimeout` 3 s (tcp-socket.cc), doubled per retry in
    /// `TcpSocketBase::SendEmptyPacket`.
    pub syn_rto_ns: Option<Time>,
    /// RFC 3042 limited transmit: one new segment on each of the first two
    /// duplicate ACKs (ns-3: `TcpSocketBase::LimitedTransmit`, on by default).
    pub limited_transmit: bool,
    /// RTT samples by Karn's rule (RFC 6298 section 3: none from a
    /// retransmitted segment or SYN; each ACK of new data times the oldest
    /// segment it acknowledges; the record is emptied on a timeout): ns-3's
    /// `EstimateRtt` without the timestamp option. false: every ACK of new
    /// data samples the send time echoed from the segment that triggered it,
    /// retransmissions included (RFC 7323 timestamps).
    pub karn: bool,
    /// NewReno's window on a full ACK: ssthresh (RFC 6582 3.2 step 6 option 2,
    /// "full deflation"; ns-3's `TcpClassicRecovery::ExitRecovery` with
    /// `m_cWnd = m_ssThresh` in `ProcessAck`) instead of min(ssthresh,
    /// FlightSize + 1) (option 1).
    pub exit_to_ssthresh: bool,
    /// After a timeout, the ACK that first covers everything sent before it
    /// (RFC 6582's recover) grows the window only by the segments beyond
    /// that point, as ns-3 counts `(ackNumber - m_recover)` on leaving
    /// `CA_LOSS` (`TcpSocketBase::ProcessAck`), usually none; false: by all
    /// it acknowledges (RFC 5681: every ACK of new data in slow start).
    pub timeout_exit_beyond_recover: bool,
    /// Fast retransmit leaves the retransmission timer running (RFC 6298 5.1:
    /// start it only if it is not running; ns-3's `SendDataPacket`) instead
    /// of restarting it.
    pub keep_timer_on_fast_retransmit: bool,
    /// ssthresh after a loss halves ns-3's estimate of the data in the
    /// network instead of RFC 5681's FlightSize (all data sent and not yet
    /// acknowledged). Without SACK ns-3 (`TcpTxBuffer::AddRenoSack`,
    /// `BytesInFlight`) counts each duplicate ACK as one segment that has left
    /// (the first two only with limited transmit), the head as lost once
    /// recovery starts, and a retransmission as back in flight; after a
    /// timeout everything sent before it is lost. Fast retransmit
    /// (`TcpSocketBase::EnterRecovery`) halves that estimate plus one segment;
    /// a timeout (`TcpSocketBase::ReTxTimeout`) halves the estimate, every
    /// time (the check meant to hold ssthresh on a repeated timeout runs after
    /// `TcpTxBuffer::SetSentListLost` has cleared the retransmitted flags).
    pub ssthresh_from_pipe: bool,
    /// NewReno without SACK sends as ns-3 does (`TcpSocketBase::SendPendingData`,
    /// `TcpTxBuffer::AddRenoSack`, `DiscardUpTo`, `TcpClassicRecovery`): while
    /// cwnd less its estimate of the data in the network (see
    /// `ssthresh_from_pipe`) leaves a segment, instead of RFC 5681's
    /// FlightSize against a cwnd inflated by duplicate ACKs. In recovery cwnd
    /// stays ssthresh and each duplicate ACK counts a segment as left; a
    /// partial ACK marks the new head lost and resends it. Counted segments
    /// that an ACK does not cover stay counted, and when the new head is one
    /// of them ns-3 marks it lost: it is resent at once, even outside
    /// recovery, and the next duplicate ACK starts a recovery.
    pub pipe_window: bool,
    /// The SYN-ACK of a retransmitted SYN is timed from the first SYN (ns-3:
    /// `TcpSocketBase::UpdateRttHistory` records the SYN as zero bytes, so
    /// its resend never marks it retransmitted and `EstimateRtt` times the
    /// SYN-ACK from the first send): after one lost SYN the RTO is about
    /// 3 x 3 s. Otherwise `karn` decides (no sample, or the echo of the
    /// last SYN).
    pub time_first_syn: bool,
    /// The initial slow-start threshold in packets. RFC 5681 section 3.1:
    /// "SHOULD be set arbitrarily high" (f64::MAX, the default); ns-2's
    /// `ssthresh_` is likewise unbounded by default.
    pub init_ssthresh_pkts: f64,
    /// NewReno grows its window as ns-3's `TcpNewReno::IncreaseWindow`
    /// (tcp-congestion-ops.cc) does: cwnd is a whole number of bytes and
    /// congestion avoidance adds max(1, floor(SMSS^2 / cwnd)) bytes per
    /// ACK; slow start adds one SMSS per ACK, as RFC 5681, but an ACK of
    /// several segments that brings cwnd to ssthresh spends the rest on one
    /// congestion-avoidance step. A loss sets ssthresh to max(2 SMSS,
    /// floor(bytes / 2)). Otherwise cwnd is a real number of packets, and an
    /// ACK that ends slow start only slow-starts.
    pub bytes_growth: bool,
    /// The sender answers the SYN-ACK with a pure ACK (header bytes only)
    /// before its first data, the third segment of RFC 793's three-way
    /// handshake, as ns-3 does (`TcpSocketBase::ProcessSynSent` sends it with
    /// `SendEmptyPacket(TcpHeader::ACK)`; the data follows). Otherwise the
    /// first data segment carries that acknowledgement.
    pub handshake_ack: bool,
    /// Bytes of TCP options a SYN and a SYN-ACK carry beyond `header_bytes`.
    /// ns-3 offers window scaling on every connection (`TcpSocketBase::WindowScaling`,
    /// default true): the 3-byte option of RFC 7323 section 2.2, padded to 4
    /// (`TcpOptionWinScale`); SACK-permitted and timestamps are off here.
    pub syn_option_bytes: u32,
    /// Connection teardown as ns-3 closes a flow: the sender's FIN rides on
    /// its last data segment; the receiver, once the application has read
    /// everything, sends its FIN right after the ACK of the last data
    /// (header bytes, reverse direction); the sender answers it with a pure
    /// ACK (forward). The flow counts as acknowledged when that FIN arrives
    /// (a lost FIN is waited for one RTO). ns-3 `TcpSocketBase::SendDataPacket`
    /// (FIN on the last segment when closing on empty), `DoPeerClose`,
    /// `ProcessWait`.
    pub fin_exchange: bool,
    /// With `fin_exchange`, the close as ns-3 ends it when TIME_WAIT lasts
    /// no time (`TcpSocketBase::MaxSegLifetime` 0, as crossval's ns-3 peer
    /// runs it): the receiver's application closes inside the FIN's
    /// notification, so `DoPeerClose` sends a pure ACK right after the
    /// FIN; that ACK reaches a sender whose endpoint is already gone, and
    /// `TcpL4Protocol::Receive` answers it with a reset (header bytes,
    /// forward). The sender is done when it sends the reset (a lost ACK is
    /// waited for one RTO).
    pub fin_rst: bool,
}

impl Default for TcpModel {
    fn default() -> Self {
        TcpModel {
            syn_rto_ns: None,
            limited_transmit: false,
            karn: false,
            exit_to_ssthresh: false,
            timeout_exit_beyond_recover: false,
            keep_timer_on_fast_retransmit: false,
            init_ssthresh_pkts: f64::MAX,
            ssthresh_from_pipe: false,
            pipe_window: false,
            time_first_syn: false,
            bytes_growth: false,
            handshake_ack: false,
            syn_option_bytes: 0,
            fin_exchange: false,
            fin_rst: false,
        }
    }
}

impl TcpModel {
    /// ns-3.44's TCP (`TcpSocketBase` with `TcpClassicRecovery`, timestamps off).
    pub fn ns3() -> Self {
        TcpModel {
            syn_rto_ns: Some(3_000_000_000),
            limited_transmit: true,
            karn: true,
            exit_to_ssthresh: true,
            timeout_exit_beyond_recover: true,
            keep_timer_on_fast_retransmit: true,
            init_ssthresh_pkts: f64::MAX,
            ssthresh_from_pipe: true,
            pipe_window: true,
            time_first_syn: true,
            bytes_growth: true,
            handshake_ack: true,
            syn_option_bytes: 4,
            fin_exchange: true,
            fin_rst: true,
        }
    }
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

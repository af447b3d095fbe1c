//! Congestion controllers for window-based TCPs, one file each.
//!
//! Shaped after Linux `struct tcp_congestion_ops`: the sender machinery in
//! [`super::tcp`] owns the window, counts duplicate ACKs, retransmits and runs
//! loss recovery; it computes each ACK's sample once and hands it to the
//! controller, which only decides how the window grows and how far it falls.
//! Units are packets (MSS-sized segments), as in ns-2.
//!
//! Adding a controller is one new file here, `<name>.rs`, that defines its
//! `ENTRY` (a [`SchemeEntry`]), plus its name in [`controllers!`] below,
//! which declares the module and registers the entry in
//! [`crate::registry::SCHEMES`].

/// Declares each controller's module and lists its `ENTRY` in [`ENTRIES`].
macro_rules! controllers {
    ($($name:ident),+ $(,)?) => {
        $(pub mod $name;)+

        /// Every controller's scheme, in the order `fctlab list` shows them.
        pub const ENTRIES: &[SchemeEntry] = &[$($name::ENTRY),+];
    };
}

controllers!(newreno, reno, tahoe, hstcp, scalable, decbit, tri_s, dual, tarheel, srf, libra, dctcp, cubic, vegas, bbr);

pub use hstcp::{Hstcp, HstcpParams};
pub use newreno::NewReno;
pub use reno::Reno;
pub use scalable::{Scalable, ScalableParams};
pub use tahoe::Tahoe;

use crate::net::packet::Header;
use crate::sim::Time;
use crate::transport::SchemeEntry;

/// The window state a controller acts on.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
}

/// What the sender learned from one ACK of new data.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Packets newly acknowledged by this ACK.
    pub acked_pkts: u64,
    /// RTT measured from the echoed timestamp.
    pub rtt_ns: Time,
    pub srtt_ns: Time,
    pub min_rtt_ns: Time,
    /// Packets outstanding before this ACK.
    pub flight_pkts: u64,
}

/// What a controller that opts in ([`CongestionControl::wants_ack_seq`])
/// learns from every ACK that acknowledges new data, in loss recovery too:
/// where the ACK sits in the sequence space and the congestion bit the
/// receiver copied into it (DECbit's bit travels as CE on data and ECE on the
/// ACK; Ramakrishnan & Jain 1990).
#[derive(Clone, Copy, Debug)]
pub struct AckSeq {
    pub now: Time,
    /// The cumulative acknowledgement (next sequence number expected).
    pub ack: u64,
    /// Packets newly acknowledged by this ACK.
    pub acked_pkts: u64,
    /// The next sequence number the sender will send (SND.NXT).
    pub snd_nxt: u64,
    /// The congestion bit echoed by this ACK.
    pub congestion_bit: bool,
    /// RTT measured from the echoed timestamp.
    pub rtt_ns: Time,
    /// Whether `rtt_ns` is a sample of this ACK; false when Karn's rule
    /// gave none and `rtt_ns` is the smoothed RTT.
    pub rtt_sampled: bool,
    /// Whether the sender is in fast recovery.
    pub in_recovery: bool,
}

/// A segment leaving, told to a controller that takes the delivery picture
/// ([`CongestionControl::wants_delivery`]; Linux `tcp_rate_skb_sent`).
#[derive(Clone, Copy, Debug)]
pub struct TxEvent {
    pub now: Time,
    pub seq: u64,
    /// The segment was sent before.
    pub retransmit: bool,
    /// Segments sent and not yet acknowledged before this one (Linux's
    /// `packets_out`: HighData - SND.UNA).
    pub packets_out: u64,
}

/// The congestion-control state of the sender (Linux's `icsk_ca_state`,
/// the part BBR reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until everything sent before it is
    /// acknowledged.
    Loss,
}

/// What one ACK delivered, for a controller that sets the window itself on
/// every ACK ([`CongestionControl::wants_delivery`]; Linux's `cong_control`
/// with its `rate_sample`).
#[derive(Clone, Copy, Debug)]
pub struct Delivery {
    pub now: Time,
    /// The send time the ACK echoes (the segment that triggered it).
    pub echoed_ts: Time,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub delivered: u64,
    /// Segments newly taken for lost on this ACK.
    pub losses: u64,
    /// Segments in flight (RFC 6675's pipe) before and after the ACK.
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// The ACK's RTT sample (now - echoed send time).
    pub rtt_ns: Time,
    /// The least RTT sample of the connection (Linux's `tcp_min_rtt`).
    pub min_rtt_ns: Time,
    /// The smoothed RTT, once there is a sample.
    pub srtt_ns: Option<Time>,
    pub state: CaState,
    /// The earliest time the next segment may leave (Linux's
    /// `tcp_wstamp_ns`; `now` without pacing).
    pub edt_ns: Time,
}

/// How the sender recovers from a loss detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Tahoe: retransmit, window to one packet, go back N.
    Tahoe,
    /// Reno (RFC 5681): fast recovery ends on the first new ACK.
    Reno,
    /// NewReno (RFC 6582): fast recovery ends when all data outstanding at its
    /// start is acknowledged; partial ACKs retransmit the next hole.
    NewReno,
}

/// A window-growth and back-off policy.
pub trait CongestionControl: Send {
    /// Grow the window on an ACK of new data outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, s: &AckSample);
    /// The slow-start threshold after a loss, given the packets in flight.
    fn ssthresh_after_loss(&mut self, w: &Window, flight_pkts: u64) -> f64;
    /// The slow-start threshold (and cwnd) after an ACK carrying ECE, once
    /// per window of data (RFC 3168 6.1.2); by default as after a loss.
    /// DCTCP's cut (RFC 8257) differs from its loss response.
    fn ssthresh_after_ece(&mut self, w: &Window, flight_pkts: u64) -> f64 {
        self.ssthresh_after_loss(w, flight_pkts)
    }
    /// A retransmission timeout fired (after the sender set ssthresh and cwnd).
    fn on_rto(&mut self, _w: &mut Window) {}
    /// The recovery style the sender runs for this controller.
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    /// Router-assisted schemes (XCP): the ACK's echoed header, given after
    /// `on_ack` on the same ACKs (new data, outside loss recovery).
    fn on_router_feedback(&mut self, _w: &mut Window, _s: &AckSample, _hdr: &Header) {}
    /// Router-assisted schemes (XCP): the header to put in each data packet
    /// (`Packet::hdr`); None leaves it zero.
    fn data_header(&self, _w: &Window, _srtt_ns: Option<Time>) -> Option<Header> {
        None
    }
    /// Whether the SYN is ECN-capable too (ECT), as for a controller that
    /// needs ECN (Linux `tcp_ca_needs_ecn`: `tcp_ecn_send_syn` sets ECT on the
    /// socket before the SYN leaves; ns-3's `DctcpEcn` mode). RFC 3168 6.1.1
    /// keeps the SYN Not-ECT otherwise.
    fn ect_syn(&self) -> bool {
        false
    }
    /// Whether the sender calls [`Self::on_ack_seq`] (asked once per flow).
    fn wants_ack_seq(&self) -> bool {
        false
    }
    /// Every ACK of new data, before `on_ack` and also in loss recovery;
    /// called only when [`Self::wants_ack_seq`] says so.
    fn on_ack_seq(&mut self, _w: &mut Window, _s: &AckSeq) {}
    /// The connection is established: on the SYN-ACK, with the handshake's
    /// RTT sample (None if the SYN was retransmitted under Karn's rule), or
    /// at the start of a flow without a handshake (None). Called before the
    /// first data packet leaves, so the controller may set the initial window
    /// and threshold here.
    fn on_established(&mut self, _w: &mut Window, _rtt_ns: Option<Time>) {}
    /// Whether the sender reads the path's queuing delay that the engine
    /// writes into every ACK and SYN-ACK of this flow (asked once per flow;
    /// see [`crate::net::packet::Header::path_queue_ns`]). Schemes that do not ask
    /// cost nothing.
    fn wants_path_delay(&self) -> bool {
        false
    }
    /// The queuing delay on the flow's path when this ACK reached the sender
    /// (ns, summed over the router ports of both directions), given before any
    /// other call for the same ACK; called only when
    /// [`Self::wants_path_delay`] says so.
    fn on_path_delay(&mut self, _q_ns: f64) {}
    /// Whether the controller owns the window (asked once per flow): the
    /// sender tells it of every segment it sends ([`Self::on_send`]) and of
    /// what every ACK delivered ([`Self::on_delivery`], before the sender
    /// sends in answer), and leaves the window to it in recovery (no
    /// inflation, no PRR, no cwnd = ssthresh; ECE is ignored). Linux's
    /// `cong_control` hook, which BBR uses. Needs SACK recovery.
    fn wants_delivery(&self) -> bool {
        false
    }
    /// A segment leaves; called only when [`Self::wants_delivery`] says so.
    fn on_send(&mut self, _e: &TxEvent) {}
    /// Every ACK, after the sender's own bookkeeping and before it sends;
    /// called only when [`Self::wants_delivery`] says so.
    fn on_delivery(&mut self, _w: &mut Window, _d: &Delivery) {}
    /// Whether the controller needs pacing (asked once; BBR does): the
    /// sender paces unless `pacing = false`, which the scheme refuses.
    fn needs_pacing(&self) -> bool {
        false
    }
    /// The pacing rate the controller sets, payload bytes per second (Linux
    /// `sk_pacing_rate`); None leaves it to the sender's default (Linux
    /// `tcp_update_pacing_rate`). Read only when the sender paces.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// The controller's estimates by name, for the per-flow series: BBR's
    /// bottleneck bandwidth (`model_bw_pps`, segments per second), minimum
    /// RTT (`model_min_rtt_ms`), packet-timed rounds (`model_rounds`) and
    /// mode (`model_mode`: 0 startup, 1 drain, 2 probe-bw, 3 probe-rtt),
    /// DCTCP's alpha (`model_alpha`).
    fn model(&self, _put: &mut dyn FnMut(&'static str, f64)) {}
}

/// The largest window the RTT-scaling controllers (`tcp-tarheel`,
/// `tcp-srf`, `tcp-libra`) reach, packets: their increases grow with RTT
/// ratios (2^s per round trip, (T/T0)^2) and would overflow to infinity with
/// extreme parameters; 10^7 packets is 10 GB in flight, beyond any path
/// fctlab simulates.
pub const MAX_SCALED_WINDOW_PKTS: f64 = 1e7;

/// RFC 5681 (eq. 2) slow start: cwnd += min(N, 1 packet) per ACK, stopping at
/// ssthresh. Returns the acked packets not used up by slow start.
pub fn slow_start(w: &mut Window, acked: u64) -> u64 {
    if acked == 0 {
        return 0;
    }
    w.cwnd += 1.0;
    acked - 1
}

/// RFC 5681 (eq. 3) congestion avoidance: cwnd += `a`/cwnd per ACK (a = 1 for
/// standard TCP: one packet per round trip).
pub fn additive_increase(w: &mut Window, a: f64) {
    w.cwnd += a / w.cwnd;
}

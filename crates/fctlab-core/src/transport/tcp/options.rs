//! The TCP model options: where the RFCs leave room, or where ns-3's TCP
//! (`src/internet/model/tcp-socket-base.cc`, ns-3.44) behaves otherwise.
//!
//! One struct, [`TcpOptions`]: its field names are the `[transport]` keys and
//! its enum values the TOML strings. Each option is declared once below, in
//! [`tcp_options!`]: its doc line (what it does and its sources, shown by
//! `fctlab list`), its type, its RFC default and, where ns-3 differs, ns-3's
//! value. The presets are overlays: `rfc` is the default, `ns3` the default
//! with ns-3's values written over it, and a key the user gives wins over
//! either ([`TcpOptions::overlay`]).

use crate::config::{documented, duration_ms, err, ConfigError, ParamDoc, ParamInfo, Params, Table};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `transport.preset`: the values the options start from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// fctlab's RFC model (every option at its default).
    #[default]
    Rfc,
    /// ns-3.44's `TcpSocketBase` with `TcpClassicRecovery`, timestamps off.
    Ns3,
    /// Linux's timers and loss recovery (`net/ipv4/tcp_input.c`,
    /// `tcp_timer.c`, `tcp_recovery.c`): its RTO estimator, F-RTO, PRR,
    /// RACK-TLP and delayed ACKs.
    Linux,
}

/// `rto_estimator`: how RTT samples make the retransmission timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimator {
    /// RFC 6298 section 2: RTO = SRTT + max(G, 4 RTTVAR), at least the
    /// minimum RTO (G: the 1 ns clock).
    Rfc6298,
    /// Linux's `tcp_rtt_estimator` and `tcp_set_rto`: the variance term is
    /// never below the minimum RTO and falls at most once per round trip.
    Linux,
}

/// `delack`: when a receiver with delayed ACKs acknowledges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delack {
    /// `delayed_ack` and `delack_timeout_ms` decide (RFC 5681 4.2).
    Fixed,
    /// As Linux: delayed ACKs on, quick ACKs at the start, an adaptive
    /// delayed-ACK timeout between 40 ms and 200 ms.
    Linux,
}

/// `rtt_sampling`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK of new data samples the send time echoed from the segment
    /// that triggered it, retransmissions included (RFC 7323).
    Timestamps,
    /// Karn's rule (RFC 6298 section 3).
    Karn,
}

/// `recovery_exit`: NewReno's window on a full ACK (RFC 6582 3.2 step 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryExit {
    /// Option 1: min(ssthresh, max(FlightSize, 1) + 1).
    Flight,
    /// Option 2: ssthresh.
    Ssthresh,
}

/// `timeout_exit_growth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutExitGrowth {
    /// Every ACK of new data grows the window by all it acknowledges.
    All,
    /// The ACK that first covers `recover` grows it only by what lies beyond.
    BeyondRecover,
}

/// `fast_retransmit_timer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FastRetransmitTimer {
    /// Fast retransmit restarts the retransmission timer.
    Restart,
    /// It keeps running (RFC 6298 5.1).
    Keep,
}

/// `ssthresh_flight`: the data a loss halves into ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFlight {
    /// RFC 5681's FlightSize.
    Flight,
    /// ns-3's estimate of the data in the network.
    Pipe,
}

/// `dupack_window`: the window rule of NewReno without SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DupackWindow {
    /// RFC 5681/6582: FlightSize against a cwnd inflated by duplicate ACKs.
    Inflation,
    /// ns-3: its pipe against cwnd.
    Pipe,
}

/// `window_growth`: NewReno's window arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// A real number of packets (RFC 5681).
    Packets,
    /// A whole number of bytes (ns-3's `TcpNewReno`).
    Bytes,
}

/// One TCP model option's documentation (see [`OPTION_DOCS`]).
#[derive(Clone, Copy, Debug)]
pub struct TcpOptionDoc {
    pub key: &'static str,
    /// What the `rfc` default stands for when it is unset (else empty).
    pub unset: &'static str,
    /// What the option chooses, in a line.
    pub meaning: &'static str,
    /// Where each behaviour comes from (RFC sections, ns-3 functions).
    pub source: &'static str,
}

/// Declares [`TcpOptions`] with its `Default` (the `rfc` preset), its `ns3`
/// and `linux` presets (overlays on the default) and its documentation table,
/// from one entry per option: the doc line, `key: type = rfc default`, then
/// optionally `ns3 = value`, `linux = value` and `unset = "..."` (what a `None` default stands
/// for in `fctlab list`), then the option's one-line `meaning` and its
/// `source` for the catalogue.
macro_rules! tcp_options {
    ($(
        $(#[doc = $doc:literal])+
        $key:ident: $ty:ty = $rfc:expr $(, ns3 = $ns3:expr)? $(, linux = $linux:expr)? $(, unset = $unset:literal)?,
        meaning = $meaning:literal, source = $source:literal;
    )+) => {
        /// The TCP model options (`[transport]` keys; `fctlab list tcp`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct TcpOptions {
            $( $(#[doc = $doc])+ pub $key: $ty, )+
        }

        impl Default for TcpOptions {
            /// The `rfc` preset.
            fn default() -> Self {
                TcpOptions { $( $key: $rfc, )+ }
            }
        }

        impl TcpOptions {
            /// The `ns3` preset: the default with ns-3's values overlaid.
            pub fn ns3() -> Self {
                let mut o = Self::default();
                $( $( o.$key = $ns3; )? )+
                o
            }

            /// The `linux` preset: the default with Linux's values overlaid.
            pub fn linux() -> Self {
                let mut o = Self::default();
                $( $( o.$key = $linux; )? )+
                o
            }
        }

        /// Each option's key, what an unset default stands for, what it
        /// chooses and where each behaviour comes from, in the order
        /// `fctlab list` shows them (the catalogue reads the two presets'
        /// values off [`TcpOptions::default`] and [`TcpOptions::ns3`]).
        pub const OPTION_DOCS: &[TcpOptionDoc] = &[
            $( TcpOptionDoc {
                key: stringify!($key),
                unset: tcp_options!(@unset $($unset)?),
                meaning: $meaning,
                source: $source,
            }, )+
        ];

        impl Params for TcpOptions {
            const DOCS: &'static [ParamDoc] = &[
                $( ParamDoc::derived(stringify!($key), tcp_options!(@unset $($unset)?), concat!($($doc),+)), )+
            ];
            fn validate(&self, field: &str) -> Result<(), ConfigError> {
                self.check(field)
            }
        }
    };
    (@unset) => { "" };
    (@unset $u:literal) => { $u };
}

tcp_options! {
    /// The SYN's retransmission timeout in ms, doubled per retry (unset: the
    /// initial RTO, RFC 6298 2.1, which treats the SYN as any segment).
    /// ns-3: `TcpSocket::ConnTimeout` 3 s (tcp-socket.cc), doubled per retry
    /// in `TcpSocketBase::SendEmptyPacket`.
    syn_rto_ms: Option<f64> = None, ns3 = Some(3000.0), unset = "initial_rto_ms",
        meaning = "the SYN's retransmission timeout, doubled per retry",
        source = "RFC 6298 2.1 (a SYN is any segment); ns-3 TcpSocket::ConnTimeout, TcpSocketBase::SendEmptyPacket";
    /// RFC 3042 limited transmit: one new segment on each of the first two
    /// duplicate ACKs, cwnd unchanged, not while data sent before a timeout
    /// is unacknowledged; ssthresh leaves these segments out of FlightSize
    /// (RFC 5681 3.2). ns-3: `TcpSocketBase::LimitedTransmit`, on by default.
    limited_transmit: bool = false, ns3 = true,
        meaning = "one new segment on each of the first two duplicate ACKs, cwnd unchanged",
        source = "RFC 3042; ns-3 TcpSocketBase::LimitedTransmit (default true)";
    /// "timestamps": every ACK of new data samples the send time echoed from
    /// the segment that triggered it, retransmissions included (RFC 7323).
    /// "karn": Karn's rule (RFC 6298 section 3): an ACK of new data times the
    /// oldest segment it acknowledges, none if that segment (or the SYN) was
    /// retransmitted; the record is emptied on a timeout (ns-3's `EstimateRtt`
    /// without the timestamp option).
    rtt_sampling: RttSampling = RttSampling::Timestamps, ns3 = RttSampling::Karn,
        meaning = "timestamps: every ACK of new data samples the echoed send time; karn: none from a retransmitted segment",
        source = "RFC 7323; RFC 6298 section 3; ns-3 TcpSocketBase::EstimateRtt without timestamps";
    /// NewReno's window on a full ACK: "flight", min(ssthresh, max(FlightSize,
    /// 1) + 1) (RFC 6582 3.2 step 6 option 1), or "ssthresh" (option 2, "full
    /// deflation"; ns-3's `TcpClassicRecovery::ExitRecovery` with `m_cWnd =
    /// m_ssThresh` in `ProcessAck`).
    recovery_exit: RecoveryExit = RecoveryExit::Flight, ns3 = RecoveryExit::Ssthresh,
        meaning = "NewReno's window on the full ACK: min(ssthresh, max(FlightSize, 1) + 1), or ssthresh",
        source = "RFC 6582 3.2 step 6, options 1 and 2; ns-3 TcpClassicRecovery::ExitRecovery";
    /// After a timeout: "all", every ACK of new data grows the window by what
    /// it acknowledges (RFC 5681 eq. 2 in slow start); "beyond_recover", the
    /// ACK that first covers everything sent before the timeout (RFC 6582's
    /// recover) grows it only by the segments beyond that point, usually none,
    /// as ns-3 counts `(ackNumber - m_recover)` on leaving `CA_LOSS`
    /// (`TcpSocketBase::ProcessAck`; `ReTxTimeout` sets `m_recover`).
    timeout_exit_growth: TimeoutExitGrowth = TimeoutExitGrowth::All, ns3 = TimeoutExitGrowth::BeyondRecover,
        meaning = "after a timeout, the ACK that covers everything sent before it grows the window by all it acknowledges, or by the segments beyond recover",
        source = "RFC 5681 eq. 2; ns-3 TcpSocketBase::ProcessAck leaving CA_LOSS";
    /// Fast retransmit "restart"s the retransmission timer, or "keep"s it
    /// running from the last new ACK (RFC 6298 5.1: start it only if it is
    /// not running; ns-3's `SendDataPacket`).
    fast_retransmit_timer: FastRetransmitTimer = FastRetransmitTimer::Restart, ns3 = FastRetransmitTimer::Keep,
        meaning = "fast retransmit restarts the retransmission timer, or keeps it running from the last new ACK",
        source = "RFC 6298 5.1; ns-3 SendDataPacket";
    /// The data a loss halves into ssthresh: "flight", RFC 5681's FlightSize
    /// (all data sent and not acknowledged; a repeated timeout of the same
    /// data holds ssthresh), or "pipe", ns-3's estimate of the data in the
    /// network. Without SACK ns-3 (`TcpTxBuffer::AddRenoSack`,
    /// `BytesInFlight`) counts each duplicate ACK as one segment that has left
    /// (the first two only with limited transmit), the head as lost once
    /// recovery starts, and a retransmission as back in flight; after a
    /// timeout everything sent before it is lost. Fast retransmit
    /// (`TcpSocketBase::EnterRecovery`) halves that estimate plus one segment;
    /// a timeout (`TcpSocketBase::ReTxTimeout`) halves the estimate, every
    /// time (the check meant to hold ssthresh on a repeated timeout runs after
    /// `TcpTxBuffer::SetSentListLost` has cleared the retransmitted flags).
    ssthresh_flight: SsthreshFlight = SsthreshFlight::Flight, ns3 = SsthreshFlight::Pipe,
        meaning = "a loss halves FlightSize, or ns-3's estimate of the data in the network (pipe)",
        source = "RFC 5681 eq. 4; ns-3 TcpTxBuffer::BytesInFlight, TcpSocketBase::EnterRecovery, ReTxTimeout";
    /// The window rule of NewReno without SACK: "inflation", RFC 5681/6582
    /// (FlightSize against a cwnd inflated by duplicate ACKs, deflated by
    /// partial ACKs), or "pipe", ns-3's (`TcpSocketBase::SendPendingData`,
    /// `TcpTxBuffer::AddRenoSack`, `DiscardUpTo`, `IsLost`,
    /// `TcpClassicRecovery`): send while cwnd less the pipe above leaves a
    /// segment, a head marked lost first. In recovery cwnd stays ssthresh and
    /// each duplicate ACK counts a segment as left; a partial ACK marks the
    /// new head lost and resends it. Counted segments that an ACK does not
    /// cover stay counted, and when the new head is one of them ns-3 marks it
    /// lost: it is resent at once, even outside recovery, and the next
    /// duplicate ACK starts a recovery.
    dupack_window: DupackWindow = DupackWindow::Inflation, ns3 = DupackWindow::Pipe,
        meaning = "NewReno without SACK sends while FlightSize + 1 <= an inflated cwnd, or while pipe + 1 <= cwnd",
        source = "RFC 5681, RFC 6582; ns-3 SendPendingData, TcpTxBuffer::IsLost, TcpClassicRecovery";
    /// The SYN-ACK of a retransmitted SYN is timed from the first SYN (ns-3:
    /// `TcpSocketBase::UpdateRttHistory` records the SYN as zero bytes, so its
    /// resend never marks it retransmitted and `EstimateRtt` times the
    /// SYN-ACK from the first send): after one lost SYN the RTO is about
    /// 3 x 3 s. Otherwise `rtt_sampling` decides (no sample, or the echo of
    /// the last SYN).
    time_first_syn: bool = false, ns3 = true,
        meaning = "the SYN-ACK of a retransmitted SYN is timed from the first SYN",
        source = "ns-3 TcpSocketBase::UpdateRttHistory and EstimateRtt";
    /// NewReno's window: "packets", a real number of packets (RFC 5681
    /// section 3.1, eqs. 2-3: slow start adds one packet per ACK, congestion
    /// avoidance 1/cwnd; an ACK that ends slow start only slow-starts), or
    /// "bytes", a whole number of bytes as ns-3's `TcpNewReno::IncreaseWindow`
    /// grows it (tcp-congestion-ops.cc): congestion avoidance adds max(1,
    /// floor(SMSS^2 / cwnd)) bytes per ACK; an ACK of several segments that
    /// brings cwnd to ssthresh spends the rest on one congestion-avoidance
    /// step; a loss sets ssthresh to max(2 SMSS, floor(bytes / 2)). Applies
    /// to `tcp-newreno` and `tcp-sack`.
    window_growth: WindowGrowth = WindowGrowth::Packets, ns3 = WindowGrowth::Bytes,
        meaning = "NewReno's and SACK's cwnd as a real number of packets, or as whole bytes grown as ns-3 grows it",
        source = "RFC 5681 section 3.1; ns-3 TcpNewReno::IncreaseWindow, SlowStart, CongestionAvoidance";
    /// The sender answers the SYN-ACK with a pure ACK (header bytes only)
    /// before its first data, the third segment of RFC 793's three-way
    /// handshake, as ns-3 does (`TcpSocketBase::ProcessSynSent` sends it with
    /// `SendEmptyPacket(TcpHeader::ACK)`). Otherwise the first data segment
    /// carries that acknowledgement.
    handshake_ack: bool = false, ns3 = true,
        meaning = "a pure ACK ends the handshake ahead of the first data",
        source = "RFC 793 three-way handshake; ns-3 TcpSocketBase::ProcessSynSent";
    /// Bytes of TCP options a SYN and a SYN-ACK carry beyond `header_bytes`
    /// (0 to 40). ns-3 offers window scaling on every connection
    /// (`TcpSocketBase::WindowScaling`, default true): the 3-byte option of
    /// RFC 7323 section 2.2, padded to 4 (`TcpOptionWinScale`).
    syn_option_bytes: u32 = 0, ns3 = 4,
        meaning = "TCP option bytes on SYN and SYN-ACK (4: window scale, padded)",
        source = "RFC 7323 section 2.2; ns-3 TcpSocketBase::WindowScaling, TcpOptionWinScale";
    /// Connection teardown as ns-3 closes a flow: the sender's FIN rides on
    /// its last data segment; the receiver, once the application has read
    /// everything, sends its FIN right after the ACK of the last data (header
    /// bytes, reverse direction); the sender answers it with a pure ACK
    /// (forward) and is done then (a lost FIN is waited for one RTO). RFC 793
    /// section 3.5; ns-3 `TcpSocketBase::SendDataPacket`, `DoPeerClose`,
    /// `ProcessWait`.
    fin_exchange: bool = false, ns3 = true,
        meaning = "the receiver's FIN after the ACK of the last data, answered by the sender's pure ACK",
        source = "RFC 793 section 3.5; ns-3 TcpSocketBase::DoPeerClose, ProcessWait";
    /// With `fin_exchange`, the close as ns-3 ends it when TIME_WAIT lasts no
    /// time (`TcpSocketBase::MaxSegLifetime` 0, as crossval's ns-3 peer runs
    /// it): the receiver sends a pure ACK right behind its FIN
    /// (`DoPeerClose`); it reaches a sender whose endpoint is already gone,
    /// and `TcpL4Protocol::Receive` answers it with a reset (header bytes,
    /// forward). The sender is done when it sends the reset (a lost ACK is
    /// waited for one RTO).
    fin_rst: bool = false, ns3 = true,
        meaning = "with fin_exchange: the receiver's pure ACK behind its FIN, answered by the closed sender with a reset",
        source = "ns-3 DoPeerClose, TimeWait with MaxSegLifetime 0, TcpL4Protocol::Receive";
    /// The initial slow-start threshold in packets (unset: unbounded). RFC
    /// 5681 section 3.1: it "SHOULD be set arbitrarily high"; ns-2's
    /// `ssthresh_` is likewise unbounded by default.
    init_ssthresh_pkts: Option<f64> = None, unset = "unlimited",
        meaning = "the initial slow-start threshold in packets",
        source = "RFC 5681 3.1: the initial ssthresh SHOULD be set arbitrarily high; ns-2 ssthresh_";
    /// How RTT samples make the retransmission timeout. "rfc6298": RFC 6298
    /// section 2 (SRTT and RTTVAR with gains 1/8 and 1/4, RTO = SRTT +
    /// max(G, 4 RTTVAR) with G the 1 ns clock, at least `min_rto_ms`); on a
    /// path of constant delay RTTVAR decays toward zero and the RTO toward
    /// SRTT. "linux": Linux's `tcp_rtt_estimator` and `__tcp_set_rto`
    /// (net/ipv4/tcp_input.c): srtt and mdev kept as 8 srtt and 4 mdev, both
    /// with RFC 6298's gains, except that a sample below srtt raises mdev
    /// only an eighth as much; mdev_max, the round trip's largest mdev, starts
    /// each round trip at `min_rto_ms` (`tcp_rto_min`, 200 ms); rttvar rises
    /// to mdev_max at once and, once per round trip (an ACK beyond the
    /// snd_nxt of the last reset), falls by a quarter of its excess over
    /// mdev_max; RTO = srtt + rttvar, at most `max_rto_ms` (`tcp_bound_rto`),
    /// so never below srtt + 200 ms. The first sample sets srtt = R, mdev =
    /// R/2 (4 mdev = 2R), rttvar = max(2R, rto_min). Kept in ns, not rounded
    /// to the kernel's microseconds or jiffies.
    rto_estimator: RtoEstimator = RtoEstimator::Rfc6298, linux = RtoEstimator::Linux,
        meaning = "RTO from RFC 6298's SRTT + 4 RTTVAR, or Linux's srtt + rttvar with rttvar floored at the minimum RTO",
        source = "RFC 6298 section 2; Linux tcp_input.c tcp_rtt_estimator, __tcp_set_rto, tcp_set_rto; tcp.h tcp_bound_rto";
    /// The retransmission timer's clock period in ms (unset: exact). 4.3BSD
    /// runs its TCP timers from `tcp_slowtimo` every 500 ms (`PR_SLOWHZ` 2):
    /// the timer counts down whole ticks, so the RTO is rounded up to a whole
    /// number of ticks (at least one) and the timer fires on the tick that
    /// ends the count, between n - 1 and n ticks after it was set. RTT
    /// samples stay exact (4.3BSD also counted them in ticks).
    rto_tick_ms: Option<f64> = None, unset = "exact",
        meaning = "the retransmission timer's clock: RTO rounded up to whole ticks, fired on a tick",
        source = "4.3BSD tcp_timer.c tcp_slowtimo, PR_SLOWHZ (500 ms); tcp_timer.h TCPT_RANGESET";
    /// F-RTO (RFC 5682 section 2, as Linux's `tcp_process_loss` runs it
    /// without SACK): a timeout outside fast recovery resends only the first
    /// unacknowledged segment. If the first ACK after it advances snd_una
    /// without covering everything sent before the timeout, up to two new
    /// segments go out instead of the go-back-N resends (step 2b); if the
    /// second ACK then advances snd_una too, it acknowledges data that was
    /// never resent and the timeout was spurious (step 3b): the window and
    /// ssthresh are restored as Linux's `tcp_undo_cwnd_reduction` does (cwnd
    /// = max(cwnd, cwnd before the timeout), ssthresh = max(ssthresh, the
    /// ssthresh before it or 3/4 of the window, `tcp_current_ssthresh`)) and
    /// recover = snd_nxt. A first ACK that covers everything sent before the
    /// timeout (step 2a), or a duplicate ACK as the second (step 3a: cwnd at
    /// most 3), falls back to go-back-N; a duplicate ACK before the first
    /// that advances snd_una is passed over, as Linux does (RFC 5682 step 2a
    /// would fall back). Applies without SACK and with `dupack_window =
    /// "inflation"`.
    frto: bool = false, linux = true,
        meaning = "F-RTO: after a timeout, two new segments instead of go-back-N; undo the timeout if never-resent data is acknowledged",
        source = "RFC 5682 section 2; Linux tcp_input.c tcp_enter_loss, tcp_process_loss, tcp_try_undo_loss, tcp_undo_cwnd_reduction";
    /// Proportional Rate Reduction (RFC 6937 with the slow-start reduction
    /// bound, PRR-SSRB; Linux's `tcp_cwnd_reduction`) in SACK recovery (RFC
    /// 6675, `tcp-sack`): on each ACK in recovery, prr_delivered grows by the
    /// segments it newly acknowledges or SACKs; while pipe > ssthresh the
    /// sender may send ceil(prr_delivered x ssthresh / RecoverFS) - prr_out
    /// (RecoverFS: cwnd before the loss, Linux's `prior_cwnd`), else
    /// min(ssthresh - pipe, max(prr_delivered - prr_out, delivered) + 1);
    /// at least one segment (the fast retransmit) while none has gone out;
    /// cwnd = pipe + that; the ACK that ends recovery sets cwnd = ssthresh
    /// (`tcp_end_cwnd_reduction`). Without it RFC 6675 sets cwnd = ssthresh
    /// on entering recovery. Linux since 5.14 adds the SSRB's one segment only
    /// on an ACK that advances snd_una; fctlab adds it as RFC 6937 does.
    prr: bool = false, linux = true,
        meaning = "PRR-SSRB: in SACK recovery, send in proportion to the data delivered, toward ssthresh",
        source = "RFC 6937 section 3.1; Linux tcp_input.c tcp_init_cwnd_reduction, tcp_cwnd_reduction, tcp_end_cwnd_reduction";
    /// RACK-TLP (RFC 8985) in the schemes that keep a SACK scoreboard
    /// (`tcp-sack`, `tcp-bbr`), as Linux runs it (tcp_recovery.c, and only
    /// with SACK, `tcp_is_sack`): a segment is lost once one sent after it
    /// is delivered and RACK.rtt + reo_wnd have passed since it was sent
    /// (reo_wnd = min(min RTT / 4, SRTT), 0 in recovery or with DupThresh
    /// segments SACKed until reordering is seen; no DSACK adaptation); the
    /// reordering timer waits out the rest. Its losses replace the duplicate
    /// ACK count in starting fast recovery (with PRR when `prr` is on), and
    /// recovery resends the segments marked lost, lost retransmissions
    /// included, before new data (Linux's `tcp_xmit_retransmit_queue`; RFC
    /// 6675's NextSeg rules 3 and 4 are not used). TLP: with data
    /// outstanding outside recovery, a probe timeout of 2 SRTT (+ 200 ms
    /// with one segment out; capped by the RTO) sends one new segment, or
    /// resends the highest one not SACKed; one probe per episode; if its ACK
    /// shows it repaired the only loss, ssthresh and cwnd come down as for a
    /// loss (`tcp_process_tlp_ack`). Without a scoreboard it has no effect;
    /// `rack = true` given for another scheme is refused.
    rack: bool = false, linux = true,
        meaning = "RACK-TLP: time-based loss detection and tail loss probes on the SACK scoreboard (tcp-sack, tcp-bbr)",
        source = "RFC 8985 sections 6 and 7; Linux tcp_recovery.c tcp_rack_detect_loss, tcp_rack_reo_timeout; tcp_output.c tcp_schedule_loss_probe, tcp_send_loss_probe; tcp_input.c tcp_process_tlp_ack";
    /// When the receiver acknowledges. "fixed": as `delayed_ack` and
    /// `delack_timeout_ms` say (RFC 5681 4.2). "linux": delayed ACKs as Linux
    /// sends them, whatever `delayed_ack` says (tcp_input.c
    /// `tcp_event_data_recv`, `__tcp_ack_snd_check`, `tcp_enter_quickack_mode`;
    /// tcp_output.c `tcp_send_delayed_ack`; tcp_timer.c
    /// `tcp_delack_timer_handler`): the first in-order segment starts quickack
    /// mode, an immediate ACK for each of the next min(16, receiver window /
    /// 2) ACKs (`TCP_MAX_QUICKACKS`); then an ACK for every second segment, or
    /// after the delayed-ACK timeout ato, which starts at 40 ms
    /// (`TCP_ATO_MIN`), becomes ato/2 + 20 ms after a segment within 20 ms of
    /// the last, ato/2 + the gap after one within ato, doubles when the timer
    /// fires, and is used at most 200 ms (`TCP_DELACK_MAX`; fctlab's receiver
    /// keeps no RTT to cap it by); a gap above `initial_rto_ms` (the
    /// receiver's RTO) or a duplicate segment re-enters quickack mode.
    /// Out-of-order and hole-filling segments are acknowledged at once.
    delack: Delack = Delack::Fixed, linux = Delack::Linux,
        meaning = "delayed ACKs as delayed_ack and delack_timeout_ms say, or as Linux sends them (quickack, adaptive 40-200 ms timeout)",
        source = "RFC 5681 4.2; Linux tcp_input.c tcp_event_data_recv, __tcp_ack_snd_check; tcp_output.c tcp_send_delayed_ack; tcp_timer.c tcp_delack_timer_handler";
    /// After a window reduction for ECE (RFC 3168 6.1.2), whether the window
    /// may grow before the reduction's window of data is acknowledged. Off:
    /// RFC 3168 and RFC 8257 say only that the window is reduced once per
    /// window; it grows on the next ACK. On: the sender is in Linux's
    /// `TCP_CA_CWR` state (tcp_input.c `tcp_enter_cwr`; `tcp_cong_control`
    /// raises cwnd only outside `tcp_in_cwnd_reduction`) and ns-3's
    /// `CA_CWR` (tcp-socket-base.cc `EnterCwrState`) until snd_una reaches
    /// high_data at the reduction: no growth, and the ACK that ends it grows
    /// the window again.
    ecn_cwr_hold: bool = false, ns3 = true, linux = true,
        meaning = "after an ECE reduction, no window growth until that window of data is acknowledged (the CWR state)",
        source = "RFC 3168 6.1.2; Linux tcp_input.c tcp_enter_cwr, tcp_cong_control; ns-3 tcp-socket-base.cc EnterCwrState";
    /// Pacing, as Linux's TCP paces on its own or through the fq qdisc
    /// (tcp_output.c `tcp_pacing_check`, `tcp_update_skb_after_send`): each
    /// segment may leave only at the earliest departure time the last one
    /// set, payload / rate after it; the first 10 segments leave back to
    /// back. The rate is the controller's (`tcp-bbr` sets its own) or
    /// Linux's `tcp_update_pacing_rate`: `pacing_ss_ratio` or
    /// `pacing_ca_ratio` percent of max(cwnd, packets out) x MSS / SRTT,
    /// none before the first RTT sample. Unset: the scheme's choice, on for
    /// `tcp-bbr` (which refuses false) and off for the others. A paced
    /// sender is woken only when a segment waits for its time.
    pacing: Option<bool> = None, unset = "on for tcp-bbr, off otherwise",
        meaning = "segments leave at a pacing rate: the controller's (BBR), else a ratio of cwnd / SRTT",
        source = "Linux tcp_output.c tcp_pacing_check, tcp_update_skb_after_send; tcp_input.c tcp_update_pacing_rate; sch_fq.c";
    /// The pacing rate in slow start (cwnd < ssthresh / 2), percent of
    /// cwnd x MSS / SRTT, for a controller that sets none (Linux sysctl
    /// `net.ipv4.tcp_pacing_ss_ratio`, default 200).
    pacing_ss_ratio: f64 = 200.0,
        meaning = "pacing rate in slow start, percent of cwnd / SRTT",
        source = "Linux tcp_input.c tcp_update_pacing_rate; sysctl tcp_pacing_ss_ratio (200)";
    /// The pacing rate otherwise, percent of cwnd x MSS / SRTT (Linux sysctl
    /// `net.ipv4.tcp_pacing_ca_ratio`, default 120).
    pacing_ca_ratio: f64 = 120.0,
        meaning = "pacing rate in congestion avoidance, percent of cwnd / SRTT",
        source = "Linux tcp_input.c tcp_update_pacing_rate; sysctl tcp_pacing_ca_ratio (120)";
}

impl TcpOptions {
    /// A preset's options.
    pub fn preset(p: Preset) -> Self {
        match p {
            Preset::Rfc => Self::default(),
            Preset::Ns3 => Self::ns3(),
            Preset::Linux => Self::linux(),
        }
    }

    /// The options' keys, in the order `fctlab list` shows them.
    pub fn keys() -> impl Iterator<Item = &'static str> {
        Self::DOCS.iter().map(|d| d.key)
    }

    /// Every option with its default (the `rfc` preset) and its doc line,
    /// for `fctlab list` and the catalogue.
    pub fn docs() -> Vec<ParamInfo> {
        documented::<Self>()
            .into_iter()
            .map(|p| ParamInfo {
                source: p.source.trim_start(),
                ..p
            })
            .collect()
    }

    /// The preset with the options given by the user (`given`: key -> value,
    /// as in the scenario) written over it, checked. A key given as `null`
    /// counts as not given. Errors name `field.key` and what is allowed.
    pub fn overlay(preset: Preset, given: &BTreeMap<String, Value>, field: &str) -> Result<Self, ConfigError> {
        let mut merged = match serde_json::to_value(Self::preset(preset)) {
            Ok(Value::Object(m)) => m,
            _ => unreachable!("TcpOptions serialises to an object"),
        };
        for (k, v) in given.iter().filter(|(_, v)| !v.is_null()) {
            merged.insert(k.clone(), v.clone());
        }
        let merged = Value::Object(merged);
        Table::new(Some(&merged), field).parse()
    }

    /// The initial slow-start threshold in packets.
    pub fn init_ssthresh(&self) -> f64 {
        self.init_ssthresh_pkts.unwrap_or(f64::MAX)
    }

    fn check(&self, field: &str) -> Result<(), ConfigError> {
        if let Some(ms) = self.syn_rto_ms {
            duration_ms(&format!("{field}.syn_rto_ms"), ms, true)?;
        }
        if let Some(ms) = self.rto_tick_ms {
            duration_ms(&format!("{field}.rto_tick_ms"), ms, true)?;
        }
        if let Some(x) = self.init_ssthresh_pkts {
            if !(x.is_finite() && x >= 1.0) {
                return err(
                    format!("{field}.init_ssthresh_pkts"),
                    format!("must be a number of packets >= 1, got {x}"),
                );
            }
        }
        for (k, v) in [
            ("pacing_ss_ratio", self.pacing_ss_ratio),
            ("pacing_ca_ratio", self.pacing_ca_ratio),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return err(format!("{field}.{k}"), format!("must be a percentage > 0, got {v}"));
            }
        }
        if self.syn_option_bytes > 40 {
            return err(
                format!("{field}.syn_option_bytes"),
                format!("must be 0 to 40 (TCP's option space), got {}", self.syn_option_bytes),
            );
        }
        Ok(())
    }
}

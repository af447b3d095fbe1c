//! The TCP model options of `[transport]`: each key's value under the two
//! presets, what it chooses and where each behaviour comes from. The one
//! place these are documented: [`tcp_option_docs`] is what `fctlab list` and
//! the reference pages show.

/// One TCP model option. `rfc` and `ns3` are JSON literals: the value in
/// effect under `preset = "rfc"` (the default) and `preset = "ns3"`; an `rfc`
/// that is not a JSON literal names what applies instead.
#[derive(Clone, Copy, Debug)]
pub struct TcpOptionDoc {
    pub key: &'static str,
    pub rfc: &'static str,
    pub ns3: &'static str,
    pub meaning: &'static str,
    pub source: &'static str,
}

const fn o(
    key: &'static str,
    rfc: &'static str,
    ns3: &'static str,
    meaning: &'static str,
    source: &'static str,
) -> TcpOptionDoc {
    TcpOptionDoc {
        key,
        rfc,
        ns3,
        meaning,
        source,
    }
}

const OPTIONS: &[TcpOptionDoc] = &[
    o(
        "syn_rto_ms",
        "initial_rto_ms",
        "3000.0",
        "the SYN's retransmission timeout, doubled per retry",
        "RFC 6298 2.1 (a SYN is any segment); ns-3 TcpSocket::ConnTimeout, TcpSocketBase::SendEmptyPacket",
    ),
    o(
        "limited_transmit",
        "false",
        "true",
        "one new segment on each of the first two duplicate ACKs, cwnd unchanged",
        "RFC 3042; ns-3 TcpSocketBase::LimitedTransmit (default true)",
    ),
    o(
        "rtt_sampling",
        "\"timestamps\"",
        "\"karn\"",
        "timestamps: every ACK of new data samples the echoed send time; karn: none from a retransmitted segment",
        "RFC 7323; RFC 6298 section 3; ns-3 TcpSocketBase::EstimateRtt without timestamps",
    ),
    o(
        "recovery_exit",
        "\"flight\"",
        "\"ssthresh\"",
        "NewReno's window on the full ACK: min(ssthresh, max(FlightSize, 1) + 1), or ssthresh",
        "RFC 6582 3.2 step 6, options 1 and 2; ns-3 TcpClassicRecovery::ExitRecovery",
    ),
    o(
        "timeout_exit_growth",
        "\"all\"",
        "\"beyond_recover\"",
        "after a timeout, the ACK that covers everything sent before it grows the window by all it acknowledges, or by the segments beyond recover",
        "RFC 5681 eq. 2; ns-3 TcpSocketBase::ProcessAck leaving CA_LOSS",
    ),
    o(
        "fast_retransmit_timer",
        "\"restart\"",
        "\"keep\"",
        "fast retransmit restarts the retransmission timer, or keeps it running from the last new ACK",
        "RFC 6298 5.1; ns-3 SendDataPacket",
    ),
    o(
        "ssthresh_flight",
        "\"flight\"",
        "\"pipe\"",
        "a loss halves FlightSize, or ns-3's estimate of the data in the network (pipe)",
        "RFC 5681 eq. 4; ns-3 TcpTxBuffer::BytesInFlight, TcpSocketBase::EnterRecovery, ReTxTimeout",
    ),
    o(
        "dupack_window",
        "\"inflation\"",
        "\"pipe\"",
        "NewReno without SACK sends while FlightSize + 1 <= an inflated cwnd, or while pipe + 1 <= cwnd",
        "RFC 5681, RFC 6582; ns-3 SendPendingData, TcpTxBuffer::IsLost, TcpClassicRecovery",
    ),
    o(
        "time_first_syn",
        "false",
        "true",
        "the SYN-ACK of a retransmitted SYN is timed from the first SYN",
        "ns-3 TcpSocketBase::UpdateRttHistory and EstimateRtt",
    ),
    o(
        "window_growth",
        "\"packets\"",
        "\"bytes\"",
        "NewReno's and SACK's cwnd as a real number of packets, or as whole bytes grown as ns-3 grows it",
        "RFC 5681 section 3.1; ns-3 TcpNewReno::IncreaseWindow, SlowStart, CongestionAvoidance",
    ),
    o(
        "handshake_ack",
        "false",
        "true",
        "a pure ACK ends the handshake ahead of the first data",
        "RFC 793 three-way handshake; ns-3 TcpSocketBase::ProcessSynSent",
    ),
    o(
        "syn_option_bytes",
        "0",
        "4",
        "TCP option bytes on SYN and SYN-ACK (4: window scale, padded)",
        "RFC 7323 section 2.2; ns-3 TcpSocketBase::WindowScaling, TcpOptionWinScale",
    ),
    o(
        "fin_exchange",
        "false",
        "true",
        "the receiver's FIN after the ACK of the last data, answered by the sender's pure ACK",
        "RFC 793 section 3.5; ns-3 TcpSocketBase::DoPeerClose, ProcessWait",
    ),
    o(
        "fin_rst",
        "false",
        "true",
        "with fin_exchange: the receiver's pure ACK behind its FIN, answered by the closed sender with a reset",
        "ns-3 DoPeerClose, TimeWait with MaxSegLifetime 0, TcpL4Protocol::Receive",
    ),
];

/// The TCP model options' documentation, in the order `fctlab list` shows them.
pub fn tcp_option_docs() -> &'static [TcpOptionDoc] {
    OPTIONS
}

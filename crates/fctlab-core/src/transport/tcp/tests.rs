//! The sender and receiver traced by hand on crafted packets: ECN (RFC 3168
//! 6.1.2), the RFC 6675 steps the end-to-end traces (tests/sack.rs) do not
//! reach, and each TCP model option against the RFC text or ns-3 source it
//! follows.

mod ecn {
    //! RFC 3168 6.1.2, traced by hand on a sender fed crafted ACKs.
    use super::super::*;
    use crate::transport::cc::NewReno;

    fn params(ecn: bool) -> TransportParams {
        TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake: false,
            delayed_ack: false,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn,
            tcp: Default::default(),
        }
    }

    fn sender(ecn: bool) -> (TcpSender, Vec<Packet>) {
        sender_with(params(ecn))
    }

    fn sender_with(p: TransportParams) -> (TcpSender, Vec<Packet>) {
        let mut s = TcpSender::new(
            0,
            FlowSize::Finite {
                bytes: 1_000_000,
                pkts: 1000,
            },
            p,
            Box::new(NewReno),
        );
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, ece: bool) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, 40, seq, 0);
        if ece {
            a.flags |= flags::ECE;
        }
        a
    }

    #[test]
    fn data_is_ect_only_with_ecn() {
        let (_, out) = sender(true);
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|p| p.flags & flags::ECT != 0));
        let (_, out) = sender(false);
        assert!(out.iter().all(|p| p.flags & flags::ECT == 0));
    }

    #[test]
    fn one_reduction_per_window_without_retransmitting() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // Packets 0..9 out (IW 10). ACK 1 with ECE: FlightSize 10 -> ssthresh
        // max(10/2, 2) = 5, cwnd 5, no growth on this ACK; 9 outstanding > 5, so
        // nothing is sent and nothing is retransmitted.
        s.on_packet(1, &ack(1, true), &mut out);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.ecn_reductions()), (5.0, 5.0, 1));
        assert!(out.is_empty());
        // ACKs 2..=10 with ECE echo marks on data sent before the reduction
        // (high_data was 10): no further reduction; congestion avoidance grows
        // cwnd by 1/cwnd per ACK.
        let mut cwnd = 5.0;
        for a in 2..=10 {
            s.on_packet(a, &ack(a, true), &mut out);
            cwnd += 1.0 / cwnd;
            assert_eq!(s.core.w.ssthresh, 5.0);
            assert!((s.core.w.cwnd - cwnd).abs() < 1e-9);
        }
        assert_eq!(s.ecn_reductions(), 1);
        assert!(out.iter().all(|p| p.flags & flags::RETX == 0 && p.seq >= 10));
        // ACK 11 acknowledges packet 10, sent after the reduction: a new window,
        // so ECE reduces again: FlightSize = high_data - 10.
        let flight = s.core.high_data - 10;
        s.on_packet(12, &ack(11, true), &mut out);
        assert_eq!(s.ecn_reductions(), 2);
        assert_eq!(s.core.w.ssthresh, (flight as f64 / 2.0).max(2.0));
        assert_eq!(s.core.w.cwnd, s.core.w.ssthresh);
        assert_eq!(s.retransmits(), 0);
    }

    #[test]
    fn the_syn_is_ect_only_for_a_controller_that_needs_ecn() {
        // RFC 3168 6.1.1: a classic ECN sender's SYN is Not-ECT; DCTCP's is ECT
        // (Linux tcp_ecn_send_syn with tcp_ca_needs_ecn; ns-3 DctcpEcn).
        use crate::transport::cc::dctcp::{Dctcp, DctcpParams};
        let mut p = params(true);
        p.handshake = true;
        let size = FlowSize::Finite {
            bytes: 10_000,
            pkts: 10,
        };
        let syn = |cc: Box<dyn crate::transport::cc::CongestionControl>| {
            let mut s = TcpSender::new(0, size, p.clone(), cc);
            let mut out = Vec::new();
            s.start(0, &mut out);
            assert_eq!((out.len(), out[0].kind), (1, PacketKind::Syn));
            out[0].flags & flags::ECT != 0
        };
        assert!(!syn(Box::new(NewReno)));
        assert!(syn(Box::new(Dctcp::new(&DctcpParams::default()))));
    }

    #[test]
    fn cwr_hold_keeps_the_window_until_the_reduced_window_is_acknowledged() {
        // As above with ecn_cwr_hold (Linux's and ns-3's CWR state). ACK 1
        // with ECE: ssthresh = cwnd = 5, high_data 10 at the reduction. ACKs
        // 2..=9 leave snd_una below 10: cwnd stays 5 (RFC 3168 alone would
        // grow it by 1/cwnd per ACK). ACK 10 brings snd_una to 10: CWR ends and
        // that ACK grows cwnd by 1/5 in congestion avoidance.
        let mut p = params(true);
        p.tcp.ecn_cwr_hold = true;
        let (mut s, _) = sender_with(p);
        let mut out = Vec::new();
        s.on_packet(1, &ack(1, true), &mut out);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 5.0));
        for a in 2..=9 {
            s.on_packet(a, &ack(a, true), &mut out);
            assert_eq!(s.core.w.cwnd, 5.0, "ACK {a} in CWR");
        }
        s.on_packet(10, &ack(10, false), &mut out);
        assert!((s.core.w.cwnd - 5.2).abs() < 1e-12, "{}", s.core.w.cwnd);
        assert_eq!(s.ecn_reductions(), 1);
    }

    #[test]
    fn ece_is_ignored_in_fast_recovery_and_without_ecn() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // Packet 0 lost: three dupACKs of 0 -> ssthresh 5, cwnd 5 + 3.
        for t in 1..=3 {
            s.on_packet(t, &ack(0, false), &mut out);
        }
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 8.0));
        // A fourth dupACK carrying ECE: only the usual inflation by one.
        s.on_packet(4, &ack(0, true), &mut out);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.ecn_reductions()), (5.0, 9.0, 0));
        // ECN off: ECE means nothing.
        let (mut s, _) = sender(false);
        s.on_packet(1, &ack(1, true), &mut out);
        assert_eq!(
            (s.core.w.ssthresh, s.core.w.cwnd, s.ecn_reductions()),
            (f64::MAX, 11.0, 0)
        );
    }

    #[test]
    fn a_loss_in_a_window_already_reduced_keeps_ssthresh() {
        let (mut s, _) = sender(true);
        let mut out = Vec::new();
        // ECE on ACK 1: ssthresh 5, cwnd 5 (9 outstanding). Packet 1 is lost:
        // three dupACKs of 1 start fast retransmit, but ssthresh stays 5
        // (it would be max(9/2, 2) = 4.5), cwnd = 5 + 3.
        s.on_packet(1, &ack(1, true), &mut out);
        for t in 2..=4 {
            s.on_packet(t, &ack(1, false), &mut out);
        }
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 8.0));
        assert_eq!(
            out.iter().filter(|p| p.seq == 1).count(),
            1,
            "packet 1 retransmitted once"
        );
    }

    #[test]
    fn receiver_echoes_ce_on_the_next_ack() {
        let p = params(true);
        let mut r = TcpReceiver::new(
            0,
            FlowSize::Finite {
                bytes: 10_000,
                pkts: 10,
            },
            &p,
        );
        let mut out = Vec::new();
        let mut d = Packet::new(0, PacketKind::Data, 1040, 0, 0);
        d.flags = flags::ECT | flags::CE;
        r.on_packet(0, &d, &mut out);
        let mut d = Packet::new(0, PacketKind::Data, 1040, 1, 0);
        d.flags = flags::ECT;
        r.on_packet(0, &d, &mut out);
        assert_eq!(out.len(), 2);
        assert_ne!(out[0].flags & flags::ECE, 0);
        assert_eq!(out[1].flags & flags::ECE, 0);
    }
}

mod sack {
    //! RFC 6675 steps that the end-to-end traces (tests/sack.rs) do not reach,
    //! traced by hand on a sender fed crafted ACKs: IsLost (HighACK + 1)
    //! starting recovery on the first duplicate ACK, and the timeout (section
    //! 5.1).
    use super::super::*;
    use crate::net::packet::SackBlocks;
    use crate::transport::cc::NewReno;

    fn sender() -> (TcpSender, Vec<Packet>) {
        let p = TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake: false,
            delayed_ack: false,
            delack_timeout_ns: 100_000_000,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: false,
            tcp: Default::default(),
        };
        let size = FlowSize::Finite {
            bytes: 20_000,
            pkts: 20,
        };
        let mut s = TcpSender::with_sack(0, size, Arc::new(p), Box::new(NewReno), true);
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, blocks: &[(u64, u64)]) -> Packet {
        let mut a = Packet::new(0, PacketKind::Ack, 40, seq, 0);
        a.hdr.set(SackBlocks::new(seq, blocks.iter().copied()));
        a
    }

    fn seqs(out: &[Packet]) -> Vec<(u64, bool)> {
        out.iter().map(|p| (p.seq, p.flags & flags::RETX != 0)).collect()
    }

    #[test]
    fn three_packets_sacked_by_one_ack_start_recovery() {
        // 0..9 out. One ACK of 0 SACKs 2, 3, 4 (the ACKs of 2 and 3 were lost):
        // one duplicate ACK, but IsLost (HighACK + 1 = 0) holds (3 SACKed
        // above): step (2) enters recovery. FlightSize 10 -> ssthresh = cwnd =
        // 5; retransmit 0. SetPipe: SACKed 2, 3, 4, so 0 and 1 are lost; not
        // lost: 5..9 -> 5; retransmitted: 0 -> 1; pipe 6 > cwnd - 1: nothing more.
        let (mut s, out) = sender();
        assert_eq!(out.len(), 10);
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, &[(2, 5)]), &mut out);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 5.0));
        assert_eq!(seqs(&out), vec![(0, true)]);
        // The ACK of 5 SACKs one more packet: pipe = 4 (6..9) + 1 = 5: nothing.
        // The ACK of 6: pipe = 3 + 1 = 4 <= 5 - 1: rule 1 resends 1 (lost, above
        // HighRxt 0). pipe 5: stop.
        out.clear();
        s.on_packet(2, &ack(0, &[(2, 6)]), &mut out);
        assert!(out.is_empty());
        s.on_packet(3, &ack(0, &[(2, 7)]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true)]);
    }

    #[test]
    fn a_timeout_discards_earlier_sacks_and_skips_later_ones() {
        // 0..9 out; an ACK of 0 SACKs 2. The timer fires: cwnd 1, go back N
        // with the scoreboard emptied: packet 0 again.
        let (mut s, _) = sender();
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, &[(2, 3)]), &mut out);
        assert!(out.is_empty());
        let t = s.next_timer().unwrap();
        s.on_timer(t, &mut out);
        assert_eq!(seqs(&out), vec![(0, true)]);
        assert_eq!(s.core.w.cwnd, 1.0);
        // ACK 1 without blocks: slow start, cwnd 2: 1 and 2 go; 2 was SACKed
        // before the timeout and is resent.
        out.clear();
        s.on_packet(t + 1, &ack(1, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(1, true), (2, true)]);
        // ACK 2 SACKing 3..9 (arriving after the timeout): cwnd 3, but the next
        // unSACKed packet is 10 and FlightSize (10 - 2 = 8) exceeds cwnd. These
        // are 7 newly SACKed packets and IsLost (2) holds, yet recovery waits:
        // data sent before the timeout (up to 9) is unacknowledged.
        out.clear();
        s.on_packet(t + 2, &ack(2, &[(3, 10)]), &mut out);
        assert!(out.is_empty(), "{:?}", seqs(&out));
        assert!(!s.core.phase.in_recovery());
        // ACK 10: cwnd 4; FlightSize 0: 10..13 go, new data.
        s.on_packet(t + 3, &ack(10, &[]), &mut out);
        assert_eq!(seqs(&out), vec![(10, false), (11, false), (12, false), (13, false)]);
    }
}

mod model {
    //! The TCP model options (`TcpOptions`), traced by hand on a sender fed
    //! crafted ACKs: each against the RFC text or ns-3 source it follows.
    use super::super::*;
    use crate::transport::cc::NewReno;
    use crate::transport::tcp::options::*;

    const MS: Time = 1_000_000;

    fn params(handshake: bool, model: TcpOptions) -> TransportParams {
        TransportParams {
            mss_bytes: 1000,
            header_bytes: 40,
            init_cwnd_pkts: 10.0,
            handshake,
            delayed_ack: false,
            delack_timeout_ns: 100 * MS,
            min_rto_ns: 200 * MS,
            initial_rto_ns: 1000 * MS,
            max_rto_ns: 60_000 * MS,
            dupack_threshold: 3,
            max_cwnd_pkts: f64::MAX,
            ecn: false,
            tcp: model,
        }
    }

    fn sender(handshake: bool, model: TcpOptions) -> (TcpSender, Vec<Packet>) {
        let mut s = TcpSender::new(
            0,
            FlowSize::Finite {
                bytes: 100_000,
                pkts: 100,
            },
            params(handshake, model),
            Box::new(NewReno),
        );
        let mut out = Vec::new();
        s.start(0, &mut out);
        (s, out)
    }

    fn ack(seq: u64, ts: Time) -> Packet {
        Packet::new(0, PacketKind::Ack, 40, seq, ts)
    }

    #[test]
    fn timeout_exit_growth_counts_only_segments_beyond_recover() {
        // IW 10, no handshake: segments 0-9 sent, none acknowledged; the RTO
        // (1 s) fires: cwnd 1, segment 0 resent, recover = 10. The receiver
        // held 1-9, so the next ACK is 10, covering all ten. RFC 5681 slow
        // start (eq. 2, cwnd += min(N, SMSS)) grows cwnd to 2 on it; ns-3
        // leaving CA_LOSS counts (10 - recover) = 0 segments and keeps
        // cwnd 1. The next ACK (12) is an ordinary one in both: +1.
        for (beyond, after10, after12) in [
            (TimeoutExitGrowth::All, 2.0, 3.0),
            (TimeoutExitGrowth::BeyondRecover, 1.0, 2.0),
        ] {
            let m = TcpOptions {
                timeout_exit_growth: beyond,
                ..Default::default()
            };
            let (mut s, first) = sender(false, m);
            assert_eq!(first.len(), 10);
            let t = s.next_timer().expect("RTO armed");
            let mut out = Vec::new();
            s.on_timer(t, &mut out);
            assert_eq!((out.len(), out[0].seq, s.core.w.cwnd), (1, 0, 1.0));
            s.on_packet(t + 50 * MS, &ack(10, t), &mut out);
            assert_eq!(s.core.w.cwnd, after10, "{beyond:?}");
            s.on_packet(t + 60 * MS, &ack(12, t + 50 * MS), &mut out);
            assert_eq!(s.core.w.cwnd, after12, "{beyond:?}");
        }
    }

    #[test]
    fn reno_recovery_inside_a_timeouts_recovery_returns_to_it() {
        // Reno: fast retransmit does not wait for `recover`. 0..9 out; the
        // timer fires at 1 s: ssthresh 10 / 2 = 5, cwnd 1, 0 resent, recover
        // 10 (a timeout's recovery with "beyond_recover"). Three dupACKs of 0:
        // FlightSize 1, ssthresh max(1/2, 2) = 2, recover = high_data = 10, 0
        // resent, cwnd 2 + 3 = 5: 1..4 resent. ACK 2 ends Reno's recovery:
        // cwnd = ssthresh = 2, nothing grows. ACK 10 reaches recover: with
        // "all" it grows cwnd by congestion avoidance, 2 + 1/2; with
        // "beyond_recover" it ends the timeout's recovery, which fast recovery
        // interrupted, and grows it by the 0 segments beyond recover.
        for (growth, after10) in [(TimeoutExitGrowth::All, 2.5), (TimeoutExitGrowth::BeyondRecover, 2.0)] {
            let m = TcpOptions {
                timeout_exit_growth: growth,
                ..Default::default()
            };
            let size = FlowSize::Finite {
                bytes: 100_000,
                pkts: 100,
            };
            let mut s = TcpSender::new(0, size, params(false, m), Box::new(crate::transport::cc::Reno));
            let mut out = Vec::new();
            s.start(0, &mut out);
            s.on_timer(1000 * MS, &mut out);
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 1.0));
            out.clear();
            for t in 1..=3 {
                s.on_packet((1000 + t) * MS, &ack(0, 1000 * MS), &mut out);
            }
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.core.recover), (2.0, 5.0, 10));
            assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
            s.on_packet(1010 * MS, &ack(2, 1003 * MS), &mut out);
            assert_eq!(s.core.w.cwnd, 2.0);
            let resumed = match growth {
                TimeoutExitGrowth::All => phase::Phase::Open,
                TimeoutExitGrowth::BeyondRecover => phase::Phase::Loss,
            };
            assert_eq!(s.core.phase, resumed);
            s.on_packet(1020 * MS, &ack(10, 1003 * MS), &mut out);
            assert_eq!(s.core.w.cwnd, after10, "{growth:?}");
            assert_eq!(s.core.phase, phase::Phase::Open);
        }
    }

    #[test]
    fn syn_timeout_is_the_connection_timeout_doubled_per_retry() {
        // ns-3 SendEmptyPacket: m_rto = ConnTimeout << retries: 3 s, then 6 s.
        let m = TcpOptions {
            syn_rto_ms: Some(3000.0),
            ..Default::default()
        };
        let (mut s, out) = sender(true, m);
        assert_eq!((out.len(), out[0].kind), (1, PacketKind::Syn));
        assert_eq!(s.next_timer(), Some(3000 * MS));
        let mut out = Vec::new();
        s.on_timer(3000 * MS, &mut out);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.next_timer(), Some(9000 * MS));
        // Default: the initial RTO (RFC 6298 2.1), 1 s then 2 s.
        let (mut s, _) = sender(true, TcpOptions::default());
        assert_eq!(s.next_timer(), Some(1000 * MS));
        s.on_timer(1000 * MS, &mut out);
        assert_eq!(s.next_timer(), Some(3000 * MS));
    }

    #[test]
    fn handshake_ack_and_syn_options() {
        // ns-3: SYN and SYN-ACK carry the 4-byte window-scale option; the
        // SYN-ACK is answered by a pure ACK (header only) ahead of the data.
        let m = TcpOptions {
            handshake_ack: true,
            syn_option_bytes: 4,
            ..Default::default()
        };
        let (mut s, out) = sender(true, m.clone());
        assert_eq!((out[0].kind, out[0].size_bytes), (PacketKind::Syn, 44));
        let mut r = TcpReceiver::new(
            0,
            FlowSize::Finite {
                bytes: 100_000,
                pkts: 100,
            },
            &params(true, m),
        );
        let mut back = Vec::new();
        r.on_packet(20 * MS, &out[0], &mut back);
        assert_eq!(
            (back.len(), back[0].kind, back[0].size_bytes),
            (1, PacketKind::SynAck, 44)
        );
        let mut out = Vec::new();
        s.on_packet(40 * MS, &back[0], &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.flags & flags::PURE_ACK != 0, p.size_bytes, p.seq))
            .collect();
        let want: Vec<_> = std::iter::once((PacketKind::Syn, true, 40, 0))
            .chain((0..10).map(|q| (PacketKind::Data, false, 1040, q)))
            .collect();
        assert_eq!(got, want); // the pure ACK, then the initial window of 10
                               // The receiver ignores the pure ACK (no second SYN-ACK).
        let mut back = Vec::new();
        r.on_packet(60 * MS, &out[0], &mut back);
        assert!(back.is_empty());
        // Defaults: a bare SYN and SYN-ACK, and the data carries the acknowledgement.
        let (mut s, out) = sender(true, TcpOptions::default());
        assert_eq!(out[0].size_bytes, 40);
        let mut out = Vec::new();
        s.on_packet(40 * MS, &Packet::new(0, PacketKind::SynAck, 40, 0, 0), &mut out);
        assert!(out.iter().all(|p| p.kind == PacketKind::Data));
    }

    #[test]
    fn fin_rst_adds_the_receivers_last_ack_and_the_senders_reset() {
        // As above with fin_rst: behind its FIN the receiver sends a pure ACK
        // (ns-3 DoPeerClose); the sender answers the FIN with a pure ACK,
        // stays until that ACK comes and answers it with a reset (both
        // forward, header bytes), and is done then.
        let m = TcpOptions {
            fin_exchange: true,
            fin_rst: true,
            ..Default::default()
        };
        let size = FlowSize::Finite { bytes: 2000, pkts: 2 };
        let mut s = TcpSender::new(0, size, params(false, m.clone()), Box::new(NewReno));
        let mut r = TcpReceiver::new(0, size, &params(false, m.clone()));
        let mut data = Vec::new();
        s.start(0, &mut data);
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        r.on_packet(11 * MS, &data[1], &mut back);
        let got: Vec<_> = back
            .iter()
            .map(|p| (p.kind, p.seq, p.flags & (flags::FIN | flags::AFTER_FIN), p.size_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (PacketKind::Ack, 1, 0, 40),
                (PacketKind::Ack, 2, 0, 40),
                (PacketKind::Ack, 2, flags::FIN, 40),
                (PacketKind::Ack, 2, flags::AFTER_FIN, 40)
            ]
        );
        let mut out = Vec::new();
        for (i, p) in back[..3].iter().enumerate() {
            s.on_packet((20 + i as u64) * MS, p, &mut out);
        }
        assert!(!s.done() && out.len() == 1 && s.next_timer().is_some());
        s.on_packet(23 * MS, &back[3], &mut out);
        assert!(s.done());
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.flags & flags::PURE_ACK != 0, p.size_bytes))
            .collect();
        assert_eq!(got, vec![(PacketKind::Syn, true, 40), (PacketKind::Syn, true, 40)]);
        // The ACK behind the FIN lost: the timer ends the wait, sending nothing more.
        let mut s = TcpSender::new(0, size, params(false, m), Box::new(NewReno));
        s.start(0, &mut Vec::new());
        let mut out = Vec::new();
        for (i, p) in back[..3].iter().enumerate() {
            s.on_packet((20 + i as u64) * MS, p, &mut out);
        }
        let t = s.next_timer().expect("waiting for the last ACK");
        out.clear();
        s.on_timer(t, &mut out);
        assert!(s.done() && out.is_empty());
    }

    #[test]
    fn fin_exchange_ends_with_the_senders_pure_ack() {
        // Two packets, no handshake. The receiver ACKs the last one and sends
        // its FIN right after; the sender is not done on the ACK but on the
        // FIN, which it answers with a pure ACK (forward, header bytes).
        let m = TcpOptions {
            fin_exchange: true,
            ..Default::default()
        };
        let size = FlowSize::Finite { bytes: 2000, pkts: 2 };
        let mut s = TcpSender::new(0, size, params(false, m.clone()), Box::new(NewReno));
        let mut r = TcpReceiver::new(0, size, &params(false, m.clone()));
        let mut data = Vec::new();
        s.start(0, &mut data);
        assert_eq!(data.len(), 2);
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        assert_eq!(back.len(), 1);
        r.on_packet(11 * MS, &data[1], &mut back);
        let got: Vec<_> = back
            .iter()
            .map(|p| (p.kind, p.seq, p.flags & flags::FIN != 0, p.size_bytes))
            .collect();
        assert_eq!(
            got,
            vec![
                (PacketKind::Ack, 1, false, 40),
                (PacketKind::Ack, 2, false, 40),
                (PacketKind::Ack, 2, true, 40)
            ]
        );
        let mut out = Vec::new();
        s.on_packet(20 * MS, &back[0], &mut out);
        s.on_packet(21 * MS, &back[1], &mut out);
        assert!(!s.done() && out.is_empty());
        // Waiting for the FIN at most one RTO (RFC 6298, from the two samples).
        assert!(s.next_timer().is_some());
        s.on_packet(22 * MS, &back[2], &mut out);
        assert!(s.done());
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].kind, out[0].flags & flags::PURE_ACK != 0, out[0].size_bytes),
            (PacketKind::Syn, true, 40)
        );
        // A lost FIN: the timer ends the wait, sending nothing.
        let mut s = TcpSender::new(0, size, params(false, m), Box::new(NewReno));
        s.start(0, &mut data);
        s.on_packet(20 * MS, &back[1], &mut out);
        let t = s.next_timer().expect("waiting for the FIN");
        let mut out = Vec::new();
        s.on_timer(t, &mut out);
        assert!(s.done() && out.is_empty());
        // Default: done on the ACK of the last data; the receiver sends no FIN.
        let mut s = TcpSender::new(0, size, params(false, TcpOptions::default()), Box::new(NewReno));
        s.start(0, &mut data);
        s.on_packet(20 * MS, &back[1], &mut out);
        assert!(s.done());
        let mut r = TcpReceiver::new(0, size, &params(false, TcpOptions::default()));
        let mut back = Vec::new();
        r.on_packet(10 * MS, &data[0], &mut back);
        r.on_packet(11 * MS, &data[1], &mut back);
        assert_eq!(back.len(), 2);
    }

    #[test]
    fn karn_takes_no_sample_from_a_retransmitted_syn_or_segment() {
        let karn = TcpOptions {
            rtt_sampling: RttSampling::Karn,
            ..Default::default()
        };
        // SYN lost once: the SYN-ACK of the second SYN gives no sample.
        let (mut s, _) = sender(true, karn.clone());
        let mut out = Vec::new();
        s.on_timer(1000 * MS, &mut out);
        let sa = Packet::new(0, PacketKind::SynAck, 40, 0, 1000 * MS);
        s.on_packet(1040 * MS, &sa, &mut out);
        assert_eq!(s.srtt_ns(), None);
        // Timestamps: the echo of the second SYN gives 40 ms.
        let (mut s, _) = sender(true, TcpOptions::default());
        s.on_timer(1000 * MS, &mut out);
        s.on_packet(1040 * MS, &sa, &mut out);
        assert_eq!(s.srtt_ns(), Some(40 * MS));
        // Data: 0..9 sent at 0. ACK 1 at 50 ms times segment 0: 50 ms. Segment 1
        // is lost and fast-retransmitted; the ACK covering it (10) times
        // the oldest segment it acknowledges, 1, which was retransmitted: no
        // sample, whatever the echo says (timestamps would take 40 ms).
        let (mut s, _) = sender(false, karn);
        s.on_packet(50 * MS, &ack(1, 0), &mut out);
        assert_eq!(s.srtt_ns(), Some(50 * MS));
        for t in 51..=53 {
            s.on_packet(t * MS, &ack(1, 0), &mut out);
        }
        assert_eq!(s.retransmits(), 1);
        s.on_packet(100 * MS, &ack(10, 60 * MS), &mut out);
        assert_eq!(s.srtt_ns(), Some(50 * MS));
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_on_each_of_two_dupacks() {
        // RFC 3042: 0..9 out (cwnd 10). Dupacks 1 and 2 each send one new
        // segment (10, 11); the third fast-retransmits 0 with ssthresh from
        // the FlightSize without them (RFC 5681 3.2 step 2): 10 / 2 = 5.
        let (mut s, _) = sender(
            false,
            TcpOptions {
                limited_transmit: true,
                ..Default::default()
            },
        );
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, 0), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10]);
        s.on_packet(2, &ack(0, 0), &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![10, 11]);
        assert_eq!(s.core.w.cwnd, 10.0);
        s.on_packet(3, &ack(0, 0), &mut out);
        assert_eq!(s.core.w.ssthresh, 5.0);
        assert_eq!((out[2].seq, out[2].flags & flags::RETX != 0), (0, true));
        // Without it the first two dupACKs send nothing.
        let (mut s, _) = sender(false, TcpOptions::default());
        let mut out = Vec::new();
        s.on_packet(1, &ack(0, 0), &mut out);
        s.on_packet(2, &ack(0, 0), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn full_ack_window_and_the_timer_on_fast_retransmit() {
        // 0..9 out; 0 lost; three dupACKs at 10-12 ms: ssthresh 5, cwnd 8.
        // The full ACK (10) with 0 outstanding beyond: option 1 gives
        // min(5, max(0, 1) + 1) = 2; option 2 (ns-3) gives ssthresh, 5.
        for (exit, want) in [(RecoveryExit::Flight, 2.0f64), (RecoveryExit::Ssthresh, 5.0)] {
            let (mut s, _) = sender(
                false,
                TcpOptions {
                    recovery_exit: exit,
                    ..Default::default()
                },
            );
            let mut out = Vec::new();
            for t in 10..=12 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5.0, 8.0));
            let sent = s.core.high_data;
            s.on_packet(20 * MS, &ack(sent, 0), &mut out);
            assert_eq!(s.core.w.cwnd, want);
        }
        // The timer: armed at 0 for 1 s (no sample yet). Fast retransmit at
        // 12 ms restarts it (12 ms + 1 s), or leaves it (RFC 6298 5.1, ns-3).
        for (keep, want) in [
            (FastRetransmitTimer::Restart, 1012 * MS),
            (FastRetransmitTimer::Keep, 1000 * MS),
        ] {
            let (mut s, _) = sender(
                false,
                TcpOptions {
                    fast_retransmit_timer: keep,
                    ..Default::default()
                },
            );
            let mut out = Vec::new();
            for t in 10..=12 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!(s.next_timer(), Some(want));
        }
    }

    #[test]
    fn ssthresh_from_pipe_counts_duplicate_acks_as_left_on_every_timeout() {
        // 0..9 out (cwnd 10), limited transmit on. DupACKs 1 and 2 send 10 and
        // 11; ns-3 takes one segment as having left per dupACK (AddRenoSack).
        // The third counts one more and the head as lost: BytesInFlight =
        // 12 - 3 - 1 = 8, plus one segment (EnterRecovery): 9, ssthresh 4.5,
        // cwnd 4.5 + 3. RFC 5681: FlightSize without the limited-transmit
        // segments, 10: ssthresh 5, cwnd 8.
        for (pipe, ss, cwnd, ss_rto, ss_rto2) in [
            (SsthreshFlight::Pipe, 4.5, 7.5, 2.5, 2.0),
            (SsthreshFlight::Flight, 5.0, 8.0, 6.0, 6.0),
        ] {
            let m = TcpOptions {
                limited_transmit: true,
                ssthresh_flight: pipe,
                ..Default::default()
            };
            let (mut s, _) = sender(false, m);
            let mut out = Vec::new();
            for t in 1..=3 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (ss, cwnd));
            // Four more dupACKs in recovery: cwnd 11.5 (12 with the RFC), no
            // room for a new segment; 7 segments counted as left. The timer
            // fires: ns-3 (ReTxTimeout) halves 12 - 7 = 5: 2.5; RFC 5681 halves
            // FlightSize 12: 6.
            for t in 4..=7 {
                s.on_packet(t * MS, &ack(0, 0), &mut out);
            }
            assert_eq!(s.core.high_data, 12);
            let t = s.next_timer().unwrap();
            s.on_timer(t, &mut out);
            assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (ss_rto, 1.0));
            // The retransmission is lost too: ns-3 halves again what it has in
            // flight, the one retransmitted segment: max(0.5, 2) = 2; RFC 5681
            // holds ssthresh.
            let t = s.next_timer().unwrap();
            s.on_timer(t, &mut out);
            assert_eq!(s.core.w.ssthresh, ss_rto2);
        }
    }

    #[test]
    fn pipe_window_follows_ns3_and_keeps_its_stale_marks() {
        // ns-3's window rule (TcpSocketBase::SendPendingData, AddRenoSack,
        // DiscardUpTo, TcpClassicRecovery) with limited transmit and ssthresh
        // from its pipe. 0..9 out at cwnd 10; 0 is lost.
        let m = TcpOptions {
            limited_transmit: true,
            ssthresh_flight: SsthreshFlight::Pipe,
            dupack_window: DupackWindow::Pipe,
            ..Default::default()
        };
        let (mut s, _) = sender(false, m);
        let sent = |out: &[Packet]| {
            out.iter()
                .map(|p| (p.seq, p.flags & flags::RETX != 0))
                .collect::<Vec<_>>()
        };
        let mut out = Vec::new();
        // DupACKs 1, 2: each counts a segment as left: pipe 9, so 10, then 11.
        // DupACK 3: one more counted, the head lost: pipe 12 - 3 - 1 = 8,
        // ssthresh (8 + 1) / 2 = 4.5 = cwnd (no inflation); 0 resent: pipe 9.
        for t in 1..=3 {
            s.on_packet(t * MS, &ack(0, 0), &mut out);
        }
        assert_eq!(sent(&out), vec![(10, false), (11, false), (0, true)]);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (4.5, 4.5));
        // DupACKs 4..12 count 4..12 segments more (S = 12): pipe = 12 - S
        // until a segment fits (pipe + 1 <= 4.5, pipe 3): at S = 9, 10, 11, 12
        // one new segment each: 12, 13, 14, 15. (RFC 5681 would inflate cwnd
        // from 8 to 17 against FlightSize.)
        out.clear();
        for t in 4..=12 {
            s.on_packet(t * MS, &ack(0, 0), &mut out);
        }
        assert_eq!(sent(&out), vec![(12, false), (13, false), (14, false), (15, false)]);
        assert_eq!(s.core.w.cwnd, 4.5);
        // The full ACK (12 = recover) covers 11 of the 12 counted segments: the
        // twelfth was 12, the new head, so ns-3 moves its mark to 13 and marks
        // 12 lost. Recovery ends: cwnd = ssthresh, plus one ACK of congestion
        // avoidance: 4.5 + 1/4.5. Pipe = 16 - 12 - 1 (counted) - 1 (lost) = 2:
        // 12 is resent at once (pipe 3), then 16 (pipe 4).
        out.clear();
        s.on_packet(20 * MS, &ack(12, 0), &mut out);
        assert!(!s.core.phase.in_recovery());
        assert_eq!(s.core.w.cwnd, 4.5 + 1.0 / 4.5);
        assert_eq!(sent(&out), vec![(12, true), (16, false)]);
        // One duplicate ACK now starts a recovery: the head is marked lost
        // below a counted segment (TcpTxBuffer::IsLost). One more counted:
        // pipe 17 - 12 - 2 - 1 = 2, ssthresh max((2 + 1) / 2, 2) = 2; 12 is
        // resent again.
        out.clear();
        s.on_packet(21 * MS, &ack(12, 0), &mut out);
        assert!(s.core.phase.in_recovery());
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (2.0, 2.0));
        assert_eq!(sent(&out), vec![(12, true)]);
        // A partial ACK (13 < recover 17) marks the new head lost and resends
        // it; cwnd stays ssthresh.
        out.clear();
        s.on_packet(60 * MS, &ack(13, 0), &mut out);
        assert_eq!(sent(&out), vec![(13, true)]);
        assert_eq!(s.core.w.cwnd, 2.0);
    }

    #[test]
    fn a_retransmitted_syn_is_timed_from_the_first_one() {
        // The SYN sent at 0 is lost; the one resent at 3 s is answered at
        // 3.04 s. ns-3 samples 3.04 s (its history entry of the SYN counts
        // zero bytes, so the resend never marks it retransmitted): SRTT 3.04 s,
        // RTTVAR 1.52 s, RTO 3.04 + 4 x 1.52 = 9.12 s. Karn's rule: no sample,
        // the RTO stays the initial 1 s.
        let sa = Packet::new(0, PacketKind::SynAck, 40, 0, 3000 * MS);
        for (first, srtt, rto) in [(true, Some(3040 * MS), 9120 * MS), (false, None, 1000 * MS)] {
            let m = TcpOptions {
                syn_rto_ms: Some(3000.0),
                rtt_sampling: RttSampling::Karn,
                time_first_syn: first,
                ..Default::default()
            };
            let (mut s, _) = sender(true, m);
            let mut out = Vec::new();
            s.on_timer(3000 * MS, &mut out);
            s.on_packet(3040 * MS, &sa, &mut out);
            assert_eq!(s.srtt_ns(), srtt);
            assert_eq!(s.next_timer(), Some(3040 * MS + rto));
        }
    }
}

//! RCP end hosts (Dukkipati & McKeown 2006; ns-2 RCP patch `rcp-host.cc`).
//! The router half is [`super::router`]; the header layout is in [`super`].
//!
//! Sender:
//! 1. At start, a SYN of `header_bytes` with rate = −1 ("infinity") and
//!    rtt = 0; resent every `syn_retx_ms` (ns-2 `SYN_DELAY` 0.5 s) until a
//!    SYN-ACK comes. RCP always handshakes (the SYN learns the first rate),
//!    whatever `transport.handshake` says.
//! 2. On the SYN-ACK: an RTT sample (now − echoed timestamp), R = the echoed
//!    stamped rate, and the first data packet leaves at once; after that one
//!    packet every interval = (mss + header)·8/R seconds (ns-2 uses the
//!    full-size interval for every packet, so do we).
//! 3. Every ACK echoes a rate: R changes, and the next send is rescheduled to
//!    last_send + interval, or now if that has passed.
//! 4. Data packets carry rate −1 and the sender's smoothed RTT (seconds) in the
//!    RTT field, which routers average into d0; ACKs and probes carry rtt −1
//!    (ns-2's RCP agents put their RTT in every packet; a later fix of the
//!    patch keeps ACKs and probes out of the routers' average).
//! 5. Stuck at a tiny rate (interval > smoothed RTT): rate probes every
//!    min(`max_probe_interval_ms`, RTT) (ns-2 RCP patch REF
//!    packets). A probe is modelled as a SYN-kind packet of `header_bytes`
//!    (routers stamp SYNs at dequeue exactly as they would a REF; the receiver
//!    answers any SYN with a SYN-ACK echoing the rate, as REFACK), so no new
//!    packet kind is needed. A probe's answer updates R and reschedules the
//!    next send, which is how a flow leaves the stuck state (the course
//!    reproduction's "rate falls to 0, no mechanism to recover").
//!
//! Loss recovery (ns-2: resend the unacknowledged packets 2·RTT after the
//! FIN; we keep the idea and make it explicit): the receiver acknowledges
//! every data packet with the cumulative ACK (next sequence expected) and, in
//! [`RcpAck::acks`](crate::protocols::rcp::RcpAck), the sequence number of the packet that triggered it. The sender
//! keeps the set of packets acknowledged above the cumulative ACK. Once every
//! packet has been sent (the first time or in a recovery round), if the flow
//! is not fully acknowledged `recovery_rtts`·RTT (default 2) after the last
//! send, a recovery round resends, paced at the current rate, every packet
//! neither cumulatively nor individually acknowledged, in order; and again
//! after that round if needed. There is no other retransmission timer: an RCP
//! flow is paced by its rate, not clocked by ACKs.
//!
//! Data packets carry [`super::LAST`] in [`RcpData::last`](crate::protocols::rcp::RcpData) on the flow's last
//! packet (routers in mode `ps` count flows with it); resent SYNs carry RETX.
//!
//! **Mode `ps` (the default)** changes three things, each measured in
//! `tests/rcp_ps.rs`: the SYN is resent after `syn_first_retx_ms`·(1 + u),
//! doubling each time up to `syn_retx_ms`, u in [0, 1) drawn from the flow id
//! and the attempt (the patch's fixed 0.5 s made every flow whose SYN a full
//! buffer dropped wait 0.5 s, and all came back in step); a hole with three
//! packets acknowledged above it is resent once before new data (the patch
//! waits for the end of the flow, costing ~3 RTTs per loss); no rate probes
//! (with many flows at C/N the interval exceeds the RTT, and a probe every
//! RTT from each filled the link; the routers' floor keeps flows from being
//! stuck). **Mode `ns2`**: the patch's hosts as described above.
//!
//! **`data_with_syn`** (off by default): the first data packet leaves right
//! behind the SYN instead of on the SYN-ACK, as TCP Fast Open (RFC 7413)
//! carries data in the SYN; the rest waits for the SYN-ACK's rate. Resent
//! SYNs then carry rtt −1, as probes do, so routers in mode `ps` do not
//! announce the flow a second time; they count it as sending from its first
//! packet with an RTT estimate (the one sent with the SYN carries none). A
//! one-packet flow then ends half an RTT after it starts instead of one and a
//! half; a longer flow gains one packet interval.
//!
//! `cwnd_pkts` reports R·RTT / ((mss + header)·8).

mod params;
mod receiver;
mod sender;

pub use params::RcpHostCfg;
pub use receiver::RcpReceiver;
pub use sender::RcpSender;

use crate::config::{documented, ConfigError, Entry, Table};
use crate::transport::{EndpointBuilder, Receiver, SchemeEntry, Sender, TransportParams};
use std::sync::Arc;

/// `rcp` (the scheme).
pub const ENTRY: SchemeEntry = Entry {
    name: "rcp",
    description: "RCP (Dukkipati & McKeown 2006, ns-2 RCP patch): routers stamp one rate per link, senders pace at the path's rate; needs queue = \"rcp\"",
    table: Some("rcp"),
    params: documented::<RcpHostCfg>,
    requires: Some("rcp"),
    factory,
};

/// Check `[transport.rcp]` and make the endpoint builder.
fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: RcpHostCfg = t.parse()?;
    let (mss, hdr) = (p.mss_bytes, p.header_bytes);
    Ok(Arc::new(move |id, size| {
        (
            Box::new(RcpSender::new(id, size, mss, hdr, c.clone())) as Box<dyn Sender>,
            Box::new(RcpReceiver::new(id, size, hdr)) as Box<dyn Receiver>,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::sender::third_highest;
    use super::*;
    use crate::net::packet::flags;
    use crate::net::{Packet, PacketKind};
    use crate::protocols::rcp::router::RcpMode;
    use crate::protocols::rcp::{rate_of, rtt_of, RcpAck, RcpData};
    use crate::sim::Time;
    use crate::transport::FlowSize;
    use rangemap::RangeSet;

    /// The patch's hosts (mode ns2), derived by hand below.
    fn sender(pkts: u64) -> RcpSender {
        RcpSender::new(
            0,
            FlowSize::from_bytes(pkts * 1000, 1000),
            1000,
            40,
            RcpHostCfg {
                mode: RcpMode::Ns2,
                ..RcpHostCfg::default()
            },
        )
    }

    fn ps_sender(flow: u32, pkts: u64) -> RcpSender {
        RcpSender::new(
            flow,
            FlowSize::from_bytes(pkts * 1000, 1000),
            1000,
            40,
            RcpHostCfg::default(),
        )
    }

    #[test]
    fn ps_syns_back_off_from_the_first_gap_spread_per_flow() {
        // Gaps k = 0, 1, 2, ...: 10·2^k ms, at most 500 ms, times a factor in
        // [1, 2); resent copies carry RETX.
        for flow in 0..20 {
            let mut s = ps_sender(flow, 3);
            let mut out = vec![];
            s.start(0, &mut out);
            let mut t = 0;
            for k in 0..8 {
                let next = s.next_timer().unwrap();
                let base = (10.0 * 2f64.powi(k)).min(500.0) * 1e6;
                let gap = (next - t) as f64;
                assert!(gap >= base && gap < 2.0 * base, "flow {flow} gap {k}: {gap}");
                out.clear();
                s.on_timer(next, &mut out);
                assert_eq!(
                    (out[0].kind, out[0].flags & flags::RETX),
                    (PacketKind::Syn, flags::RETX)
                );
                t = next;
            }
        }
        // Two flows do not resend in step.
        let (mut a, mut b) = (ps_sender(1, 3), ps_sender(2, 3));
        a.start(0, &mut vec![]);
        b.start(0, &mut vec![]);
        assert_ne!(a.next_timer(), b.next_timer());
    }

    #[test]
    fn ps_resends_a_hole_with_three_packets_acknowledged_above_it_before_new_data() {
        let mut s = ps_sender(0, 10);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 10 ms, R = 8.32 Mb/s: interval 1 ms.
        s.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        for k in 1..6 {
            s.on_timer(10_000_000 + k * 1_000_000, &mut out);
        }
        assert_eq!(out.iter().filter(|p| p.kind == PacketKind::Data).count(), 6);
        out.clear();
        // Packet 1 lost: ACKs for 0, 2, 3 (two above the hole: not yet), then 4.
        s.on_packet(20_000_000, &ack(10_000_000, 1, 0, 8.32e6), &mut out);
        s.on_packet(22_000_000, &ack(12_000_000, 1, 2, 8.32e6), &mut out);
        s.on_packet(23_000_000, &ack(13_000_000, 1, 3, 8.32e6), &mut out);
        s.on_timer(23_000_000, &mut out);
        assert_eq!(out.last().unwrap().seq, 6, "two above the hole: new data");
        s.on_packet(24_000_000, &ack(14_000_000, 1, 4, 8.32e6), &mut out);
        s.on_timer(s.next_timer().unwrap(), &mut out);
        let p = out.last().unwrap();
        assert_eq!((p.seq, p.flags & flags::RETX), (1, flags::RETX));
        assert_eq!(s.retransmits(), 1);
        s.on_timer(s.next_timer().unwrap(), &mut out);
        assert_eq!(out.last().unwrap().seq, 7, "then new data again");
    }

    fn synack(ts: Time, rate: f64) -> Packet {
        let mut p = Packet::new(0, PacketKind::SynAck, 40, 0, ts);
        p.hdr.set(RcpAck {
            rate_bps: rate,
            ..RcpAck::default()
        });
        p
    }

    fn ack(ts: Time, cum: u64, seq: u64, rate: f64) -> Packet {
        let mut p = Packet::new(0, PacketKind::Ack, 40, cum, ts);
        p.hdr.set(RcpAck {
            rate_bps: rate,
            rtt_s: 0.0,
            acks: seq as f64,
        });
        p
    }

    #[test]
    fn syn_carries_infinite_rate_and_is_resent_every_half_second() {
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].kind, out[0].size_bytes, rate_of(&out[0])),
            (PacketKind::Syn, 40, -1.0)
        );
        assert_eq!(s.next_timer(), Some(500_000_000));
        out.clear();
        s.on_timer(500_000_000, &mut out);
        assert_eq!(out[0].kind, PacketKind::Syn);
        assert_eq!(s.next_timer(), Some(1_000_000_000));
    }

    #[test]
    fn pacing_interval_by_hand_and_first_packet_at_once() {
        // R = 500 kb/s: (1000 + 40)·8 / 5e5 = 16.64 ms.
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        out.clear();
        s.on_packet(30_000_000, &synack(0, 500e3), &mut out);
        assert_eq!(s.interval_ns(), 16_640_000);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].kind, out[0].seq, rate_of(&out[0])), (PacketKind::Data, 0, -1.0));
        // The data packet carries the RTT estimate (30 ms) for the routers.
        assert!((rtt_of(&out[0]) - 0.03).abs() < 1e-12);
        assert_eq!(s.next_timer(), Some(46_640_000));
        out.clear();
        s.on_timer(46_640_000, &mut out);
        assert_eq!(out[0].seq, 1);
        assert_eq!(s.next_timer(), Some(63_280_000));
        // An ACK raising R to 1.04 Mb/s (interval 8 ms) moves the next send to
        // last_send + 8 ms = 54.64 ms.
        out.clear();
        s.on_packet(50_000_000, &ack(30_000_000, 1, 0, 1.04e6), &mut out);
        assert!(out.is_empty());
        assert_eq!(s.interval_ns(), 8_000_000);
        assert_eq!(s.next_timer(), Some(54_640_000));
        // An ACK arriving after that time: the send happens now.
        s.on_packet(60_000_000, &ack(46_640_000, 2, 1, 1.04e6), &mut out);
        assert_eq!(s.next_timer(), Some(60_000_000));
        s.on_timer(60_000_000, &mut out);
        assert_eq!(out.last().unwrap().seq, 2);
        // cwnd = R·srtt / (1040·8).
        let srtt = s.srtt_ns().unwrap() as f64 / 1e9;
        assert!((s.cwnd_pkts() - 1.04e6 * srtt / 8320.0).abs() < 1e-6);
    }

    #[test]
    fn receiver_echoes_the_stamped_rate() {
        let mut r = RcpReceiver::new(0, FlowSize::from_bytes(2000, 1000), 40);
        let mut out = vec![];
        let mut syn = Packet::new(0, PacketKind::Syn, 40, 0, 5);
        syn.hdr.set(RcpData {
            rate_bps: 123.0,
            ..RcpData::default()
        });
        r.on_packet(10, &syn, &mut out);
        assert_eq!(
            (out[0].kind, rate_of(&out[0]), out[0].ts, rtt_of(&out[0])),
            (PacketKind::SynAck, 123.0, 5, -1.0)
        );
        let mut d = Packet::new(0, PacketKind::Data, 1040, 1, 7);
        d.hdr.set(RcpData {
            rate_bps: 456.0,
            rtt_s: 0.03,
            last: 0.0,
        });
        r.on_packet(20, &d, &mut out);
        // Out of order: cumulative ACK 0, acknowledges seq 1.
        assert_eq!(
            (
                out[1].kind,
                out[1].seq,
                rate_of(&out[1]),
                out[1].hdr.get::<RcpAck>().acks,
                rtt_of(&out[1])
            ),
            (PacketKind::Ack, 0, 456.0, 1.0, -1.0)
        );
        assert_eq!(r.finished_at(), None);
        d.seq = 0;
        r.on_packet(30, &d, &mut out);
        assert_eq!(out[2].seq, 2);
        assert_eq!(r.finished_at(), Some(30));
    }

    #[test]
    fn a_hole_below_many_packets_costs_one_run_not_one_entry_per_packet() {
        // Packet 0 lost, 1..=100000 arrive: the receiver holds one run and
        // ACKs 0 throughout; the sender's acknowledged set is one run too.
        let n = 100_000u64;
        let mut r = RcpReceiver::new(0, FlowSize::from_bytes((n + 1) * 1000, 1000), 40);
        let mut s = sender(n + 1);
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_packet(10_000_000, &synack(0, 1e9), &mut out);
        for seq in 1..=n {
            out.clear();
            r.on_packet(20_000_000, &Packet::new(0, PacketKind::Data, 1040, seq, 0), &mut out);
            assert_eq!(out[0].seq, 0);
            let ack = out[0];
            s.on_packet(20_000_000, &ack, &mut vec![]);
        }
        assert_eq!((r.ooo.len(), s.sacked.len()), (1, 1));
        assert_eq!(third_highest(&s.sacked), Some(n - 2));
        // The hole filled: everything is delivered in one step.
        out.clear();
        r.on_packet(30_000_000, &Packet::new(0, PacketKind::Data, 1040, 0, 0), &mut out);
        assert_eq!((out[0].seq, r.ooo.len(), r.finished_at()), (n + 1, 0, Some(30_000_000)));
    }

    #[test]
    fn third_highest_counts_packets_across_runs() {
        let mut set = RangeSet::new();
        assert_eq!(third_highest(&set), None);
        set.insert(10..11);
        set.insert(20..21);
        assert_eq!(third_highest(&set), None);
        set.insert(5..7);
        // {5, 6, 10, 20}: the third highest is 6.
        assert_eq!(third_highest(&set), Some(6));
        set.insert(30..40);
        assert_eq!(third_highest(&set), Some(37));
    }

    #[test]
    fn recovery_resends_only_the_unacknowledged_after_two_rtts() {
        let mut s = sender(3);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 10 ms; R = 1.04 Mb/s: interval 8 ms.
        s.on_packet(10_000_000, &synack(0, 1.04e6), &mut out);
        s.on_timer(18_000_000, &mut out);
        s.on_timer(26_000_000, &mut out);
        out.clear();
        // Packet 1 lost: ACKs for 0 and 2.
        s.on_packet(20_000_000, &ack(10_000_000, 1, 0, 1.04e6), &mut out);
        s.on_packet(36_000_000, &ack(26_000_000, 1, 2, 1.04e6), &mut out);
        // srtt stays 10 ms; recovery at last send (26 ms) + 2·10 ms = 46 ms.
        assert_eq!(s.next_timer(), Some(46_000_000));
        s.on_timer(46_000_000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].flags & flags::RETX), (1, flags::RETX));
        assert_eq!(s.retransmits(), 1);
        // Nothing else to resend (2 was acknowledged): next recovery at 66 ms.
        assert_eq!(s.next_timer(), Some(66_000_000));
        s.on_packet(56_000_000, &ack(46_000_000, 3, 1, 1.04e6), &mut out);
        assert!(s.done() && s.next_timer().is_none());
    }

    #[test]
    fn a_tiny_rate_starts_probes_and_a_probe_answer_ends_them() {
        let mut s = sender(100);
        let mut out = vec![];
        s.start(0, &mut out);
        // RTT 100 ms, R = 400 b/s: interval 20.8 s > RTT: probe every min(0.5 s, 0.1 s).
        s.on_packet(100_000_000, &synack(0, 400.0), &mut out);
        assert_eq!(s.next_timer(), Some(200_000_000));
        out.clear();
        s.on_timer(200_000_000, &mut out);
        assert_eq!(
            (out[0].kind, out[0].size_bytes, rate_of(&out[0]), rtt_of(&out[0])),
            (PacketKind::Syn, 40, -1.0, -1.0)
        );
        assert_eq!(s.probes(), 1);
        // The answer: 8.32 Mb/s, interval 1 ms < RTT: probing stops and the
        // next data packet goes at last_send (100 ms) + 1 ms, i.e. now.
        s.on_packet(300_000_000, &synack(200_000_000, 8.32e6), &mut out);
        assert_eq!(s.interval_ns(), 1_000_000);
        assert_eq!(s.next_timer(), Some(300_000_000));
        out.clear();
        s.on_timer(300_000_000, &mut out);
        assert_eq!((out.len(), out[0].kind, out[0].seq), (1, PacketKind::Data, 1));
        assert_eq!(s.next_timer(), Some(301_000_000));
    }

    #[test]
    fn data_with_syn_sends_the_first_packet_behind_the_syn() {
        let cfg = RcpHostCfg {
            data_with_syn: true,
            ..RcpHostCfg::default()
        };
        let mut s = RcpSender::new(0, FlowSize::from_bytes(3000, 1000), 1000, 40, cfg);
        let mut out = vec![];
        s.start(0, &mut out);
        let got: Vec<_> = out
            .iter()
            .map(|p| (p.kind, p.seq, p.size_bytes, p.flags & flags::RETX))
            .collect();
        assert_eq!(got, vec![(PacketKind::Syn, 0, 40, 0), (PacketKind::Data, 0, 1040, 0)]);
        // No RTT estimate yet: routers leave the packet out of their average.
        assert_eq!((rate_of(&out[1]), rtt_of(&out[1])), (-1.0, 0.0));
        out.clear();
        // SYN-ACK after 10 ms at 8.32 Mb/s (interval 1 ms): packet 1 at once, packet 2 one interval later.
        s.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        assert_eq!(
            out.iter().map(|p| (p.kind, p.seq)).collect::<Vec<_>>(),
            vec![(PacketKind::Data, 1)]
        );
        assert_eq!(s.next_timer(), Some(11_000_000));
        // A one-packet flow has nothing left to send after the SYN-ACK.
        let mut one = RcpSender::new(1, FlowSize::from_bytes(1000, 1000), 1000, 40, cfg_with_syn());
        let mut out = vec![];
        one.start(0, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out[1].hdr.get::<RcpData>().is_last());
        out.clear();
        one.on_packet(10_000_000, &synack(0, 8.32e6), &mut out);
        assert!(out.is_empty());
        one.on_packet(10_000_001, &ack(0, 1, 0, 8.32e6), &mut out);
        assert!(one.done());
    }

    fn cfg_with_syn() -> RcpHostCfg {
        RcpHostCfg {
            data_with_syn: true,
            ..RcpHostCfg::default()
        }
    }
}

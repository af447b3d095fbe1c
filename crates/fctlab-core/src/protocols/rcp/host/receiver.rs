//! The RCP receiver.

use crate::net::{Packet, PacketKind};
use crate::protocols::rcp::{RcpAck, RcpData};
use crate::sim::Time;
use crate::transport::{FlowSize, Receiver};
use rangemap::RangeSet;

/// An RCP receiver: echoes the stamped rate in a SYN-ACK for every SYN (and
/// probe) and in an ACK for every data packet; counts what has arrived.
pub struct RcpReceiver {
    flow: u32,
    size: FlowSize,
    hdr: u32,
    /// Next sequence number expected (cumulative ACK).
    rcv_nxt: u64,
    /// Packets held above `rcv_nxt`, as runs.
    pub(super) ooo: RangeSet<u64>,
    finished: Option<Time>,
}

impl RcpReceiver {
    pub fn new(flow: u32, size: FlowSize, hdr: u32) -> Self {
        RcpReceiver {
            flow,
            size,
            hdr,
            rcv_nxt: 0,
            ooo: RangeSet::new(),
            finished: None,
        }
    }
}

impl Receiver for RcpReceiver {
    fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) {
        let kind = match pkt.kind {
            PacketKind::Syn => PacketKind::SynAck,
            PacketKind::Data => {
                if pkt.seq == self.rcv_nxt {
                    self.rcv_nxt += 1;
                    if let Some(r) = self.ooo.first().filter(|r| r.start == self.rcv_nxt).cloned() {
                        self.rcv_nxt = r.end;
                        self.ooo.remove(r);
                    }
                } else if pkt.seq > self.rcv_nxt {
                    self.ooo.insert(pkt.seq..pkt.seq + 1);
                }
                if self.finished.is_none() && self.rcv_nxt >= self.size.end_seq() {
                    self.finished = Some(now);
                }
                PacketKind::Ack
            }
            _ => return,
        };
        let mut a = Packet::new(
            self.flow,
            kind,
            self.hdr,
            if kind == PacketKind::Ack { self.rcv_nxt } else { 0 },
            pkt.ts,
        );
        a.hdr.set(RcpAck {
            rate_bps: pkt.hdr.get::<RcpData>().rate_bps,
            rtt_s: -1.0,
            acks: if kind == PacketKind::Ack { pkt.seq as f64 } else { -1.0 },
        });
        out.push(a);
    }

    fn on_timer(&mut self, _now: Time, _out: &mut Vec<Packet>) {}

    fn next_timer(&self) -> Option<Time> {
        None
    }

    fn finished_at(&self) -> Option<Time> {
        self.finished
    }

    fn in_order_pkts(&self) -> u64 {
        self.rcv_nxt
    }
}

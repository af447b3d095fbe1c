//! What the engine records beside the flows table as packets reach their
//! ends: probe delays, prefix times of measuring flows, streaming FCT
//! statistics per size; and the forced losses a scenario asks for.

use crate::metrics::prefixes::Prefixes;
use crate::metrics::probes::Probes;
use crate::metrics::size_stats::{SizeStats, SizeStatsSpec};
use crate::metrics::FlowRecord;
use crate::net::packet::flags;
use crate::net::{Packet, PacketKind};
use crate::sim::Time;

pub(super) struct Observers {
    /// Forced losses still to apply: (flow, seq, transmission) and copies seen.
    losses: Vec<((u64, u64, u32), u32)>,
    pub prefixes: Prefixes,
    pub size_stats: Option<SizeStats>,
    pub probes: Probes,
}

impl Observers {
    pub fn new(losses: &[(u64, u64, u32)], size_stats: Option<SizeStatsSpec>) -> Self {
        Observers {
            losses: losses.iter().map(|&l| (l, 0)).collect(),
            prefixes: Prefixes::default(),
            size_stats: size_stats.map(SizeStats::new),
            probes: Probes::default(),
        }
    }

    /// Whether a forced loss takes this packet as it reaches its end (only
    /// data packets are taken).
    #[inline(always)]
    pub fn forced_loss(&mut self, pkt: &Packet) -> bool {
        pkt.kind == PacketKind::Data && !self.losses.is_empty() && self.count_loss(pkt)
    }

    fn count_loss(&mut self, pkt: &Packet) -> bool {
        let mut lost = false;
        for ((flow, seq, nth), seen) in self.losses.iter_mut() {
            if *flow == pkt.flow as u64 && *seq == pkt.seq {
                *seen += 1;
                lost |= *seen == *nth;
            }
        }
        lost
    }

    /// A packet reached its end: a probe's delay is recorded.
    #[inline(always)]
    pub fn delivered(&mut self, pkt: &Packet, now: Time) {
        if pkt.flags & flags::PROBE != 0 {
            self.probe(pkt, now);
        }
    }

    fn probe(&mut self, pkt: &Packet, now: Time) {
        match pkt.kind {
            PacketKind::Data => self.probes.arrived(pkt.flow, pkt.seq, pkt.ts, now),
            _ => self.probes.answered(pkt.flow, pkt.seq, pkt.ts, now),
        }
    }

    /// A finite flow of `pkts` packets was created, to start at `start_ns`.
    pub fn flow_created(&mut self, start_ns: Time, pkts: u64) {
        if let Some(s) = self.size_stats.as_mut().filter(|s| s.counts(start_ns)) {
            s.started(pkts);
        }
    }

    /// A flow's last byte arrived (its record holds its finish time).
    pub fn flow_completed(&mut self, rec: &FlowRecord) {
        if let Some(s) = self.size_stats.as_mut().filter(|s| s.counts(rec.start_ns)) {
            s.completed(rec.size_pkts, rec.fct_ns().unwrap_or(0));
        }
    }

    /// The receiver of measuring flow `f`, which started at `start_ns`, now
    /// holds packets 1..`upto` in order: the new prefixes are recorded
    /// (`prefix_done`: those recorded before).
    #[inline]
    pub fn in_order(&mut self, f: u32, prefix_done: &mut u64, start_ns: Time, upto: u64, now: Time) {
        if upto > *prefix_done {
            self.prefixes.record(f as u64, *prefix_done, upto, now - start_ns);
            *prefix_done = upto;
        }
    }
}

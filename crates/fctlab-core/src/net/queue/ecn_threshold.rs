//! `ecn-threshold`: the DCTCP switch (Alizadeh et al., "Data Center TCP
//! (DCTCP)", SIGCOMM 2010, section 3.1): a FIFO that marks an arriving
//! ECN-capable packet CE when the instantaneous queue it finds is longer than
//! K, and drops only when the buffer is full.
//!
//! - The queue "at arrival" is what waits in front of the packet, not counting
//!   the packet being serialised nor the arrival itself (the paper: "mark
//!   arriving packets with the CE codepoint if the queue occupancy is greater
//!   than K upon its arrival"). K is in packets (`k_pkts`) or in bytes
//!   (`k_bytes`, the bytes waiting).
//! - A packet that is not ECN-capable (no ECT) is neither marked nor dropped
//!   early: it queues like any other and is dropped only by a full buffer, as
//!   at the paper's switch. With `not_ect = "drop"` it is dropped where an
//!   ECN-capable one would be marked, as a RED queue configured as DCTCP's
//!   switch does (ns-3 RedQueueDisc with MinTh = MaxTh = K, UseEcn, no hard
//!   drop: a forced mark that cannot be made is a drop, `DoEnqueue`; Linux
//!   `sch_red` without ECN for that packet).
//! - A marked packet still needs room: a full buffer drops the arrival,
//!   marked or not.
//!
//! K must lie below the buffer: a K at or above it could never mark
//! (refused when the scenario is resolved, [`check_buffer`]).

use super::{DropTail, PortParams, Queue, QueueEntry};
use crate::config::{documented, err, ConfigError, Entry, ParamDoc, Params, Table};
use crate::net::packet::flags;
use crate::net::Packet;
use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The `[network.ecn-threshold]` table.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EcnThresholdCfg {
    /// The marking threshold K in packets (unset when `k_bytes` is given).
    pub k_pkts: Option<u64>,
    /// The marking threshold K in bytes waiting (instead of `k_pkts`).
    pub k_bytes: Option<u64>,
    /// What happens to a packet without ECT that finds more than K waiting.
    pub not_ect: NotEct,
}

/// `not_ect`: a packet that cannot be marked, above K.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NotEct {
    /// It queues (the DCTCP paper's switch).
    #[default]
    Queue,
    /// It is dropped (RED as DCTCP's switch: ns-3 RedQueueDisc, Linux sch_red).
    Drop,
}

/// K when neither key is given: 20 packets, the DCTCP paper's value for
/// 1 Gb/s ports (Alizadeh et al. 2010, section 4: K = 20 at 1 Gb/s, 65 at
/// 10 Gb/s).
pub const DEFAULT_K_PKTS: u64 = 20;

impl EcnThresholdCfg {
    /// The threshold: `Pkts(k)` or `Bytes(k)`.
    pub fn threshold(&self) -> Threshold {
        match (self.k_pkts, self.k_bytes) {
            (_, Some(b)) => Threshold::Bytes(b),
            (Some(k), None) => Threshold::Pkts(k),
            (None, None) => Threshold::Pkts(DEFAULT_K_PKTS),
        }
    }
}

impl Params for EcnThresholdCfg {
    const DOCS: &'static [ParamDoc] = &[
        ParamDoc::derived(
            "k_pkts",
            "20 (unless k_bytes is given)",
            "Alizadeh et al. 2010 (DCTCP) sec. 4: K = 20 packets at 1 Gb/s, 65 at 10 Gb/s",
        ),
        ParamDoc::derived(
            "k_bytes",
            "unset: K counts packets",
            "K in bytes waiting, as switches configure it (e.g. Linux RED min = max = K bytes)",
        ),
        ParamDoc::new(
            "not_ect",
            "a packet without ECT above K: \"queue\" (the DCTCP paper's switch) or \"drop\" (RED as DCTCP's switch: ns-3 RedQueueDisc UseEcn without hard drop, Linux sch_red)",
        ),
    ];
    fn validate(&self, field: &str) -> Result<(), ConfigError> {
        if self.k_pkts.is_some() && self.k_bytes.is_some() {
            return err(
                format!("{field}.k_bytes"),
                "give K in packets (k_pkts) or in bytes (k_bytes), not both",
            );
        }
        Ok(())
    }
}

/// K in packets or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threshold {
    Pkts(u64),
    Bytes(u64),
}

/// Refuse a K that is not below the router buffer of `buffer_pkts` packets
/// (`pkt_bytes` each, for K in bytes): such a queue never marks.
pub fn check_buffer(t: Table, buffer_pkts: usize, pkt_bytes: f64) -> Result<(), ConfigError> {
    let c: EcnThresholdCfg = t.parse()?;
    match c.threshold() {
        Threshold::Pkts(k) if k >= buffer_pkts as u64 => err(
            t.key("k_pkts"),
            format!("must be below the router buffer of {buffer_pkts} packets (a queue never longer than K never marks), got {k}"),
        ),
        Threshold::Bytes(k) if k as f64 >= buffer_pkts as f64 * pkt_bytes => err(
            t.key("k_bytes"),
            format!(
                "must be below the router buffer of {buffer_pkts} packets of {pkt_bytes} B (a queue never longer than K never marks), got {k}"
            ),
        ),
        _ => Ok(()),
    }
}

/// `ecn-threshold`.
pub const ENTRY: QueueEntry = Entry {
    name: "ecn-threshold",
    description: "DCTCP's switch (Alizadeh et al. 2010): FIFO that marks ECN-capable arrivals CE when the instantaneous queue exceeds K; drops only when full (non-ECN packets too)",
    table: Some("ecn-threshold"),
    params: documented::<EcnThresholdCfg>,
    requires: None,
    factory: |t| {
        let c: EcnThresholdCfg = t.parse()?;
        let (k, not_ect) = (c.threshold(), c.not_ect);
        Ok(Arc::new(move |p: PortParams| {
            let mut q = EcnThreshold::new(p.limit_pkts, k);
            q.not_ect = not_ect;
            Box::new(q) as Box<dyn Queue>
        }))
    },
};

/// The queue of one port.
pub struct EcnThreshold {
    fifo: DropTail,
    k: Threshold,
    not_ect: NotEct,
    /// Packets marked CE.
    pub marks: u64,
}

impl EcnThreshold {
    pub fn new(limit_pkts: usize, k: Threshold) -> Self {
        EcnThreshold {
            fifo: DropTail::new(limit_pkts),
            k,
            not_ect: NotEct::Queue,
            marks: 0,
        }
    }

    /// Whether the queue now waiting is longer than K.
    fn above_k(&self) -> bool {
        match self.k {
            Threshold::Pkts(k) => self.fifo.len_pkts() as u64 > k,
            Threshold::Bytes(k) => self.fifo.len_bytes() > k,
        }
    }
}

impl Queue for EcnThreshold {
    fn enqueue(&mut self, now: Time, mut pkt: Packet) -> Option<Packet> {
        let ect = pkt.flags & flags::ECT != 0;
        if !ect && self.not_ect == NotEct::Drop && self.above_k() {
            return Some(pkt);
        }
        let mark = ect && self.above_k();
        if mark {
            pkt.flags |= flags::CE;
        }
        let dropped = self.fifo.enqueue(now, pkt);
        if mark && dropped.is_none() {
            self.marks += 1;
        }
        dropped
    }
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.fifo.dequeue(now)
    }
    fn len_pkts(&self) -> usize {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    fn limit_pkts(&self) -> Option<usize> {
        self.fifo.limit_pkts()
    }
    fn passes_idle(&self) -> bool {
        // An empty queue is never longer than K: the packet passes unmarked.
        self.fifo.passes_idle()
    }
    #[inline]
    fn pass_through(&mut self, now: Time, pkt: Packet) -> Result<Packet, Packet> {
        self.fifo.pass_through(now, pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;
    use serde_json::json;

    fn pkt(seq: u64, ect: bool) -> Packet {
        let mut p = Packet::new(0, PacketKind::Data, 1000, seq, 0);
        if ect {
            p.flags |= flags::ECT;
        }
        p
    }
    fn ce(p: &Packet) -> bool {
        p.flags & flags::CE != 0
    }

    #[test]
    fn marks_ect_arrivals_above_k_packets_and_drops_only_when_full() {
        // K = 2, buffer 4: the third and fourth arrivals find 2 and 3 waiting.
        let mut q = EcnThreshold::new(4, Threshold::Pkts(2));
        for s in 0..4 {
            assert!(q.enqueue(0, pkt(s, true)).is_none());
        }
        let marked: Vec<bool> = (0..4).map(|_| ce(&q.dequeue(0).unwrap())).collect();
        // Arrivals found 0, 1, 2, 3 waiting: only 3 > 2.
        assert_eq!(marked, [false, false, false, true]);
        assert_eq!(q.marks, 1);
        // Non-ECT packets above K are neither marked nor dropped, until full.
        for s in 0..4 {
            assert!(q.enqueue(0, pkt(s, false)).is_none());
        }
        let d = q.enqueue(0, pkt(9, true)).expect("a full buffer drops");
        assert_eq!(d.seq, 9);
        assert_eq!(q.marks, 1);
        assert!((0..4).all(|_| !ce(&q.dequeue(0).unwrap())));
    }

    #[test]
    fn not_ect_drop_drops_where_an_ect_packet_would_be_marked() {
        // K = 2, buffer 6, not_ect = "drop": arrivals find 0, 1, 2, 3 waiting;
        // a non-ECT packet passes while at most 2 wait, and is dropped at 3,
        // where an ECT one is marked and queued.
        let mut q = EcnThreshold::new(6, Threshold::Pkts(2));
        q.not_ect = NotEct::Drop;
        for s in 0..3 {
            assert!(q.enqueue(0, pkt(s, false)).is_none(), "arrival {s}");
        }
        assert_eq!(q.enqueue(0, pkt(3, false)).map(|p| p.seq), Some(3));
        assert!(q.enqueue(0, pkt(4, true)).is_none());
        assert_eq!((q.len_pkts(), q.marks), (4, 1));
    }

    #[test]
    fn k_in_bytes_counts_the_bytes_waiting() {
        // K = 1500 B with 1000 B packets: the arrival finding 2000 B is marked.
        let mut q = EcnThreshold::new(10, Threshold::Bytes(1500));
        let got: Vec<bool> = (0..3)
            .map(|s| {
                q.enqueue(0, pkt(s, true));
                q.fifo.iter().last().map(ce).unwrap()
            })
            .collect();
        assert_eq!(got, [false, false, true]);
    }

    #[test]
    fn the_table_and_the_buffer_check() {
        let parse = |v: serde_json::Value| Table::new(Some(&v), "network.ecn-threshold").parse::<EcnThresholdCfg>();
        assert_eq!(parse(json!({})).unwrap().threshold(), Threshold::Pkts(20));
        assert_eq!(
            parse(json!({"k_bytes": 30000})).unwrap().threshold(),
            Threshold::Bytes(30000)
        );
        assert_eq!(parse(json!({"not_ect": "drop"})).unwrap().not_ect, NotEct::Drop);
        assert_eq!(
            parse(json!({"not_ect": "mark"})).unwrap_err().field,
            "network.ecn-threshold.not_ect"
        );
        let e = parse(json!({"k_pkts": 5, "k_bytes": 30000})).unwrap_err();
        assert_eq!(e.field, "network.ecn-threshold.k_bytes");
        let v = json!({"k_pkts": 100});
        let e = check_buffer(Table::new(Some(&v), "network.ecn-threshold"), 100, 1040.0).unwrap_err();
        assert_eq!(e.field, "network.ecn-threshold.k_pkts");
        assert!(check_buffer(Table::new(Some(&v), "network.ecn-threshold"), 101, 1040.0).is_ok());
        // The default K (20) against a 20-packet buffer.
        assert!(check_buffer(Table::new(None, "network.ecn-threshold"), 20, 1040.0).is_err());
        let v = json!({"k_bytes": 10400});
        assert!(check_buffer(Table::new(Some(&v), "network.ecn-threshold"), 10, 1040.0).is_err());
        assert!(check_buffer(Table::new(Some(&v), "network.ecn-threshold"), 11, 1040.0).is_ok());
    }
}

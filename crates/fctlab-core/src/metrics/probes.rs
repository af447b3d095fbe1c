//! The `probes` table: one row per probe packet (the `probe` arrival
//! process), with its one-way delay and the time from sending it to
//! receiving the receiver's answer: the "single packet delay" of Kanakia,
//! Keshav & Mishra 1991 ("the time taken for a single packet from a source
//! to reach the destination and an acknowledgement for it to be received
//! back by the source"). The engine fills it from packets carrying the
//! PROBE flag: a probe's data packet carries its send time, the answer
//! echoes it.

use crate::sim::Time;
use std::collections::HashMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probes {
    pub flow_id: Vec<u64>,
    pub seq: Vec<u64>,
    pub sent_ns: Vec<Time>,
    /// Sending to arrival at the receiver.
    pub one_way_ns: Vec<Time>,
    /// Sending to the answer's arrival at the sender (None: lost or not back
    /// by the end of the run).
    pub rtt_ns: Vec<Option<Time>>,
    open: HashMap<(u32, u64), usize>,
}

impl Probes {
    /// A probe of flow `flow` sent at `sent` reached its receiver at `now`.
    pub fn arrived(&mut self, flow: u32, seq: u64, sent: Time, now: Time) {
        self.open.insert((flow, seq), self.seq.len());
        self.flow_id.push(flow as u64);
        self.seq.push(seq);
        self.sent_ns.push(sent);
        self.one_way_ns.push(now - sent);
        self.rtt_ns.push(None);
    }

    /// The answer to probe `seq` of `flow`, which echoes its send time, is back at `now`.
    pub fn answered(&mut self, flow: u32, seq: u64, sent: Time, now: Time) {
        if let Some(i) = self.open.remove(&(flow, seq)) {
            self.rtt_ns[i] = Some(now - sent);
        }
    }

    pub fn len(&self) -> usize {
        self.seq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seq.is_empty()
    }
}

//! The `prefixes` table of measuring flows (Mussmann 2012, section 4.2: "We
//! record for each packet in the measuring flow the time when that packet and
//! all preceding packets have arrived at the destination. This time for the
//! k th packet is considered to be the FCT for a flow of length k"). One row
//! per (measuring flow, k): the time from the flow's start (as `fct_ns` of
//! the flows table) until the receiver's cumulative in-order point first
//! covers packets 1..k. For k = the flow's size it is the flow's `fct_ns`.

use crate::sim::Time;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prefixes {
    pub flow_id: Vec<u64>,
    /// Packets 1..k delivered in order.
    pub k: Vec<u64>,
    /// Time from the flow's start, ns.
    pub fct_ns: Vec<Time>,
}

impl Prefixes {
    /// Record packets `from + 1 ..= to` of flow `flow`, delivered in order
    /// `fct_ns` after its start.
    pub fn record(&mut self, flow: u64, from: u64, to: u64, fct_ns: Time) {
        for k in from + 1..=to {
            self.flow_id.push(flow);
            self.k.push(k);
            self.fct_ns.push(fct_ns);
        }
    }

    pub fn len(&self) -> usize {
        self.k.len()
    }

    pub fn is_empty(&self) -> bool {
        self.k.is_empty()
    }

    /// Order the rows by flow, then k (rows are recorded in time order, and
    /// within a flow k only grows, so a stable sort by flow suffices).
    pub fn sort(&mut self) {
        let mut idx: Vec<usize> = (0..self.len()).collect();
        idx.sort_by_key(|&i| self.flow_id[i]);
        self.flow_id = idx.iter().map(|&i| self.flow_id[i]).collect();
        self.k = idx.iter().map(|&i| self.k[i]).collect();
        self.fct_ns = idx.iter().map(|&i| self.fct_ns[i]).collect();
    }
}

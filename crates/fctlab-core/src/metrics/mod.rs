//! Observers: the per-flow records, the sampled time series, the prefix
//! times of measuring flows and the streaming statistics per flow size.

pub mod prefixes;
pub mod probes;
pub mod ps;
pub mod size_stats;
pub mod tiers;

use crate::sim::Time;

/// One flow's record (a row of the `flows` table).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowRecord {
    pub flow_id: u64,
    pub sender: u32,
    /// Payload bytes (0 for a long-lived flow).
    pub size_bytes: u64,
    /// Data packets (0 for a long-lived flow).
    pub size_pkts: u64,
    /// The flow never ends (it runs until the run's stop time).
    pub long_lived: bool,
    pub start_ns: Time,
    pub finish_ns: Option<Time>,
    pub acked_ns: Option<Time>,
    pub retransmits: u64,
    /// Data packets delivered in order to the receiver (TCP's RCV.NXT, in
    /// packets): unique packets, copies not counted; for a flow still running
    /// when the run stops, those delivered by then.
    pub delivered_pkts: u64,
    pub drops: u64,
    /// Data packets of this flow that reached the receiver marked CE (ECN).
    pub marks: u64,
    /// Ideal FCT: alone on the empty network, propagation plus serialisation.
    pub ideal_ns: Time,
    /// The fabric papers' ideal: alone on the empty network at line rate, to
    /// the sender's ACK of the last byte (`ideal::alone_ns`).
    pub alone_ns: Time,
    /// FCT under ideal max-min fair sharing (processor sharing) of the same
    /// workload, from the fluid model (see [`ps::fill_ps_fct`]).
    pub ps_fct_ns: Option<Time>,
    /// Index of the flow's transport settings (0: `[transport]`; see the
    /// manifest's `transports`).
    pub transport: u16,
    /// A flow between two hosts: the destination host (`sender` is the
    /// source host). None for a flow of a sender of the topology.
    pub dst: Option<u32>,
    /// The data path's index among the equal-cost paths of its ends (None:
    /// `single` routing on a graph, or a sprayed flow).
    pub path: Option<u32>,
}

impl FlowRecord {
    pub fn fct_ns(&self) -> Option<Time> {
        self.finish_ns.map(|f| f - self.start_ns)
    }
    pub fn completed(&self) -> bool {
        self.finish_ns.is_some()
    }
}

/// The metrics the engine samples, by id in a [`Series`].
#[derive(Clone, Copy, Debug)]
pub struct MetricIds {
    /// Packets waiting in a port's queue.
    pub queue_pkts: u16,
    /// Fraction of the interval a link was busy.
    pub utilization: u16,
    /// Flows started and not yet finished.
    pub active_flows: u16,
    /// A flow's congestion window, packets.
    pub cwnd_pkts: u16,
    /// Data packets a link delivered in the interval over the number of
    /// full-sized data packets its line rate carries in an interval
    /// (Mussmann 2012, section 5.2).
    pub utilization_pkts: u16,
    /// Fraction of the interval a link was busy sending packets its sender
    /// marked as retransmissions.
    pub utilization_retx: u16,
    /// A flow's payload delivered in order at its receiver, bits per second.
    pub throughput_bps: u16,
    /// A flow's data packets put on the wire by its sender (retransmissions
    /// included), bits per second.
    pub send_rate_bps: u16,
    /// A flow's smoothed RTT estimate at the sender, ms.
    pub rtt_ms: u16,
    /// A flow's packets dropped so far (data and ACKs; cumulative).
    pub drops: u16,
    /// A flow's data packets sent more than once so far (cumulative).
    pub retransmits: u16,
}

impl MetricIds {
    /// Register the metrics in `series` (by name, so ids never depend on order).
    pub fn register(series: &mut Series) -> Self {
        MetricIds {
            queue_pkts: series.metric_id("queue_pkts"),
            utilization: series.metric_id("utilization"),
            active_flows: series.metric_id("active_flows"),
            cwnd_pkts: series.metric_id("cwnd_pkts"),
            utilization_pkts: series.metric_id("utilization_pkts"),
            utilization_retx: series.metric_id("utilization_retx"),
            throughput_bps: series.metric_id("throughput_bps"),
            send_rate_bps: series.metric_id("send_rate_bps"),
            rtt_ms: series.metric_id("rtt_ms"),
            drops: series.metric_id("drops"),
            retransmits: series.metric_id("retransmits"),
        }
    }
}

/// The sampled series in long format, with interned metric and element names.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub t_ns: Vec<Time>,
    pub metric: Vec<u16>,
    pub element: Vec<u32>,
    pub value: Vec<f64>,
    pub metric_names: Vec<String>,
    pub element_names: Vec<String>,
    /// Each element name's index, so a sample of many links looks each up
    /// in constant time.
    element_index: std::collections::HashMap<String, u32>,
}

impl Series {
    /// Index of a metric name, adding it if new.
    pub fn metric_id(&mut self, name: &str) -> u16 {
        match self.metric_names.iter().position(|m| m == name) {
            Some(i) => i as u16,
            None => {
                self.metric_names.push(name.to_string());
                (self.metric_names.len() - 1) as u16
            }
        }
    }

    /// Index of an element name, adding it if new.
    pub fn element_id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.element_index.get(name) {
            return i;
        }
        let i = self.element_names.len() as u32;
        self.element_names.push(name.to_string());
        self.element_index.insert(name.to_string(), i);
        i
    }

    pub fn push(&mut self, t: Time, metric: u16, element: u32, value: f64) {
        self.t_ns.push(t);
        self.metric.push(metric);
        self.element.push(element);
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.t_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t_ns.is_empty()
    }
}

/// Counters the engine keeps for the manifest and the invariant tests.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub events: u64,
    /// Packets that started serialisation on a link (each hop counts once).
    pub packet_hops: u64,
    /// Data packets delivered to their receiver (retransmissions included).
    pub data_delivered: u64,
    pub data_sent: u64,
    pub data_dropped: u64,
    /// SYNs dropped (a connection request, first or resent; not the
    /// handshake's pure ACK).
    pub syn_dropped: u64,
    /// Data packets delivered with the CE mark.
    pub marks: u64,
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub packets_dropped: u64,
    /// Largest queue (packets) seen on any limited port, after an enqueue.
    pub max_queue_excess: i64,
    pub flows_started: u64,
    pub flows_completed: u64,
    /// Retransmission timeouts of the flows that completed (TCP), and how
    /// many of them F-RTO found spurious and undid (`frto`).
    pub timeouts: u64,
    pub spurious_timeouts: u64,
}

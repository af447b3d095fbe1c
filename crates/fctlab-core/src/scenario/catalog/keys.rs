//! The scenario's own keys, documented once: what each means, its default and
//! where the default comes from. A default written [`Dflt::Code`] is read from
//! the table's serde defaults, so it is the value in effect; the tests below
//! check that every key of every table is documented and every documented key
//! is a key of its table.

/// Where a key's default comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dflt {
    /// The table's own default (its `Default`, or serde's default for the field).
    Code,
    /// A plain value that the scenario layer applies when the key is absent
    /// (a JSON literal; the tests check that writing it out changes nothing).
    Applied(&'static str),
    /// No plain value: required, or derived from other keys (said how).
    Text(&'static str),
}

/// One documented key of a scenario table.
#[derive(Clone, Copy, Debug)]
pub struct KeyDoc {
    pub key: &'static str,
    pub default: Dflt,
    pub meaning: &'static str,
    pub source: &'static str,
}

const fn k(key: &'static str, default: Dflt, meaning: &'static str, source: &'static str) -> KeyDoc {
    KeyDoc {
        key,
        default,
        meaning,
        source,
    }
}

use Dflt::{Applied, Code, Text};

/// Top-level keys (the other top-level keys are the sections below).
pub const RUN: &[KeyDoc] = &[
    k(
        "seed",
        Code,
        "the run's seed; the same config and seed give byte-identical results, and each traffic generator and RED port draws from its own stream derived from it",
        "",
    ),
    k(
        "stop_s",
        Text("none: until every finite flow is acknowledged"),
        "simulated-time limit in seconds (needed by long-lived flows and open-loop sources without a stop time of their own)",
        "",
    ),
];

/// `[network]`.
pub const NETWORK: &[KeyDoc] = &[
    k(
        "topology",
        Code,
        "the network's shape: a registered topology (see topologies)",
        "",
    ),
    k(
        "senders",
        Applied("1"),
        "number of senders, at most 100,000 (graph: one per entry of paths, the default there)",
        "",
    ),
    k(
        "bottleneck_bps",
        Text("required (refused with graph)"),
        "the bottleneck's rate in bits/s; a graph's links carry their own rates",
        "",
    ),
    k(
        "bottleneck_delay_ms",
        Code,
        "the bottleneck's one-way propagation delay",
        "",
    ),
    k(
        "access_bps",
        Text("10 x bottleneck_bps"),
        "the rate of each sender's access link",
        "keeps the bottleneck where queues build",
    ),
    k(
        "access_delay_ms",
        Code,
        "one-way delay of each sender's access link: one number, or one per sender ([1.0, 5.0, 10.0, 20.0])",
        "",
    ),
    k(
        "receiver_delay_ms",
        Code,
        "one-way delay of the dumbbell's egress links",
        "",
    ),
    k(
        "buffer_pkts",
        Text("from buffer_bdp"),
        "packets each router port holds (a graph link may set its own); host NICs are unlimited",
        "",
    ),
    k(
        "buffer_bdp",
        Applied("1.0"),
        "the buffer in bandwidth-delay products of the mean base RTT, when buffer_pkts is not given",
        "bandwidth x mean base RTT, the 2006 FCT paper's HSTCP set-up",
    ),
    k(
        "queue",
        Code,
        "the router ports' queue discipline: a registered queue (see queues); its parameters go in [network.<table>]",
        "",
    ),
    k(
        "routing",
        Text("single"),
        "which of the equal-cost paths between two ends a flow takes: \"single\" (the first: a graph's shortest path as before), \"ecmp\" (one hashed path per flow and direction) or \"spray\" (a path per packet)",
        "",
    ),
    k(
        "ecmp_hash",
        Text("seeded"),
        "ECMP's hash: \"seeded\" (SplitMix64 of the seed, flow and direction) or \"flow-index\" (splitmix64(flow id) mod paths, both directions: htsim's)",
        "SplitMix64: Steele, Lea & Flood 2014",
    ),
    k(
        "ack_path",
        Text("hash"),
        "the ACKs' path: \"hash\" (picked as data's, on the reverse paths) or \"mirror\" (the reverse of the data's path)",
        "switches hash each direction on its own headers",
    ),
    k(
        "spray",
        Text("random"),
        "routing = \"spray\": each packet's path \"random\" (a stream of the run's own) or \"round-robin\" (from the flow's hashed path on)",
        "",
    ),
    k(
        "flowlet_gap_us",
        Text("none"),
        "ECMP with flowlets: a flow pausing longer than this in one direction is hashed again there",
        "Kandula et al., Dynamic load balancing without packet reordering, CCR 2007",
    ),
];

/// Each link of `[network.graph] links`.
pub const GRAPH_LINK: &[KeyDoc] = &[
    k(
        "name",
        Text("a-b"),
        "the link's name; its two directions are name and name-rev",
        "",
    ),
    k("a", Text("required"), "one end: a router or host name", ""),
    k("b", Text("required"), "the other end", ""),
    k("rate_bps", Text("required"), "the link's rate in bits/s, each way", ""),
    k("delay_ms", Code, "one-way propagation delay", ""),
    k(
        "buffer_pkts",
        Text("network.buffer_pkts"),
        "this link's buffer at a router port, over the network's",
        "",
    ),
];

/// `[transport]`, without the TCP model options (see [`super::tcp::TCP_OPTIONS`]).
pub const TRANSPORT: &[KeyDoc] = &[
    k(
        "scheme",
        Code,
        "the transport: a registered scheme (see schemes); its parameters go in [transport.<table>]",
        "",
    ),
    k(
        "mss_bytes",
        Code,
        "payload bytes per data packet (run-wide)",
        "ns-2 packetSize_",
    ),
    k(
        "header_bytes",
        Code,
        "bytes added to each data packet; a pure ACK or SYN is this long (run-wide)",
        "TCP/IP headers without options",
    ),
    k(
        "init_cwnd_pkts",
        Code,
        "the initial window in packets (1 to 1e6)",
        "ns-2 windowInit_ (RFC 3390: 2-4, RFC 6928: 10)",
    ),
    k(
        "handshake",
        Code,
        "SYN / SYN-ACK before data (run-wide)",
        "as ns-2 syn_ and the 2006 paper's FCT",
    ),
    k(
        "delayed_ack",
        Code,
        "RFC 5681 delayed ACKs: every second segment, or after delack_timeout_ms",
        "ns-2's default sink ACKs every packet",
    ),
    k(
        "delack_timeout_ms",
        Code,
        "the delayed-ACK timer (every timer: 0.001 ms to 1e9 ms)",
        "ns-2 DelAck sink interval (RFC 5681: <= 500 ms)",
    ),
    k(
        "min_rto_ms",
        Code,
        "the smallest retransmission timeout",
        "Linux TCP_RTO_MIN and ns-2 minrto_ (RFC 6298: 1 s)",
    ),
    k("initial_rto_ms", Code, "the retransmission timeout before any RTT sample", "RFC 6298 (2.1)"),
    k("max_rto_ms", Code, "the largest retransmission timeout", "RFC 6298 (2.5); ns-2 maxrto_"),
    k(
        "dupack_threshold",
        Code,
        "duplicate ACKs that trigger fast retransmit",
        "RFC 5681",
    ),
    k(
        "max_cwnd_pkts",
        Text("unlimited"),
        "the receiver window: a cap on the congestion window, in packets",
        "",
    ),
    k(
        "ecn",
        Code,
        "ECN-capable data packets (ECT): a marking queue marks them CE instead of dropping early; the sender reacts to ECE once per window",
        "RFC 3168 section 6.1.2",
    ),
    k(
        "preset",
        Text("rfc"),
        "the TCP model options as a set: \"rfc\" or \"ns3\" (ns-3.44's TcpSocketBase with TcpClassicRecovery, timestamps off); each option's own key overrides it",
        "",
    ),
    k(
        "per_sender",
        Text("none"),
        "overrides per sender: entry i holds [transport] keys for sender i's flows",
        "",
    ),
];

/// Each `[[traffic]]` entry.
pub const TRAFFIC: &[KeyDoc] = &[
    k("arrivals", Text("required"), "the arrival process (see arrivals)", ""),
    k(
        "load",
        Text("none: load or rate_per_s"),
        "offered load of the bottleneck, counting header bytes (open-loop sources: see arrivals); the rate it gives must be 1e-6 to 1e9 arrivals per second",
        "",
    ),
    k(
        "rate_per_s",
        Text("none: load or rate_per_s"),
        "flows per second (open-loop sources: packets per second per sender), instead of load; 1e-6 to 1e9",
        "",
    ),
    k(
        "sizes",
        Text("required by flow arrivals"),
        "the size law: { dist = NAME, ...its keys } (see sizes)",
        "",
    ),
    k(
        "count",
        Text("none: until stop_s"),
        "flows to create (closed-loop: per sender); Poisson: count / rate at most 1e6 s",
        "",
    ),
    k(
        "senders",
        Text("all"),
        "the senders the generator uses; a Poisson flow picks one uniformly",
        "",
    ),
    k("start_s", Code, "when the generator starts", ""),
    k(
        "stop_s",
        Text("the run's stop_s"),
        "when the generator stops starting flows (open-loop sources need this or the run's)",
        "",
    ),
    k(
        "think_s",
        Code,
        "closed-loop: the pause between a flow's last ACK and the sender's next flow (count x think_s at most 1e6 s)",
        "",
    ),
    k(
        "measure_every",
        Text("none"),
        "flows N, 2N, 3N, ... of this generator are measuring flows (1: all)",
        "Mussmann 2012 section 4.2",
    ),
    k(
        "measure_fraction",
        Text("none"),
        "each flow is a measuring flow with this probability (a random stream of the generator's own)",
        "",
    ),
    k("on_ms", Text("required by on-off"), "on-off: the on period, at least 0.001 ms", ""),
    k("off_ms", Text("required by on-off"), "on-off: the off period", ""),
    k(
        "interval_ms",
        Text("20 (probe)"),
        "probe: one packet every interval_ms",
        "",
    ),
    k(
        "pkt_bytes",
        Text("probe: 500; others: mss_bytes + header_bytes"),
        "open-loop sources: bytes on the wire per packet",
        "",
    ),
    k(
        "transport",
        Text("none"),
        "[transport] keys for this entry's flows (over transport.per_sender)",
        "",
    ),
    k(
        "matrix",
        Text("none: flows from senders"),
        "flows between hosts: \"permutation\", \"all-to-all\", \"incast\" or \"file\" (senders then lists source hosts)",
        "",
    ),
    k("matrix_file", Text("required by matrix = \"file\""), "lines src dst [weight]", ""),
    k(
        "same_rack",
        Text("false"),
        "all-to-all: destinations in the source's own rack too",
        "",
    ),
    k(
        "fan_in",
        Text("required by incast"),
        "incast: senders answering each query, all at the same instant",
        "",
    ),
    k(
        "receiver",
        Text("a source, drawn per query"),
        "incast: the one receiver of every query",
        "",
    ),
    k(
        "load_of",
        Text("host with a matrix, else the bottleneck"),
        "what load is of: \"host\" (the busiest host link) or a link's name",
        "per-host load: the convention of fabric papers (pFabric, PIAS)",
    ),
    k(
        "flows_file",
        Text("required by arrivals = \"file\""),
        "lines start_s size_pkts src dst, sorted by start (htsim's flow list)",
        "",
    ),
];

/// Each `[[flows]]` entry.
pub const FLOWS: &[KeyDoc] = &[
    k("sender", Code, "the sender index", ""),
    k(
        "src",
        Text("none: a sender's flow"),
        "the source host (with dst): hosts are numbered 0.. (a fabric: see the guide; a graph: its non-router nodes in the order links name them)",
        "",
    ),
    k("dst", Text("none"), "the destination host (with src)", ""),
    k(
        "path",
        Text("the routing's choice"),
        "pin the data to this path: an index into the ordered equal-cost paths of src and dst",
        "",
    ),
    k("start_s", Code, "when the flow's data becomes available", ""),
    k(
        "size_pkts",
        Text("one of size_pkts, size_bytes, long_lived"),
        "the flow's size in packets",
        "",
    ),
    k(
        "size_bytes",
        Text("one of size_pkts, size_bytes, long_lived"),
        "the flow's size in payload bytes",
        "",
    ),
    k(
        "long_lived",
        Code,
        "a flow that never ends (needs the run's stop_s)",
        "",
    ),
    k(
        "measure",
        Code,
        "a measuring flow: the prefixes table records when each prefix 1..k has arrived",
        "Mussmann 2012 section 4.2",
    ),
    k(
        "transport",
        Text("none"),
        "[transport] keys for this flow alone (over transport.per_sender)",
        "",
    ),
];

/// `[metrics]`.
pub const METRICS: &[KeyDoc] = &[
    k("series", Code, "record the time series at all", ""),
    k(
        "interval_ms",
        Code,
        "the series' sampling interval, at least 0.001 ms",
        "",
    ),
    k(
        "links",
        Code,
        "links whose queue and utilisation are sampled: \"all\", or link names (access0, bottleneck-rev, egress1, ...)",
        "",
    ),
    k(
        "cwnd_flows",
        Code,
        "flows sampled every interval: cwnd, throughput, sending rate, RTT, drops, retransmits",
        "",
    ),
    k(
        "ps_fct",
        Code,
        "compute each flow's FCT under ideal processor sharing (the ps_fct_ns column, fluid max-min)",
        "",
    ),
    k(
        "utilization_pkts",
        Code,
        "also sample utilization_pkts: data packets delivered per interval over the line rate in packets",
        "Mussmann 2012 section 5.2",
    ),
    k(
        "utilization_retx",
        Code,
        "also sample utilization_retx: the busy time spent on retransmitted packets per interval",
        "Dukkipati & McKeown 2006, sec. II-D",
    ),
    k(
        "size_stats",
        Code,
        "keep streaming FCT statistics per flow size (the size_stats table)",
        "",
    ),
    k(
        "size_stats_quantiles",
        Code,
        "the FCT quantiles size_stats reports, each in [0, 1]",
        "median, 90th and 99th percentile",
    ),
    k(
        "size_stats_alpha",
        Code,
        "relative accuracy of those quantiles, in [1e-4, 1): finer, a sketch may need over 1.4 MB per flow size",
        "DDSketch, Masson, Rim & Lee 2019",
    ),
    k(
        "size_stats_from_s",
        Code,
        "size_stats counts flows starting from this time (leaves out a warm-up)",
        "",
    ),
    k(
        "size_stats_until_s",
        Text("none"),
        "... and before this time (leaves out a draining end)",
        "",
    ),
    k(
        "flows",
        Code,
        "keep a record per flow; false keeps only size_stats and prefixes, in memory bounded by the flows in progress",
        "",
    ),
];

/// Other spellings of keys: (section, alias, key).
pub const ALIASES: &[(&str, &str, &str)] = &[("metrics", "flow_series", "cwnd_flows")];

/// Each `[[losses]]` entry: a forced loss, for hand-checkable traces.
pub const LOSSES: &[KeyDoc] = &[
    k("flow", Text("required"), "the flow (its flow_id)", ""),
    k(
        "seq",
        Text("required"),
        "the data packet's sequence number, in packets from 0",
        "",
    ),
    k(
        "transmission",
        Code,
        "which copy is dropped (1: the first transmission)",
        "",
    ),
];

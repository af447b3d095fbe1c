//! What `fctlab list` shows: every scheme, queue, topology and size distribution,
//! with parameters, defaults and their sources.

use serde_json::{json, Value};

/// Topologies: (name, description).
pub const TOPOLOGIES: &[(&str, &str)] = &[
    ("single-link", "one sending host and one receiving host joined by the bottleneck (the RCP and 2006 FCT paper set-up)"),
    ("dumbbell", "per-sender access links into R0, the bottleneck R0-R1, per-receiver egress links (receiver i gets sender i's flows)"),
    ("half-dumbbell", "per-sender access links into R0, the bottleneck from R0 to a single receiving host (Mussmann 2012, sec. 4)"),
];

fn params(ps: &[crate::transport::cc::Param]) -> Vec<Value> {
    ps.iter().map(|p| json!({"key": p.key, "default": p.default, "source": p.source})).collect()
}

/// The catalogue as JSON.
pub fn catalog() -> Value {
    let d = super::TransportCfg::default();
    let m = super::MetricsCfg::default();
    json!({
        "schemes": crate::transport::cc::SCHEMES.iter().map(|s| json!({"name": s.name, "description": s.description,
            "table": s.table.map(|t| format!("transport.{t}")), "params": params(s.params)}))
            .chain(crate::transport::PROTOCOLS.iter().map(|p| json!({"name": p.name, "description": p.description,
                "table": p.table.map(|t| format!("transport.{t}")), "params": params(p.params), "queue": p.queue})))
            .collect::<Vec<_>>(),
        "queues": crate::net::queue::QUEUES.iter().map(|q| json!({"name": q.name, "description": q.description,
            "table": q.table.map(|t| format!("network.{t}")), "params": params(q.params)})).collect::<Vec<_>>(),
        "topologies": TOPOLOGIES.iter().map(|t| json!({"name": t.0, "description": t.1})).collect::<Vec<_>>(),
        "distributions": crate::workload::sizes::DISTRIBUTIONS.iter().map(|t| json!({"name": t.0, "parameters": t.1, "description": t.2})).collect::<Vec<_>>(),
        "arrivals": [
            {"name": "poisson", "parameters": "load (or rate_per_s), sizes, count / stop_s, senders", "description": "Poisson flow arrivals; each flow from a sender drawn uniformly"},
            {"name": "closed-loop", "parameters": "sizes, count (per sender), think_s, senders", "description": "each sender starts a new flow when its last one is acknowledged"},
            {"name": "long-lived", "parameters": "senders, start_s", "description": "one flow per sender that never ends (needs stop_s)"},
        ],
        "parameters": [
            {"key": "network.topology", "default": "single-link", "source": ""},
            {"key": "network.senders", "default": 1, "source": ""},
            {"key": "network.access_bps", "default": "10 x bottleneck_bps", "source": "keeps the bottleneck where queues build"},
            {"key": "network.buffer_bdp", "default": 1.0, "source": "bandwidth x mean base RTT, the 2006 FCT paper's HSTCP set-up"},
            {"key": "network.queue", "default": "droptail", "source": ""},
            {"key": "transport.scheme", "default": d.scheme, "source": ""},
            {"key": "transport.mss_bytes", "default": d.mss_bytes, "source": "ns-2 packetSize_"},
            {"key": "transport.header_bytes", "default": d.header_bytes, "source": "TCP/IP headers without options; a pure ACK or SYN is this long"},
            {"key": "transport.init_cwnd_pkts", "default": d.init_cwnd_pkts, "source": "ns-2 windowInit_ (RFC 3390: 2-4, RFC 6928: 10)"},
            {"key": "transport.handshake", "default": d.handshake, "source": "SYN / SYN-ACK before data, as ns-2 syn_ and the 2006 paper's FCT"},
            {"key": "transport.delayed_ack", "default": d.delayed_ack, "source": "ns-2's default sink ACKs every packet"},
            {"key": "transport.delack_timeout_ms", "default": d.delack_timeout_ms, "source": "ns-2 DelAck sink interval (RFC 5681: <= 500 ms)"},
            {"key": "transport.min_rto_ms", "default": d.min_rto_ms, "source": "Linux TCP_RTO_MIN and ns-2 minrto_ (RFC 6298: 1 s)"},
            {"key": "transport.initial_rto_ms", "default": d.initial_rto_ms, "source": "RFC 6298 (2.1)"},
            {"key": "transport.max_rto_ms", "default": d.max_rto_ms, "source": "RFC 6298 (2.5); ns-2 maxrto_"},
            {"key": "transport.dupack_threshold", "default": d.dupack_threshold, "source": "RFC 5681"},
            {"key": "transport.max_cwnd_pkts", "default": "unlimited", "source": "receiver window"},
            {"key": "metrics.interval_ms", "default": m.interval_ms, "source": ""},
            {"key": "metrics.links", "default": m.links, "source": ""},
        ],
    })
}

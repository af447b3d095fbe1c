//! What `fctlab list` shows: every registered building block with its
//! parameters, their defaults (read from the code that applies them) and
//! sources, and the scenario's own keys with theirs.

use crate::config::{Entry, ParamInfo};
use crate::registry::Registries;
use serde_json::{json, Value};

fn params(ps: &[ParamInfo]) -> Vec<Value> {
    ps.iter()
        .map(|p| {
            let mut v = json!({"key": p.key, "default": p.default_text(), "value": p.default, "source": p.source});
            if !p.derived.is_empty() {
                v["derived"] = json!(p.derived);
            }
            v
        })
        .collect()
}

/// One registry entry as JSON; `table` is where its parameters go.
fn entry<F>(e: &Entry<F>, table: Option<String>) -> Value {
    let ps = (e.params)();
    let mut v = json!({"name": e.name, "description": e.description, "table": table, "params": params(&ps)});
    if !ps.is_empty() {
        v["parameters"] = json!(ps.iter().map(|p| p.key).collect::<Vec<_>>().join(", "));
    }
    if let Some(r) = e.requires {
        v["queue"] = json!(r);
    }
    v
}

/// The catalogue of the built-in building blocks, as JSON.
pub fn catalog() -> Value {
    catalog_with(&Registries::BUILTIN)
}

/// The catalogue of the given registries, as JSON.
pub fn catalog_with(reg: &Registries) -> Value {
    let d = super::TransportCfg::default();
    let m = super::MetricsCfg::default();
    json!({
        "schemes": reg.schemes.iter().map(|e| entry(e, e.table.map(|t| format!("transport.{t}")))).collect::<Vec<_>>(),
        "queues": reg.queues.iter().map(|e| entry(e, e.table.map(|t| format!("network.{t}")))).collect::<Vec<_>>(),
        "topologies": reg.topologies.iter().map(|e| entry(e, e.table.map(|t| format!("network.{t}")))).collect::<Vec<_>>(),
        "distributions": reg.sizes.iter().map(|e| entry(e, Some("traffic[i].sizes".into()))).collect::<Vec<_>>(),
        "arrivals": reg.arrivals.iter().map(|e| entry(e, None)).collect::<Vec<_>>(),
        "parameters": [
            {"key": "network.topology", "default": super::d_topology(), "source": ""},
            {"key": "network.senders", "default": 1, "source": ""},
            {"key": "network.access_bps", "default": "10 x bottleneck_bps", "source": "keeps the bottleneck where queues build"},
            {"key": "network.buffer_bdp", "default": 1.0, "source": "bandwidth x mean base RTT, the 2006 FCT paper's HSTCP set-up"},
            {"key": "network.queue", "default": super::d_queue(), "source": ""},
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
            {"key": "transport.init_ssthresh_pkts", "default": "unlimited", "source": "RFC 5681 3.1: the initial ssthresh SHOULD be set arbitrarily high; ns-2 ssthresh_"},
            {"key": "metrics.interval_ms", "default": m.interval_ms, "source": ""},
            {"key": "metrics.links", "default": m.links, "source": ""},
            {"key": "metrics.utilization_pkts", "default": m.utilization_pkts, "source": "Mussmann 2012 section 5.2: packets delivered per interval over the line rate in packets"},
            {"key": "metrics.utilization_retx", "default": m.utilization_retx, "source": "busy time of retransmitted packets per interval (Dukkipati & McKeown 2006, sec. II-D)"},
            {"key": "metrics.size_stats", "default": m.size_stats, "source": "streaming FCT statistics per flow size (the size_stats table)"},
            {"key": "metrics.size_stats_quantiles", "default": m.size_stats_quantiles, "source": "median, 90th and 99th percentile"},
            {"key": "metrics.size_stats_alpha", "default": m.size_stats_alpha, "source": "relative accuracy of the quantiles (DDSketch, Masson, Rim & Lee 2019)"},
            {"key": "metrics.size_stats_from_s", "default": m.size_stats_from_s, "source": "size_stats counts flows starting from this time (leaves out a warm-up)"},
            {"key": "metrics.size_stats_until_s", "default": "none", "source": "and before this time (leaves out a draining end)"},
            {"key": "metrics.flows", "default": m.flows, "source": "keep a record per flow; false keeps only size_stats and prefixes, in memory bounded by the flows in progress"},
        ],
    })
}

//! From a parsed [`Scenario`] to a runnable [`Plan`], one section at a time.

use super::metrics::{interval_ns, series_metrics, size_stats};
use super::overrides::Transports;
use super::{unused_tables, MetricsCfg, NetworkCfg, PerSender, Scenario, TransportCfg};
use crate::config::{
    at_most, duration_ms, duration_s, err, find, positive, rate_bps, ConfigError, Table, MAX_FLOW_PKTS,
};
use crate::metrics::size_stats::SizeStatsSpec;
use crate::net::queue::QueueBuilder;
use crate::net::topology::{Shape, Topology};
use crate::registry::Registries;
use crate::sim::{ms_to_ns, secs_to_ns, Time};
use crate::transport::tcp::SACK_SCHEMES;
use crate::transport::{EndpointBuilder, FlowSize, TcpOptions, TransportParams};
use crate::workload::arrivals::{Context, MAX_FLOWS};
use crate::workload::Generator;

/// The most senders a topology may have: routes are computed per sender.
const MAX_SENDERS: u64 = 100_000;

/// An explicit flow, resolved.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    /// The sender, or the source host of a flow between hosts.
    pub sender: u32,
    /// A flow between hosts: the destination host and the pinned path.
    pub hosts: Option<(u32, Option<u32>)>,
    pub start_ns: Time,
    pub size: FlowSize,
    /// A measuring flow (its prefixes are recorded).
    pub measure: bool,
    /// Index of its transport in [`Plan::transports`].
    pub transport: u16,
}

/// What the engine runs: every default applied and every value checked.
pub struct Plan {
    pub scenario: Scenario,
    pub seed: u64,
    pub stop_ns: Option<Time>,
    pub topology: Topology,
    /// Makes the queue of each router port (`scenario.network.queue`).
    pub queue_builder: QueueBuilder,
    pub buffer_pkts: usize,
    /// Makes each flow's sender and receiver (`scenario.transport.scheme`).
    pub endpoints: EndpointBuilder,
    /// Settings every transport uses (sizes of packets, timers, window limits).
    pub transport: TransportParams,
    /// Every distinct transport of the run (index 0: `[transport]` itself,
    /// the others from per-sender, per-entry or per-flow overrides).
    pub transports: Vec<(TransportParams, EndpointBuilder)>,
    /// The scheme of each of `transports`.
    pub transport_schemes: Vec<String>,
    /// Per generator, the transport index of each sender's flows (empty: 0
    /// for every sender).
    pub generator_transports: Vec<Vec<u16>>,
    pub flows: Vec<FlowPlan>,
    pub generators: Vec<Generator>,
    pub series: bool,
    pub interval_ns: Time,
    pub series_links: Vec<u32>,
    pub cwnd_flows: Vec<u64>,
    pub ps_fct: bool,
    /// Keep every flow's record (`metrics.flows`).
    pub keep_flows: bool,
    /// Sample `utilization_pkts` on the series links.
    pub utilization_pkts: bool,
    /// Sample `utilization_retx` on the series links.
    pub utilization_retx: bool,
    /// Streaming FCT statistics per flow size, if asked for.
    pub size_stats: Option<SizeStatsSpec>,
    /// Forced losses: (flow, seq, transmission).
    pub losses: Vec<(u64, u64, u32)>,
    /// Routing over equal-cost paths (`network.routing`).
    pub routing: crate::net::routing::Routing,
}

impl Plan {
    /// The transport index of generator `g`'s flows from `sender`.
    #[inline]
    pub fn generator_transport(&self, g: usize, sender: u32) -> u16 {
        // A generator of flows between hosts has one transport for all.
        let hosts = self.generators.get(g).is_some_and(|x| x.between_hosts());
        self.generator_transports
            .get(g)
            .and_then(|v| v.get(if hosts { 0 } else { sender as usize }))
            .copied()
            .unwrap_or(0)
    }

    /// The endpoint builder of transport `i`.
    #[inline]
    pub fn endpoints_of(&self, i: u16) -> &EndpointBuilder {
        &self.transports[i as usize].1
    }

    /// The flows the run will create, if known before it runs (explicit flows
    /// plus each generator's count; None when a generator is bounded only by time).
    pub fn flows_expected(&self) -> Option<u64> {
        self.generators
            .iter()
            .try_fold(self.flows.len() as u64, |n, g| g.flows_expected().map(|c| n + c))
    }
}

/// The network section: topology, buffer and queue discipline.
struct Network {
    topology: Topology,
    buffer_pkts: usize,
    queue_builder: QueueBuilder,
    bottleneck_bps: f64,
}

fn network(n: &NetworkCfg, pkt_bytes: f64, reg: &Registries) -> Result<Network, ConfigError> {
    let topology = find(reg.topologies, "network.topology", &n.topology)?;
    let discipline = find(reg.queues, "network.queue", &n.queue)?;
    unused_tables(
        "network",
        &n.tables,
        &[discipline.table, topology.table],
        &format!("network.queue = {:?}, network.topology = {:?}", n.queue, n.topology),
    )?;
    let table = |name: Option<&'static str>| match name {
        Some(t) => (n.tables.get(t), format!("network.{t}")),
        None => (None, "network".to_string()),
    };
    let (qv, qf) = table(discipline.table);
    let queue_builder = (discipline.factory)(Table::new(qv, &qf))?;
    let shape = shape(n)?;
    let (tv, tf) = table(topology.table);
    let build = |limit: Option<usize>| (topology.factory)(&shape, Table::new(tv, &tf), limit);
    // Build once without a limit to measure RTTs, then set the buffer.
    let probe = build(None)?;
    let c = probe.links[probe.bottleneck as usize].rate_bps;
    let buffer_pkts = buffer_pkts(n, &probe, pkt_bytes)?;
    if discipline.name == crate::net::queue::ecn_threshold::ENTRY.name {
        crate::net::queue::ecn_threshold::check_buffer(Table::new(qv, &qf), buffer_pkts, pkt_bytes)?;
    }
    Ok(Network {
        topology: build(Some(buffer_pkts))?,
        buffer_pkts,
        queue_builder,
        bottleneck_bps: c,
    })
}

/// The topology's shape: senders, rates and delays of the network section.
fn shape(n: &NetworkCfg) -> Result<Shape, ConfigError> {
    let senders = n.senders.unwrap_or(1);
    if senders == 0 {
        return err("network.senders", "must be at least 1");
    }
    at_most(
        "network.senders",
        senders as u64,
        MAX_SENDERS,
        "routes are computed per sender",
    )?;
    let bottleneck_bps = match n.bottleneck_bps {
        Some(c) => Some(rate_bps("network.bottleneck_bps", c)?),
        None => None,
    };
    duration_ms("network.bottleneck_delay_ms", n.bottleneck_delay_ms, false)?;
    duration_ms("network.receiver_delay_ms", n.receiver_delay_ms, false)?;
    let access_bps = match n.access_bps {
        Some(a) => Some(rate_bps("network.access_bps", a)?),
        None => None,
    };
    let access = access_delays_ms(&n.access_delay_ms, senders as usize)?;
    Ok(Shape {
        senders: senders as usize,
        senders_given: n.senders.map(|s| s as usize),
        bottleneck_bps,
        bottleneck_delay_ns: ms_to_ns(n.bottleneck_delay_ms),
        delays_given: n.bottleneck_delay_ms != 0.0 || n.receiver_delay_ms != 0.0,
        access_bps,
        access_delay_ns: access.iter().map(|&d| ms_to_ns(d)).collect(),
        access_given: matches!(n.access_delay_ms, PerSender::Many(_)) || n.access_bps.is_some(),
        receiver_delay_ns: ms_to_ns(n.receiver_delay_ms),
    })
}

/// `network.access_delay_ms`, one value per sender.
fn access_delays_ms(given: &PerSender, senders: usize) -> Result<Vec<f64>, ConfigError> {
    match given {
        PerSender::One(v) => Ok(vec![duration_ms("network.access_delay_ms", *v, false)?; senders]),
        PerSender::Many(vs) => {
            if vs.len() != senders {
                return err(
                    "network.access_delay_ms",
                    format!("has {} values but network.senders = {}", vs.len(), senders),
                );
            }
            for v in vs {
                duration_ms("network.access_delay_ms", *v, false)?;
            }
            Ok(vs.clone())
        }
    }
}

/// The router ports' buffer in packets: `network.buffer_pkts`, or
/// `network.buffer_bdp` bandwidth-delay products of the bottleneck at the
/// senders' mean base RTT (measured on `probe`, the network built without
/// limits).
fn buffer_pkts(n: &NetworkCfg, probe: &Topology, pkt_bytes: f64) -> Result<usize, ConfigError> {
    Ok(match (n.buffer_pkts, n.buffer_bdp) {
        (Some(_), Some(_)) => return err("network.buffer_bdp", "give buffer_pkts or buffer_bdp, not both"),
        (Some(0), None) => return err("network.buffer_pkts", "must be at least 1"),
        (Some(b), None) => b as usize,
        (None, bdp) => {
            let k = positive("network.buffer_bdp", bdp.unwrap_or(1.0))?;
            if k > 1e6 {
                return err(
                    "network.buffer_bdp",
                    format!("must be at most 1e6 bandwidth-delay products, got {k}"),
                );
            }
            let c = probe.links[probe.bottleneck as usize].rate_bps;
            let mean_rtt = match (probe.senders.len(), probe.fabric_rtt_ns()) {
                (0, Some(rtt)) => rtt as f64,
                (0, None) => return err("network.buffer_pkts", "required: this topology has no senders, so no base RTT to size a buffer in bandwidth-delay products by"),
                (n, _) => probe.base_rtts_ns().iter().map(|&r| r as f64).sum::<f64>() / n as f64,
            };
            let bdp_pkts = k * c * mean_rtt / 1e9 / 8.0 / pkt_bytes;
            (bdp_pkts.ceil() as usize).max(1)
        }
    })
}

/// The transport section: common settings and the scheme's endpoints.
pub(super) fn transport(
    t: &TransportCfg,
    queue: &str,
    reg: &Registries,
) -> Result<(TransportParams, EndpointBuilder), ConfigError> {
    let scheme = find(reg.schemes, "transport.scheme", &t.scheme)?;
    unused_tables(
        "transport",
        &t.tables,
        &[scheme.table],
        &format!("transport.scheme = {:?}", t.scheme),
    )?;
    if let Some(q) = scheme.requires {
        if queue != q {
            return err(
                "network.queue",
                format!(
                    "scheme {:?} needs its router half: set queue = {q:?} (got {queue:?})",
                    t.scheme
                ),
            );
        }
    }
    if t.mss_bytes == 0 {
        return err("transport.mss_bytes", "must be at least 1");
    }
    at_most("transport.mss_bytes", t.mss_bytes as u64, 1_000_000, "1 MB packets")?;
    at_most(
        "transport.header_bytes",
        t.header_bytes as u64,
        65_535,
        "an IP packet's length field",
    )?;
    // The initial window leaves in one event: a bound keeps that event short.
    if !(t.init_cwnd_pkts.is_finite() && (1.0..=1e6).contains(&t.init_cwnd_pkts)) {
        return err(
            "transport.init_cwnd_pkts",
            format!("must be 1 to 1e6 packets, got {}", t.init_cwnd_pkts),
        );
    }
    duration_ms("transport.delack_timeout_ms", t.delack_timeout_ms, true)?;
    duration_ms("transport.min_rto_ms", t.min_rto_ms, true)?;
    duration_ms("transport.initial_rto_ms", t.initial_rto_ms, true)?;
    duration_ms("transport.max_rto_ms", t.max_rto_ms, true)?;
    if t.max_rto_ms < t.min_rto_ms {
        return err(
            "transport.max_rto_ms",
            format!("must be >= transport.min_rto_ms ({})", t.min_rto_ms),
        );
    }
    if t.dupack_threshold == 0 {
        return err("transport.dupack_threshold", "must be at least 1");
    }
    if let Some(m) = t.max_cwnd_pkts {
        if !(m.is_finite() && m >= 1.0) {
            return err("transport.max_cwnd_pkts", format!("must be >= 1, got {m}"));
        }
    }
    let p = TransportParams {
        mss_bytes: t.mss_bytes,
        header_bytes: t.header_bytes,
        init_cwnd_pkts: t.init_cwnd_pkts,
        handshake: t.handshake,
        delayed_ack: t.delayed_ack,
        delack_timeout_ns: ms_to_ns(t.delack_timeout_ms),
        min_rto_ns: ms_to_ns(t.min_rto_ms),
        initial_rto_ns: ms_to_ns(t.initial_rto_ms),
        max_rto_ns: ms_to_ns(t.max_rto_ms),
        dupack_threshold: t.dupack_threshold,
        max_cwnd_pkts: t.max_cwnd_pkts.unwrap_or(f64::MAX),
        ecn: t.ecn,
        tcp: TcpOptions::overlay(t.preset.unwrap_or_default(), &t.tcp, "transport")?,
    };
    if p.tcp.rack
        && t.tcp.get("rack").is_some_and(|v| v.as_bool() == Some(true))
        && !SACK_SCHEMES.contains(&t.scheme.as_str())
    {
        return err(
            "transport.rack",
            format!(
                "RACK-TLP (RFC 8985) runs on a SACK scoreboard, which only {} keep (Linux: tcp_is_sack); scheme {:?} has none: leave it unset or false (preset = \"linux\" sets it, without effect there)",
                SACK_SCHEMES.join(" and "),
                t.scheme
            ),
        );
    }
    let (v, f) = match scheme.table {
        Some(name) => (t.tables.get(name), format!("transport.{name}")),
        None => (None, "transport".to_string()),
    };
    let endpoints = (scheme.factory)(Table::new(v, &f), &p)?;
    Ok((p, endpoints))
}

/// The explicit flows.
fn flows(
    sc: &Scenario,
    topo: &Topology,
    senders: u32,
    mss: u32,
    stops: bool,
    tr: &mut Transports,
    reg: &Registries,
) -> Result<Vec<FlowPlan>, ConfigError> {
    let mut out = Vec::new();
    for (i, f) in sc.flows.iter().enumerate() {
        let field = format!("flows[{i}]");
        let hosts = super::fabric::flow_hosts(f, &field, topo)?;
        if hosts.is_none() && f.sender >= senders {
            return err(
                format!("{field}.sender"),
                format!("is {} but there are {} senders (0..{})", f.sender, senders, senders - 1),
            );
        }
        let start_ns = secs_to_ns(duration_s(&format!("{field}.start_s"), f.start_s, false)?);
        if let Some(p) = f.size_pkts {
            at_most(&format!("{field}.size_pkts"), p, MAX_FLOW_PKTS, "10^12 packets")?;
        }
        if let Some(b) = f.size_bytes {
            at_most(
                &format!("{field}.size_bytes"),
                b / mss as u64,
                MAX_FLOW_PKTS,
                "10^12 packets",
            )?;
        }
        let size = match (f.size_pkts, f.size_bytes, f.long_lived) {
            (Some(p), None, false) if p > 0 => FlowSize::of_pkts(p, mss),
            (None, Some(b), false) if b > 0 => FlowSize::from_bytes(b, mss),
            (None, None, true) => FlowSize::LongLived,
            (Some(0), None, false) | (None, Some(0), false) => {
                return err(format!("{field}.size_pkts"), "must be at least 1")
            }
            _ => {
                return err(
                    format!("{field}.size_pkts"),
                    "give exactly one of size_pkts, size_bytes or long_lived = true",
                )
            }
        };
        if size.is_long_lived() && !stops {
            return err("stop_s", format!("{field} is long-lived, so the run needs a stop_s"));
        }
        let transport = match hosts {
            Some(_) => tr.index(u32::MAX, f.transport.as_ref(), &field, reg)?,
            None => tr.index(f.sender, f.transport.as_ref(), &field, reg)?,
        };
        out.push(FlowPlan {
            sender: hosts.map_or(f.sender, |h| h.0),
            hosts: hosts.map(|h| (h.1, h.2)),
            start_ns,
            size,
            measure: f.measure,
            transport,
        });
    }
    Ok(out)
}

/// The generated traffic, each entry resolved by its arrival process.
fn generators(
    sc: &Scenario,
    topo: &Topology,
    bottleneck_bps: f64,
    p: &TransportParams,
    run_stop_ns: Option<Time>,
    reg: &Registries,
) -> Result<Vec<Generator>, ConfigError> {
    let mut out = Vec::new();
    let hosts = super::fabric::host_info(topo);
    let link_rate = |name: &str| topo.links.iter().find(|l| l.name == name).map(|l| l.rate_bps);
    for (i, g) in sc.traffic.iter().enumerate() {
        let field = format!("traffic[{i}]");
        let process = find(reg.arrivals, &format!("{field}.arrivals"), &g.arrivals)?;
        let cx = Context {
            field: &field,
            senders: topo.senders.len() as u32,
            hosts: &hosts,
            link_rate: &link_rate,
            seed: sc.seed,
            index: i,
            bottleneck_bps,
            mss_bytes: p.mss_bytes,
            pkt_bytes: (p.mss_bytes + p.header_bytes) as f64,
            run_stop_ns,
            sizes: reg.sizes,
        };
        let mut gen = (process.factory)(g, &cx)?;
        gen.measure = crate::workload::Measure::of(g, &field)?;
        out.push(gen);
    }
    Ok(out)
}

/// The sampled series: which links, at what interval.
fn series_links(m: &MetricsCfg, topology: &Topology) -> Result<Vec<u32>, ConfigError> {
    let mut out = Vec::new();
    for name in &m.links {
        if name == "all" {
            return Ok((0..topology.links.len() as u32).collect());
        }
        // "bottleneck" is the topology's bottleneck link whatever its name.
        let found = topology
            .links
            .iter()
            .position(|l| &l.name == name)
            .or_else(|| (name == "bottleneck").then_some(topology.bottleneck as usize));
        match found {
            Some(i) => out.push(i as u32),
            None => {
                let names: Vec<&str> = topology.links.iter().map(|l| l.name.as_str()).collect();
                return err(
                    "metrics.links",
                    format!("no link named {name:?}; this topology has: all, {}", names.join(", ")),
                );
            }
        }
    }
    Ok(out)
}

/// Check a parsed scenario and resolve it into a runnable [`Plan`].
pub fn plan(sc: Scenario) -> Result<Plan, ConfigError> {
    plan_with(sc, &Registries::BUILTIN)
}

/// [`plan`] against the given registries.
pub fn plan_with(sc: Scenario, reg: &Registries) -> Result<Plan, ConfigError> {
    let t = &sc.transport;
    // Summed as floats: the sizes are bounded only in `transport` below.
    let pkt_bytes = t.mss_bytes as f64 + t.header_bytes as f64;
    let net = network(&sc.network, pkt_bytes, reg)?;
    let (transport, endpoints) = transport(t, &sc.network.queue, reg)?;
    let senders = net.topology.senders.len() as u32;
    let mut tr = Transports::new(
        t,
        (transport.clone(), endpoints.clone()),
        senders,
        &sc.network.queue,
        reg,
    )?;
    let stop_ns = match sc.stop_s {
        Some(s) => Some(secs_to_ns(duration_s("stop_s", s, true)?)),
        None => None,
    };
    let routing = super::fabric::routing(&sc.network, &net.topology)?;
    let flows = flows(
        &sc,
        &net.topology,
        senders,
        transport.mss_bytes,
        stop_ns.is_some(),
        &mut tr,
        reg,
    )?;
    let generators = generators(&sc, &net.topology, net.bottleneck_bps, &transport, stop_ns, reg)?;
    if flows.iter().any(|f| f.hosts.is_some()) || generators.iter().any(|g| g.between_hosts()) {
        super::fabric::hosts_connected(&net.topology)?;
    }
    let generator_transports = generator_transports(&sc, &generators, senders, &mut tr, reg)?;
    workload_size(&flows, &generators)?;
    let m = &sc.metrics;
    let interval_ns = interval_ns(m)?;
    let series_links = series_links(m, &net.topology)?;
    series_metrics(m)?;
    let size_stats = size_stats(m)?;
    let losses = losses(&sc)?;
    let plan = Plan {
        losses,
        seed: sc.seed,
        stop_ns,
        topology: net.topology,
        queue_builder: net.queue_builder,
        buffer_pkts: net.buffer_pkts,
        endpoints,
        transport,
        transports: tr.list,
        transport_schemes: tr.schemes,
        generator_transports,
        flows,
        generators,
        series: m.series,
        interval_ns,
        series_links,
        cwnd_flows: m.cwnd_flows.clone(),
        ps_fct: m.ps_fct && m.flows,
        keep_flows: m.flows,
        utilization_pkts: m.utilization_pkts,
        utilization_retx: m.utilization_retx,
        size_stats,
        routing,
        scenario: sc,
    };
    super::memory::check(&super::memory::estimate(&plan), super::memory::available_bytes())?;
    Ok(plan)
}

/// Per generator, the transport index of each sender's flows (empty when
/// every flow of the entry uses `[transport]` itself).
fn generator_transports(
    sc: &Scenario,
    generators: &[Generator],
    senders: u32,
    tr: &mut Transports,
    reg: &Registries,
) -> Result<Vec<Vec<u16>>, ConfigError> {
    let mut out = Vec::with_capacity(generators.len());
    for (i, g) in sc.traffic.iter().enumerate() {
        let field = format!("traffic[{i}]");
        let mut v: Vec<u16> = Vec::new();
        if g.transport.is_some() && matches!(generators[i].arrivals, crate::workload::Arrivals::OpenLoop(_)) {
            return err(
                format!("{field}.transport"),
                format!(
                    "an open-loop source ({:?}) has no transport: it sends regardless of congestion",
                    g.arrivals
                ),
            );
        }
        if generators[i].between_hosts() {
            // One transport for the whole entry (per_sender is by sender).
            if g.transport.is_some() {
                v.push(tr.index(u32::MAX, g.transport.as_ref(), &field, reg)?);
            }
        } else if g.transport.is_some() || !sc.transport.per_sender.is_empty() {
            // Senders beyond per_sender's entries share one merged table.
            for s in 0..senders {
                v.push(tr.index(s, g.transport.as_ref(), &field, reg)?);
            }
        }
        out.push(v);
    }
    Ok(out)
}

/// The workload is not empty, and creates at most `MAX_FLOWS` flows.
fn workload_size(flows: &[FlowPlan], generators: &[Generator]) -> Result<(), ConfigError> {
    if flows.is_empty() && generators.is_empty() {
        return err(
            "flows",
            "the workload is empty: give at least one [[flows]] or [[traffic]] entry",
        );
    }
    let mut total = flows.len() as u64;
    for (i, g) in generators.iter().enumerate() {
        total = total.saturating_add(g.flows_expected().unwrap_or(0));
        if total > MAX_FLOWS {
            return err(
                format!("traffic[{i}].count"),
                format!("the run would create more than {MAX_FLOWS} flows (flow ids are 32-bit)"),
            );
        }
    }
    Ok(())
}

/// The forced losses: (flow, seq, transmission).
fn losses(sc: &Scenario) -> Result<Vec<(u64, u64, u32)>, ConfigError> {
    let mut out = Vec::new();
    for (i, l) in sc.losses.iter().enumerate() {
        if l.transmission == 0 {
            return err(
                format!("losses[{i}].transmission"),
                "counts from 1 (the first transmission)",
            );
        }
        out.push((l.flow, l.seq, l.transmission));
    }
    Ok(out)
}

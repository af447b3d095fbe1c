//! The event loop: it moves packets between links and endpoints, starts the
//! flows the workload asks for and calls the observers. Links live in
//! [`crate::net::link`], flow generation in [`crate::workload::sources`], the
//! PS column in [`crate::metrics::ps`]; the engine knows no protocol beyond
//! which way a packet travels.
//!
//! Endpoint timers are cancelled lazily, so the event list grows with links
//! and flows, not with packets in flight.

use crate::ideal::line_rate_fct_ns;
use crate::metrics::prefixes::Prefixes;
use crate::metrics::probes::Probes;
use crate::metrics::ps::{fill_ps_fct, PsInputs};
use crate::metrics::size_stats::{SizeStats, SizeStatsTable};
use crate::metrics::{Counters, FlowRecord, MetricIds, Series};
use crate::net::packet::flags;
use crate::net::queue::{DropTail, PortParams, Queue};
use crate::net::{Link, LinkTotals, Packet, PacketKind};
use crate::scenario::Plan;
use crate::sim::{Event, EventQueue, Time};
use crate::transport::{FlowSize, Receiver, Sender};
use crate::workload::{Arrivals, Sources};
use std::collections::HashMap;
use std::time::Instant;

/// Random streams of open-loop sources: 2^40 + (generator << 24) + sender,
/// apart from the generators' (g + 1) and measuring draws (2^32 + g + 1).
const OPEN_LOOP_STREAM: u64 = 1 << 40;

struct FlowSlot {
    sender: u32,
    fwd_path: u32,
    rev_path: u32,
    snd: Option<Box<dyn Sender>>,
    rcv: Option<Box<dyn Receiver>>,
    snd_sched: Option<Time>,
    rcv_sched: Option<Time>,
    /// Closed-loop generator that owns this flow, if any.
    generator: Option<u32>,
    long_lived: bool,
    /// A measuring flow: its in-order deliveries are recorded.
    measure: bool,
    /// Packets 1..prefix_done of a measuring flow are recorded.
    prefix_done: u64,
    /// The sender reads the path's queuing delay from its ACKs
    /// (`Sender::wants_path_delay`, `net::packet::Header::path_queue_ns`).
    path_delay: bool,
    /// Wire bytes of data packets the sender has sent (the send-rate series).
    sent_bytes: u64,
}

/// Bytes of the engine's own slot for each flow in progress (routes, the
/// boxed endpoints, pending timers, flags), besides the endpoints themselves.
pub const FLOW_SLOT_BYTES: usize = std::mem::size_of::<FlowSlot>();

/// Every flow's slot and record, by flow id. With `metrics.flows = false`
/// the oldest entries are dropped once their flows are over, so memory is
/// bounded by the flows in progress: ids below `base` are either gone or,
/// still running, kept in `old`.
#[derive(Default)]
struct FlowStore {
    keep: bool,
    base: u32,
    slots: Vec<FlowSlot>,
    records: Vec<FlowRecord>,
    old: HashMap<u32, (FlowSlot, FlowRecord)>,
}

/// Entries kept before the oldest half is compacted (without `keep`).
const FLOW_WINDOW: usize = 1 << 16;

impl FlowStore {
    fn next_id(&self) -> u32 {
        self.base + self.slots.len() as u32
    }

    fn push(&mut self, slot: FlowSlot, rec: FlowRecord) {
        if !self.keep && self.slots.len() >= 2 * FLOW_WINDOW {
            self.compact();
        }
        self.slots.push(slot);
        self.records.push(rec);
    }

    /// Drop the older half's finished flows; move the others to `old`.
    fn compact(&mut self) {
        for (k, (slot, rec)) in self
            .slots
            .drain(..FLOW_WINDOW)
            .zip(self.records.drain(..FLOW_WINDOW))
            .enumerate()
        {
            if slot.snd.is_some() || slot.rcv.is_some() {
                self.old.insert(self.base + k as u32, (slot, rec));
            }
        }
        self.base += FLOW_WINDOW as u32;
    }

    /// A flow's slot and record (None once dropped).
    #[inline]
    fn get(&mut self, f: u32) -> Option<(&mut FlowSlot, &mut FlowRecord)> {
        if f >= self.base {
            let i = (f - self.base) as usize;
            match (self.slots.get_mut(i), self.records.get_mut(i)) {
                (Some(s), Some(r)) => Some((s, r)),
                _ => None,
            }
        } else {
            self.old.get_mut(&f).map(|(s, r)| (s, r))
        }
    }

    #[inline]
    fn slot(&mut self, f: u32) -> Option<&mut FlowSlot> {
        self.get(f).map(|(s, _)| s)
    }

    #[inline]
    fn rec(&mut self, f: u32) -> Option<&mut FlowRecord> {
        self.get(f).map(|(_, r)| r)
    }

    /// A flow whose sender is done: without `keep`, a straggler kept in
    /// `old` is dropped now.
    fn finished(&mut self, f: u32) {
        if !self.keep && f < self.base {
            self.old.remove(&f);
        }
    }
}

/// Progress of a running simulation, handed to the progress callback.
#[derive(Clone, Debug)]
pub struct Progress {
    pub sim_ns: Time,
    pub stop_ns: Option<Time>,
    pub events: u64,
    pub flows_started: u64,
    pub flows_completed: u64,
    pub data_delivered: u64,
    pub wall_s: f64,
}

/// Everything a run produces.
pub struct RunOutput {
    pub flows: Vec<FlowRecord>,
    pub series: Series,
    pub counters: Counters,
    /// Simulated time at which the run ended.
    pub end_ns: Time,
    pub wall_s: f64,
    /// The progress callback asked to stop; the results hold what was finished.
    pub interrupted: bool,
    pub buffer_pkts: usize,
    /// Packets still in queues or on wires at the end.
    pub in_network: u64,
    /// Prefix times of the measuring flows, by flow then k (empty without them).
    pub prefixes: Prefixes,
    /// Streaming FCT statistics per flow size, if the scenario asked for them.
    pub size_stats: Option<SizeStatsTable>,
    /// Delays of probe packets (empty without probe sources).
    pub probes: Probes,
    /// Every link's totals (busy time, and the retransmitted part of it).
    pub links: Vec<LinkTotals>,
}

/// One simulation.
pub struct Engine {
    plan: Plan,
    q: EventQueue,
    links: Vec<Link>,
    path_links: Vec<u32>,
    path_start: Vec<u32>,
    path_len: Vec<u16>,
    /// Line-rate FCT inputs per sender: forward hops.
    sender_hops: Vec<Vec<(f64, Time)>>,
    /// Links of each sender's forward route, and its base RTT.
    sender_links: Vec<Vec<u32>>,
    sender_rtt: Vec<Time>,
    flows: FlowStore,
    sources: Sources,
    out: Vec<Packet>,
    counters: Counters,
    series: Series,
    metric: MetricIds,
    active: u64,
    /// Finite flows not yet fully acknowledged, plus flows and generator
    /// arrivals still to come. The run ends when this reaches zero and no
    /// long-lived flow exists (those run until `stop_s`).
    pending: u64,
    long_lived: u64,
    /// Forced losses still to apply: (flow, seq, transmission) and copies seen.
    losses: Vec<((u64, u64, u32), u32)>,
    /// Wall time between calls of the progress callback.
    report_every_s: f64,
    prefixes: Prefixes,
    size_stats: Option<SizeStats>,
    probes: Probes,
    /// The workload is open-loop sources only.
    only_open_loop: bool,
    /// Per sampled flow (`plan.cwnd_flows`): in-order packets delivered,
    /// bytes sent and the time at the last sample.
    flow_prev: Vec<(u64, u64, Time)>,
}

impl Engine {
    pub fn new(plan: Plan) -> Engine {
        let plan_cwnd_flows = plan.cwnd_flows.len();
        let topo = &plan.topology;
        let links: Vec<Link> = topo
            .links
            .iter()
            .map(|l| {
                // Router ports get the scenario's discipline; host NICs are plain FIFOs.
                let queue: Box<dyn Queue> = match l.limit_pkts.filter(|_| l.router_port) {
                    Some(limit) => (plan.queue_builder)(PortParams {
                        limit_pkts: limit,
                        rate_bps: l.rate_bps,
                        delay_ns: l.delay_ns,
                        seed: plan.seed,
                        stream: PortParams::stream_of(&l.name),
                    }),
                    None => Box::new(DropTail::unlimited()),
                };
                Link::new(l.name.clone(), l.rate_bps, l.delay_ns, queue)
            })
            .collect();
        let mut path_links = Vec::new();
        let mut path_start = Vec::new();
        let mut path_len = Vec::new();
        let mut sender_hops = Vec::new();
        let mut sender_links = Vec::new();
        let sender_rtt = (0..topo.senders.len()).map(|i| topo.base_rtt_ns(i)).collect();
        for i in 0..topo.senders.len() {
            for (a, b) in [
                (topo.senders[i], topo.receivers[i]),
                (topo.receivers[i], topo.senders[i]),
            ] {
                let p = topo.route(a, b).expect("topologies are connected");
                path_start.push(path_links.len() as u32);
                path_len.push(p.len() as u16);
                if a == topo.senders[i] {
                    sender_links.push(p.clone());
                    sender_hops.push(
                        p.iter()
                            .map(|&l| (topo.links[l as usize].rate_bps, topo.links[l as usize].delay_ns))
                            .collect(),
                    );
                }
                path_links.extend(p);
            }
        }
        let plan_losses = plan.losses.iter().map(|&l| (l, 0)).collect();
        let sources = Sources::new(plan.generators.clone(), plan.seed, topo.senders.len());
        let mut series = Series::default();
        let metric = MetricIds::register(&mut series);
        let size_stats = plan.size_stats.clone().map(SizeStats::new);
        let keep_flows = plan.keep_flows;
        Engine {
            plan,
            q: EventQueue::new(),
            links,
            path_links,
            path_start,
            path_len,
            sender_hops,
            sender_links,
            sender_rtt,
            flows: FlowStore {
                keep: keep_flows,
                ..Default::default()
            },
            sources,
            out: Vec::with_capacity(64),
            counters: Counters::default(),
            series,
            metric,
            active: 0,
            pending: 0,
            long_lived: 0,
            losses: plan_losses,
            report_every_s: 1.0,
            prefixes: Prefixes::default(),
            size_stats,
            probes: Probes::default(),
            only_open_loop: false,
            flow_prev: vec![(0, 0, 0); plan_cwnd_flows],
        }
    }

    /// Call the progress callback about every `every` of wall time (default 1 s).
    pub fn with_report_interval(mut self, every: std::time::Duration) -> Self {
        self.report_every_s = every.as_secs_f64();
        self
    }

    /// Create a flow that starts at `start_ns`.
    fn add_flow(
        &mut self,
        sender: u32,
        start_ns: Time,
        size: FlowSize,
        generator: Option<u32>,
        measure: bool,
        transport: u16,
    ) {
        let id = self.flows.next_id();
        let tp = &self.plan.transport;
        let (bytes, pkts) = match size {
            FlowSize::Finite { bytes, pkts } => (bytes, pkts),
            FlowSize::LongLived => (0, 0),
        };
        let ideal_ns = if size.is_long_lived() {
            0
        } else {
            line_rate_fct_ns(
                &self.sender_hops[sender as usize],
                bytes,
                pkts,
                tp.mss_bytes,
                tp.header_bytes,
            )
        };
        let rec = FlowRecord {
            flow_id: id as u64,
            sender,
            size_bytes: bytes,
            size_pkts: pkts,
            long_lived: size.is_long_lived(),
            start_ns,
            ideal_ns,
            transport,
            ..Default::default()
        };
        let (snd, rcv) = (self.plan.endpoints_of(transport))(id, size);
        let path_delay = snd.wants_path_delay();
        let slot = FlowSlot {
            sender,
            fwd_path: 2 * sender,
            rev_path: 2 * sender + 1,
            snd: Some(snd),
            rcv: Some(rcv),
            snd_sched: None,
            rcv_sched: None,
            generator,
            long_lived: size.is_long_lived(),
            measure,
            prefix_done: 0,
            path_delay,
            sent_bytes: 0,
        };
        self.flows.push(slot, rec);
        if size.is_long_lived() {
            self.long_lived += 1;
        } else {
            self.pending += 1;
            if let Some(s) = self.size_stats.as_mut().filter(|s| s.counts(start_ns)) {
                s.started(pkts);
            }
        }
        self.q.schedule(start_ns, Event::FlowStart(id));
    }

    /// Create an open-loop source: a long-lived row in `flows` that does not
    /// keep the run going.
    fn add_open_loop(&mut self, sender: u32, start_ns: Time, endpoints: crate::transport::EndpointBuilder) {
        let id = self.flows.next_id();
        let rec = FlowRecord {
            flow_id: id as u64,
            sender,
            long_lived: true,
            start_ns,
            ..Default::default()
        };
        let (snd, rcv) = endpoints(id, FlowSize::LongLived);
        let slot = FlowSlot {
            sender,
            fwd_path: 2 * sender,
            rev_path: 2 * sender + 1,
            snd: Some(snd),
            rcv: Some(rcv),
            snd_sched: None,
            rcv_sched: None,
            generator: None,
            long_lived: true,
            measure: false,
            prefix_done: 0,
            path_delay: false,
            sent_bytes: 0,
        };
        self.flows.push(slot, rec);
        self.q.schedule(start_ns, Event::FlowStart(id));
    }

    fn setup(&mut self) {
        self.only_open_loop = self.plan.flows.is_empty()
            && !self.plan.generators.is_empty()
            && self
                .plan
                .generators
                .iter()
                .all(|g| matches!(g.arrivals, Arrivals::OpenLoop(_)));
        let flows = self.plan.flows.clone();
        for f in flows {
            self.add_flow(f.sender, f.start_ns, f.size, None, f.measure, f.transport);
        }
        for g in 0..self.plan.generators.len() {
            let gen = self.plan.generators[g].clone();
            match gen.arrivals {
                Arrivals::Poisson { .. } => {
                    self.pending += 1;
                    self.q.schedule(gen.start_ns, Event::Generate(g as u32));
                }
                Arrivals::ClosedLoop { .. } => {
                    for &s in &gen.senders {
                        self.closed_loop_next(g as u32, s, gen.start_ns);
                    }
                }
                Arrivals::LongLived => {
                    for &s in &gen.senders {
                        let measure = self.sources.next_is_measured(g as u32);
                        let tr = self.plan.generator_transport(g, s);
                        self.add_flow(s, gen.start_ns, FlowSize::LongLived, None, measure, tr);
                    }
                }
                Arrivals::OpenLoop(ref src) => {
                    for &s in &gen.senders {
                        let rng =
                            crate::sim::stream_rng(self.plan.seed, OPEN_LOOP_STREAM + ((g as u64) << 24) + s as u64);
                        self.add_open_loop(s, gen.start_ns, src.endpoints(gen.stop_ns, rng));
                    }
                }
            }
        }
        if self.plan.series {
            self.q.schedule(0, Event::Sample);
        }
    }

    /// Start the next flow of closed-loop generator `g` on sender `s` at `t`, if
    /// its count and stop time allow.
    fn closed_loop_next(&mut self, g: u32, s: u32, t: Time) {
        if let Some((pkts, measure)) = self.sources.closed_loop(g, s, t) {
            let size = FlowSize::of_pkts(pkts, self.plan.transport.mss_bytes);
            let tr = self.plan.generator_transport(g as usize, s);
            self.add_flow(s, t, size, Some(g), measure, tr);
        }
    }

    fn generate(&mut self, g: u32, now: Time) {
        let Some(a) = self.sources.poisson(g, now, self.plan.stop_ns) else {
            return;
        };
        let size = FlowSize::of_pkts(a.pkts, self.plan.transport.mss_bytes);
        let tr = self.plan.generator_transport(g as usize, a.sender);
        self.add_flow(a.sender, now, size, None, a.measure, tr);
        match a.next_ns {
            Some(next) => self.q.schedule(next, Event::Generate(g)),
            None => self.pending -= 1,
        }
    }

    #[inline(always)]
    fn start_tx(&mut self, l: usize, pkt: Packet, now: Time) {
        let (arrive, first) = self.links[l].start_tx(pkt, now);
        if first {
            self.q.schedule(arrive, Event::Arrive(l as u32));
        }
        self.counters.packet_hops += 1;
    }

    /// A packet reaches the port of link `l`.
    #[inline(always)]
    fn enqueue(&mut self, l: usize, pkt: Packet, now: Time) {
        let link = &mut self.links[l];
        if link.idle(now) {
            // Idle link, empty queue: straight to the wire.
            if link.passes_idle {
                return self.start_tx(l, pkt, now);
            }
            match link.queue.pass_through(now, pkt) {
                Ok(p) => self.start_tx(l, p, now),
                Err(d) => self.drop_packet(d),
            }
            return;
        }
        self.enqueue_busy(l, pkt, now);
    }

    /// A packet reaches the port of link `l`, which is busy or holds packets.
    #[inline(never)]
    fn enqueue_busy(&mut self, l: usize, pkt: Packet, now: Time) {
        let link = &mut self.links[l];
        if let Some(d) = link.queue.enqueue(now, pkt) {
            self.drop_packet(d);
        }
        let link = &mut self.links[l];
        if link.limited {
            let excess = link.queue.len_pkts() as i64 - link.queue.limit_pkts().unwrap_or(usize::MAX) as i64;
            self.counters.max_queue_excess = self.counters.max_queue_excess.max(excess);
        }
        if link.txdone_pending {
            return;
        }
        if link.busy_until <= now {
            match link.queue.dequeue(now) {
                Some(p) => self.start_tx(l, p, now),
                None if link.shaping => return self.arm_wake(l, now),
                None => {}
            }
        }
        let link = &mut self.links[l];
        if !link.txdone_pending && link.queue.len_pkts() > 0 {
            link.txdone_pending = true;
            self.q.schedule(link.busy_until, Event::TxDone(l as u32));
        }
    }

    /// A shaping port holds packets none of which may leave yet: wake it when
    /// the first may (keeping an earlier wake-up already pending).
    fn arm_wake(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        if link.queue.len_pkts() == 0 {
            return;
        }
        if let Some(t) = link.queue.next_ready(now) {
            let t = t.max(now + 1);
            if link.wake_at.is_none_or(|w| w <= now || t < w) {
                link.wake_at = Some(t);
                self.q.schedule(t, Event::Wake(l as u32));
            }
        }
    }

    /// A shaping port's wake-up: serve it if its wire is free.
    fn wake(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        if link.wake_at != Some(now) {
            return; // superseded by an earlier wake-up
        }
        link.wake_at = None;
        if !link.txdone_pending && link.busy_until <= now {
            self.tx_done(l, now);
        }
    }

    fn drop_packet(&mut self, p: Packet) {
        self.counters.packets_dropped += 1;
        if p.kind == PacketKind::Data {
            self.counters.data_dropped += 1;
        } else if p.kind == PacketKind::Syn && p.flags & flags::PURE_ACK == 0 {
            self.counters.syn_dropped += 1;
        }
        if let Some(r) = self.flows.rec(p.flow) {
            r.drops += 1;
        }
    }

    fn tx_done(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        link.txdone_pending = false;
        if let Some(p) = link.queue.dequeue(now) {
            self.start_tx(l, p, now);
            let link = &mut self.links[l];
            if link.queue.len_pkts() > 0 {
                link.txdone_pending = true;
                self.q.schedule(link.busy_until, Event::TxDone(l as u32));
            }
        } else if link.shaping {
            self.arm_wake(l, now);
        }
    }

    fn arrive(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        // Read and step the packet's position where it lies, before it is
        // moved (reading fields of a packet just copied as a whole stalls
        // the load behind the copy's wider stores).
        let (_, head) = link.in_flight.front_mut().expect("arrival event with an empty wire");
        head.hop += 1;
        let (hop, path, data) = (head.hop, head.path as usize, head.kind == PacketKind::Data);
        let (_, pkt) = link.in_flight.pop_front().expect("arrival event with an empty wire");
        link.data_arrived += data as u64;
        if let Some(&(t, _)) = link.in_flight.front() {
            self.q.schedule(t, Event::Arrive(l as u32));
        }
        if hop < self.path_len[path] {
            let next = self.path_links[(self.path_start[path] + hop as u32) as usize];
            self.enqueue(next as usize, pkt, now);
        } else {
            self.deliver(pkt, now);
        }
    }

    /// Put the packets a flow's endpoint produced onto the network.
    fn inject(&mut self, f: u32, now: Time) {
        let mut out = std::mem::take(&mut self.out);
        // Packets only come from live flows, whose slots are kept.
        let slot = self.flows.slot(f).expect("a live flow");
        let (fwd, rev) = (slot.fwd_path, slot.rev_path);
        let mut sent_bytes = 0u64;
        for mut p in out.drain(..) {
            p.path = match p.kind {
                PacketKind::Data | PacketKind::Syn => fwd,
                PacketKind::Ack | PacketKind::SynAck => rev,
            };
            p.hop = 0;
            self.counters.packets_sent += 1;
            if p.kind == PacketKind::Data {
                self.counters.data_sent += 1;
                sent_bytes += p.size_bytes as u64;
            }
            let first = self.path_links[self.path_start[p.path as usize] as usize];
            self.enqueue(first as usize, p, now);
        }
        if sent_bytes > 0 {
            if let Some(slot) = self.flows.slot(f) {
                slot.sent_bytes += sent_bytes;
            }
        }
        self.out = out;
    }

    /// Whether a forced loss takes this data packet.
    fn forced_loss(&mut self, pkt: &Packet) -> bool {
        let mut lost = false;
        for ((flow, seq, nth), seen) in self.losses.iter_mut() {
            if *flow == pkt.flow as u64 && *seq == pkt.seq {
                *seen += 1;
                lost |= *seen == *nth;
            }
        }
        lost
    }

    fn deliver(&mut self, pkt: Packet, now: Time) {
        if pkt.kind == PacketKind::Data && !self.losses.is_empty() && self.forced_loss(&pkt) {
            self.drop_packet(pkt);
            return;
        }
        self.counters.packets_delivered += 1;
        let f = pkt.flow;
        if pkt.flags & flags::PROBE != 0 {
            match pkt.kind {
                PacketKind::Data => self.probes.arrived(f, pkt.seq, pkt.ts, now),
                _ => self.probes.answered(f, pkt.seq, pkt.ts, now),
            }
        }
        match pkt.kind {
            PacketKind::Data | PacketKind::Syn => {
                if pkt.kind == PacketKind::Data {
                    self.counters.data_delivered += 1;
                    if pkt.flags & flags::CE != 0 {
                        self.counters.marks += 1;
                        if let Some(r) = self.flows.rec(f) {
                            r.marks += 1;
                        }
                    }
                }
                let Some((slot, rec)) = self.flows.get(f) else { return };
                let Some(rcv) = slot.rcv.as_mut() else { return };
                rcv.on_packet(now, &pkt, &mut self.out);
                let fin = rcv.finished_at();
                if slot.measure {
                    let upto = rcv.in_order_pkts();
                    if upto > slot.prefix_done {
                        self.prefixes
                            .record(f as u64, slot.prefix_done, upto, now - rec.start_ns);
                        slot.prefix_done = upto;
                    }
                }
                if fin.is_some() && rec.finish_ns.is_none() {
                    rec.finish_ns = fin;
                    self.active -= 1;
                    self.counters.flows_completed += 1;
                    if let Some(s) = self.size_stats.as_mut().filter(|s| s.counts(rec.start_ns)) {
                        s.completed(rec.size_pkts, rec.fct_ns().unwrap_or(0));
                    }
                }
                self.inject(f, now);
                self.sync_receiver_timer(f, now);
            }
            PacketKind::Ack | PacketKind::SynAck => {
                let Some(slot) = self.flows.slot(f) else { return };
                let mut pkt = pkt;
                if slot.path_delay {
                    let (links, routes) = (
                        &self.links,
                        (&self.path_links[..], &self.path_start[..], &self.path_len[..]),
                    );
                    pkt.hdr.set_path_queue_ns(
                        path_queue_ns(links, routes, slot.fwd_path) + path_queue_ns(links, routes, slot.rev_path),
                    );
                }
                let Some(snd) = slot.snd.as_mut() else { return };
                snd.on_packet(now, &pkt, &mut self.out);
                self.inject(f, now);
                self.after_sender(f, now);
            }
        }
    }

    /// The queuing delay on route `path` now: over its router ports, the
    /// bytes waiting (the packet on the wire not counted) times 8 / the
    /// port's rate, in nanoseconds. Host NICs are not router ports.
    pub fn path_queue_ns(&self, path: u32) -> f64 {
        path_queue_ns(&self.links, (&self.path_links, &self.path_start, &self.path_len), path)
    }

    fn after_sender(&mut self, f: u32, now: Time) {
        let Some((slot, rec)) = self.flows.get(f) else { return };
        let Some(snd) = slot.snd.as_ref() else { return };
        if snd.done() {
            rec.acked_ns = Some(now);
            rec.retransmits = snd.retransmits();
            if let Some(rcv) = &slot.rcv {
                rec.delivered_pkts = rcv.in_order_pkts();
            }
            // The flow is over: free its state (late duplicates are discarded).
            slot.snd = None;
            slot.rcv = None;
            if !slot.long_lived {
                self.pending -= 1;
            }
            let (generator, s) = (slot.generator, slot.sender);
            self.flows.finished(f);
            if let Some(g) = generator {
                if let Some(think_ns) = self.sources.think_ns(g) {
                    self.closed_loop_next(g, s, now + think_ns);
                }
            }
        } else if let Some(t) = snd.next_timer() {
            // `sync_sender_timer` on the slot already at hand.
            let t = t.max(now);
            if slot.snd_sched.is_none_or(|s| t < s) {
                slot.snd_sched = Some(t);
                self.q.schedule(t, Event::SenderTimer(f));
            }
        }
    }

    fn sync_sender_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if let Some(t) = slot.snd.as_ref().and_then(|s| s.next_timer()) {
            let t = t.max(now);
            if slot.snd_sched.is_none_or(|s| t < s) {
                slot.snd_sched = Some(t);
                self.q.schedule(t, Event::SenderTimer(f));
            }
        }
    }

    fn sync_receiver_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if let Some(t) = slot.rcv.as_ref().and_then(|s| s.next_timer()) {
            let t = t.max(now);
            if slot.rcv_sched.is_none_or(|s| t < s) {
                slot.rcv_sched = Some(t);
                self.q.schedule(t, Event::ReceiverTimer(f));
            }
        }
    }

    fn sender_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if slot.snd_sched != Some(now) {
            return; // superseded
        }
        slot.snd_sched = None;
        let Some(snd) = slot.snd.as_mut() else { return };
        if snd.next_timer().is_some_and(|t| t <= now) {
            snd.on_timer(now, &mut self.out);
            self.inject(f, now);
            self.after_sender(f, now);
        } else {
            self.sync_sender_timer(f, now);
        }
    }

    fn receiver_timer(&mut self, f: u32, now: Time) {
        let Some(slot) = self.flows.slot(f) else { return };
        if slot.rcv_sched != Some(now) {
            return;
        }
        slot.rcv_sched = None;
        let Some(rcv) = slot.rcv.as_mut() else { return };
        if rcv.next_timer().is_some_and(|t| t <= now) {
            rcv.on_timer(now, &mut self.out);
            self.inject(f, now);
        }
        self.sync_receiver_timer(f, now);
    }

    fn flow_start(&mut self, f: u32, now: Time) {
        self.active += 1;
        self.counters.flows_started += 1;
        if let Some(snd) = self.flows.slot(f).and_then(|s| s.snd.as_mut()) {
            snd.start(now, &mut self.out);
        }
        self.inject(f, now);
        self.after_sender(f, now);
    }

    fn sample(&mut self, now: Time) {
        let interval = self.plan.interval_ns;
        let m = self.metric;
        for i in 0..self.plan.series_links.len() {
            let l = self.plan.series_links[i] as usize;
            let el = self.series.element_id(&self.links[l].name.clone());
            let link = &mut self.links[l];
            let qlen = link.queue.len_pkts() as f64;
            let util = link.utilisation_since_last(now, interval);
            let delivered = link.data_arrived_since_last();
            let retx = link.retx_utilisation_since_last(now, interval);
            let line_pkts = link.rate_bps * interval as f64 / 8e9 / self.plan.transport.pkt_bytes() as f64;
            self.series.push(now, m.queue_pkts, el, qlen);
            if now > 0 {
                self.series.push(now, m.utilization, el, util);
                if self.plan.utilization_pkts {
                    self.series
                        .push(now, m.utilization_pkts, el, delivered as f64 / line_pkts);
                }
                if self.plan.utilization_retx {
                    self.series.push(now, m.utilization_retx, el, retx);
                }
            }
        }
        let el = self.series.element_id("network");
        self.series.push(now, m.active_flows, el, self.active as f64);
        let mss = self.plan.transport.mss_bytes as f64;
        for i in 0..self.plan.cwnd_flows.len() {
            let f = self.plan.cwnd_flows[i] as usize;
            let Some((slot, rec)) = self.flows.get(f as u32) else {
                continue;
            };
            let (Some(snd), Some(rcv)) = (slot.snd.as_ref(), slot.rcv.as_ref()) else {
                continue;
            };
            if rec.start_ns > now {
                continue;
            }
            let (w, srtt, delivered, sent) = (snd.cwnd_pkts(), snd.srtt_ns(), rcv.in_order_pkts(), slot.sent_bytes);
            let el = self.series.element_id(&format!("flow{f}"));
            self.series.push(now, m.cwnd_pkts, el, w);
            // Rates over the interval since the last sample (or since the flow
            // started, if that was later).
            let (prev_delivered, prev_sent, prev_t) = self.flow_prev[i];
            let since = prev_t.max(rec.start_ns);
            if now > since {
                let secs = (now - since) as f64 / 1e9;
                self.series.push(
                    now,
                    m.throughput_bps,
                    el,
                    delivered.saturating_sub(prev_delivered) as f64 * mss * 8.0 / secs,
                );
                self.series.push(
                    now,
                    m.send_rate_bps,
                    el,
                    sent.saturating_sub(prev_sent) as f64 * 8.0 / secs,
                );
            }
            if let Some(r) = srtt {
                self.series.push(now, m.rtt_ms, el, r as f64 / 1e6);
            }
            self.series.push(now, m.drops, el, rec.drops as f64);
            self.series.push(now, m.retransmits, el, snd.retransmits() as f64);
            self.flow_prev[i] = (delivered, sent, now);
        }
        if self.pending > 0 || self.plan.stop_ns.is_some_and(|s| now + interval <= s) {
            self.q.schedule(now + interval, Event::Sample);
        }
    }

    /// Run to the end. `progress` is called about once a second of wall time
    /// (see [`Engine::with_report_interval`]);
    /// returning `false` stops the run early (completed flows are kept).
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> RunOutput {
        let wall = Instant::now();
        let mut last_report = 0.0f64;
        self.setup();
        let stop = self.plan.stop_ns;
        let mut interrupted = false;
        let mut end_ns = 0;
        loop {
            // Open-loop sources alone run to their stop time; beside other
            // traffic they do not keep the run going.
            if self.pending == 0 && self.long_lived == 0 && !self.only_open_loop {
                break;
            }
            let (now, ev) = match self.q.pop_until(stop.unwrap_or(Time::MAX)) {
                Ok(Some(x)) => x,
                Ok(None) => break,
                Err(t) => {
                    end_ns = stop.unwrap_or(t);
                    break;
                }
            };
            end_ns = now;
            match ev {
                Event::Arrive(l) => self.arrive(l as usize, now),
                Event::TxDone(l) => self.tx_done(l as usize, now),
                Event::SenderTimer(f) => self.sender_timer(f, now),
                Event::ReceiverTimer(f) => self.receiver_timer(f, now),
                Event::FlowStart(f) => self.flow_start(f, now),
                Event::Generate(g) => self.generate(g, now),
                Event::Sample => self.sample(now),
                Event::Wake(l) => self.wake(l as usize, now),
            }
            if self.q.processed() & 0xFFFF == 0 {
                let w = wall.elapsed().as_secs_f64();
                if w - last_report >= self.report_every_s {
                    last_report = w;
                    let p = self.progress(now, w);
                    if !progress(&p) {
                        interrupted = true;
                        break;
                    }
                }
            }
        }
        // Record retransmissions and in-order deliveries of flows still running.
        let fl = &mut self.flows;
        for (s, r) in fl
            .slots
            .iter()
            .zip(fl.records.iter_mut())
            .chain(fl.old.values_mut().map(|(s, r)| (&*s, r)))
        {
            if let Some(snd) = &s.snd {
                r.retransmits = snd.retransmits();
            }
            if let Some(rcv) = &s.rcv {
                r.delivered_pkts = rcv.in_order_pkts();
            }
        }
        self.counters.events = self.q.processed();
        if self.plan.ps_fct && !interrupted {
            self.ps_fcts(end_ns);
        }
        let in_network = self.links.iter().map(|l| l.in_network()).sum();
        let links = self.links.iter().map(|l| l.totals()).collect();
        self.prefixes.sort();
        RunOutput {
            flows: if self.flows.keep {
                self.flows.records
            } else {
                Vec::new()
            },
            series: self.series,
            counters: self.counters,
            end_ns,
            wall_s: wall.elapsed().as_secs_f64(),
            interrupted,
            buffer_pkts: self.plan.buffer_pkts,
            in_network,
            prefixes: self.prefixes,
            size_stats: self.size_stats.map(|s| s.table()),
            probes: self.probes,
            links,
        }
    }

    /// The `ps_fct_ns` column (see [`fill_ps_fct`]).
    fn ps_fcts(&mut self, end_ns: Time) {
        let caps: Vec<f64> = self.links.iter().map(|l| l.rate_bps).collect();
        let one_way: Vec<Time> = self.sender_hops.iter().map(|h| h.iter().map(|x| x.1).sum()).collect();
        let tp = &self.plan.transport;
        let inputs = PsInputs {
            caps: &caps,
            sender_links: &self.sender_links,
            one_way_ns: &one_way,
            rtt_ns: &self.sender_rtt,
            header_bytes: tp.header_bytes,
            handshake: tp.handshake,
        };
        fill_ps_fct(&mut self.flows.records, &inputs, end_ns);
    }

    fn progress(&self, now: Time, wall_s: f64) -> Progress {
        Progress {
            sim_ns: now,
            stop_ns: self.plan.stop_ns,
            events: self.q.processed(),
            flows_started: self.counters.flows_started,
            flows_completed: self.counters.flows_completed,
            data_delivered: self.counters.data_delivered,
            wall_s,
        }
    }
}

/// [`Engine::path_queue_ns`] over the engine's links and route table
/// (path_links, path_start, path_len), so that it can be read while a flow's
/// slot is borrowed.
fn path_queue_ns(links: &[Link], routes: (&[u32], &[u32], &[u16]), path: u32) -> f64 {
    let (path_links, path_start, path_len) = routes;
    let start = path_start[path as usize] as usize;
    let len = path_len[path as usize] as usize;
    path_links[start..start + len]
        .iter()
        .map(|&l| &links[l as usize])
        .filter(|l| l.limited)
        .map(|l| l.queue.len_bytes() as f64 * 8e9 / l.rate_bps)
        .sum()
}

/// Run a plan with no progress reporting.
pub fn run(plan: Plan) -> RunOutput {
    Engine::new(plan).run(&mut |_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle (`Engine::path_queue_ns`) is the queue length times the
    /// service time, summed over the route's router ports only.
    #[test]
    fn path_queue_delay_is_queue_length_times_service_time() {
        let sc = r#"{"network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "access_bps": 100e6,
                     "bottleneck_delay_ms": 5, "access_delay_ms": 1, "buffer_pkts": 50},
                     "transport": {"handshake": false}, "flows": [{"sender": 0, "size_pkts": 10}]}"#;
        let mut e = Engine::new(crate::from_json(sc).unwrap());
        let idx = |e: &Engine, name: &str| e.links.iter().position(|l| l.name == name).unwrap();
        let (bn, rev, acc) = (idx(&e, "bottleneck"), idx(&e, "bottleneck-rev"), idx(&e, "access0"));
        let data = |s| Packet::new(0, PacketKind::Data, 1040, s, 0);
        let ack = |s| Packet::new(0, PacketKind::Ack, 40, s, 0);
        assert_eq!(e.path_queue_ns(0) + e.path_queue_ns(1), 0.0);
        // Six data packets at once: one on the wire, five waiting, each served
        // in 1040 x 8 / 10 Mb/s = 832 us.
        for s in 0..6 {
            e.enqueue(bn, data(s), 0);
        }
        assert_eq!(e.links[bn].queue.len_pkts(), 5);
        assert!((e.path_queue_ns(0) - 5.0 * 832_000.0).abs() < 1e-6);
        // Three ACKs on the reverse bottleneck: two waiting, 32 us each.
        for s in 0..3 {
            e.enqueue(rev, ack(s), 0);
        }
        assert!((e.path_queue_ns(1) - 2.0 * 32_000.0).abs() < 1e-6);
        // Sender 1's routes share both bottleneck ports.
        assert!((e.path_queue_ns(2) - 5.0 * 832_000.0).abs() < 1e-6);
        assert!((e.path_queue_ns(3) - 64_000.0).abs() < 1e-6);
        // A host NIC's backlog is not a router port's queue.
        for s in 0..4 {
            e.enqueue(acc, data(s), 0);
        }
        assert_eq!(e.links[acc].queue.len_pkts(), 3);
        assert!((e.path_queue_ns(0) - 5.0 * 832_000.0).abs() < 1e-6);
        // One packet served: four waiting.
        e.tx_done(bn, e.links[bn].busy_until);
        assert!((e.path_queue_ns(0) - 4.0 * 832_000.0).abs() < 1e-6);
    }
}

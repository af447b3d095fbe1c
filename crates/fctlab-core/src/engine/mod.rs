//! The event loop: it moves packets between links and endpoints, starts the
//! flows the workload asks for and calls the observers. The engine knows no
//! protocol beyond which way a packet travels.
//!
//! One [`Engine`], its parts in files of their own: the flow store and a
//! flow's life (`flows.rs`), the route table (`routes.rs`), ports and wires
//! (`ports.rs`), endpoint timers (`timers.rs`), workload set-up and arrivals
//! (`workload.rs`), the observers and forced losses (`observers.rs`), the
//! path-delay oracle (`oracle.rs`), the series sampler (`sampler.rs`) and the
//! run's output with the PS column (`output.rs`). Links live in
//! [`crate::net::link`], flow generation in [`crate::workload::sources`].
//!
//! Endpoint timers are cancelled lazily, so the event list grows with links
//! and flows, not with packets in flight.

mod flows;
mod observers;
mod oracle;
mod output;
mod paths;
mod ports;
mod routes;
mod sampler;
mod timers;
mod workload;

pub use flows::FLOW_SLOT_BYTES;
pub use routes::{PathId, Routes};

use crate::metrics::prefixes::Prefixes;
use crate::metrics::probes::Probes;
use crate::metrics::size_stats::SizeStatsTable;
use crate::metrics::{Counters, FlowRecord, MetricIds, Series};
use crate::net::packet::flags;
use crate::net::{Link, LinkTotals, Packet, PacketKind};
use crate::scenario::Plan;
use crate::sim::{Event, EventQueue, Time};
use crate::workload::Sources;
use flows::FlowStore;
use observers::Observers;
use paths::HostPaths;
use routes::Senders;
use std::time::Instant;

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
    /// Wall time of the set-up: building the engine (ports, routes, sources)
    /// and its first events, before the first event is handled (part of `wall_s`
    /// only from the first events on).
    pub setup_s: f64,
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
    /// A fabric's load per tier and its ECMP imbalance (empty on other
    /// topologies).
    pub tiers: Vec<crate::metrics::tiers::TierLoad>,
}

/// One simulation.
pub struct Engine {
    plan: Plan,
    q: EventQueue,
    links: Vec<Link>,
    routes: Routes,
    senders: Senders,
    /// Routing over equal-cost paths (`network.routing`).
    paths: HostPaths,
    flows: FlowStore,
    sources: Sources,
    out: Vec<Packet>,
    /// Flows between hosts a generator's arrival creates (reused).
    host_flows: Vec<crate::workload::sources::HostFlow>,
    counters: Counters,
    series: Series,
    metric: MetricIds,
    active: u64,
    /// Finite flows not yet fully acknowledged, plus flows and generator
    /// arrivals still to come. The run ends when this reaches zero and no
    /// long-lived flow exists (those run until `stop_s`).
    pending: u64,
    long_lived: u64,
    /// Wall time between calls of the progress callback.
    report_every_s: f64,
    observers: Observers,
    /// The workload is open-loop sources only.
    only_open_loop: bool,
    /// Per sampled flow (`plan.cwnd_flows`): in-order packets delivered,
    /// bytes sent and the time at the last sample.
    flow_prev: Vec<(u64, u64, Time)>,
    /// Wall time spent building the engine and its first events.
    setup_s: f64,
}

/// Routers from which the event queue keeps near link events in a timing
/// wheel ([`EventQueue::with_wheel`]): networks where many links are busy.
const WHEEL_ROUTERS: usize = 4;

/// The nodes with router ports.
fn routers(t: &crate::net::topology::Topology) -> usize {
    let ports = t.links.iter().filter(|l| l.router_port).map(|l| l.from);
    ports.collect::<std::collections::HashSet<_>>().len()
}

impl Engine {
    pub fn new(plan: Plan) -> Engine {
        let t0 = Instant::now();
        let links = ports::build_links(&plan);
        let mut routes = Routes::new(plan.topology.fabric.clone());
        let senders = Senders::new(&plan.topology, &mut routes);
        let paths = HostPaths::new(plan.routing, plan.seed);
        let per_sender = plan.topology.senders.len().max(plan.topology.hosts.len());
        let sources = Sources::new(plan.generators.clone(), plan.seed, per_sender);
        let mut series = Series::default();
        let metric = MetricIds::register(&mut series);
        let setup_s = t0.elapsed().as_secs_f64();
        Engine {
            // A dumbbell (two routers, however many hosts) has a few link
            // events at a time, which a sorted array handles faster.
            q: if routers(&plan.topology) >= WHEEL_ROUTERS {
                EventQueue::with_wheel()
            } else {
                EventQueue::new()
            },
            links,
            routes,
            senders,
            paths,
            flows: FlowStore::new(plan.keep_flows),
            sources,
            out: Vec::with_capacity(64),
            host_flows: Vec::new(),
            counters: Counters::default(),
            series,
            metric,
            active: 0,
            pending: 0,
            long_lived: 0,
            report_every_s: 1.0,
            observers: Observers::new(&plan.losses, plan.size_stats.clone()),
            only_open_loop: false,
            flow_prev: vec![(0, 0, 0); plan.cwnd_flows.len()],
            setup_s,
            plan,
        }
    }

    /// Call the progress callback about every `every` of wall time (default 1 s).
    pub fn with_report_interval(mut self, every: std::time::Duration) -> Self {
        self.report_every_s = every.as_secs_f64();
        self
    }

    /// Run to the end. `progress` is called about once a second of wall time
    /// (see [`Engine::with_report_interval`]);
    /// returning `false` stops the run early (completed flows are kept).
    pub fn run(mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> RunOutput {
        let wall = Instant::now();
        self.setup();
        self.setup_s += wall.elapsed().as_secs_f64();
        let (end_ns, interrupted) = self.event_loop(wall, progress);
        self.finish(end_ns, interrupted, wall)
    }

    /// Handle events until the run is over or `progress` asks to stop; the
    /// simulated time at the end and whether it was asked to stop.
    fn event_loop(&mut self, wall: Instant, progress: &mut dyn FnMut(&Progress) -> bool) -> (Time, bool) {
        let mut last_report = 0.0f64;
        let stop = self.plan.stop_ns;
        let mut end_ns = 0;
        loop {
            // Open-loop sources alone run to their stop time; beside other
            // traffic they do not keep the run going.
            if self.pending == 0 && self.long_lived == 0 && !self.only_open_loop {
                return (end_ns, false);
            }
            let (now, ev) = match self.q.pop_until(stop.unwrap_or(Time::MAX)) {
                Ok(Some(x)) => x,
                Ok(None) => return (end_ns, false),
                Err(t) => return (stop.unwrap_or(t), false),
            };
            end_ns = now;
            if self.q.has_wheel() {
                self.prefetch_next();
            }
            self.dispatch(now, ev);
            if self.q.processed() & 0xFFFF == 0 {
                let w = wall.elapsed().as_secs_f64();
                if w - last_report >= self.report_every_s {
                    last_report = w;
                    if !progress(&self.progress(now, w)) {
                        return (end_ns, true);
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn dispatch(&mut self, now: Time, ev: Event) {
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
    }

    /// The head of link `l`'s wire reaches the far end: on to the next link
    /// of its path, or to its endpoint.
    fn arrive(&mut self, l: usize, now: Time) {
        let link = &mut self.links[l];
        // Read and step the packet's position where it lies, before it is
        // moved (reading fields of a packet just copied as a whole stalls
        // the load behind the copy's wider stores).
        let (_, head) = link.in_flight.front_mut().expect("arrival event with an empty wire");
        head.hop += 1;
        let (hop, path, data) = (head.hop, head.path, head.kind == PacketKind::Data);
        let (_, pkt) = link.in_flight.pop_front().expect("arrival event with an empty wire");
        link.data_arrived += data as u64;
        if let Some(&(t, _)) = link.in_flight.front() {
            self.q.schedule(t, Event::Arrive(l as u32));
        }
        match self.routes.next(path, hop, l as u32) {
            Some(next) => self.enqueue(next as usize, pkt, now),
            None => self.deliver(pkt, now),
        }
    }

    /// Put the packets a flow's endpoint produced onto the network.
    fn inject(&mut self, f: u32, now: Time) {
        let mut out = std::mem::take(&mut self.out);
        // Packets only come from live flows, whose slots are kept.
        let slot = self.flows.slot(f).expect("a live flow");
        let (fwd, rev) = (slot.fwd_path, slot.rev_path);
        let ends = (slot.sender, slot.dst);
        let mut multi = slot.multi.take();
        let mut sent_bytes = 0u64;
        for mut p in out.drain(..) {
            let forward = matches!(p.kind, PacketKind::Data | PacketKind::Syn);
            p.path = match multi.as_deref_mut() {
                None => {
                    if forward {
                        fwd
                    } else {
                        rev
                    }
                }
                Some(m) => self.paths.pick(&self.routes, m, f, !forward as u32, now),
            };
            p.hop = 0;
            self.counters.packets_sent += 1;
            if p.kind == PacketKind::Data {
                self.counters.data_sent += 1;
                sent_bytes += p.size_bytes as u64;
            }
            let first = self.routes.first(p.path, if forward { ends.0 } else { ends.1 });
            self.enqueue(first as usize, p, now);
        }
        if multi.is_some() {
            if let Some(slot) = self.flows.slot(f) {
                slot.multi = multi;
            }
        }
        if sent_bytes > 0 {
            if let Some(slot) = self.flows.slot(f) {
                slot.sent_bytes += sent_bytes;
            }
        }
        self.out = out;
    }

    /// A packet reaches the end of its path.
    fn deliver(&mut self, pkt: Packet, now: Time) {
        if self.observers.forced_loss(&pkt) {
            self.drop_packet(pkt);
            return;
        }
        self.counters.packets_delivered += 1;
        self.observers.delivered(&pkt, now);
        match pkt.kind {
            PacketKind::Data | PacketKind::Syn => self.at_receiver(pkt, now),
            PacketKind::Ack | PacketKind::SynAck => self.at_sender(pkt, now),
        }
    }

    /// Data or SYN at the receiver.
    #[inline]
    fn at_receiver(&mut self, pkt: Packet, now: Time) {
        let f = pkt.flow;
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
        if let Some(m) = slot.multi.as_deref_mut() {
            if self.paths.routing.ack == crate::net::routing::AckPath::Mirror {
                // Mirrored ACKs take the mirror of the path the data came by.
                m.cur[1] = self.paths.mirror(&mut self.routes, pkt.path, slot.sender);
            }
        }
        rcv.on_packet(now, &pkt, &mut self.out);
        let fin = rcv.finished_at();
        if slot.measure {
            let upto = rcv.in_order_pkts();
            self.observers
                .in_order(f, &mut slot.prefix_done, rec.start_ns, upto, now);
        }
        if fin.is_some() && rec.finish_ns.is_none() {
            rec.finish_ns = fin;
            self.active -= 1;
            self.counters.flows_completed += 1;
            self.observers.flow_completed(rec);
        }
        self.inject(f, now);
        self.sync_receiver_timer(f, now);
    }

    /// ACK or SYN-ACK at the sender.
    #[inline]
    fn at_sender(&mut self, mut pkt: Packet, now: Time) {
        let f = pkt.flow;
        let Some(slot) = self.flows.slot(f) else { return };
        if slot.path_delay {
            oracle::stamp_path_delay(&mut pkt, &self.links, &self.routes, slot);
        }
        let Some(snd) = slot.snd.as_mut() else { return };
        snd.on_packet(now, &pkt, &mut self.out);
        self.inject(f, now);
        self.after_sender(f, now);
    }
}

/// Run a plan with no progress reporting.
pub fn run(plan: Plan) -> RunOutput {
    Engine::new(plan).run(&mut |_| true)
}

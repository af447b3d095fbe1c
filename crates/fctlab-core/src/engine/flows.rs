//! The flow store: each flow's slot (endpoints, paths, pending timers) and
//! record, by flow id, and the engine's part in a flow's life: creation,
//! start and end.

use super::paths::{Chosen, Ends, Multi};
use super::routes::PathId;
use super::timers::arm;
use super::Engine;
use crate::ideal::{ack_return_ns, line_rate_fct_ns};
use crate::metrics::FlowRecord;
use crate::sim::{Event, Time};
use crate::transport::{EndpointBuilder, FlowSize, Receiver, Sender};
use std::borrow::Cow;
use std::collections::HashMap;

pub(super) struct FlowSlot {
    /// The sender, or the source host of a flow between two hosts.
    pub sender: u32,
    /// The destination host of a flow between two hosts (u32::MAX: none).
    pub dst: u32,
    pub fwd_path: PathId,
    pub rev_path: PathId,
    /// Path state of a flow whose packets may change path (spraying, flowlets).
    pub multi: Option<Box<Multi>>,
    pub snd: Option<Box<dyn Sender>>,
    pub rcv: Option<Box<dyn Receiver>>,
    pub snd_sched: Option<Time>,
    pub rcv_sched: Option<Time>,
    /// Closed-loop generator that owns this flow, if any.
    pub generator: Option<u32>,
    pub long_lived: bool,
    /// A measuring flow: its in-order deliveries are recorded.
    pub measure: bool,
    /// Packets 1..prefix_done of a measuring flow are recorded.
    pub prefix_done: u64,
    /// The sender reads the path's queuing delay from its ACKs
    /// (`Sender::wants_path_delay`, `net::packet::Header::path_queue_ns`).
    pub path_delay: bool,
    /// Wire bytes of data packets the sender has sent (the send-rate series).
    pub sent_bytes: u64,
}

/// Bytes of the engine's own slot for each flow in progress (routes, the
/// boxed endpoints, pending timers, flags), besides the endpoints themselves.
pub const FLOW_SLOT_BYTES: usize = std::mem::size_of::<FlowSlot>();

/// What a new flow is, besides its endpoints.
pub(super) struct FlowKind {
    pub generator: Option<u32>,
    pub long_lived: bool,
    pub measure: bool,
    /// An open-loop source: background traffic, never given the path-delay
    /// oracle.
    pub open_loop: bool,
}

impl FlowSlot {
    /// A flow from `sender` (its receiver, or host `dst`) along `paths`, not started.
    fn new(
        (sender, dst): (u32, u32),
        paths: Chosen,
        endpoints: (Box<dyn Sender>, Box<dyn Receiver>),
        kind: FlowKind,
    ) -> Self {
        let (snd, rcv) = endpoints;
        FlowSlot {
            sender,
            dst,
            fwd_path: paths.fwd,
            rev_path: paths.rev,
            multi: paths.multi,
            path_delay: !kind.open_loop && snd.wants_path_delay(),
            snd: Some(snd),
            rcv: Some(rcv),
            snd_sched: None,
            rcv_sched: None,
            generator: kind.generator,
            long_lived: kind.long_lived,
            measure: kind.measure,
            prefix_done: 0,
            sent_bytes: 0,
        }
    }
}

/// Every flow's slot and record, by flow id. With `metrics.flows = false`
/// the oldest entries are dropped once their flows are over, so memory is
/// bounded by the flows in progress: ids below `base` are either gone or,
/// still running, kept in `old`.
#[derive(Default)]
pub(super) struct FlowStore {
    pub keep: bool,
    base: u32,
    slots: Vec<FlowSlot>,
    pub records: Vec<FlowRecord>,
    old: HashMap<u32, (FlowSlot, FlowRecord)>,
}

/// Entries kept before the oldest half is compacted (without `keep`).
const FLOW_WINDOW: usize = 1 << 16;

impl FlowStore {
    pub fn new(keep: bool) -> Self {
        FlowStore {
            keep,
            ..Default::default()
        }
    }

    pub fn next_id(&self) -> u32 {
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
    pub fn get(&mut self, f: u32) -> Option<(&mut FlowSlot, &mut FlowRecord)> {
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
    pub fn slot(&mut self, f: u32) -> Option<&mut FlowSlot> {
        self.get(f).map(|(s, _)| s)
    }

    #[inline]
    pub fn rec(&mut self, f: u32) -> Option<&mut FlowRecord> {
        self.get(f).map(|(_, r)| r)
    }

    /// A flow whose sender is done: without `keep`, a straggler kept in
    /// `old` is dropped now.
    fn finished(&mut self, f: u32) {
        if !self.keep && f < self.base {
            self.old.remove(&f);
        }
    }

    /// At the end of a run: the retransmissions and in-order deliveries of
    /// the flows still running, into their records.
    pub fn record_running(&mut self) {
        for (s, r) in self
            .slots
            .iter()
            .zip(self.records.iter_mut())
            .chain(self.old.values_mut().map(|(s, r)| (&*s, r)))
        {
            if let Some(snd) = &s.snd {
                r.retransmits = snd.retransmits();
            }
            if let Some(rcv) = &s.rcv {
                r.delivered_pkts = rcv.in_order_pkts();
            }
        }
    }
}

impl Engine {
    /// Create a flow between `ends` that starts at `start_ns`.
    pub(super) fn add_flow(
        &mut self,
        ends: Ends,
        start_ns: Time,
        size: FlowSize,
        generator: Option<u32>,
        measure: bool,
        transport: u16,
    ) {
        let id = self.flows.next_id();
        let (bytes, pkts) = match size {
            FlowSize::Finite { bytes, pkts } => (bytes, pkts),
            FlowSize::LongLived => (0, 0),
        };
        let (paths, sender, dst) = self.choose_paths(id, ends);
        let ideal = self.ideal_ns(&ends, paths.fwd, size);
        let rec = FlowRecord {
            flow_id: id as u64,
            sender,
            size_bytes: bytes,
            size_pkts: pkts,
            long_lived: size.is_long_lived(),
            start_ns,
            ideal_ns: ideal,
            alone_ns: if size.is_long_lived() {
                0
            } else {
                ideal + ack_return_ns(&self.hops(&ends, paths.rev, true), self.plan.transport.header_bytes)
            },
            transport,
            dst: (dst != u32::MAX).then_some(dst),
            path: paths.index,
            ..Default::default()
        };
        let endpoints = (self.plan.endpoints_of(transport))(id, size);
        let kind = FlowKind {
            generator,
            long_lived: size.is_long_lived(),
            measure,
            open_loop: false,
        };
        let slot = FlowSlot::new((sender, dst), paths, endpoints, kind);
        self.flows.push(slot, rec);
        if size.is_long_lived() {
            self.long_lived += 1;
        } else {
            self.pending += 1;
            self.observers.flow_created(start_ns, pkts);
        }
        self.q.schedule(start_ns, Event::FlowStart(id));
    }

    /// The paths of new flow `id` between `ends`, and its sender (or source
    /// host) and destination host (u32::MAX for a sender's flow).
    fn choose_paths(&mut self, id: u32, ends: Ends) -> (Chosen, u32, u32) {
        let topo = &self.plan.topology;
        match ends {
            Ends::Sender(s) if self.paths.routing.mode == crate::net::routing::Mode::Single => {
                let p = self.senders.paths[s as usize];
                let chosen = Chosen {
                    fwd: p.fwd,
                    rev: p.rev,
                    index: None,
                    multi: None,
                };
                (chosen, s, u32::MAX)
            }
            Ends::Sender(s) => {
                let (a, b) = (topo.senders[s as usize], topo.receivers[s as usize]);
                (self.paths.choose(topo, &mut self.routes, id, a, b, None), s, u32::MAX)
            }
            Ends::Hosts { src, dst, pin } => {
                let (a, b) = (topo.hosts[src as usize], topo.hosts[dst as usize]);
                (self.paths.choose(topo, &mut self.routes, id, a, b, pin), src, dst)
            }
        }
    }

    /// The flow's FCT on its empty path at line rate (0 for a long-lived flow).
    fn ideal_ns(&self, ends: &Ends, fwd: PathId, size: FlowSize) -> Time {
        let FlowSize::Finite { bytes, pkts } = size else {
            return 0;
        };
        let tp = &self.plan.transport;
        line_rate_fct_ns(&self.hops(ends, fwd, false), bytes, pkts, tp.mss_bytes, tp.header_bytes)
    }

    /// The (rate, delay) of each link of the flow's path `p`: the data's
    /// (`reverse` false, from the source) or the ACKs' (from the destination).
    /// A sender's own shortest paths are kept; others are read off the routes.
    fn hops(&self, ends: &Ends, p: PathId, reverse: bool) -> Cow<'_, [(f64, Time)]> {
        let topo = &self.plan.topology;
        match *ends {
            Ends::Sender(s) => {
                let (own, kept, from) = if reverse {
                    (
                        self.senders.paths[s as usize].rev,
                        &self.senders.rev_hops,
                        topo.receivers[s as usize],
                    )
                } else {
                    (
                        self.senders.paths[s as usize].fwd,
                        &self.senders.hops,
                        topo.senders[s as usize],
                    )
                };
                if p == own {
                    Cow::Borrowed(&kept[s as usize])
                } else {
                    Cow::Owned(self.hops_of(p, from))
                }
            }
            Ends::Hosts { src, dst, .. } => Cow::Owned(self.hops_of(p, if reverse { dst } else { src })),
        }
    }

    /// The (rate, delay) of each link of path `p` from host (node) `from`.
    fn hops_of(&self, p: PathId, from: u32) -> Vec<(f64, Time)> {
        let links = &self.plan.topology.links;
        self.routes
            .links_of(p, from)
            .iter()
            .map(|&l| (links[l as usize].rate_bps, links[l as usize].delay_ns))
            .collect()
    }

    /// Create an open-loop source: a long-lived row in `flows` that does not
    /// keep the run going.
    pub(super) fn add_open_loop(&mut self, sender: u32, start_ns: Time, endpoints: EndpointBuilder) {
        let id = self.flows.next_id();
        let (paths, sender, dst) = self.choose_paths(id, Ends::Sender(sender));
        let rec = FlowRecord {
            flow_id: id as u64,
            sender,
            long_lived: true,
            start_ns,
            path: paths.index,
            ..Default::default()
        };
        let (snd, rcv) = endpoints(id, FlowSize::LongLived);
        let kind = FlowKind {
            generator: None,
            long_lived: true,
            measure: false,
            open_loop: true,
        };
        let slot = FlowSlot::new((sender, dst), paths, (snd, rcv), kind);
        self.flows.push(slot, rec);
        self.q.schedule(start_ns, Event::FlowStart(id));
    }

    pub(super) fn flow_start(&mut self, f: u32, now: Time) {
        self.active += 1;
        self.counters.flows_started += 1;
        if let Some(snd) = self.flows.slot(f).and_then(|s| s.snd.as_mut()) {
            snd.start(now, &mut self.out);
        }
        self.inject(f, now);
        self.after_sender(f, now);
    }

    /// After the sender of flow `f` ran: end the flow if it is done,
    /// otherwise keep its timer armed.
    pub(super) fn after_sender(&mut self, f: u32, now: Time) {
        let Some((slot, rec)) = self.flows.get(f) else { return };
        let Some(snd) = slot.snd.as_ref() else { return };
        if !snd.done() {
            return arm(
                &mut self.q,
                &mut slot.snd_sched,
                snd.next_timer(),
                now,
                Event::SenderTimer(f),
            );
        }
        rec.acked_ns = Some(now);
        rec.retransmits = snd.retransmits();
        let (timeouts, spurious) = snd.timeouts();
        self.counters.timeouts += timeouts;
        self.counters.spurious_timeouts += spurious;
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
    }
}

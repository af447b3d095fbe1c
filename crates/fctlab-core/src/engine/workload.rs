//! Workload set-up and arrivals: the scenario's explicit flows, each
//! generator's first flows or events, and the flows the generators create
//! as the run goes ([`crate::workload::sources`] draws them).

use super::paths::Ends;
use super::Engine;
use crate::sim::{Event, Time};
use crate::transport::FlowSize;
use crate::workload::sources::HostFlow;
use crate::workload::Arrivals;

/// Random streams of open-loop sources: 2^40 + (generator << 24) + sender,
/// apart from the generators' (g + 1) and measuring draws (2^32 + g + 1).
const OPEN_LOOP_STREAM: u64 = 1 << 40;

impl Engine {
    /// Create the explicit flows, start the generators and the sampler.
    pub(super) fn setup(&mut self) {
        self.only_open_loop = self.plan.flows.is_empty()
            && !self.plan.generators.is_empty()
            && self
                .plan
                .generators
                .iter()
                .all(|g| matches!(g.arrivals, Arrivals::OpenLoop(_)));
        let flows = self.plan.flows.clone();
        for f in flows {
            let ends = match f.hosts {
                Some((dst, pin)) => Ends::Hosts {
                    src: f.sender,
                    dst,
                    pin,
                },
                None => Ends::Sender(f.sender),
            };
            self.add_flow(ends, f.start_ns, f.size, None, f.measure, f.transport);
        }
        for g in 0..self.plan.generators.len() {
            self.start_generator(g);
        }
        if self.plan.series {
            self.q.schedule(0, Event::Sample);
        }
    }

    /// Generator `g`'s first event (Poisson), first flow per sender (closed
    /// loop), flows (long-lived) or sources (open loop).
    fn start_generator(&mut self, g: usize) {
        let gen = self.plan.generators[g].clone();
        match gen.arrivals {
            Arrivals::Poisson { .. } => {
                self.pending += 1;
                self.q.schedule(gen.start_ns, Event::Generate(g as u32));
            }
            Arrivals::File(_) => {
                if let Some(t) = self.sources.file_start(g as u32) {
                    self.pending += 1;
                    self.q.schedule(t, Event::Generate(g as u32));
                }
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
                    let ends = self.ends_from(g as u32, s);
                    self.add_flow(ends, gen.start_ns, FlowSize::LongLived, None, measure, tr);
                }
            }
            Arrivals::OpenLoop(ref src) => {
                for &s in &gen.senders {
                    let stream = OPEN_LOOP_STREAM + ((g as u64) << 24) + s as u64;
                    let rng = crate::sim::stream_rng(self.plan.seed, stream);
                    self.add_open_loop(s, gen.start_ns, src.endpoints(gen.stop_ns, rng));
                }
            }
        }
    }

    /// Start the next flow of closed-loop generator `g` on sender `s` at `t`, if
    /// its count and stop time allow.
    pub(super) fn closed_loop_next(&mut self, g: u32, s: u32, t: Time) {
        if let Some((pkts, measure)) = self.sources.closed_loop(g, s, t) {
            let size = FlowSize::of_pkts(pkts, self.plan.transport.mss_bytes);
            let tr = self.plan.generator_transport(g as usize, s);
            let ends = self.ends_from(g, s);
            self.add_flow(ends, t, size, Some(g), measure, tr);
        }
    }

    /// The ends of generator `g`'s next flow from `s`: sender `s`, or source
    /// host `s` and a destination drawn from the generator's matrix.
    fn ends_from(&mut self, g: u32, s: u32) -> Ends {
        match self.sources.destination(g, s) {
            Some(dst) => Ends::Hosts { src: s, dst, pin: None },
            None => Ends::Sender(s),
        }
    }

    /// A generator's next arrival: a Poisson arrival or the next flow of a
    /// flows file.
    pub(super) fn generate(&mut self, g: u32, now: Time) {
        let gen = &self.plan.generators[g as usize];
        let file = matches!(gen.arrivals, Arrivals::File(_));
        if file || gen.hosts.is_some() {
            return self.generate_hosts(g, now, file);
        }
        let Some(a) = self.sources.poisson(g, now, self.plan.stop_ns) else {
            return;
        };
        let size = FlowSize::of_pkts(a.pkts, self.plan.transport.mss_bytes);
        let tr = self.plan.generator_transport(g as usize, a.sender);
        self.add_flow(Ends::Sender(a.sender), now, size, None, a.measure, tr);
        match a.next_ns {
            Some(next) => self.q.schedule(next, Event::Generate(g)),
            None => self.pending -= 1,
        }
    }
}

impl Engine {
    /// The flows between hosts of generator `g`'s arrival at `now` (a
    /// Poisson arrival with a matrix, or a flows file's next flow), all
    /// starting now; then the next arrival.
    fn generate_hosts(&mut self, g: u32, now: Time, file: bool) {
        let mut flows: Vec<HostFlow> = std::mem::take(&mut self.host_flows);
        let next = if file {
            self.sources.file_next(g, &mut flows)
        } else {
            self.sources.poisson_hosts(g, now, self.plan.stop_ns, &mut flows)
        };
        let tr = self.plan.generator_transport(g as usize, 0);
        let mss = self.plan.transport.mss_bytes;
        for f in &flows {
            let ends = Ends::Hosts {
                src: f.src,
                dst: f.dst,
                pin: None,
            };
            self.add_flow(ends, now, FlowSize::of_pkts(f.pkts, mss), None, f.measure, tr);
        }
        self.host_flows = flows;
        match next {
            Some(t) => self.q.schedule(t, Event::Generate(g)),
            None => self.pending -= 1,
        }
    }
}

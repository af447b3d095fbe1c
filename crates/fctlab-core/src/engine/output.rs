//! The end of a run: the records of flows still running, the PS column, and
//! everything gathered into a [`RunOutput`]; and the progress report.

use super::{Engine, Progress, RunOutput};
use crate::metrics::ps::{fill_ps_fct, PsInputs};
use crate::sim::Time;
use std::collections::HashMap;
use std::time::Instant;

impl Engine {
    /// The run's output, the run having ended at `end_ns` (`interrupted`: on
    /// the progress callback's word).
    pub(super) fn finish(mut self, end_ns: Time, interrupted: bool, wall: Instant) -> RunOutput {
        self.flows.record_running();
        self.counters.events = self.q.processed();
        if self.plan.ps_fct && !interrupted {
            self.ps_fcts(end_ns);
        }
        let in_network = self.links.iter().map(|l| l.in_network()).sum();
        let links: Vec<_> = self.links.iter().map(|l| l.totals()).collect();
        let tiers = match &self.plan.topology.fabric {
            Some(f) => crate::metrics::tiers::tier_loads(f, &links, end_ns),
            None => Vec::new(),
        };
        let mut obs = self.observers;
        obs.prefixes.sort();
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
            setup_s: self.setup_s,
            interrupted,
            buffer_pkts: self.plan.buffer_pkts,
            in_network,
            prefixes: obs.prefixes,
            size_stats: obs.size_stats.map(|s| s.table()),
            probes: obs.probes,
            links,
            tiers,
        }
    }

    /// The `ps_fct_ns` column (see [`fill_ps_fct`]): each sender's route,
    /// and for flows on paths of their own (between two hosts, or hashed
    /// over equal-cost paths) their data path. Sprayed flows have no one
    /// path: with `routing = "spray"` the column is left empty.
    fn ps_fcts(&mut self, end_ns: Time) {
        if matches!(self.paths.routing.mode, crate::net::routing::Mode::Spray(_)) {
            return;
        }
        let caps: Vec<f64> = self.links.iter().map(|l| l.rate_bps).collect();
        let senders = &self.senders;
        let mut one_way: Vec<Time> = senders.hops.iter().map(|h| h.iter().map(|x| x.1).sum()).collect();
        let mut links: Vec<Vec<u32>> = senders.paths.iter().map(|p| self.routes.path(p.fwd).to_vec()).collect();
        let mut rtt = senders.rtt.clone();
        let route_of = self.own_routes(&mut links, &mut one_way, &mut rtt);
        let tp = &self.plan.transport;
        let inputs = PsInputs {
            caps: &caps,
            sender_links: &links,
            one_way_ns: &one_way,
            rtt_ns: &rtt,
            header_bytes: tp.header_bytes,
            handshake: tp.handshake,
            route_of: route_of.as_deref(),
        };
        fill_ps_fct(&mut self.flows.records, &inputs, end_ns);
    }

    /// The routes of flows on paths of their own, added after the senders'
    /// (one per distinct path), and each record's route; None when every
    /// flow is on its sender's route.
    fn own_routes(&self, links: &mut Vec<Vec<u32>>, one_way: &mut Vec<Time>, rtt: &mut Vec<Time>) -> Option<Vec<u32>> {
        let recs = &self.flows.records;
        if recs.iter().all(|r| r.dst.is_none() && r.path.is_none()) {
            return None;
        }
        let topo = &self.plan.topology;
        let mut seen: HashMap<(u32, u32, u32, u32), u32> = HashMap::new();
        let mut out = Vec::with_capacity(recs.len());
        for r in recs {
            let (a, b) = match r.dst {
                Some(d) => (topo.hosts[r.sender as usize], topo.hosts[d as usize]),
                None if r.path.is_none() => {
                    out.push(r.sender);
                    continue;
                }
                None => (topo.senders[r.sender as usize], topo.receivers[r.sender as usize]),
            };
            let key = (a, b, r.path.unwrap_or(u32::MAX), r.dst.map_or(r.sender, |_| u32::MAX));
            let next = links.len() as u32;
            let i = *seen.entry(key).or_insert(next);
            if i == next {
                // Equal-cost paths have equal delays: any way back will do.
                let (fwd, back) = (self.data_path(a, b, r.path), self.data_path(b, a, None));
                let d = topo.delay_ns(&fwd);
                links.push(fwd);
                one_way.push(d);
                rtt.push(d + topo.delay_ns(&back));
            }
            out.push(i);
        }
        Some(out)
    }

    /// The links of path `index` among the equal-cost paths from node `a`
    /// to node `b` (None: the shortest path, as `single` routes on a graph).
    fn data_path(&self, a: u32, b: u32, index: Option<u32>) -> Vec<u32> {
        let topo = &self.plan.topology;
        match (self.routes.fabric(), index) {
            (Some(f), i) => f.path(a, b, i.unwrap_or(0)),
            (None, None) => topo.route(a, b).unwrap_or_default(),
            (None, Some(i)) => self
                .paths
                .stored(a, b, i)
                .map_or_else(Vec::new, |p| self.routes.path(p).to_vec()),
        }
    }

    pub(super) fn progress(&self, now: Time, wall_s: f64) -> Progress {
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

//! The end of a run: the records of flows still running, the PS column, and
//! everything gathered into a [`RunOutput`]; and the progress report.

use super::{Engine, Progress, RunOutput};
use crate::metrics::ps::{fill_ps_fct, PsInputs};
use crate::sim::Time;
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
        let links = self.links.iter().map(|l| l.totals()).collect();
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
            interrupted,
            buffer_pkts: self.plan.buffer_pkts,
            in_network,
            prefixes: obs.prefixes,
            size_stats: obs.size_stats.map(|s| s.table()),
            probes: obs.probes,
            links,
        }
    }

    /// The `ps_fct_ns` column (see [`fill_ps_fct`]).
    fn ps_fcts(&mut self, end_ns: Time) {
        let caps: Vec<f64> = self.links.iter().map(|l| l.rate_bps).collect();
        let senders = &self.senders;
        let one_way: Vec<Time> = senders.hops.iter().map(|h| h.iter().map(|x| x.1).sum()).collect();
        let sender_links: Vec<Vec<u32>> = senders.paths.iter().map(|p| self.routes.path(p.fwd).to_vec()).collect();
        let tp = &self.plan.transport;
        let inputs = PsInputs {
            caps: &caps,
            sender_links: &sender_links,
            one_way_ns: &one_way,
            rtt_ns: &senders.rtt,
            header_bytes: tp.header_bytes,
            handshake: tp.handshake,
        };
        fill_ps_fct(&mut self.flows.records, &inputs, end_ns);
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

//! The run's memory, estimated from its [`Plan`] before the engine builds
//! anything, and refused when it exceeds the memory the machine has
//! available (Linux's `MemAvailable`; where that cannot be read, nothing is
//! refused).
//!
//! The estimate counts what grows with the scenario's size and outlives a
//! flow: the record of each flow (with `metrics.flows`) and its row in the
//! output table, the state of each link, and the rows of the sampled series.
//! Flows in progress, queues and the size statistics are left out (they
//! follow the load, not the scenario's size); the series is counted up to
//! the stop time, which a run of finite flows may end before.

use super::resolve::Plan;
use crate::config::{err, ConfigError};
use crate::metrics::FlowRecord;
use crate::net::link::Link;
use crate::net::topology::LinkSpec;
use crate::sim::Time;
use crate::workload::Arrivals;

/// Bytes per flow record: the record and its row of the output table.
pub const FLOW_BYTES: u64 = 2 * std::mem::size_of::<FlowRecord>() as u64;

/// Bytes per link: its description, its port and wire, a name and a queue
/// discipline's fixed state (a small allowance for each).
pub const LINK_BYTES: u64 = (std::mem::size_of::<LinkSpec>() + std::mem::size_of::<Link>() + 2 * 64) as u64;

/// Bytes per sampled value: time, metric, element and value, kept by the
/// engine and again as the output's columns.
pub const SERIES_VALUE_BYTES: u64 = 2 * (8 + 2 + 4 + 8);

/// The parts of the estimate, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    pub flows: u64,
    pub links: u64,
    pub series: u64,
}

impl Estimate {
    pub fn total(&self) -> u64 {
        self.flows.saturating_add(self.links).saturating_add(self.series)
    }
}

/// The flows a generator is expected to create: its count, or its rate times
/// its time (Poisson bounded by time); 0 where neither is known before the
/// run (closed loop bounded by time).
fn flows_of(g: &crate::workload::Generator, run_stop: Option<Time>) -> f64 {
    if let Some(n) = g.flows_expected() {
        return n as f64;
    }
    match g.arrivals {
        Arrivals::Poisson { mean_gap_ns } => {
            let stop = g.stop_ns.into_iter().chain(run_stop).min().unwrap_or(g.start_ns);
            let per = g.hosts.as_ref().map_or(1.0, |h| h.flows_per_arrival() as f64);
            stop.saturating_sub(g.start_ns) as f64 / mean_gap_ns * per
        }
        _ => 0.0,
    }
}

/// The time the run is expected to last: its stop time (which a run of
/// finite flows may end before), or else the latest explicit start and each
/// generator's expected end (a floor for closed loops).
fn duration_ns(plan: &Plan) -> f64 {
    if let Some(s) = plan.stop_ns {
        return s as f64;
    }
    let mut end = plan.flows.iter().map(|f| f.start_ns as f64).fold(0.0, f64::max);
    for g in &plan.generators {
        let start = g.start_ns as f64;
        let e = match (&g.arrivals, g.count) {
            (_, _) if g.stop_ns.is_some() => g.stop_ns.unwrap_or(0) as f64,
            (Arrivals::Poisson { mean_gap_ns }, Some(c)) => start + c as f64 * mean_gap_ns,
            (Arrivals::ClosedLoop { think_ns }, Some(c)) => start + c as f64 * *think_ns as f64,
            (Arrivals::File(f), _) => f.last().map_or(0.0, |x| x.start_ns as f64),
            _ => start,
        };
        end = end.max(e);
    }
    end
}

/// The values the series samples at each interval: the flows in progress,
/// and each series link's queue and utilisation (the sampled flows' windows
/// only while they run, so not counted).
fn values_per_sample(plan: &Plan) -> u64 {
    let per_link = 2 + plan.utilization_pkts as u64 + plan.utilization_retx as u64;
    1 + plan.series_links.len() as u64 * per_link
}

/// The estimate for `plan`.
pub fn estimate(plan: &Plan) -> Estimate {
    let flows = if plan.keep_flows {
        let n = plan.flows.len() as f64 + plan.generators.iter().map(|g| flows_of(g, plan.stop_ns)).sum::<f64>();
        (n * FLOW_BYTES as f64).min(u64::MAX as f64) as u64
    } else {
        0
    };
    let links = (plan.topology.links.len() as u64).saturating_mul(LINK_BYTES);
    let series = if plan.series {
        let rows = duration_ns(plan) / plan.interval_ns as f64 + 1.0;
        (rows * (values_per_sample(plan) * SERIES_VALUE_BYTES) as f64).min(u64::MAX as f64) as u64
    } else {
        0
    };
    Estimate { flows, links, series }
}

/// The memory the machine has available, in bytes, if it can be read.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

fn gb(b: u64) -> String {
    format!("{:.3} GB", b as f64 / 1e9)
}

/// Refuse `e` if it exceeds `available` bytes, naming the knob of its
/// largest part.
pub fn check(e: &Estimate, available: Option<u64>) -> Result<(), ConfigError> {
    let Some(avail) = available else { return Ok(()) };
    if e.total() <= avail {
        return Ok(());
    }
    let what = format!(
        "the run needs about {} of memory (flow records {}, links {}, series {}), more than the {} available",
        gb(e.total()),
        gb(e.flows),
        gb(e.links),
        gb(e.series),
        gb(avail)
    );
    if e.flows >= e.links && e.flows >= e.series {
        err(
            "metrics.flows",
            format!(
                "{what}: set metrics.flows = false (streaming tables such as size_stats remain), or create fewer flows"
            ),
        )
    } else if e.series >= e.links {
        err("metrics.interval_ms", format!("{what}: sample the series less often (a longer metrics.interval_ms), on fewer metrics.links, over a shorter stop_s, or set metrics.series = false"))
    } else {
        err("network", format!("{what}: use a topology with fewer links"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_only_beyond_what_is_available_naming_the_largest_part() {
        let e = Estimate {
            flows: 300,
            links: 100,
            series: 200,
        };
        assert!(check(&e, None).is_ok());
        assert!(check(&e, Some(600)).is_ok());
        assert_eq!(check(&e, Some(599)).unwrap_err().field, "metrics.flows");
        let e = Estimate { series: 400, ..e };
        assert_eq!(check(&e, Some(10)).unwrap_err().field, "metrics.interval_ms");
        let e = Estimate { links: 500, ..e };
        let m = check(&e, Some(10)).unwrap_err();
        assert_eq!(m.field, "network");
        assert!(m.message.contains("about 0.000 GB"), "{}", m.message);
    }

    #[test]
    fn the_series_estimate_is_the_values_the_run_samples() {
        // A long-lived flow keeps the run going to stop_s; the run's own
        // series bounds the estimate: at most one sample more.
        for links in [r#""bottleneck""#, r#""all""#] {
            let sc = format!(
                r#"{{"network": {{"topology": "dumbbell", "senders": 3, "bottleneck_bps": 1e7}},
                    "flows": [{{"long_lived": true}}], "stop_s": 2,
                    "metrics": {{"series": true, "flows": false, "links": {links}}}}}"#
            );
            let plan = crate::from_json(&sc).unwrap();
            let e = estimate(&plan);
            let per = values_per_sample(&plan);
            let links = plan.topology.links.len() as u64;
            assert_eq!(e.flows, 0);
            assert_eq!(e.links, links * LINK_BYTES);
            let sampled = crate::run(plan).series.len() as u64;
            let est = e.series / SERIES_VALUE_BYTES;
            assert!(
                sampled <= est && est <= sampled + per,
                "{sampled} values sampled, {est} estimated"
            );
        }
    }
}

//! `_core.describe`: what the engine resolved from a scenario, read off its plan,
//! so that Python never re-derives it (`fctlab.describe` is the wrapper).

use fctlab_core::scenario;
use fctlab_core::workload::Arrivals;
use pyo3::prelude::*;
use serde_json::json;

/// The resolved facts of a JSON scenario, as JSON:
///
/// - `buffer_pkts`: the router buffer in packets, as the engine resolved it;
/// - `buffer_key`: the key it was sized from, `network.buffer_pkts` (given in
///   packets) or `network.buffer_bdp` (given, or by default, in BDPs);
/// - `flows_expected`: flows the run creates if it is not stopped first: explicit
///   flows, plus per generator its `count` (Poisson: in total; closed loop: per
///   sender, so count x senders) or one per sender (long-lived). `null` when a
///   generator is bounded by time only (no `count`);
/// - `flows_long_lived`: those of them that never finish (the run ends at `stop_s`);
/// - `stop_ns`: the run's time limit, or `null`;
/// - `mss_bytes`, `header_bytes`: payload and header bytes of a data packet;
/// - `offered_load`: what the Poisson traffic offers the bottleneck, counting
///   headers (the sum of each entry's `load`, or of rate x mean size over the
///   bottleneck rate), `null` without Poisson traffic.
#[pyfunction]
fn describe(config_json: &str) -> PyResult<String> {
    let plan = scenario::from_json(config_json).map_err(crate::config_error)?;
    let long_lived = long_lived(&plan);
    Ok(json!({
        "buffer_pkts": plan.buffer_pkts,
        "buffer_key": if plan.scenario.network.buffer_pkts.is_some() { "network.buffer_pkts" } else { "network.buffer_bdp" },
        "flows_expected": plan.flows_expected(),
        "flows_long_lived": long_lived,
        "stop_ns": plan.stop_ns,
        "mss_bytes": plan.transport.mss_bytes,
        "header_bytes": plan.transport.header_bytes,
        "offered_load": offered_load(&plan),
    })
    .to_string())
}

/// Flows that never finish: explicit long-lived flows and one per sender of
/// each long-lived generator.
pub(crate) fn long_lived(plan: &scenario::Plan) -> usize {
    plan.flows.iter().filter(|f| f.size.is_long_lived()).count()
        + plan
            .generators
            .iter()
            .filter(|g| matches!(g.arrivals, Arrivals::LongLived))
            .map(|g| g.senders.len())
            .sum::<usize>()
}

/// What the Poisson traffic offers, counting headers: rate x mean size x
/// bits per packet over the bottleneck's rate, summed over the entries (None
/// without Poisson traffic). An entry between hosts (a traffic matrix) counts
/// the load of its busiest host link instead, as its `load` does.
pub(crate) fn offered_load(plan: &scenario::Plan) -> Option<f64> {
    let t = &plan.topology;
    let bottleneck_bps = t.links[t.bottleneck as usize].rate_bps;
    let pkt_bits = 8.0 * (plan.transport.mss_bytes + plan.transport.header_bytes) as f64;
    let loads: Vec<f64> = plan
        .generators
        .iter()
        .filter_map(|g| match (&g.arrivals, &g.sizes) {
            (Arrivals::Poisson { mean_gap_ns }, Some(d)) => {
                let bps = 1e9 / mean_gap_ns * d.mean_pkts() * pkt_bits;
                Some(match &g.hosts {
                    Some(h) => bps * h.flows_per_arrival() as f64 * h.busiest_share(),
                    None => bps / bottleneck_bps,
                })
            }
            _ => None,
        })
        .collect();
    (!loads.is_empty()).then(|| loads.iter().sum::<f64>())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)
}

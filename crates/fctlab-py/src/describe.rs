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
/// - `mss_bytes`, `header_bytes`: payload and header bytes of a data packet.
#[pyfunction]
fn describe(config_json: &str) -> PyResult<String> {
    let plan = scenario::from_json(config_json).map_err(crate::config_error)?;
    let long_lived = plan.flows.iter().filter(|f| f.size.is_long_lived()).count()
        + plan
            .generators
            .iter()
            .filter(|g| matches!(g.arrivals, Arrivals::LongLived))
            .map(|g| g.senders.len())
            .sum::<usize>();
    Ok(json!({
        "buffer_pkts": plan.buffer_pkts,
        "buffer_key": if plan.scenario.network.buffer_pkts.is_some() { "network.buffer_pkts" } else { "network.buffer_bdp" },
        "flows_expected": plan.flows_expected(),
        "flows_long_lived": long_lived,
        "stop_ns": plan.stop_ns,
        "mss_bytes": plan.transport.mss_bytes,
        "header_bytes": plan.transport.header_bytes,
    })
    .to_string())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(describe, m)?)
}

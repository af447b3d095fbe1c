//! Scenarios that run, but probably not as meant: one line each, for the
//! caller to show (the Python binding raises them as `fctlab.ConfigWarning`).

use super::Plan;

/// Queues that mark CE: `ecn-threshold`, `red-ecn`, and `red` with `ecn = true`.
fn queue_marks(plan: &Plan) -> bool {
    let n = &plan.scenario.network;
    match n.queue.as_str() {
        "ecn-threshold" | "red-ecn" => true,
        "red" => n
            .tables
            .get("red")
            .and_then(|t| t.get("ecn"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
        _ => false,
    }
}

/// What the plan's caller should be warned of.
pub fn warnings(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    if plan.transport_schemes.iter().any(|s| s == "tcp-dctcp") && !queue_marks(plan) {
        out.push(format!(
            "transport.scheme: tcp-dctcp reacts to CE marks, and network.queue = {:?} never marks: \
             DCTCP behaves as NewReno here (use queue = \"ecn-threshold\", \"red-ecn\" or red with ecn = true)",
            plan.scenario.network.queue
        ));
    }
    out
}

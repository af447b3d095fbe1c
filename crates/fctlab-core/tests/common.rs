//! Helpers shared by the integration tests.
#![allow(dead_code)]

use fctlab_core::metrics::FlowRecord;
use fctlab_core::{from_json, run, RunOutput};
use serde_json::Value;

pub fn run_json(v: &Value) -> RunOutput {
    let plan = from_json(&v.to_string()).unwrap_or_else(|e| panic!("scenario refused: {e}"));
    run(plan)
}

pub fn flows(v: &Value) -> Vec<FlowRecord> {
    run_json(v).flows
}

/// Serialisation time in ns as the engine documents it: round(bytes * 8e9 / rate).
pub fn ser(bytes: u64, rate_bps: f64) -> u64 {
    (bytes as f64 * 8e9 / rate_bps).round() as u64
}

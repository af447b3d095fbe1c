//! A run's output as Python dicts of numpy columns (`_core.run`'s return value).
//!
//! Nothing here runs Python code: the numpy API is loaded when the module is
//! imported (see `lib.rs`), so a pending Ctrl-C cannot break a conversion.

use fctlab_core::engine::RunOutput;
use fctlab_core::metrics::size_stats::SizeStatsTable;
use fctlab_core::metrics::{FlowRecord, Series};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Unsigned values as an int64 column.
fn i64s<T: Copy + Into<u64>>(v: &[T]) -> Vec<i64> {
    v.iter().map(|&x| x.into() as i64).collect()
}

/// Optional values as an int64 column, -1 where absent.
fn opt_i64s(v: &[Option<u64>]) -> Vec<i64> {
    v.iter().map(|x| x.map_or(-1, |x| x as i64)).collect()
}

/// Optional reals, NaN where absent.
fn opt_reals(v: &[Option<f64>]) -> Vec<f64> {
    v.iter().map(|x| x.unwrap_or(f64::NAN)).collect()
}

/// Set `key` of `d` to a numpy array made of `v`.
fn col<'py, T: numpy::Element>(d: &Bound<'py, PyDict>, key: &str, v: Vec<T>) -> PyResult<()> {
    d.set_item(key, v.into_pyarray(d.py()))
}

/// One column of the flow records.
fn flow_col(flows: &[FlowRecord], f: impl Fn(&FlowRecord) -> i64) -> Vec<i64> {
    flows.iter().map(f).collect()
}

/// The flow records: one int64 column per field, -1 where a value is absent
/// (sizes of long-lived flows, finish times of flows still running).
pub fn flows<'py>(py: Python<'py>, flows: &[FlowRecord], schemes: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let sized = |r: &FlowRecord, v: u64| if r.long_lived { -1 } else { v as i64 };
    col(&d, "flow_id", flow_col(flows, |r| r.flow_id as i64))?;
    col(&d, "sender", flow_col(flows, |r| r.sender as i64))?;
    col(&d, "size_bytes", flow_col(flows, |r| sized(r, r.size_bytes)))?;
    col(&d, "size_pkts", flow_col(flows, |r| sized(r, r.size_pkts)))?;
    col(&d, "start_ns", flow_col(flows, |r| r.start_ns as i64))?;
    col(
        &d,
        "finish_ns",
        flow_col(flows, |r| r.finish_ns.map_or(-1, |t| t as i64)),
    )?;
    col(&d, "acked_ns", flow_col(flows, |r| r.acked_ns.map_or(-1, |t| t as i64)))?;
    col(&d, "retransmits", flow_col(flows, |r| r.retransmits as i64))?;
    col(&d, "delivered_pkts", flow_col(flows, |r| r.delivered_pkts as i64))?;
    col(&d, "drops", flow_col(flows, |r| r.drops as i64))?;
    col(&d, "marks", flow_col(flows, |r| r.marks as i64))?;
    col(&d, "ideal_ns", flow_col(flows, |r| sized(r, r.ideal_ns)))?;
    col(&d, "alone_ns", flow_col(flows, |r| sized(r, r.alone_ns)))?;
    col(
        &d,
        "ps_fct_ns",
        flow_col(flows, |r| r.ps_fct_ns.map_or(-1, |t| t as i64)),
    )?;
    let transport: Vec<i32> = flows.iter().map(|r| r.transport as i32).collect();
    col(&d, "transport", transport)?;
    // Flows between hosts: the destination host and the data path's index
    // among the equal-cost paths (-1: none).
    if flows.iter().any(|r| r.dst.is_some() || r.path.is_some()) {
        col(&d, "dst", flow_col(flows, |r| r.dst.map_or(-1, i64::from)))?;
        col(&d, "path", flow_col(flows, |r| r.path.map_or(-1, i64::from)))?;
    }
    d.set_item("schemes", schemes)?;
    Ok(d)
}

/// The time series (metric and element as codes into the name lists).
pub fn series(py: Python<'_>, s: Series) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    col(&d, "t_ns", i64s(&s.t_ns))?;
    col(&d, "metric", s.metric.iter().map(|&m| m as i32).collect::<Vec<_>>())?;
    col(&d, "element", s.element.iter().map(|&e| e as i32).collect::<Vec<_>>())?;
    col(&d, "value", s.value)?;
    d.set_item("metric_names", s.metric_names)?;
    d.set_item("element_names", s.element_names)?;
    Ok(d)
}

/// Prefix times of the measuring flows, and probe delays (`rtt_ns` -1 where
/// the answer did not come back).
fn prefixes_and_probes<'py>(py: Python<'py>, out: &RunOutput) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let pf = &out.prefixes;
    let prefixes = PyDict::new(py);
    col(&prefixes, "flow_id", i64s(&pf.flow_id))?;
    col(&prefixes, "k", i64s(&pf.k))?;
    col(&prefixes, "fct_ns", i64s(&pf.fct_ns))?;
    let pr = &out.probes;
    let probes = PyDict::new(py);
    col(&probes, "flow_id", i64s(&pr.flow_id))?;
    col(&probes, "seq", i64s(&pr.seq))?;
    col(&probes, "sent_ns", i64s(&pr.sent_ns))?;
    col(&probes, "one_way_ns", i64s(&pr.one_way_ns))?;
    col(&probes, "rtt_ns", opt_i64s(&pr.rtt_ns))?;
    Ok((prefixes, probes))
}

/// The streaming statistics per flow size. Nullable columns: -1 (integers) or
/// NaN (reals) where a size has no completed flow.
fn size_stats<'py>(py: Python<'py>, t: &SizeStatsTable) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    col(&d, "size_pkts", i64s(&t.size_pkts))?;
    col(&d, "flows_started", i64s(&t.flows_started))?;
    col(&d, "flows_completed", i64s(&t.flows_completed))?;
    col(&d, "mean_fct_ns", opt_reals(&t.mean_fct_ns))?;
    col(&d, "min_fct_ns", opt_i64s(&t.min_fct_ns))?;
    col(&d, "max_fct_ns", opt_i64s(&t.max_fct_ns))?;
    // Sums fit i64 for any run (10^8 flows of 10^9 ns is 10^17).
    let sums = t.sum_fct_ns.iter().map(|&x| x.min(i64::MAX as u128) as i64).collect();
    col::<i64>(&d, "sum_fct_ns", sums)?;
    col(
        &d,
        "sketch_size",
        t.sketch.iter().map(|r| r.0 as i64).collect::<Vec<_>>(),
    )?;
    col(&d, "sketch_bucket", t.sketch.iter().map(|r| r.1).collect::<Vec<_>>())?;
    col(
        &d,
        "sketch_count",
        t.sketch.iter().map(|r| r.2 as i64).collect::<Vec<_>>(),
    )?;
    let mut names = Vec::new();
    for (name, values) in &t.quantiles {
        col(&d, name, opt_reals(values))?;
        names.push(name.clone());
    }
    d.set_item("quantile_columns", names)?;
    d.set_item("alpha", t.alpha)?;
    Ok(d)
}

/// The run's counters, end time, interruption and per-link totals.
fn stats<'py>(py: Python<'py>, out: &RunOutput, interrupted_by: Option<String>) -> PyResult<Bound<'py, PyDict>> {
    let c = &out.counters;
    let d = PyDict::new(py);
    let counters = [
        ("events", c.events),
        ("packet_hops", c.packet_hops),
        ("packets_sent", c.packets_sent),
        ("packets_delivered", c.packets_delivered),
        ("packets_dropped", c.packets_dropped),
        ("packets_in_network", out.in_network),
        ("data_sent", c.data_sent),
        ("data_delivered", c.data_delivered),
        ("data_dropped", c.data_dropped),
        ("syn_dropped", c.syn_dropped),
        ("marks", c.marks),
        ("flows_started", c.flows_started),
        ("flows_completed", c.flows_completed),
        ("end_ns", out.end_ns),
    ];
    for (k, v) in counters {
        d.set_item(k, v)?;
    }
    d.set_item("max_queue_excess", c.max_queue_excess)?;
    d.set_item("wall_s", out.wall_s)?;
    d.set_item("setup_s", out.setup_s)?;
    d.set_item("interrupted", out.interrupted || interrupted_by.is_some())?;
    d.set_item("interrupted_by", interrupted_by)?;
    d.set_item("buffer_pkts", out.buffer_pkts)?;
    // Per link: busy time and the part of it spent on packets the senders
    // marked as retransmissions.
    let links = PyDict::new(py);
    for l in &out.links {
        let ld = PyDict::new(py);
        ld.set_item("busy_ns", l.busy_ns)?;
        ld.set_item("retx_busy_ns", l.retx_busy_ns)?;
        ld.set_item("pkts_sent", l.pkts_sent)?;
        ld.set_item("retx_pkts_sent", l.retx_pkts_sent)?;
        links.set_item(&l.name, ld)?;
    }
    d.set_item("links", links)?;
    // A fabric's tiers: utilisation and ECMP imbalance (max over mean load).
    if !out.tiers.is_empty() {
        let tiers = PyDict::new(py);
        for t in &out.tiers {
            let td = PyDict::new(py);
            td.set_item("links", t.links)?;
            td.set_item("mean_utilization", t.mean_utilization)?;
            td.set_item("max_utilization", t.max_utilization)?;
            td.set_item("imbalance", t.imbalance)?;
            tiers.set_item(t.tier, td)?;
        }
        d.set_item("tiers", tiers)?;
    }
    d.set_item("engine_version", fctlab_core::VERSION)?;
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    d.set_item("build_profile", profile)?;
    Ok(d)
}

/// Everything `_core.run` returns: flows, series, stats, prefixes,
/// size_stats (None unless asked for) and probes.
pub fn run_output(
    py: Python<'_>,
    out: RunOutput,
    schemes: Vec<String>,
    interrupted_by: Option<String>,
) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", flows(py, &out.flows, schemes)?)?;
    d.set_item("stats", stats(py, &out, interrupted_by)?)?;
    let (prefixes, probes) = prefixes_and_probes(py, &out)?;
    d.set_item("prefixes", prefixes)?;
    d.set_item("probes", probes)?;
    let ss = out.size_stats.as_ref().map(|t| size_stats(py, t)).transpose()?;
    d.set_item("size_stats", ss)?;
    d.set_item("series", series(py, out.series)?)?;
    Ok(d)
}

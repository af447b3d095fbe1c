//! Python bindings for fctlab's engine. The only crate that imports PyO3: errors
//! become Python exceptions here, tables become numpy arrays.

mod describe;
mod ideal;
use fctlab_core::engine::{Engine, Progress};
use fctlab_core::scenario;
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "A scenario was refused: args are (message, field)."
);

fn config_error(e: scenario::ConfigError) -> PyErr {
    ConfigError::new_err((e.to_string(), e.field))
}

/// Validate a JSON scenario without running it. Returns the resolved buffer size.
#[pyfunction]
fn validate(config_json: &str) -> PyResult<usize> {
    let plan = scenario::from_json(config_json).map_err(config_error)?;
    Ok(plan.buffer_pkts)
}

/// The catalogue of schemes, queues, topologies and distributions, as JSON.
#[pyfunction]
fn catalog() -> String {
    scenario::catalog::catalog().to_string()
}

/// Run a JSON scenario. `progress`, if given, is called about once a second with
/// a dict; it may return False to stop the run (finished flows are kept).
/// Ctrl-C stops the run the same way.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None))]
fn run<'py>(py: Python<'py>, config_json: &str, progress: Option<Py<PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let plan = scenario::from_json(config_json).map_err(config_error)?;
    let schemes = plan.transport_schemes.clone();
    let engine = Engine::new(plan);
    let mut py_err: Option<PyErr> = None;
    let out = py.detach(|| {
        let mut cb = |p: &Progress| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    py_err = Some(e);
                    return false;
                }
                if let Some(f) = &progress {
                    let d = PyDict::new(py);
                    let _ = d.set_item("sim_ns", p.sim_ns);
                    let _ = d.set_item("stop_ns", p.stop_ns);
                    let _ = d.set_item("events", p.events);
                    let _ = d.set_item("flows_started", p.flows_started);
                    let _ = d.set_item("flows_completed", p.flows_completed);
                    let _ = d.set_item("data_delivered", p.data_delivered);
                    let _ = d.set_item("wall_s", p.wall_s);
                    match f.call1(py, (d,)) {
                        Ok(r) => !r.bind(py).extract::<bool>().is_ok_and(|b| !b),
                        Err(e) => {
                            py_err = Some(e);
                            false
                        }
                    }
                } else {
                    true
                }
            })
        };
        engine.run(&mut cb)
    });
    let interrupted_by = py_err.map(|e| e.to_string());
    let n = out.flows.len();
    let mut flow_id = Vec::with_capacity(n);
    let mut sender = Vec::with_capacity(n);
    let mut size_bytes = Vec::with_capacity(n);
    let mut size_pkts = Vec::with_capacity(n);
    let mut start_ns = Vec::with_capacity(n);
    let mut finish_ns = Vec::with_capacity(n);
    let mut acked_ns = Vec::with_capacity(n);
    let mut retransmits = Vec::with_capacity(n);
    let mut delivered_pkts = Vec::with_capacity(n);
    let mut drops = Vec::with_capacity(n);
    let mut marks = Vec::with_capacity(n);
    let mut ideal_ns = Vec::with_capacity(n);
    let mut ps_fct_ns = Vec::with_capacity(n);
    let mut transport = Vec::with_capacity(n);
    for r in &out.flows {
        transport.push(r.transport as i32);
        let long = r.long_lived;
        flow_id.push(r.flow_id as i64);
        sender.push(r.sender as i64);
        size_bytes.push(if long { -1 } else { r.size_bytes as i64 });
        size_pkts.push(if long { -1 } else { r.size_pkts as i64 });
        start_ns.push(r.start_ns as i64);
        finish_ns.push(r.finish_ns.map_or(-1, |t| t as i64));
        acked_ns.push(r.acked_ns.map_or(-1, |t| t as i64));
        retransmits.push(r.retransmits as i64);
        delivered_pkts.push(r.delivered_pkts as i64);
        drops.push(r.drops as i64);
        marks.push(r.marks as i64);
        ideal_ns.push(if long { -1 } else { r.ideal_ns as i64 });
        ps_fct_ns.push(r.ps_fct_ns.map_or(-1, |t| t as i64));
    }
    let flows = PyDict::new(py);
    flows.set_item("flow_id", flow_id.into_pyarray(py))?;
    flows.set_item("sender", sender.into_pyarray(py))?;
    flows.set_item("size_bytes", size_bytes.into_pyarray(py))?;
    flows.set_item("size_pkts", size_pkts.into_pyarray(py))?;
    flows.set_item("start_ns", start_ns.into_pyarray(py))?;
    flows.set_item("finish_ns", finish_ns.into_pyarray(py))?;
    flows.set_item("acked_ns", acked_ns.into_pyarray(py))?;
    flows.set_item("retransmits", retransmits.into_pyarray(py))?;
    flows.set_item("delivered_pkts", delivered_pkts.into_pyarray(py))?;
    flows.set_item("drops", drops.into_pyarray(py))?;
    flows.set_item("marks", marks.into_pyarray(py))?;
    flows.set_item("ideal_ns", ideal_ns.into_pyarray(py))?;
    flows.set_item("ps_fct_ns", ps_fct_ns.into_pyarray(py))?;
    flows.set_item("transport", transport.into_pyarray(py))?;
    flows.set_item("schemes", schemes)?;
    // Flows between hosts: the destination host and the data path's index
    // among the equal-cost paths (-1: none).
    if out.flows.iter().any(|r| r.dst.is_some() || r.path.is_some()) {
        let col = |f: fn(&fctlab_core::metrics::FlowRecord) -> Option<u32>| {
            out.flows
                .iter()
                .map(|r| f(r).map_or(-1, |x| x as i64))
                .collect::<Vec<i64>>()
        };
        flows.set_item("dst", col(|r| r.dst).into_pyarray(py))?;
        flows.set_item("path", col(|r| r.path).into_pyarray(py))?;
    }

    let s = out.series;
    let series = PyDict::new(py);
    series.set_item(
        "t_ns",
        s.t_ns.iter().map(|&t| t as i64).collect::<Vec<_>>().into_pyarray(py),
    )?;
    series.set_item(
        "metric",
        s.metric.iter().map(|&m| m as i32).collect::<Vec<_>>().into_pyarray(py),
    )?;
    series.set_item(
        "element",
        s.element.iter().map(|&e| e as i32).collect::<Vec<_>>().into_pyarray(py),
    )?;
    series.set_item("value", s.value.into_pyarray(py))?;
    series.set_item("metric_names", s.metric_names)?;
    series.set_item("element_names", s.element_names)?;

    let pf = &out.prefixes;
    let prefixes = PyDict::new(py);
    prefixes.set_item(
        "flow_id",
        pf.flow_id
            .iter()
            .map(|&x| x as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    prefixes.set_item("k", pf.k.iter().map(|&x| x as i64).collect::<Vec<_>>().into_pyarray(py))?;
    prefixes.set_item(
        "fct_ns",
        pf.fct_ns.iter().map(|&x| x as i64).collect::<Vec<_>>().into_pyarray(py),
    )?;

    // Probe delays; rtt_ns -1 where the answer did not come back.
    let pr = &out.probes;
    let probes = PyDict::new(py);
    probes.set_item(
        "flow_id",
        pr.flow_id
            .iter()
            .map(|&x| x as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    probes.set_item(
        "seq",
        pr.seq.iter().map(|&x| x as i64).collect::<Vec<_>>().into_pyarray(py),
    )?;
    probes.set_item(
        "sent_ns",
        pr.sent_ns
            .iter()
            .map(|&x| x as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    probes.set_item(
        "one_way_ns",
        pr.one_way_ns
            .iter()
            .map(|&x| x as i64)
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;
    probes.set_item(
        "rtt_ns",
        pr.rtt_ns
            .iter()
            .map(|x| x.map_or(-1, |v| v as i64))
            .collect::<Vec<_>>()
            .into_pyarray(py),
    )?;

    // Nullable columns: -1 (integers) or NaN (reals) where a size has no completed flow.
    let size_stats = match &out.size_stats {
        None => None,
        Some(t) => {
            let d = PyDict::new(py);
            let ints = |v: &[u64]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
            let opt_int = |v: &[Option<u64>]| v.iter().map(|x| x.map_or(-1, |x| x as i64)).collect::<Vec<_>>();
            let opt_real = |v: &[Option<f64>]| v.iter().map(|x| x.unwrap_or(f64::NAN)).collect::<Vec<_>>();
            d.set_item("size_pkts", ints(&t.size_pkts).into_pyarray(py))?;
            d.set_item("flows_started", ints(&t.flows_started).into_pyarray(py))?;
            d.set_item("flows_completed", ints(&t.flows_completed).into_pyarray(py))?;
            d.set_item("mean_fct_ns", opt_real(&t.mean_fct_ns).into_pyarray(py))?;
            d.set_item("min_fct_ns", opt_int(&t.min_fct_ns).into_pyarray(py))?;
            d.set_item("max_fct_ns", opt_int(&t.max_fct_ns).into_pyarray(py))?;
            // Sums fit i64 for any run (10^8 flows of 10^9 ns is 10^17).
            d.set_item(
                "sum_fct_ns",
                t.sum_fct_ns
                    .iter()
                    .map(|&x| x.min(i64::MAX as u128) as i64)
                    .collect::<Vec<_>>()
                    .into_pyarray(py),
            )?;
            d.set_item(
                "sketch_size",
                t.sketch.iter().map(|r| r.0 as i64).collect::<Vec<_>>().into_pyarray(py),
            )?;
            d.set_item(
                "sketch_bucket",
                t.sketch.iter().map(|r| r.1).collect::<Vec<_>>().into_pyarray(py),
            )?;
            d.set_item(
                "sketch_count",
                t.sketch.iter().map(|r| r.2 as i64).collect::<Vec<_>>().into_pyarray(py),
            )?;
            let mut names = Vec::new();
            for (name, col) in &t.quantiles {
                d.set_item(name, opt_real(col).into_pyarray(py))?;
                names.push(name.clone());
            }
            d.set_item("quantile_columns", names)?;
            d.set_item("alpha", t.alpha)?;
            Some(d)
        }
    };

    let c = &out.counters;
    let stats = PyDict::new(py);
    stats.set_item("events", c.events)?;
    stats.set_item("packet_hops", c.packet_hops)?;
    stats.set_item("packets_sent", c.packets_sent)?;
    stats.set_item("packets_delivered", c.packets_delivered)?;
    stats.set_item("packets_dropped", c.packets_dropped)?;
    stats.set_item("packets_in_network", out.in_network)?;
    stats.set_item("data_sent", c.data_sent)?;
    stats.set_item("data_delivered", c.data_delivered)?;
    stats.set_item("data_dropped", c.data_dropped)?;
    stats.set_item("syn_dropped", c.syn_dropped)?;
    stats.set_item("marks", c.marks)?;
    stats.set_item("max_queue_excess", c.max_queue_excess)?;
    stats.set_item("flows_started", c.flows_started)?;
    stats.set_item("flows_completed", c.flows_completed)?;
    stats.set_item("end_ns", out.end_ns)?;
    stats.set_item("wall_s", out.wall_s)?;
    stats.set_item("interrupted", out.interrupted)?;
    stats.set_item("interrupted_by", interrupted_by)?;
    stats.set_item("buffer_pkts", out.buffer_pkts)?;
    // Per link: busy time and the part of it spent on packets the senders
    // marked as retransmissions.
    let links = PyDict::new(py);
    for l in &out.links {
        let d = PyDict::new(py);
        d.set_item("busy_ns", l.busy_ns)?;
        d.set_item("retx_busy_ns", l.retx_busy_ns)?;
        d.set_item("pkts_sent", l.pkts_sent)?;
        d.set_item("retx_pkts_sent", l.retx_pkts_sent)?;
        links.set_item(&l.name, d)?;
    }
    stats.set_item("links", links)?;
    stats.set_item("engine_version", fctlab_core::VERSION)?;
    stats.set_item(
        "build_profile",
        if cfg!(debug_assertions) { "debug" } else { "release" },
    )?;

    let d = PyDict::new(py);
    d.set_item("flows", flows)?;
    d.set_item("series", series)?;
    d.set_item("stats", stats)?;
    d.set_item("prefixes", prefixes)?;
    d.set_item("size_stats", size_stats)?;
    d.set_item("probes", probes)?;
    Ok(d)
}

/// Live mode: run one host's flows (senders and receivers) over UDP with the
/// wall clock. Takes and returns JSON (see `fctlab_live::host`).
#[pyfunction]
fn live_host(py: Python<'_>, cfg_json: &str) -> PyResult<String> {
    let cfg: fctlab_live::host::HostCfg =
        serde_json::from_str(cfg_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let out = py
        .detach(|| fctlab_live::host::run(&cfg))
        .map_err(PyValueError::new_err)?;
    Ok(serde_json::to_string(&out).expect("host output serialises"))
}

/// Live mode: the link emulator (delays, and the bottleneck's queue and rate;
/// see `fctlab_live::link`).
#[pyfunction]
fn live_link(py: Python<'_>, cfg_json: &str) -> PyResult<String> {
    let cfg: fctlab_live::link::EmuCfg =
        serde_json::from_str(cfg_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let out = py
        .detach(|| fctlab_live::link::run(&cfg))
        .map_err(PyValueError::new_err)?;
    Ok(serde_json::to_string(&out).expect("emulator output serialises"))
}

/// Live mode's datagram decoder: None for a good datagram, else the reason it is refused.
#[pyfunction]
fn live_refusal(datagram: &[u8]) -> Option<&'static str> {
    fctlab_live::wire::decode(datagram).err().map(|b| b.name())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("__version__", fctlab_core::VERSION)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(live_host, m)?)?;
    m.add_function(wrap_pyfunction!(live_link, m)?)?;
    m.add_function(wrap_pyfunction!(live_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    ideal::register(m)?;
    describe::register(m)?;
    Ok(())
}

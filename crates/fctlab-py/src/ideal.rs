//! Bindings for `fctlab_core::ideal`: the analytic baselines and the fluid
//! simulators, over numpy arrays. Every refused argument becomes a `ValueError`
//! whose message starts with the argument's name (`sizes_bytes[3]: ...`).
//!
//! The functions are registered in `fctlab._core` with an `ideal_` prefix; the
//! user-facing names and docstrings are in `python/fctlab/ideal.py`.

use std::borrow::Cow;

use fctlab_core::ideal::{self, Handshake, IdealError, SizeLaw};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// An [`IdealError`] as a Python `ValueError` ("arg: message").
fn value_error(e: IdealError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A refused argument, by name.
fn refuse<T>(arg: impl Into<String>, message: impl Into<String>) -> PyResult<T> {
    Err(value_error(IdealError {
        arg: arg.into(),
        message: message.into(),
    }))
}

/// A numpy array as a slice, copying only if it is not contiguous.
fn slice<'a, T: numpy::Element + Copy>(a: &'a PyReadonlyArray1<'_, T>) -> Cow<'a, [T]> {
    match a.as_slice() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(a.as_array().to_vec()),
    }
}

/// Non-negative integers from an int64 array, refusing negatives by index.
fn non_negative_u64(name: &str, a: &[i64]) -> PyResult<Vec<u64>> {
    a.iter()
        .enumerate()
        .map(|(i, &v)| {
            if v >= 0 {
                Ok(v as u64)
            } else {
                refuse(format!("{name}[{i}]"), format!("must be >= 0, got {v}"))
            }
        })
        .collect()
}

/// Routes in compressed form (`links` of all routes end to end, route i =
/// `links[offsets[i]..offsets[i + 1]]`) as one `Vec` per flow.
fn routes_from_csr(links: &[i64], offsets: &[i64]) -> PyResult<Vec<Vec<usize>>> {
    if offsets.is_empty() || offsets[0] != 0 || *offsets.last().unwrap_or(&0) as usize != links.len() {
        return refuse(
            "routes",
            "malformed route table (offsets must start at 0 and end at the number of links listed)",
        );
    }
    let mut routes = Vec::with_capacity(offsets.len() - 1);
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return refuse("routes", "malformed route table (offsets must not decrease)");
        }
        let mut r = Vec::with_capacity((w[1] - w[0]) as usize);
        for (h, &l) in links[w[0] as usize..w[1] as usize].iter().enumerate() {
            if l < 0 {
                return refuse(format!("routes[{i}][{h}]"), format!("link ids are >= 0, got {l}"));
            }
            r.push(l as usize);
        }
        routes.push(r);
    }
    Ok(routes)
}

fn handshake(on: bool) -> Handshake {
    if on {
        Handshake::On
    } else {
        Handshake::Off
    }
}

/// Apply a scalar formula to every element, naming the failing element.
fn map_sizes<T: Copy>(name: &str, xs: &[T], f: impl Fn(T) -> Result<f64, IdealError>) -> PyResult<Vec<f64>> {
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            f(x).map_err(|mut e| {
                if e.arg == name {
                    e.arg = format!("{name}[{i}]");
                }
                value_error(e)
            })
        })
        .collect()
}

/// M/G/1-PS conditional mean sojourn time, ns, for each size.
#[pyfunction]
fn ideal_ps_sojourn_ns<'py>(
    py: Python<'py>,
    size_bytes: PyReadonlyArray1<'py, f64>,
    capacity_bps: f64,
    load: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let out = map_sizes("size_bytes", &slice(&size_bytes), |x| {
        ideal::ps_sojourn_ns(x, capacity_bps, load)
    })?;
    Ok(out.into_pyarray(py))
}

/// 1 / (1 − ρ).
#[pyfunction]
fn ideal_ps_slowdown(load: f64) -> PyResult<f64> {
    ideal::ps_slowdown(load).map_err(value_error)
}

/// The RCP papers' PS FCT curve, ns, for each size.
#[pyfunction]
fn ideal_ps_fct_ns<'py>(
    py: Python<'py>,
    size_bytes: PyReadonlyArray1<'py, f64>,
    capacity_bps: f64,
    load: f64,
    rtt_ns: f64,
    with_handshake: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let h = handshake(with_handshake);
    let out = map_sizes("size_bytes", &slice(&size_bytes), |x| {
        ideal::ps_fct_ns(x, capacity_bps, load, rtt_ns, h)
    })?;
    Ok(out.into_pyarray(py))
}

/// Slow-start rounds for each size (packets).
#[pyfunction]
fn ideal_slow_start_rounds<'py>(
    py: Python<'py>,
    size_pkts: PyReadonlyArray1<'py, i64>,
    init_cwnd_pkts: i64,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let sizes = non_negative_u64("size_pkts", &slice(&size_pkts))?;
    if init_cwnd_pkts < 1 {
        return refuse("init_cwnd_pkts", format!("must be >= 1, got {init_cwnd_pkts}"));
    }
    let out = map_sizes("size_pkts", &sizes, |l| {
        ideal::slow_start_rounds(l, init_cwnd_pkts as u64).map(f64::from)
    })?;
    Ok(out.into_iter().map(|k| k as i64).collect::<Vec<_>>().into_pyarray(py))
}

/// The slow-start FCT bound, ns, for each size (packets).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn ideal_slow_start_fct_ns<'py>(
    py: Python<'py>,
    size_pkts: PyReadonlyArray1<'py, i64>,
    pkt_bytes: f64,
    capacity_bps: f64,
    rtt_ns: f64,
    init_cwnd_pkts: i64,
    with_handshake: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let sizes = non_negative_u64("size_pkts", &slice(&size_pkts))?;
    if init_cwnd_pkts < 1 {
        return refuse("init_cwnd_pkts", format!("must be >= 1, got {init_cwnd_pkts}"));
    }
    let h = handshake(with_handshake);
    let out = map_sizes("size_pkts", &sizes, |l| {
        ideal::slow_start_fct_ns(l, pkt_bytes, capacity_bps, rtt_ns, init_cwnd_pkts as u64, h)
    })?;
    Ok(out.into_pyarray(py))
}

/// The keys each size law accepts (bytes, or packets with `pkt_bytes`).
const LAW_KEYS: &[(&str, &[&str])] = &[
    ("pareto", &["mean_bytes", "mean_pkts", "shape", "pkt_bytes"]),
    ("exponential", &["mean_bytes", "mean_pkts", "pkt_bytes"]),
    ("fixed", &["bytes", "pkts", "pkt_bytes"]),
    (
        "uniform",
        &["min_bytes", "max_bytes", "min_pkts", "max_pkts", "pkt_bytes"],
    ),
    ("empirical", &["samples_bytes"]),
];

/// A number from the `dist` dict, if present.
fn dist_f64(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Option<f64>> {
    match d.get_item(key)? {
        None => Ok(None),
        Some(v) => v
            .extract::<f64>()
            .map(Some)
            .or_else(|_| refuse(format!("dist.{key}"), format!("must be a number, got {v}"))),
    }
}

/// A size in bytes given as `<stem>_bytes`, or as `<stem>_pkts` times `pkt_bytes`.
fn dist_bytes(d: &Bound<'_, PyDict>, bytes_key: &str, pkts_key: &str) -> PyResult<f64> {
    match (dist_f64(d, bytes_key)?, dist_f64(d, pkts_key)?) {
        (Some(b), None) => Ok(b),
        (None, Some(p)) => match dist_f64(d, "pkt_bytes")? {
            Some(pb) => Ok(p * pb),
            None => refuse(
                "dist.pkt_bytes",
                format!("is required with {pkts_key} (bytes per packet)"),
            ),
        },
        (Some(_), Some(_)) => refuse(
            format!("dist.{bytes_key}"),
            format!("give {bytes_key} or {pkts_key}, not both"),
        ),
        (None, None) => refuse(
            format!("dist.{bytes_key}"),
            format!("is required (or {pkts_key} with pkt_bytes)"),
        ),
    }
}

/// Parse a size-law dict: `{"dist": "pareto", "mean_bytes": 25e3, "shape": 1.2}`,
/// `{"dist": "exponential", "mean_bytes": ...}`, `{"dist": "fixed", "bytes": ...}`,
/// `{"dist": "uniform", "min_bytes": ..., "max_bytes": ...}`,
/// `{"dist": "empirical", "samples_bytes": array}`; `_pkts` keys with `pkt_bytes`.
fn parse_law(d: &Bound<'_, PyDict>) -> PyResult<SizeLaw> {
    let name: String = match d.get_item("dist")? {
        Some(v) => v
            .extract()
            .or_else(|_| refuse("dist.dist", format!("must be a string, got {v}")))?,
        None => {
            return refuse(
                "dist.dist",
                "is required: one of pareto, exponential, fixed, uniform, empirical",
            )
        }
    };
    let Some((_, allowed)) = LAW_KEYS.iter().find(|(n, _)| *n == name) else {
        return refuse(
            "dist.dist",
            format!("unknown size law '{name}': one of pareto, exponential, fixed, uniform, empirical"),
        );
    };
    for k in d.keys() {
        let k: String = k.extract()?;
        if k != "dist" && !allowed.contains(&k.as_str()) {
            return refuse(
                format!("dist.{k}"),
                format!("is not a parameter of '{name}' (allowed: {})", allowed.join(", ")),
            );
        }
    }
    let law = match name.as_str() {
        "pareto" => {
            let shape = dist_f64(d, "shape")?.map_or_else(|| refuse("dist.shape", "is required for pareto"), Ok)?;
            SizeLaw::pareto(dist_bytes(d, "mean_bytes", "mean_pkts")?, shape)
        }
        "exponential" => SizeLaw::exponential(dist_bytes(d, "mean_bytes", "mean_pkts")?),
        "fixed" => SizeLaw::fixed(dist_bytes(d, "bytes", "pkts")?),
        "uniform" => SizeLaw::uniform(
            dist_bytes(d, "min_bytes", "min_pkts")?,
            dist_bytes(d, "max_bytes", "max_pkts")?,
        ),
        _ => {
            let Some(s) = d.get_item("samples_bytes")? else {
                return refuse("dist.samples_bytes", "is required for empirical");
            };
            let v: Vec<f64> = match s.extract::<PyReadonlyArray1<f64>>() {
                Ok(a) => slice(&a).into_owned(),
                Err(_) => s
                    .extract()
                    .or_else(|_| refuse("dist.samples_bytes", "must be a 1-D sequence of numbers"))?,
            };
            SizeLaw::empirical(&v)
        }
    };
    law.map_err(|mut e| {
        e.arg = format!("dist.{}", e.arg);
        value_error(e)
    })
}

/// M/G/1-SRPT conditional mean sojourn time, ns, for each size.
#[pyfunction]
fn ideal_srpt_sojourn_ns<'py>(
    py: Python<'py>,
    size_bytes: PyReadonlyArray1<'py, f64>,
    dist: &Bound<'py, PyDict>,
    capacity_bps: f64,
    load: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let law = parse_law(dist)?;
    let xs = slice(&size_bytes);
    let out = ideal::srpt_sojourn_many_ns(&xs, &law, capacity_bps, load).map_err(|mut e| {
        e.arg = e.arg.replace("sizes_bytes", "size_bytes");
        value_error(e)
    })?;
    Ok(out.into_pyarray(py))
}

/// Finish times as an int64 array.
fn finish_array(py: Python<'_>, f: Vec<u64>) -> Bound<'_, PyArray1<i64>> {
    f.into_iter().map(|t| t as i64).collect::<Vec<_>>().into_pyarray(py)
}

/// A one-link fluid model: finish times from start times, sizes and capacity.
type OneLinkModel = fn(&[u64], &[f64], f64) -> ideal::IdealResult<Vec<u64>>;

/// Run a one-link fluid model (`fluid_ps` or `fluid_srpt`) on numpy inputs.
fn one_link<'py>(
    py: Python<'py>,
    model: OneLinkModel,
    starts_ns: PyReadonlyArray1<'py, i64>,
    sizes_bytes: PyReadonlyArray1<'py, f64>,
    capacity_bps: f64,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let starts = non_negative_u64("starts_ns", &slice(&starts_ns))?;
    let sizes = slice(&sizes_bytes).into_owned();
    let out = py
        .detach(|| model(&starts, &sizes, capacity_bps))
        .map_err(value_error)?;
    Ok(finish_array(py, out))
}

/// Fluid PS on one link: finish times, ns.
#[pyfunction]
fn ideal_fluid_ps<'py>(
    py: Python<'py>,
    starts_ns: PyReadonlyArray1<'py, i64>,
    sizes_bytes: PyReadonlyArray1<'py, f64>,
    capacity_bps: f64,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    one_link(py, ideal::fluid_ps, starts_ns, sizes_bytes, capacity_bps)
}

/// Fluid SRPT on one link: finish times, ns.
#[pyfunction]
fn ideal_fluid_srpt<'py>(
    py: Python<'py>,
    starts_ns: PyReadonlyArray1<'py, i64>,
    sizes_bytes: PyReadonlyArray1<'py, f64>,
    capacity_bps: f64,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    one_link(py, ideal::fluid_srpt, starts_ns, sizes_bytes, capacity_bps)
}

/// Fluid max-min fair sharing on any topology: finish times, ns. Routes in
/// compressed form (`route_links`, `route_offsets`).
#[pyfunction]
fn ideal_fluid_maxmin<'py>(
    py: Python<'py>,
    links_bps: PyReadonlyArray1<'py, f64>,
    starts_ns: PyReadonlyArray1<'py, i64>,
    sizes_bytes: PyReadonlyArray1<'py, f64>,
    route_links: PyReadonlyArray1<'py, i64>,
    route_offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let links = slice(&links_bps).into_owned();
    let starts = non_negative_u64("starts_ns", &slice(&starts_ns))?;
    let sizes = slice(&sizes_bytes).into_owned();
    let routes = routes_from_csr(&slice(&route_links), &slice(&route_offsets))?;
    let out = py
        .detach(|| ideal::fluid_maxmin(&links, &starts, &sizes, &routes))
        .map_err(value_error)?;
    Ok(finish_array(py, out))
}

/// Max-min fair rates (bits/s) of flows all active at once.
#[pyfunction]
fn ideal_maxmin_rates<'py>(
    py: Python<'py>,
    links_bps: PyReadonlyArray1<'py, f64>,
    route_links: PyReadonlyArray1<'py, i64>,
    route_offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let routes = routes_from_csr(&slice(&route_links), &slice(&route_offsets))?;
    let out = ideal::maxmin_rates(&slice(&links_bps), &routes).map_err(value_error)?;
    Ok(out.into_pyarray(py))
}

/// The 1991 suite's optimal transfer times, ns.
#[pyfunction]
fn ideal_optimal_transfer_ns<'py>(
    py: Python<'py>,
    links_bps: PyReadonlyArray1<'py, f64>,
    starts_ns: PyReadonlyArray1<'py, i64>,
    sizes_bytes: PyReadonlyArray1<'py, f64>,
    route_links: PyReadonlyArray1<'py, i64>,
    route_offsets: PyReadonlyArray1<'py, i64>,
    rtts_ns: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let links = slice(&links_bps).into_owned();
    let starts = non_negative_u64("starts_ns", &slice(&starts_ns))?;
    let sizes = slice(&sizes_bytes).into_owned();
    let routes = routes_from_csr(&slice(&route_links), &slice(&route_offsets))?;
    let rtts = non_negative_u64("rtts_ns", &slice(&rtts_ns))?;
    let out = py
        .detach(|| ideal::optimal_transfer_ns(&links, &starts, &sizes, &routes, &rtts))
        .map_err(value_error)?;
    Ok(finish_array(py, out))
}

/// Add the `ideal_*` functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ideal_ps_sojourn_ns, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_ps_slowdown, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_ps_fct_ns, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_slow_start_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_slow_start_fct_ns, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_srpt_sojourn_ns, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_fluid_ps, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_fluid_srpt, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_fluid_maxmin, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_maxmin_rates, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_optimal_transfer_ns, m)?)?;
    Ok(())
}

//! Python bindings for fctlab's engine. The only crate that imports PyO3: errors
//! become Python exceptions here, tables become numpy arrays.

mod convert;
mod describe;
mod ideal;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use fctlab_core::engine::{Engine, Progress, RunOutput};
use fctlab_core::scenario;
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    fctlab,
    ConfigError,
    PyValueError,
    "A scenario was refused: args are (message, field)."
);

create_exception!(
    fctlab,
    OverloadWarning,
    pyo3::exceptions::PyUserWarning,
    "The traffic offers the bottleneck a load of 1 or more: queues grow without bound, flows may never finish."
);

create_exception!(
    fctlab,
    ConfigWarning,
    pyo3::exceptions::PyUserWarning,
    "The scenario runs, but probably not as meant (e.g. DCTCP on a queue that never marks): the message says why."
);

create_exception!(
    fctlab,
    EngineError,
    PyRuntimeError,
    "The engine stopped on an internal error (a bug): the message says what and where."
);

fn config_error(e: scenario::ConfigError) -> PyErr {
    ConfigError::new_err((e.to_string(), e.field))
}

/// The last panic of this module's Rust code: "message (at file:line:col)".
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Keep the message and place of every panic (for [`EngineError`] and
/// `_core.last_panic`) instead of printing them: a panic reaches the user as
/// one exception. With `FCTLAB_DEBUG` set the default report is printed too.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        let place = info
            .location()
            .map(|l| format!(" (at {}:{}:{})", l.file(), l.line(), l.column()));
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{msg}{}", place.unwrap_or_default()));
        }
        if std::env::var_os("FCTLAB_DEBUG").is_some() {
            previous(info);
        }
    }));
}

/// The message and place of the last panic in the engine or the bindings
/// ("message (at file:line:col)"), None if there was none.
#[pyfunction]
fn last_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|l| l.clone())
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

/// A flag that stops a run: set it (from a signal handler, another thread)
/// and the run it was given to stops within about 65,536 events, keeping
/// every finished flow.
#[pyclass(frozen, module = "fctlab._core")]
struct StopFlag(AtomicBool);

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> Self {
        StopFlag(AtomicBool::new(false))
    }

    fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Test failpoint: with `FCTLAB_TEST_PANIC_SEED=<n>` a run of seed n panics
/// where the engine runs (with the GIL released), as a bug in the engine
/// would, so that the way panics reach the user can be tested.
fn failpoint(seed: u64) {
    if std::env::var("FCTLAB_TEST_PANIC_SEED").is_ok_and(|s| s.trim() == seed.to_string()) {
        panic!("failpoint FCTLAB_TEST_PANIC_SEED={seed}");
    }
}

/// What the engine's hook learned while the run went on.
struct Hook<'a> {
    progress: Option<&'a Py<PyAny>>,
    stop: Option<&'a Py<StopFlag>>,
    every_s: f64,
    last_call_s: f64,
    /// Flows the run creates if it is not stopped (None: unknown, or some never end).
    flows_expected: Option<u64>,
    /// Ctrl-C (KeyboardInterrupt) or another exception raised while running.
    error: Option<PyErr>,
}

impl Hook<'_> {
    fn stop_requested(&self) -> bool {
        self.stop.is_some_and(|s| s.get().is_set())
    }

    /// Called every 65,536 events: stop on a stop flag or a pending signal
    /// (whose Python handler runs here), and call `progress` about every
    /// `every_s` of wall time. False stops the run.
    fn call(&mut self, p: &Progress) -> bool {
        if self.stop_requested() {
            return false;
        }
        Python::attach(|py| {
            if let Err(e) = py.check_signals() {
                self.error = Some(e);
                return false;
            }
            if self.stop_requested() {
                return false;
            }
            let Some(f) = self.progress else { return true };
            if p.wall_s - self.last_call_s < self.every_s {
                return true;
            }
            self.last_call_s = p.wall_s;
            match progress_dict(py, p, self.flows_expected).and_then(|d| f.call1(py, (d,))) {
                Ok(r) => !r.bind(py).extract::<bool>().is_ok_and(|b| !b),
                Err(e) => {
                    self.error = Some(e);
                    false
                }
            }
        })
    }
}

fn progress_dict<'py>(py: Python<'py>, p: &Progress, flows_expected: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows_expected", flows_expected)?;
    d.set_item("sim_ns", p.sim_ns)?;
    d.set_item("stop_ns", p.stop_ns)?;
    d.set_item("events", p.events)?;
    d.set_item("flows_started", p.flows_started)?;
    d.set_item("flows_completed", p.flows_completed)?;
    d.set_item("data_delivered", p.data_delivered)?;
    d.set_item("wall_s", p.wall_s)?;
    Ok(d)
}

/// Run the engine with the GIL released; a panic becomes an [`EngineError`].
fn run_engine(py: Python<'_>, engine: Engine, seed: u64, hook: &mut Hook<'_>) -> PyResult<RunOutput> {
    let got = py.detach(|| {
        catch_unwind(AssertUnwindSafe(|| {
            failpoint(seed);
            engine
                .with_report_interval(Duration::ZERO)
                .run(&mut |p: &Progress| hook.call(p))
        }))
    });
    got.map_err(|payload| {
        let what = last_panic().unwrap_or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into())
        });
        EngineError::new_err(format!("the engine failed (a bug; please report it): {what}"))
    })
}

/// Warn (an [`OverloadWarning`]) when the Poisson traffic offers the
/// bottleneck (or, between hosts, the busiest host link) a load of 1 or more.
fn warn_overload(py: Python<'_>, plan: &scenario::Plan) -> PyResult<()> {
    match describe::offered_load(plan) {
        Some(load) if load >= 1.0 => {
            let msg = format!(
                "traffic: the offered load is {load:.3} of the bottleneck or busiest host link (>= 1): queues grow without bound and \
                 flows may never finish"
            );
            PyErr::warn(py, &py.get_type::<OverloadWarning>(), &std::ffi::CString::new(msg)?, 2)
        }
        _ => Ok(()),
    }
}

/// Warn (a [`ConfigWarning`]) of what `scenario::warnings` finds.
fn warn_config(py: Python<'_>, plan: &scenario::Plan) -> PyResult<()> {
    for msg in scenario::warnings(plan) {
        PyErr::warn(py, &py.get_type::<ConfigWarning>(), &std::ffi::CString::new(msg)?, 2)?;
    }
    Ok(())
}

/// Run a JSON scenario. `progress`, if given, is called about every
/// `every_s` seconds of wall time with a dict (simulated time, flows started,
/// completed and expected, ...); it may return False to stop the run. Ctrl-C, or setting `stop` (a `StopFlag`), stops it the same way,
/// within about 65,536 events: the result holds every flow finished so far
/// and `stats["interrupted"]` is true. An exception raised by `progress`
/// other than KeyboardInterrupt is raised again once the run has stopped.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, stop=None, every_s=1.0))]
fn run<'py>(
    py: Python<'py>,
    config_json: &str,
    progress: Option<Py<PyAny>>,
    stop: Option<Py<StopFlag>>,
    every_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let plan = scenario::from_json(config_json).map_err(config_error)?;
    let schemes = plan.transport_schemes.clone();
    let seed = plan.seed;
    warn_overload(py, &plan)?;
    warn_config(py, &plan)?;
    let flows_expected = plan.flows_expected().filter(|_| describe::long_lived(&plan) == 0);
    let mut hook = Hook {
        progress: progress.as_ref(),
        stop: stop.as_ref(),
        every_s,
        last_call_s: 0.0,
        flows_expected,
        error: None,
    };
    let out = run_engine(py, Engine::new(plan), seed, &mut hook)?;
    let interrupted_by = match hook.error {
        None if hook.stop_requested() => Some("stop".to_string()),
        None => None,
        Some(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => Some("KeyboardInterrupt".to_string()),
        Some(e) => return Err(e),
    };
    convert::run_output(py, out, schemes, interrupted_by)
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
    install_panic_hook();
    // Load numpy's C API now: loading it imports a Python module, which would
    // fail if a KeyboardInterrupt were pending when a run's tables are built.
    numpy::PyArray1::<i64>::zeros(m.py(), 0, false);
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    m.add("OverloadWarning", m.py().get_type::<OverloadWarning>())?;
    m.add("ConfigWarning", m.py().get_type::<ConfigWarning>())?;
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    m.add("__version__", fctlab_core::VERSION)?;
    m.add_class::<StopFlag>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(last_panic, m)?)?;
    m.add_function(wrap_pyfunction!(live_host, m)?)?;
    m.add_function(wrap_pyfunction!(live_link, m)?)?;
    m.add_function(wrap_pyfunction!(live_refusal, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    ideal::register(m)?;
    describe::register(m)?;
    Ok(())
}

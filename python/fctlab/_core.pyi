"""Type stubs of fctlab's compiled engine (crates/fctlab-py). Users call the
wrappers in fctlab (run, validate, describe, catalog) and fctlab.ideal, not these."""

from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

__version__: str

class ConfigError(ValueError):
    """A refused scenario: args are (message, field). Named fctlab.ConfigError."""

class EngineError(RuntimeError):
    """The engine failed (a bug): the message says what and where. Named fctlab.EngineError."""

class OverloadWarning(UserWarning):
    """The Poisson traffic offers the bottleneck a load of 1 or more."""

class ConfigWarning(UserWarning):
    """The scenario runs, but probably not as meant: the message says why."""

class PanicException(BaseException):
    """pyo3's exception for a Rust panic outside a run (runs raise EngineError)."""

class StopFlag:
    """Stops the run it is given (``run(..., stop=flag)``) once ``set()`` is called."""
    def __init__(self) -> None: ...
    def set(self) -> None: ...
    def is_set(self) -> bool: ...

def run(
    config_json: str,
    progress: Optional[Callable[[dict], Any]] = None,
    stop: Optional[StopFlag] = None,
    every_s: float = 1.0,
) -> dict:
    """Run a JSON scenario; returns {"flows": {column: ndarray}, "series": {...}, "stats": {...},
    "prefixes": {"flow_id", "k", "fct_ns": ndarray}, "probes": {...}, "size_stats": None or
    {column: ndarray, "quantile_columns": [...], "alpha": float}}. Ctrl-C, ``stop`` or
    ``progress`` returning False stop it early (stats["interrupted"]); a panic raises EngineError."""

def last_panic() -> Optional[str]:
    """The message and place of the last Rust panic in this process, or None."""

def validate(config_json: str) -> int:
    """Check a JSON scenario; returns the resolved buffer size in packets."""

def describe(config_json: str) -> str:
    """What the engine resolves from a JSON scenario, as JSON: buffer_pkts,
    buffer_key, flows_expected (null: bounded by time only), flows_long_lived,
    stop_ns, mss_bytes, header_bytes, offered_load (null without Poisson traffic)."""

def catalog() -> str:
    """Schemes, queues, topologies, distributions and defaults, as JSON."""

def ideal_ps_sojourn_ns(size_bytes: npt.NDArray[np.float64], capacity_bps: float, load: float) -> npt.NDArray[np.float64]: ...
def ideal_ps_slowdown(load: float) -> float: ...
def ideal_ps_fct_ns(size_bytes: npt.NDArray[np.float64], capacity_bps: float, load: float, rtt_ns: float, with_handshake: bool) -> npt.NDArray[np.float64]: ...
def ideal_slow_start_rounds(size_pkts: npt.NDArray[np.int64], init_cwnd_pkts: int) -> npt.NDArray[np.int64]: ...
def ideal_slow_start_fct_ns(size_pkts: npt.NDArray[np.int64], pkt_bytes: float, capacity_bps: float, rtt_ns: float, init_cwnd_pkts: int, with_handshake: bool) -> npt.NDArray[np.float64]: ...
def ideal_srpt_sojourn_ns(size_bytes: npt.NDArray[np.float64], dist: dict, capacity_bps: float, load: float) -> npt.NDArray[np.float64]: ...
def ideal_fluid_ps(starts_ns: npt.NDArray[np.int64], sizes_bytes: npt.NDArray[np.float64], capacity_bps: float) -> npt.NDArray[np.int64]: ...
def ideal_fluid_srpt(starts_ns: npt.NDArray[np.int64], sizes_bytes: npt.NDArray[np.float64], capacity_bps: float) -> npt.NDArray[np.int64]: ...
def ideal_fluid_maxmin(links_bps: npt.NDArray[np.float64], starts_ns: npt.NDArray[np.int64], sizes_bytes: npt.NDArray[np.float64], route_links: npt.NDArray[np.int64], route_offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]: ...
def ideal_maxmin_rates(links_bps: npt.NDArray[np.float64], route_links: npt.NDArray[np.int64], route_offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]: ...
def ideal_optimal_transfer_ns(links_bps: npt.NDArray[np.float64], starts_ns: npt.NDArray[np.int64], sizes_bytes: npt.NDArray[np.float64], route_links: npt.NDArray[np.int64], route_offsets: npt.NDArray[np.int64], rtts_ns: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]: ...

"""Type stubs of fctlab's compiled engine (crates/fctlab-py). Users call the
wrappers in fctlab (run, validate, describe, catalog) and fctlab.ideal, not these."""

from typing import Any, Callable, Optional

import numpy as np
import numpy.typing as npt

__version__: str

class ConfigError(ValueError):
    """A refused scenario: args are (message, field)."""

def run(config_json: str, progress: Optional[Callable[[dict], Any]] = None) -> dict:
    """Run a JSON scenario; returns {"flows": {column: ndarray}, "series": {...}, "stats": {...},
    "prefixes": {"flow_id", "k", "fct_ns": ndarray}, "size_stats": None or {column: ndarray,
    "quantile_columns": [...], "alpha": float}}."""

def validate(config_json: str) -> int:
    """Check a JSON scenario; returns the resolved buffer size in packets."""

def describe(config_json: str) -> str:
    """What the engine resolves from a JSON scenario, as JSON: buffer_pkts,
    buffer_key, flows_expected (null: bounded by time only), flows_long_lived,
    stop_ns, mss_bytes, header_bytes."""

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

"""fctlab: a fast, deterministic packet-level network simulator for
congestion-control research, centred on flow completion time (FCT).

    >>> import fctlab
    >>> res = fctlab.run({"network": {"bottleneck_bps": 10e6}, "flows": [{"size_pkts": 20}]})
    >>> res.flows[["flow_id", "fct_ns"]]

See ``fctlab list`` for every scheme, queue, topology and size distribution.
"""

from ._core import __version__ as _engine_version
from .config import ConfigError, load_config
from .result import (
    ConfigWarning,
    EngineError,
    NoCompletedFlowWarning,
    OverloadWarning,
    Result,
    StopFlag,
    catalog,
    describe,
    run,
    validate,
)
from .rundir import RunDirError

__version__ = _engine_version

# Sweeps, the results store and replications: fctlab.sweep(spec), fctlab.store.open(path),
# fctlab.replicate(config, K) (modules that can be called).
from . import fairness, ideal, replicate, store, sweep  # noqa: E402
from .links import ecmp_imbalance, link_utilization  # noqa: E402
from .slowdown import slowdown_by_size  # noqa: E402

__all__ = [
    "run",
    "validate",
    "describe",
    "catalog",
    "load_config",
    "Result",
    "ConfigError",
    "EngineError",
    "RunDirError",
    "StopFlag",
    "NoCompletedFlowWarning",
    "OverloadWarning",
    "ConfigWarning",
    "ideal",
    "sweep",
    "store",
    "replicate",
    "fairness",
    "slowdown_by_size",
    "link_utilization",
    "ecmp_imbalance",
    "__version__",
]

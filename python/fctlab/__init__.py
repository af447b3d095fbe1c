"""fctlab: a fast, deterministic packet-level network simulator for
congestion-control research, centred on flow completion time (FCT).

    >>> import fctlab
    >>> res = fctlab.run({"network": {"bottleneck_bps": 10e6}, "flows": [{"size_pkts": 20}]})
    >>> res.flows[["flow_id", "fct_ns"]]

See ``fctlab list`` for every scheme, queue, topology and size distribution.
"""

from ._core import __version__ as _engine_version
from .config import ConfigError, load_config
from .result import Result, run, validate, catalog, NoCompletedFlowWarning

__version__ = _engine_version

__all__ = [
    "run",
    "validate",
    "catalog",
    "load_config",
    "Result",
    "ConfigError",
    "NoCompletedFlowWarning",
    "__version__",
]

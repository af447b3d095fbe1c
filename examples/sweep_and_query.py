"""A sweep from Python: TCP NewReno's initial window at two loads, three seeds
each (examples/sweeps/iw-load.toml), run in parallel into a results store, then
queried with SQL: the mean FCT of each configuration and its spread over the seeds.

    python examples/sweep_and_query.py [STORE]      # default: a temporary directory
"""

import sys
import tempfile
from pathlib import Path

import fctlab

spec = Path(__file__).parent / "sweeps" / "iw-load.toml"
store = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="fctlab-store-")
res = fctlab.sweep(spec, store=store, progress=False)
# One row per configuration: flows, and the mean FCT over all seeds and its spread across them.
per_seed = (
    "SELECT init_cwnd_pkts, load, seed, count(*) AS n, avg(fct_ns) / 1e6 AS ms FROM flows WHERE completed GROUP BY ALL"
)
print(
    res.query(
        f"SELECT init_cwnd_pkts, load, sum(n) AS flows, avg(ms) AS mean_ms, stddev(ms) AS across_seeds_ms "
        f"FROM ({per_seed}) GROUP BY ALL ORDER BY ALL"
    )
)
print(f"store: {store}; report: fctlab report {store}")

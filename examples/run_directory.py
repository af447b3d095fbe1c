"""One run written as a run directory, read back, and summarised: what
``fctlab run SCENARIO --out DIR`` does, from Python. The run directory is a
store of one run, so SQL works on it too.

    python examples/run_directory.py [DIR]          # default: a temporary directory
"""

import sys
import tempfile
from pathlib import Path

import fctlab

scenario = Path(__file__).parent / "sweeps" / "dumbbell.toml"
out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="fctlab-run-")) / "run"
res = fctlab.run(scenario)
print(res)  # the headline numbers
res.write(out)
again = fctlab.Result.read(out)
print(again.slowdown_by_size())  # mean, p50, p95, p99 slowdown in pFabric's size bins
sql = "SELECT sender, count(*) AS flows, avg(fct_ns) / 1e6 AS mean_ms FROM flows GROUP BY 1 ORDER BY 1"
print(fctlab.store.open(out).query(sql))

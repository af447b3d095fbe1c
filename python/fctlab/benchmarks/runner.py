"""One benchmark run in a child process of its own, so that its peak memory
(``getrusage`` maxrss) is the run's and one run's allocations do not warm the
next one's.

What a run counts (`unique_delivered`): unique application data packets
delivered in order by the end of the run, each packet of each flow once; for a
flow still running at the stop time, the packets delivered by then (the
``delivered_pkts`` column, the receiver's RCV.NXT). Retransmitted and duplicate
copies are not counted (they are the ``data_delivered`` counter).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd


def unique_delivered(flows: pd.DataFrame) -> int:
    """Unique data packets delivered in order over every flow of a run's ``flows``
    table, completed or not (the ``delivered_pkts`` column)."""
    return int(flows["delivered_pkts"].fillna(0).sum())


def unique_from_size_stats(size_stats: pd.DataFrame) -> int:
    """Unique data packets of the completed flows, from a ``size_stats`` table
    (a run without a flows table): size x flows completed, summed."""
    return int((size_stats["size_pkts"].astype("int64") * size_stats["flows_completed"].astype("int64")).sum())


_CHILD = r"""
import json, resource, sys, time
import fctlab
from fctlab.benchmarks.runner import unique_delivered, unique_from_size_stats
cfg = json.loads(sys.stdin.read())
c = time.process_time()
t = time.perf_counter()
res = fctlab.run(cfg, warn=False)
total = time.perf_counter() - t
cpu = time.process_time() - c
st = res.meta["stats"]
if len(res.flows):
    unique = unique_delivered(res.flows)
    flows_table = True
else:
    unique = unique_from_size_stats(res.size_stats)
    flows_table = False
print(json.dumps({"wall_s": st["wall_s"], "total_s": total, "cpu_s": cpu, "events": st["events"],
                  "data_delivered": st["data_delivered"], "unique_delivered": unique, "flows_table": flows_table,
                  "packet_hops": st["packet_hops"], "sim_s": st["end_ns"] / 1e9, "flows": res.meta["flows_total"],
                  "flows_completed": res.meta["flows_completed"], "drops": st["packets_dropped"],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
if len(sys.argv) > 1 and len(res.flows):
    import numpy as np
    f = res.flows
    np.savez(sys.argv[1], flow_id=f["flow_id"].to_numpy("int64"), fct_ns=f["fct_ns"].to_numpy("float64"),
             path=f["path"].to_numpy("float64"), size_pkts=f["size_pkts"].to_numpy("int64"))
"""

_CHILD_PS = r"""
import json, resource, sys, time
import numpy as np
import fctlab.ideal as ideal
p = json.loads(sys.stdin.read())
rng = np.random.default_rng(p["seed"])
n = int(p["flows"])
pkt = p["mss_bytes"] + p["header_bytes"]
lam = p["load"] * p["capacity_bps"] / (8.0 * p["mean_pkts"] * pkt)
starts = np.cumsum(rng.exponential(1e9 / lam, n)).astype(np.int64)
xm = p["mean_pkts"] * (p["shape"] - 1.0) / p["shape"]
pkts = np.ceil(xm / (1.0 - rng.random(n)) ** (1.0 / p["shape"]))
sizes = pkts * pkt
routes = np.zeros(n, dtype=np.int64)
c = time.process_time()
t = time.perf_counter()
finish = ideal.fluid_maxmin([p["capacity_bps"]], starts, sizes, routes)
wall = time.perf_counter() - t
cpu = time.process_time() - c
print(json.dumps({"wall_s": wall, "total_s": wall, "cpu_s": cpu, "flows": n, "flows_completed": int((finish > 0).sum()),
                  "packets": int(pkts.sum()), "sim_s": float(finish.max()) / 1e9,
                  "finish_digest": int(np.bitwise_xor.reduce(finish.astype(np.int64))),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_child(cfg: dict, *, kind: str = "sim", flows_out: str | None = None) -> dict:
    """Run ``cfg`` (a scenario; for ``kind="ps"`` the fluid workload's
    parameters) in a fresh Python process and return its measurements. With
    ``flows_out`` (``kind="sim"``), the child also writes each flow's
    ``flow_id``, ``fct_ns``, ``path`` and ``size_pkts`` there (numpy ``.npz``),
    after the run and outside its clocks."""
    code = {"sim": _CHILD, "ps": _CHILD_PS}[kind]
    argv = [sys.executable, "-c", code] + ([str(flows_out)] if flows_out else [])
    out = subprocess.run(argv, input=json.dumps(cfg), capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"benchmark run failed: {tail}")
    return json.loads(out.stdout.strip().splitlines()[-1])

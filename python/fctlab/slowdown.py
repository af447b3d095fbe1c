"""FCT slowdown as the datacenter-fabric papers report it: p50/p95/p99 (and
mean) slowdown per flow-size bin.

The slowdown (the ``fabric_slowdown`` column of a run's ``flows`` table) is a
flow's completion time over its completion time alone on the empty network,
both measured the way HPCC measures them (Li et al., "HPCC: High Precision
Congestion Control", SIGCOMM 2019; its simulator's ``scratch/third.cc``,
``qp_finish``): from the flow's start until its sender holds the
acknowledgement of the last byte (``acked_ns - start_ns``), over ``alone_ns``:

- **no handshake**: the ideal flow sends its first data packet at its start
  (a scheme that opens with a handshake pays that round trip in its slowdown);
- **line rate, no window**: every data packet (``mss_bytes`` of payload plus
  ``header_bytes``; the last one shorter) leaves the sender back to back;
- **store-and-forward at every hop**, as fctlab's links forward, plus each
  link's propagation delay;
- **one ACK** of ``header_bytes`` sent when the last packet arrives, back
  through the reverse path the same way.

HPCC's simulator approximates the same time with base RTT + bytes on the wire
/ bottleneck rate; on a path of equal rates the two differ by less than one
packet's serialisation per hop (``fctlab_core::ideal::alone_ns``). A flow's
slowdown is at least 1 (HPCC's analysis script clamps to 1; no clamp is
needed here). The ``slowdown`` column is the one-way variant: the time the
last byte reaches the receiver over ``ideal_ns``, the same ideal without the
ACK's return (Homa's message slowdown is one-way).

`slowdown_by_size` groups the flows by size and reports each bin's
count, mean and quantiles. Bins:

- ``"pfabric"`` (the default): (0, 100 kB], (100 kB, 10 MB], (10 MB, inf) of
  payload bytes, the bins of Alizadeh et al., "pFabric: Minimal Near-Optimal
  Datacenter Transport", SIGCOMM 2013, Section 5 (PIAS's ``scripts/result.py``
  uses the same bins in KiB and MiB);
- ``"hpcc"``: 20 bins of equal flow counts in order of size, as HPCC's
  ``analysis/fct_analysis.py`` draws them (5% of the flows each; Homa's
  figures space their x-axis the same way, by message count);
- an integer ``n``: ``n`` bins of equal flow counts;
- a list of byte edges ``[e1, e2, ...]``: (0, e1], (e1, e2], ..., (ek, inf).

A quantile q of n values is the value of rank floor(n q) of the sorted values
(0-based), as HPCC's ``fct_analysis.py`` (``get_pctl``) and PIAS's
``result.py`` compute them. The last row, ``all``, covers every flow.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: pFabric's bins, as byte edges: (0, 100 kB], (100 kB, 10 MB], (10 MB, inf).
PFABRIC_EDGES = (100_000, 10_000_000)
#: HPCC's bins: 20 bins of 5% of the flows each.
HPCC_BINS = 20
#: The quantiles reported by default.
QUANTILES = (0.5, 0.95, 0.99)
#: The slowdown columns of a ``flows`` table.
COLUMNS = ("fabric_slowdown", "slowdown")


def quantile(sorted_values: np.ndarray, q: float) -> float:
    """The value of rank floor(n q) (0-based) of ``sorted_values``."""
    n = len(sorted_values)
    if n == 0:
        return math.nan
    return float(sorted_values[min(n - 1, int(math.floor(n * q)))])


def _size(b: float) -> str:
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= div:
            return f"{b / div:g} {unit}"
    return f"{b:g} B" if b > 0 else "0"


def _label(lo: float, hi: float) -> str:
    """'(lo, hi]' with sizes in kB, MB, GB; '(lo, inf)' for the last bin."""
    return f"({_size(lo)}, {_size(hi)}]" if math.isfinite(hi) else f"({_size(lo)}, inf)"


def _edges(spec) -> list:
    if isinstance(spec, str):
        if spec != "pfabric":
            raise ValueError(f"bins: unknown name {spec!r} (allowed: 'pfabric', 'hpcc', an integer, a list of edges)")
        return [float(e) for e in PFABRIC_EDGES]
    edges = [float(e) for e in spec]
    if not edges or any(not (e > 0 and math.isfinite(e)) for e in edges):
        raise ValueError(f"bins: edges must be finite sizes in bytes > 0, got {list(spec)}")
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"bins: edges must increase, got {list(spec)}")
    return edges


def _groups(sizes: np.ndarray, bins) -> list:
    """[(label, lo, hi, index array)] for each bin."""
    if bins == "hpcc":
        bins = HPCC_BINS
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"bins: the number of equal-count bins must be at least 1, got {bins}")
        order = np.argsort(sizes, kind="stable")
        n = len(sizes)
        out = []
        for i in range(int(bins)):
            idx = order[i * n // bins : (i + 1) * n // bins]
            if len(idx):
                lo, hi = float(sizes[idx].min()), float(sizes[idx].max())
                out.append((f"{100 * i / bins:.3g}-{100 * (i + 1) / bins:.3g}%", lo, hi, idx))
        return out
    edges = [0.0] + _edges(bins) + [math.inf]
    return [(_label(lo, hi), lo, hi, np.flatnonzero((sizes > lo) & (sizes <= hi))) for lo, hi in zip(edges, edges[1:])]


def slowdown_by_size(
    flows: pd.DataFrame, bins="pfabric", *, column: str = "fabric_slowdown", quantiles=QUANTILES
) -> pd.DataFrame:
    """Slowdown per flow-size bin of a run's ``flows`` table (see the module).

    Returns one row per bin and a last row ``all``: ``bin`` (its label),
    ``lo_bytes`` and ``hi_bytes`` (the bin's edges; for equal-count bins the
    smallest and largest size in it), ``flows`` (flows with a slowdown: the
    completed ones), ``mean`` and ``p50``, ``p95``, ``p99`` (one column per
    quantile). Sizes are payload bytes (``size_bytes``). An empty bin has
    ``flows`` 0 and no values."""
    if column not in COLUMNS:
        raise ValueError(f"column: {column!r} is not a slowdown column (allowed: {', '.join(COLUMNS)})")
    qs = [float(q) for q in quantiles]
    if any(not 0 <= q <= 1 for q in qs):
        raise ValueError(f"quantiles: each must be in [0, 1], got {list(quantiles)}")
    names = [f"p{100 * q:g}" for q in qs]
    done = flows[flows[column].notna()] if column in flows else flows.iloc[0:0]
    sizes = done["size_bytes"].astype("float64").to_numpy() if len(done) else np.zeros(0)
    vals = done[column].astype("float64").to_numpy() if len(done) else np.zeros(0)
    groups = _groups(sizes, bins)
    groups.append(("all", 0.0, math.inf, np.arange(len(vals))))
    rows = []
    for label, lo, hi, idx in groups:
        v = np.sort(vals[idx])
        stats = [quantile(v, q) for q in qs]
        rows.append([label, lo, hi, len(v), float(v.mean()) if len(v) else math.nan, *stats])
    out = pd.DataFrame(rows, columns=["bin", "lo_bytes", "hi_bytes", "flows", "mean", *names])
    out["flows"] = out["flows"].astype("int64")
    return out


#: The store's SQL for the same table with the default bins, per run
#: (``SELECT * FROM slowdown_by_size()``): see `fctlab.store.Store.query`.
SQL_MACROS = (
    "CREATE OR REPLACE MACRO slowdown_bin(b) AS CASE WHEN b <= 100000 THEN '(0, 100 kB]' "
    "WHEN b <= 10000000 THEN '(100 kB, 10 MB]' ELSE '(10 MB, inf)' END",
    "CREATE OR REPLACE MACRO slowdown_pctl(xs, q) AS "
    "list_sort(xs)[least(len(xs), CAST(floor(len(xs) * q) AS BIGINT) + 1)]",
    "CREATE OR REPLACE MACRO slowdown_by_size() AS TABLE "
    "SELECT run_key, bin, count(*) AS flows, avg(s) AS mean, slowdown_pctl(list(s), 0.5) AS p50, "
    "slowdown_pctl(list(s), 0.95) AS p95, slowdown_pctl(list(s), 0.99) AS p99 "
    "FROM (SELECT run_key, fabric_slowdown AS s, slowdown_bin(size_bytes) AS bin FROM flows "
    "WHERE fabric_slowdown IS NOT NULL) GROUP BY run_key, bin",
)

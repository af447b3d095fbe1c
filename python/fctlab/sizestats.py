"""Merging ``size_stats`` tables (streaming FCT statistics per flow size) of
several runs, for example the chunks of a run too long for one process.

Each table carries, per size, exact counts, the exact sum, minimum and maximum
of the FCTs, and its DDSketch (Masson, Rim & Lee, PVLDB 2019) as lists of
bucket indices and counts: bucket i holds the FCTs in (gamma^(i-1), gamma^i]
ns with gamma = (1 + alpha) / (1 - alpha) (FCTs of 0 under index -2^31).
Sketches of the same alpha merge by adding counts, so the merged quantiles are
those of one sketch over all the runs' flows: the value of rank
floor(q (n - 1)) within a relative error alpha, reported as the engine does
(2 gamma^i / (gamma + 1), clamped to the exact minimum and maximum).

    >>> t = fctlab.sizestats.merge([r.size_stats for r in results], alpha=0.005)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from .result import SIZE_STATS_COLUMNS

ZERO_BUCKET = -(2**31)


def quantile_column(q: float) -> str:
    """The column name of quantile q, as the engine names it (``p99_9_fct_ns``)."""
    pct = f"{q * 100:.6f}".rstrip("0").rstrip(".")
    return f"p{pct.replace('.', '_')}_fct_ns"


def bucket_value(i: np.ndarray, alpha: float) -> np.ndarray:
    """The value reported for bucket i: 2 gamma^i / (gamma + 1) (0 for the zero bucket)."""
    gamma = (1 + alpha) / (1 - alpha)
    i = np.asarray(i)
    v = 2.0 * np.exp(i.astype("float64") * math.log(gamma)) / (gamma + 1.0)
    return np.where(i == ZERO_BUCKET, 0.0, v)


def merge(tables: Iterable[pd.DataFrame], alpha: float, quantiles: Sequence[float] = (0.5, 0.9, 0.99)) -> pd.DataFrame:
    """One ``size_stats`` table for the flows of all ``tables`` (each from a run
    with ``metrics.size_stats_alpha = alpha``): counts, sums, minimum and
    maximum exact, mean exact up to the division, quantiles within alpha."""
    acc: dict = {}
    for t in tables:
        missing = [c for c in SIZE_STATS_COLUMNS if c not in t.columns]
        if missing:
            raise ValueError(f"not a size_stats table with its sketch: no column {missing[0]}")
        for row in t.itertuples(index=False):
            size = int(row.size_pkts)
            a = acc.setdefault(size, {"started": 0, "completed": 0, "sum": 0, "min": None, "max": None, "sketch": {}})
            a["started"] += int(row.flows_started)
            a["completed"] += int(row.flows_completed)
            a["sum"] += int(row.sum_fct_ns)
            if int(row.flows_completed):
                lo, hi = int(row.min_fct_ns), int(row.max_fct_ns)
                a["min"] = lo if a["min"] is None else min(a["min"], lo)
                a["max"] = hi if a["max"] is None else max(a["max"], hi)
            sk = a["sketch"]
            for b, c in zip(np.asarray(row.sketch_bucket).tolist(), np.asarray(row.sketch_count).tolist()):
                sk[b] = sk.get(b, 0) + c
    rows = {c: [] for c in SIZE_STATS_COLUMNS}
    qcols = {quantile_column(q): [] for q in quantiles}
    for size in sorted(acc):
        a = acc[size]
        buckets = np.array(sorted(a["sketch"]), dtype="int64")
        counts = np.array([a["sketch"][b] for b in buckets.tolist()], dtype="int64")
        n = int(counts.sum())
        rows["size_pkts"].append(size)
        rows["flows_started"].append(a["started"])
        rows["flows_completed"].append(a["completed"])
        rows["mean_fct_ns"].append(a["sum"] / a["completed"] if a["completed"] else math.nan)
        rows["min_fct_ns"].append(a["min"])
        rows["max_fct_ns"].append(a["max"])
        rows["sum_fct_ns"].append(a["sum"])
        rows["sketch_bucket"].append(buckets.astype("int32"))
        rows["sketch_count"].append(counts)
        cum = np.cumsum(counts)
        for q, col in zip(quantiles, qcols):
            if n == 0:
                qcols[col].append(math.nan)
                continue
            rank = math.floor(q * (n - 1))
            k = int(np.searchsorted(cum, rank, side="right"))
            v = float(bucket_value(buckets[k], alpha))
            qcols[col].append(min(max(v, a["min"]), a["max"]))
    df = pd.DataFrame(rows)
    for c in ("size_pkts", "flows_started", "flows_completed", "sum_fct_ns"):
        df[c] = df[c].astype("int64")
    for c in ("min_fct_ns", "max_fct_ns"):
        df[c] = df[c].astype("Int64")
    for c, v in qcols.items():
        df[c] = np.asarray(v, dtype="float64")
    return df

"""Fairness of the throughput flows get: Jain's index and the max/min ratio,
over any window of a run's per-flow series, over completed flows, and as
report tables.

Jain's fairness index (Jain, Chiu & Hawe, DEC-TR-301, 1984) of rates x_1..x_n
is (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one flow has
everything. The max/min ratio is the largest rate over the smallest (the
measure Gavaletz & Kaur 2010 quote: "throughput allocations that can differ
by up to a factor of 4"); it is infinite when a flow got nothing.

The same two measures exist in SQL over the results store
(``fctlab.store.open(...).query``): aggregate macros ``jain_index(x)`` and
``max_min_ratio(x)``, and table macros ``flow_rates(metric, t0_ns, t1_ns)``
(one row per run and flow: the mean of that per-flow series over the window)
and ``fairness(metric, t0_ns, t1_ns)`` (one row per run: flows, Jain's index,
max/min ratio).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The per-flow series a run records for each flow in ``metrics.cwnd_flows``.
FLOW_METRICS = ("throughput_bps", "send_rate_bps", "rtt_ms", "cwnd_pkts", "drops", "retransmits")


def _arr(x: Iterable[float]) -> np.ndarray:
    return np.asarray(x if isinstance(x, (np.ndarray, pd.Series)) else list(x), dtype=float)


def jain(x: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); NaN for no flows or all zero."""
    a = _arr(x)
    s2 = float(np.sum(a * a))
    if a.size == 0 or s2 == 0.0:
        return math.nan
    return float(np.sum(a)) ** 2 / (a.size * s2)


def max_min_ratio(x: Iterable[float]) -> float:
    """max(x) / min(x): 1 when equal, infinite when a flow got nothing; NaN for no flows."""
    a = _arr(x)
    if a.size == 0:
        return math.nan
    lo, hi = float(np.min(a)), float(np.max(a))
    if lo <= 0.0:
        return math.inf if hi > 0.0 else math.nan
    return hi / lo


def summary(x: Iterable[float]) -> dict:
    """``n``, ``jain``, ``max_min``, ``min``, ``max``, ``mean`` of the rates ``x``."""
    a = _arr(x)
    return {
        "n": int(a.size),
        "jain": jain(a),
        "max_min": max_min_ratio(a),
        "min": float(a.min()) if a.size else math.nan,
        "max": float(a.max()) if a.size else math.nan,
        "mean": float(a.mean()) if a.size else math.nan,
    }


def flow_id(element: Any) -> int | None:
    """The flow id of a series element (``"flow7"`` or ``"7"``); None for links and the network."""
    m = re.fullmatch(r"(?:flow)?(\d+)", str(element))
    return int(m.group(1)) if m else None


def _series(obj: Any) -> pd.DataFrame:
    return obj.series if hasattr(obj, "series") else obj


def flow_series(obj: Any, metric: str = "throughput_bps") -> pd.DataFrame:
    """One column per flow (by flow id), indexed by sample time in ns: the
    per-flow ``metric`` of a run (a `fctlab.Result` or its series)."""
    s = _series(obj)
    s = s[s["metric"] == metric]
    ids = s["element"].map(flow_id)
    s = s[ids.notna()].assign(flow_id=ids[ids.notna()].astype(int))
    if s.empty:
        raise ValueError(f"metric: the run has no per-flow {metric!r} series (list the flows in metrics.cwnd_flows)")
    return s.pivot_table(index="t_ns", columns="flow_id", values="value", aggfunc="first").sort_index()


def _window_means(
    w: pd.DataFrame, start_s: float | None, end_s: float | None, flows: Sequence[int] | None
) -> pd.Series:
    t = w.index.to_numpy()
    keep = np.ones(len(t), dtype=bool)
    if start_s is not None:
        keep &= t > start_s * 1e9
    if end_s is not None:
        keep &= t <= end_s * 1e9
    w = w[keep]
    if flows is not None:
        w = w[[f for f in flows if f in w.columns]]
    # Samples exist while a flow runs; a flow without any in the window is left out.
    return w.mean(axis=0).dropna()


def flow_rates(
    obj: Any,
    start_s: float | None = None,
    end_s: float | None = None,
    metric: str = "throughput_bps",
    flows: Sequence[int] | None = None,
) -> pd.Series:
    """Each flow's mean ``metric`` over its samples with start_s < t <= end_s
    (a sample covers the interval that ends at it), by flow id: with the
    default metric, its mean throughput over the window in bits per second.
    As the SQL macro ``flow_rates``, a flow is averaged over the samples it
    has (those taken while it runs)."""
    return _window_means(flow_series(obj, metric), start_s, end_s, flows)


def window(
    obj: Any,
    start_s: float | None = None,
    end_s: float | None = None,
    metric: str = "throughput_bps",
    flows: Sequence[int] | None = None,
) -> dict:
    """`summary` of `flow_rates` over one window."""
    return summary(flow_rates(obj, start_s, end_s, metric, flows).to_numpy())


def over_time(
    obj: Any,
    every_s: float,
    metric: str = "throughput_bps",
    start_s: float = 0.0,
    end_s: float | None = None,
    flows: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Jain's index and the max/min ratio in consecutive windows of ``every_s``."""
    if not every_s > 0:
        raise ValueError(f"every_s: must be positive, got {every_s}")
    w = flow_series(obj, metric)
    last = float(w.index.max()) / 1e9 if end_s is None else end_s
    rows = []
    k = 0
    while start_s + k * every_s < last - 1e-12:
        a, b = start_s + k * every_s, min(start_s + (k + 1) * every_s, last)
        rows.append({"start_s": a, "end_s": b, **summary(_window_means(w, a, b, flows).to_numpy())})
        k += 1
    return pd.DataFrame(rows)


def from_flows(flows: pd.DataFrame) -> dict:
    """`summary` of completed flows' average rates, size_bytes x 8 / fct (payload, b/s)."""
    f = flows[flows["completed"].astype(bool)]
    return summary((f["size_bytes"] * 8 / (f["fct_ns"] / 1e9)).to_numpy(dtype=float))


def table(
    runs: Mapping[str, Any],
    windows: Mapping[str, tuple],
    metric: str = "throughput_bps",
    title: str = "Fairness",
    caption: str = "",
    published: Mapping[str, Mapping[str, Any]] | None = None,
    flows: Sequence[int] | None = None,
):
    """A report table: one row per run and window with the flows counted,
    Jain's index and the max/min ratio. ``runs``: label -> Result (or series);
    ``windows``: label -> (start_s, end_s). ``published``: run label -> window
    label -> the source's max/min ratio, shown beside fctlab's."""
    from .report import Table

    rows, pub = [], []
    for name, res in runs.items():
        for wname, (a, b) in windows.items():
            r = window(res, a, b, metric, flows)
            rows.append([name, wname, r["n"], r["jain"], r["max_min"]])
            p = (published or {}).get(name, {}).get(wname)
            pub.append([name, wname, None, None, p])
    return Table(
        title=title,
        columns=["run", "window", "flows", "Jain's index", "max/min"],
        rows=rows,
        caption=caption,
        key_columns=2,
        published=pub if published else None,
        published_source="the paper" if published else "",
    )


#: DuckDB macros installed in the store's catalog (`fctlab.store`).
SQL_MACROS = (
    "CREATE OR REPLACE MACRO jain_index(x) AS power(sum(x), 2) / nullif(count(x) * sum(x * x), 0)",
    "CREATE OR REPLACE MACRO max_min_ratio(x) AS CASE WHEN min(x) > 0 THEN max(x) / min(x) "
    "WHEN max(x) > 0 THEN 'inf'::DOUBLE ELSE NULL END",
    "CREATE OR REPLACE MACRO flow_rates(m, t0_ns, t1_ns) AS TABLE "
    "SELECT run_key, element, avg(value) AS rate FROM series "
    "WHERE metric = m AND t_ns > t0_ns AND t_ns <= t1_ns AND regexp_full_match(element, '(flow)?[0-9]+') "
    "GROUP BY run_key, element",
    "CREATE OR REPLACE MACRO fairness(m, t0_ns, t1_ns) AS TABLE "
    "SELECT run_key, count(*) AS flows, jain_index(rate) AS jain, max_min_ratio(rate) AS max_min "
    "FROM flow_rates(m, t0_ns, t1_ns) GROUP BY run_key",
)

"""Replications: one long run split into K independent runs, merged with
confidence intervals.

A scenario (or sweep spec) with ``replications = K`` is run as K runs that differ
only in their seed and share out the generated flows: each ``traffic[i].count`` is
divided among them (the first ``count % K`` get one more), so the K runs together
hold as many flows as the one run would have. Explicit ``[[flows]]`` and time
limits (``stop_s``) are not divided: each replication has them all. Each
replication starts from an empty network, so the runs are independent and can go
to different cores or cluster workers.

The seed of replication ``r`` of a run with seed ``s`` is `replication_seed`
``(s, r)``: the first 63 bits of SHA-256 of ``"fctlab-replication:{s}:{r}"``. The
streams of different replications, and of different base seeds, thus never
coincide (as ``s + r`` would for seeds 1 and 2).

Merging (`summarize`) groups completed flows into size buckets with fixed,
log-spaced edges (the same for every replication) and, per bucket and statistic
(the mean, and percentiles such as the median and the 99th), computes the
statistic within each replication, then:

- the estimate is the average of the K per-replication values;
- the confidence interval is Student's t over those K values (the method of
  independent replications / batch means):
  ``estimate +- t_{1-a/2, K'-1} * sd / sqrt(K')``, K' = replications with at least
  one flow in the bucket. No interval is given when K' < 2.

For the mean this is the usual interval for the mean FCT. For a percentile it is
an interval for the expected per-replication percentile, which converges to the
population percentile as each replication's bucket grows (a percentile of n
samples is biased by O(1/n)); the ``n_min`` column shows the smallest number of
flows any replication had in the bucket, so a reader can judge it. The pooled
value over all flows is given beside each estimate (``*_pooled``).

This module splits, seeds and merges; the replications are run by
`fctlab.sweep.replicate` (as a sweep of one point), which
``fctlab.replicate(config, K)`` calls.
"""

from __future__ import annotations

import copy
import hashlib
import math
import sys
import types
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_PERCENTILES = (50.0, 99.0)


# ------------------------------------------------------------------- splitting


def replication_seed(seed: int, index: int) -> int:
    """The seed of replication ``index`` of a run whose seed is ``seed`` (63 bits)."""
    h = hashlib.sha256(f"fctlab-replication:{int(seed)}:{int(index)}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def _err(msg: str, field: str):
    from .config import ConfigError

    return ConfigError(msg, field)


def check_replications(value: Any, field: str = "replications") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _err(f"{field}: must be a whole number >= 1, got {value!r}", field)
    return int(value)


def split(config: Mapping[str, Any], replications: int) -> list:
    """The K engine configs of a run split into ``replications`` (see the module doc).

    ``config`` must not contain ``replications`` any more. With K = 1 the config is
    returned unchanged (its own seed, all its flows).
    """
    k = check_replications(replications)
    if k == 1:
        return [copy.deepcopy(dict(config))]
    seed = int(config.get("seed", 0))
    traffic = config.get("traffic") or []
    for i, t in enumerate(traffic):
        n = t.get("count") if isinstance(t, Mapping) else None
        if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < k:
            raise _err(
                f"traffic[{i}].count: {n} flows cannot be split into replications = {k} (each needs at least one)",
                f"traffic[{i}].count",
            )
    out = []
    for r in range(k):
        c = copy.deepcopy(dict(config))
        c["seed"] = replication_seed(seed, r)
        for t in c.get("traffic") or []:
            n = t.get("count") if isinstance(t, dict) else None
            if isinstance(n, int) and not isinstance(n, bool):
                t["count"] = n // k + (1 if r < n % k else 0)
        out.append(c)
    return out


# ------------------------------------------------------------------ statistics


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t with ``df`` degrees of freedom (scipy.stats.t)."""
    from scipy.stats import t as student_t

    return float(student_t.cdf(t, df))


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (scipy.stats.t)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if df <= 0:
        raise ValueError("df must be positive")
    from scipy.stats import t as student_t

    return float(student_t.ppf(p, df))


def t_interval(values: Sequence[float], confidence: float = 0.95):
    """(mean, low, high) of Student's t interval over independent values;
    low = high = NaN with fewer than two values."""
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    if len(v) == 0:
        return math.nan, math.nan, math.nan
    m = float(v.mean())
    if len(v) < 2:
        return m, math.nan, math.nan
    half = t_ppf(0.5 + confidence / 2.0, len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return m, m - half, m + half


def size_edges(max_pkts: float, per_decade: int = 5) -> np.ndarray:
    """Fixed log-spaced bucket edges in packets: 10^(i/per_decade), from 1 up to
    past ``max_pkts``. The same for every replication (they depend on nothing else)."""
    top = max(1, math.ceil(math.log10(max(float(max_pkts), 1.0)) * per_decade + 1e-9) + 1)
    return 10.0 ** (np.arange(top + 1) / per_decade)


def _pct_name(q: float) -> str:
    return "p" + (f"{q:g}".replace(".", "_"))


def summarize(
    flows: pd.DataFrame,
    *,
    by: str = "replication",
    value: str = "fct_ns",
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    confidence: float = 0.95,
    per_decade: int = 5,
    edges: Sequence[float] | None = None,
) -> pd.DataFrame:
    """Merge replications: per size bucket, the mean and ``percentiles`` of
    ``value`` over completed flows with Student-t confidence intervals across the
    replications named by column ``by`` (see the module doc for the method).

    ``value`` is a flow column (``fct_ns``) or ``"slowdown"`` (fct_ns / ideal_ns).
    Returns one row per non-empty bucket: ``size_lo_pkts``, ``size_hi_pkts``,
    ``size_pkts`` (geometric mean size in the bucket), ``n_flows``, ``n_min``
    (fewest flows of any replication in it), ``replications``; then for the mean
    and each percentile ``pXX``: ``<stat>``, ``<stat>_lo``, ``<stat>_hi``,
    ``<stat>_pooled``. Values keep the unit of ``value`` (ns for FCT).
    """
    if by not in flows.columns:
        raise KeyError(f"summarize: no column {by!r} naming the replications")
    done = flows[flows["completed"].astype(bool)]
    if value == "slowdown":
        vals = done["fct_ns"].astype(float) / done["ideal_ns"].astype(float)
    else:
        vals = done[value].astype(float)
    sizes = done["size_pkts"].astype(float).to_numpy()
    reps = done[by].to_numpy()
    v = vals.to_numpy()
    stats = ["mean"] + [_pct_name(q) for q in percentiles]
    cols = ["size_lo_pkts", "size_hi_pkts", "size_pkts", "n_flows", "n_min", "replications"]
    for s in stats:
        cols += [s, f"{s}_lo", f"{s}_hi", f"{s}_pooled"]
    if len(v) == 0:
        return pd.DataFrame(columns=cols)
    e = np.asarray(edges if edges is not None else size_edges(sizes.max(), per_decade), dtype=float)
    idx = np.searchsorted(e, sizes, side="right") - 1
    all_reps = pd.unique(flows[by])
    rows = []
    for b in np.unique(idx):
        if b < 0 or b >= len(e) - 1:
            lo, hi = (math.nan, e[0]) if b < 0 else (e[-1], math.inf)
        else:
            lo, hi = e[b], e[b + 1]
        m = idx == b
        bv, br, bs = v[m], reps[m], sizes[m]
        per = {}
        for r in all_reps:
            x = bv[br == r]
            if len(x):
                per[r] = x
        row = {
            "size_lo_pkts": lo,
            "size_hi_pkts": hi,
            "size_pkts": float(np.exp(np.log(bs).mean())),
            "n_flows": int(m.sum()),
            "n_min": int(min(len(x) for x in per.values())) if len(per) == len(all_reps) else 0,
            "replications": len(per),
        }
        est, lo, hi = t_interval([float(x.mean()) for x in per.values()], confidence)
        row.update({"mean": est, "mean_lo": lo, "mean_hi": hi, "mean_pooled": float(bv.mean())})
        for q, s in zip(percentiles, stats[1:]):
            est, lo, hi = t_interval([float(np.percentile(x, q)) for x in per.values()], confidence)
            row.update({s: est, f"{s}_lo": lo, f"{s}_hi": hi, f"{s}_pooled": float(np.percentile(bv, q))})
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def overall(flows: pd.DataFrame, **kw) -> pd.DataFrame:
    """`summarize` with a single bucket holding every size."""
    return summarize(flows, edges=[0.0, math.inf], **kw)


# ------------------------------------------------------------------- merging


class Replicated:
    """A run merged from replications: ``flows`` (all of them, with a
    ``replication`` column), ``metas`` (one meta dict per replication),
    ``run_keys`` (their store keys, if stored) and `summary`."""

    def __init__(self, flows: pd.DataFrame, metas: list, run_keys: list | None = None):
        self.flows = flows
        self.metas = metas
        self.run_keys = run_keys or []

    @property
    def replications(self) -> int:
        return len(self.metas)

    @property
    def wall_s(self) -> float:
        return float(sum(m.get("wall_s", 0.0) for m in self.metas))

    def summary(self, **kw) -> pd.DataFrame:
        """Per size bucket: mean and percentile FCT with confidence intervals (`summarize`)."""
        return summarize(self.flows, **kw)

    def overall(self, **kw) -> pd.DataFrame:
        return overall(self.flows, **kw)

    def __repr__(self) -> str:
        return f"<Replicated: {self.replications} replications, {len(self.flows)} flows>"


def merge(results: Sequence, run_keys: list | None = None) -> Replicated:
    """Concatenate results (``fctlab.Result``) as replications 0..K-1."""
    frames = []
    for i, r in enumerate(results):
        f = r.flows.copy()
        f.insert(0, "replication", i)
        frames.append(f)
    flows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return Replicated(flows, [r.meta for r in results], run_keys)


def replicate(config, replications: int | None = None, **kw) -> Replicated:
    """Run ``config`` as ``replications`` independent replications and merge them:
    `fctlab.sweep.replicate` (a sweep of one point executes them)."""
    from .sweep import replicate as run_replicated

    return run_replicated(config, replications, **kw)


class _CallableModule(types.ModuleType):
    """``fctlab.replicate(config, K)`` calls `replicate`; the module's other
    names stay reachable as ``fctlab.replicate.summarize`` etc."""

    def __call__(self, *args, **kwargs):
        return replicate(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

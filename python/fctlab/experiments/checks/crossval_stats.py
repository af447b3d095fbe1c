"""The statistics the crossval-ns3 page compares: FCT per size bin, ratios to
ns-3, and whether a difference lies within the preset's own run-to-run noise."""

from __future__ import annotations

import math

import numpy as np

from .crossval import BINS


def bin_stats(fct: np.ndarray, sizes: np.ndarray, mask: np.ndarray) -> list:
    """(flows, mean, p99) of FCT in s per size bin, over the flows in ``mask``."""
    out = []
    for a, b in BINS:
        sel = mask & (sizes >= a) & (sizes <= b)
        x = fct[sel]
        out.append(
            (
                int(sel.sum()),
                float(np.mean(x)) if len(x) else math.nan,
                float(np.quantile(x, 0.99)) if len(x) else math.nan,
            )
        )
    return out


def compare(a: dict, b: dict, sizes: np.ndarray) -> list:
    """Per bin: (flows, mean a, mean b, mean ratio a/b, p99 a, p99 b, p99 ratio),
    over the flows both completed."""
    both = ~np.isnan(a["fct"]) & ~np.isnan(b["fct"])
    sa, sb = bin_stats(a["fct"], sizes, both), bin_stats(b["fct"], sizes, both)
    return [
        (n, ma, mb, ma / mb if mb else math.nan, pa, pb, pa / pb if pb else math.nan)
        for (n, ma, pa), (_, mb, pb) in zip(sa, sb)
    ]


def worst(rows: list) -> tuple:
    """The largest |mean ratio - 1| and |p99 ratio - 1| over the bins of ``rows``."""
    wm = max((abs(r[3] - 1) for r in rows if not math.isnan(r[3])), default=math.nan)
    wp = max((abs(r[6] - 1) for r in rows if not math.isnan(r[6])), default=math.nan)
    return wm, wp


def ensemble_stats(runs: list, ref: dict, sizes: np.ndarray) -> list:
    """Per bin, over the flows every run and ``ref`` completed: the members'
    (mean, p99) arrays, each in s, and ``ref``'s (mean, p99)."""
    both = ~np.isnan(ref["fct"])
    for r in runs:
        both &= ~np.isnan(r["fct"])
    members = [bin_stats(r["fct"], sizes, both) for r in runs]
    refs = bin_stats(ref["fct"], sizes, both)
    out = []
    for b in range(len(BINS)):
        out.append(
            {
                "flows": refs[b][0],
                "mean": np.array([m[b][1] for m in members]),
                "p99": np.array([m[b][2] for m in members]),
                "ref_mean": refs[b][1],
                "ref_p99": refs[b][2],
            }
        )
    return out


def scipy_t_ppf(q: float, df: int) -> float:
    from scipy.stats import t as student_t

    return float(student_t.ppf(q, df))


def within_noise(members: np.ndarray, x: float) -> tuple:
    """Whether ``x`` lies in the 95% prediction interval of one more draw from
    the distribution the ``members`` were drawn from (normal, mean and sd
    estimated: m +- t(0.975, n-1) s sqrt(1 + 1/n)); and that half-width
    relative to ``x``."""
    n = len(members)
    half = float(scipy_t_ppf(0.975, n - 1) * np.std(members, ddof=1) * math.sqrt(1 + 1 / n))
    return abs(x - float(np.mean(members))) <= half, half / x if x else math.nan


def verdict(members: np.ndarray, x: float, goal: float) -> tuple:
    """(ratio of the members' mean to ``x``, "goal" | "noise" | "differs")."""
    ratio = float(np.mean(members)) / x if x else math.nan
    if abs(ratio - 1) <= goal:
        return ratio, "goal"
    return ratio, ("noise" if within_noise(members, x)[0] else "differs")

"""The tables of the crossval-ns3 page."""

from __future__ import annotations

import math

import numpy as np

from ...report import Table
from .crossval import BIN_NAMES, GOAL_MEAN, GOAL_P99

BIN_COLUMNS = [
    "cell",
    "size bin",
    "flows",
    "mean fctlab default",
    "mean fctlab ns3",
    "mean ns3 runs (min-max)",
    "mean ns-3",
    "mean ratio",
    "mean verdict",
    "p99 fctlab default",
    "p99 fctlab ns3",
    "p99 ns-3",
    "p99 ratio",
    "p99 verdict",
]
CELL_COLUMNS = [
    "cell",
    "drops default",
    "drops ns3 preset",
    "drops ns-3",
    "worst mean default",
    "worst p99 default",
    "worst mean ns3",
    "worst p99 ns3",
    "goal met (ns3)",
    "within noise",
    "differs",
]
POOLED_COLUMNS = [
    "size bin",
    "mean: difference %",
    "mean: 95% CI %",
    "mean: cells in goal",
    "p99: difference %",
    "p99: 95% CI %",
    "p99: cells in goal",
    "flows >= 3 s ns-3",
    "flows >= 3 s preset (mean of runs)",
    "flows >= 3 s defaults",
]


def bins_table(rows: list, what: str = "TCP NewReno") -> Table:
    return Table(
        title=f"{what}: FCT per size bin (ms): fctlab with its defaults, with the ns3 preset (mean of its runs, "
        "and their range), and ns-3; ratios are preset / ns-3. Verdict: goal (within "
        f"{GOAL_MEAN:.0%} for the mean, {GOAL_P99:.0%} for the p99), noise (outside the goal, but ns-3 falls in the "
        "95% prediction interval of the preset's runs: the difference is what one model gives run to run), differs "
        "(neither)",
        columns=BIN_COLUMNS,
        rows=rows,
        key_columns=2,
    )


def cells_table(summary: list, what: str = "TCP NewReno") -> Table:
    return Table(
        title=f"{what}, per cell: bottleneck drops, the worst bin (|ratio - 1| against ns-3), and the count of bin "
        "statistics (of 8: mean and p99 of four bins) outside the goal but within noise, and outside both",
        columns=CELL_COLUMNS,
        rows=summary,
        key_columns=1,
    )


def _pooled_cells(x: np.ndarray, goal: float, t_ppf) -> list:
    """The geometric mean of the cells' ratios as a difference in %, its 95% interval, and the cells in goal."""
    m = float(np.mean(x))
    ci = float(t_ppf(0.975, len(x) - 1) * np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
    interval = (
        f"{(math.exp(m - ci) - 1) * 100:+.1f} to {(math.exp(m + ci) - 1) * 100:+.1f}" if not math.isnan(ci) else ""
    )
    return [(math.exp(m) - 1) * 100, interval, int(np.sum(np.abs(np.expm1(x)) <= goal))]


def pooled_table(pooled: dict, tails: dict, t_ppf) -> Table:
    rows = []
    for b, name in enumerate(BIN_NAMES):
        row = [name]
        for what, goal in (("mean", GOAL_MEAN), ("p99", GOAL_P99)):
            row += _pooled_cells(np.array(pooled[what][b]), goal, t_ppf)
        row += [int(tails["ns3"][b]), float(tails["preset"][b]), int(tails["default"][b])]
        rows.append(row)
    return Table(
        title=f"Per size bin over all {len(pooled['mean'][0])} DropTail cells: the preset's systematic difference "
        "from ns-3 (geometric mean of the cells' ratios, %, with its 95% confidence interval over the cells), the "
        "cells within the goal, and the flows that took 3 s or more (a lost SYN waits 3 s), summed over the cells",
        columns=POOLED_COLUMNS,
        rows=rows,
        key_columns=1,
    )

"""Figs 8 and 9 (one page): HighSpeed TCP against TCP SACK over DropTail: FCT and queue."""

from __future__ import annotations

from pathlib import Path

from ...report import Figure
from ..page import Page, parameters
from ..registry import reproduction
from .fct_queue import fct_queue_params, fct_queue_runs, means_table, scaled, summary
from .scenarios import FIG8_CONFIGS, SOURCE


@reproduction(
    "dukkipati2006-fig8",
    title="HighSpeed TCP against TCP SACK (2006, Figs 8 and 9)",
    aliases=("dukkipati2006-fig9",),
)
def fig8(out: Path, scale: str) -> list:
    """Figs 8 and 9: HighSpeed TCP against TCP SACK over DropTail: FCT and queue."""
    p = Page("dukkipati2006-fig8", out, scale)
    png8, png9, rows, ran, count = fct_queue_runs(p, FIG8_CONFIGS, "fig8", "fig9")
    params = fct_queue_params(ran["HSTCP, DropTail"], count)
    params["TCP SACK"] = "RFC 2018 SACK blocks, RFC 6675 loss recovery, NewReno growth (tcp-sack)"
    interval = ran["HSTCP, DropTail"]["metrics"]["interval_ms"]
    _, text = summary(rows)
    c8 = (
        f"{SOURCE}, Fig. 8: average FCT by flow size of HighSpeed TCP and TCP SACK, both over DropTail. {text}. "
        "The paper: HSTCP's flows take about as long as TCP's, because most flows end in slow start, where HSTCP is "
        f"standard TCP. Scale: {scaled(scale, count)}. {parameters(params)}"
    )
    c9 = (
        f"{SOURCE}, Fig. 9: the bottleneck queue over time (sampled every {interval:g} ms) for TCP SACK and HSTCP. "
        "Parameters as Fig. 8."
    )
    return p.record(
        source=f"{SOURCE}, Figs 8 and 9",
        figures=[Figure(png8, c8), Figure(png9, c9)],
        tables=[means_table(rows)],
        params=ran,
        seed=params["seed"],
    )

"""Figs 10 and 11 (one page): HSTCP over DropTail, adaptive gentle RED and RED
with ECN: FCT and queue."""

from __future__ import annotations

from pathlib import Path

from ...report import Figure
from .. import captions
from ..page import Page, parameters
from ..registry import reproduction
from .fct_queue import fct_queue_params, fct_queue_runs, means_table, scaled, summary
from .scenarios import FIG10_CONFIGS, SOURCE


@reproduction(
    "dukkipati2006-fig10",
    title="HighSpeed TCP with RED and ECN (2006, Figs 10 and 11)",
    aliases=("dukkipati2006-fig11",),
)
def fig10(out: Path, scale: str) -> list:
    """Figs 10 and 11: HSTCP over DropTail, adaptive gentle RED (5 ms target) and RED with ECN: FCT and queue."""
    p = Page("dukkipati2006-fig10", out, scale)
    png10, png11, rows, ran, count = fct_queue_runs(p, FIG10_CONFIGS, "fig10", "fig11")
    cfg, ecn = ran["HSTCP, DropTail"], ran["HSTCP, RED + ECN"]
    params = fct_queue_params(cfg, count)
    target = captions.num(ecn["network"]["red"]["target_delay_ms"])
    params["RED"] = (
        f"gentle, adaptive, target delay {target} ms (the paper), thresholds and weight automatic (ns-2 defaults)"
    )
    by, text = summary(rows)
    marked = by["HSTCP, RED + ECN"]
    c10 = (
        f"{SOURCE}, Fig. 10: average FCT by flow size of HighSpeed TCP over DropTail, adaptive gentle RED and RED with "
        f"ECN. {text}. The paper: RED and ECN keep the queue low, which does not shorten flows. With ECN, RED marks "
        f"only while its drop probability is at most mark_p (ns-2's mark_p "
        f"{captions.num(captions.value(ecn, 'network.red.mark_p'))}) and drops above it: {marked[7]:,} marks against "
        f"{marked[6]:,} drops here. Scale: {scaled(scale, count)}. {parameters(params)}"
    )
    c11 = (
        f"{SOURCE}, Fig. 11: the bottleneck queue over time (sampled every {cfg['metrics']['interval_ms']:g} ms) for "
        "the three configurations of Fig. 10. Parameters as Fig. 10."
    )
    return p.record(
        source=f"{SOURCE}, Figs 10 and 11",
        figures=[Figure(png10, c10), Figure(png11, c11)],
        tables=[means_table(rows)],
        params=ran,
        seed=cfg["seed"],
    )

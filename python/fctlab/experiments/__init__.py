"""Reproductions of the source documents' figures and tables: one package per
source document (``dukkipati2006/``, ``kanakia1991/``, ...) and one for the
project's own pages (``checks/``); one page per module, registered with
`fctlab.experiments.registry.reproduction`.

The registry (`specs`, `REGISTRY`, `canonical`) lists the
pages in report order: the order of their modules in `PAGES`.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path

from . import registry
from .registry import ALIASES, REGISTRY, Spec, canonical, reproduction, spec, specs

#: Every page's module, in report order.
PAGES = (
    "dukkipati2006.fig1",
    "dukkipati2006.fig2",
    "dukkipati2006.fig3",
    "dukkipati2006.fig4",
    "dukkipati2006.fig5",
    "dukkipati2006.fig6",
    "checks.baselines",
    "dukkipati2006.fig8",
    "dukkipati2006.fig10",
    "dukkipati2006.fig12",
    "dukkipati2006.fig13",
    "dukkipati2006.rcp_convergence",
    "dukkipati2006.rcp_sensitivity",
    "zhuang2016.fig6",
    "checks.replicated",
    "mussmann2012.fig5_1",
    "mussmann2012.fig5_3",
    "mussmann2012.fig5_2",
    "mussmann2012.fig5_4",
    "checks.live_vs_sim",
    "kanakia1991.table4_1",
    "kanakia1991.table4_2",
    "kanakia1991.table4_3",
    "kanakia1991.table4_4",
    "kanakia1991.table4_5",
    "kanakia1991.table4_6",
    "kanakia1991.table4_7",
    "kanakia1991.table4_8",
    "kanakia1991.table4_9",
    "kanakia1991.table4_10",
    "kanakia1991.suite_page",
    "checks.crossval_ns3",
    "checks.fabric_websearch",
    "checks.fabric_ecmp",
    "checks.fabric_htsim",
    "checks.modern_tcp",
    "checks.dctcp_queue",
    "checks.modern_tcp_fct",
    "gavaletz2010.fig1",
    "gavaletz2010.fig2",
    "gavaletz2010.fig3",
    "gavaletz2010.fig4",
    "gavaletz2010.fig5",
    "checks.rtt_fairness_modern",
)

for _module in PAGES:
    importlib.import_module(f".{_module}", __name__)
registry.order(PAGES)

__all__ = ["ALIASES", "PAGES", "REGISTRY", "Spec", "canonical", "reproduce", "reproduction", "spec", "specs"]


def reproduce(names, *, scale: str = "quick", out_dir="report") -> Path:
    """Run the named reproductions and write the report; return the index path."""
    import fctlab

    from ..report import write_report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    reps = []
    for name in map(canonical, names):
        t0 = time.monotonic()
        print(f"[{name}] running ({scale})...", flush=True)
        got = REGISTRY[name](out, scale)
        print(f"[{name}] done in {time.monotonic() - t0:.1f} s", flush=True)
        reps.extend(got)
    return write_report(out, reps, title=f"fctlab reproductions ({scale})", version=fctlab.__version__)

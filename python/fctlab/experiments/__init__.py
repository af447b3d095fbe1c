"""Reproductions of the source documents' figures and tables, one module per document."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import crossval, dukkipati2006, gavaletz2010, kanakia1991, live, mussmann2012, zhuang2016

#: name -> callable(out_dir: Path, scale: str) -> list[Reproduction]
REGISTRY = {
    "dukkipati2006-fig1": dukkipati2006.fig1,
    "dukkipati2006-fig2": dukkipati2006.fig2,
    "dukkipati2006-fig3": dukkipati2006.fig3,
    "dukkipati2006-fig4": dukkipati2006.fig4,
    "dukkipati2006-fig5": dukkipati2006.fig5,
    "dukkipati2006-fig6": dukkipati2006.fig6,
    "baselines-tcp-ps-srpt": dukkipati2006.baselines,
    "dukkipati2006-fig8": dukkipati2006.fig8,
    "dukkipati2006-fig10": dukkipati2006.fig10,
    "dukkipati2006-fig12": dukkipati2006.fig12,
    "dukkipati2006-fig13": dukkipati2006.fig13,
    "dukkipati2006-rcp-convergence": dukkipati2006.rcp_convergence,
    "dukkipati2006-rcp-sensitivity": dukkipati2006.rcp_sensitivity,
    "zhuang2016-fig6": zhuang2016.fig6,
    "replicated-fig1-workload": dukkipati2006.replicated,
    "mussmann2012-fig5-1": mussmann2012.fig51,
    "mussmann2012-fig5-3": mussmann2012.fig53,
    "mussmann2012-fig5-2": mussmann2012.fig52,
    "mussmann2012-fig5-4": mussmann2012.fig54,
    "live-vs-sim": live.live_vs_sim,
    "kanakia1991-table4-1": kanakia1991.table41,
    "kanakia1991-table4-2": kanakia1991.table42,
    "kanakia1991-table4-3": kanakia1991.table43,
    "kanakia1991-table4-4": kanakia1991.table44,
    "kanakia1991-table4-5": kanakia1991.table45,
    "kanakia1991-table4-6": kanakia1991.table46,
    "kanakia1991-table4-7": kanakia1991.table47,
    "kanakia1991-table4-8": kanakia1991.table48,
    "kanakia1991-table4-9": kanakia1991.table49,
    "kanakia1991-table4-10": kanakia1991.table410,
    "kanakia1991": kanakia1991.page,
    "crossval-ns3": crossval.crossval_ns3,
    "gavaletz2010-fig1": gavaletz2010.fig1,
    "gavaletz2010-fig2": gavaletz2010.fig2,
    "gavaletz2010-fig3": gavaletz2010.fig3,
    "gavaletz2010-fig4": gavaletz2010.fig4,
    "gavaletz2010-fig5": gavaletz2010.fig5,
}

#: Other spellings of reproduction names (the thesis numbers its figures 5.1 ...).
ALIASES = {f"mussmann2012-fig5.{i}": f"mussmann2012-fig5-{i}" for i in range(1, 5)}
# Figures drawn on the page of the one before them.
ALIASES.update({"dukkipati2006-fig7": "dukkipati2006-fig6"})


@dataclass(frozen=True)
class Spec:
    """One reproduction: its name, the source document (``dukkipati2006``,
    ``fctlab``), a one-line title, other spellings of its name, and the
    function that runs it."""

    name: str
    source: str
    title: str
    aliases: tuple
    func: Callable


def specs() -> list:
    """Every reproduction, in report order."""
    out = []
    for name, func in REGISTRY.items():
        doc = (func.__doc__ or "").strip().split("\n\n")[0]
        title = " ".join(doc.split())
        aliases = tuple(a for a, n in ALIASES.items() if n == name)
        source = name.split("-")[0] if "-" in name else name
        out.append(Spec(name, source, title, aliases, func))
    return out


def canonical(name: str) -> str:
    """The registered name of ``name`` (an alias or the name itself)."""
    return ALIASES.get(name, name)


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

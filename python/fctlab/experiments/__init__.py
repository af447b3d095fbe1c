"""Reproductions of the source documents' figures and tables, one module per document."""

from __future__ import annotations

import time
from pathlib import Path

from . import crossval, dukkipati2006, mussmann2012

#: name -> callable(out_dir: Path, scale: str) -> list[Reproduction]
REGISTRY = {
    "dukkipati2006-fig1": dukkipati2006.fig1,
    "dukkipati2006-fig2": dukkipati2006.fig2,
    "dukkipati2006-fig3": dukkipati2006.fig3,
    "dukkipati2006-fig4": dukkipati2006.fig4,
    "dukkipati2006-fig5": dukkipati2006.fig5,
    "baselines-tcp-ps-srpt": dukkipati2006.baselines,
    "dukkipati2006-fig8": dukkipati2006.fig8,
    "dukkipati2006-fig10": dukkipati2006.fig10,
    "dukkipati2006-fig12": dukkipati2006.fig12,
    "dukkipati2006-fig13": dukkipati2006.fig13,
    "replicated-fig1-workload": dukkipati2006.replicated,
    "mussmann2012-fig5-1": mussmann2012.fig51,
    "mussmann2012-fig5-3": mussmann2012.fig53,
    "crossval-ns3": crossval.crossval_ns3,
}


def reproduce(names, *, scale: str = "quick", out_dir="report") -> Path:
    """Run the named reproductions and write the report; return the index path."""
    import fctlab
    from ..report import write_report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    reps = []
    for name in names:
        t0 = time.monotonic()
        print(f"[{name}] running ({scale})...", flush=True)
        got = REGISTRY[name](out, scale)
        print(f"[{name}] done in {time.monotonic() - t0:.1f} s", flush=True)
        reps.extend(got)
    return write_report(out, reps, title=f"fctlab reproductions ({scale})", version=fctlab.__version__)

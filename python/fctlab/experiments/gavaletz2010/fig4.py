"""Fig. 4: throughput over time of ten transfers of 50-500 ms under NewReno, SRF, Libra and Tarheel."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .over_time import over_time_page


@reproduction("gavaletz2010-fig4", title="Ten transfers, 50-500 ms: T(t) as % of bottleneck capacity (2010, Fig. 4)")
def fig4(out: Path, scale: str) -> list:
    """Fig. 4: throughput over time of NewReno, SRF, Libra and Tarheel."""
    return over_time_page(Page("gavaletz2010-fig4", out, scale), "throughput_bps")

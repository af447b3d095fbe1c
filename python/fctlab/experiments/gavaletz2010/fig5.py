"""Fig. 5: RTT over time of ten transfers of 50-500 ms under NewReno, SRF, Libra and Tarheel."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .over_time import over_time_page


@reproduction(
    "gavaletz2010-fig5", title="Ten transfers, 50-500 ms: RTT(t) (the sender's smoothed estimate) (2010, Fig. 5)"
)
def fig5(out: Path, scale: str) -> list:
    """Fig. 5: RTT over time."""
    return over_time_page(Page("gavaletz2010-fig5", out, scale), "rtt_ms")

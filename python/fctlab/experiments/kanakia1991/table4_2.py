"""Table 4.2: a sudden large change in cross traffic (ten connections 4 ms apart)."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .scenarios import T42_CROSS_GAP_S
from .table4_1 import probe_table
from .tables import title

WHAT = "Sudden jump in cross traffic: connection 1's transfer time and the probe's delay"


@reproduction("kanakia1991-table4-2", title=title(WHAT, "4.2"), aliases=("kanakia1991-table4.2",))
def table42(out: Path, scale: str) -> list:
    """Table 4.2: a sudden large change in cross traffic (ten connections 4 ms apart)."""
    return probe_table(Page("kanakia1991-table4-2", out, scale), "4.2", WHAT, T42_CROSS_GAP_S)

"""Table 4.8: experiment 1 with a tenth of the buffers (44 packets)."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .scenarios import T41_CROSS_GAP_S, T48_BUFFER_PKTS
from .table4_1 import probe_table
from .tables import title

WHAT = "Fewer buffers (44 instead of 440): connection 1's transfer time and the probe's delay"


@reproduction("kanakia1991-table4-8", title=title(WHAT, "4.8"), aliases=("kanakia1991-table4.8",))
def table48(out: Path, scale: str) -> list:
    """Table 4.8: experiment 1 with a tenth of the buffers (44 packets)."""
    page = Page("kanakia1991-table4-8", out, scale)
    return probe_table(page, "4.8", WHAT, T41_CROSS_GAP_S, buffer_pkts=T48_BUFFER_PKTS)

"""Fig. 2: standard AIMD (w0 = 1, SST = 100) for 20, 30 and 40 ms transfers."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .aimd import aimd_page


@reproduction("gavaletz2010-fig2", title="Standard AIMD for 20, 30 and 40 ms transfers (2010, Fig. 2)")
def fig2(out: Path, scale: str) -> list:
    """Fig. 2: standard AIMD (w0 = 1, SST = 100) for 20, 30, 40 ms."""
    return aimd_page(Page("gavaletz2010-fig2", out, scale), scaled=False)

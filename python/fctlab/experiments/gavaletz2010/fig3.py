"""Fig. 3: scaled AIMD (r_ref = 30 ms) for 20, 30 and 40 ms transfers."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .aimd import aimd_page


@reproduction("gavaletz2010-fig3", title="Scaled AIMD for 20, 30 and 40 ms transfers (2010, Fig. 3)")
def fig3(out: Path, scale: str) -> list:
    """Fig. 3: scaled AIMD (r_ref = 30 ms)."""
    return aimd_page(Page("gavaletz2010-fig3", out, scale), scaled=True)

"""What every page shares: runs with progress, the clock, the house style for
axes, saving a figure, the scenario part of a caption, the published numbers
beside a page, and the `fctlab.report.Reproduction` record.

A page function reads::

    @reproduction("dukkipati2006-fig3", title="...")
    def fig3(out, scale):
        p = Page("dukkipati2006-fig3", out, scale)
        res = p.run(cfg)
        fig, ax = p.subplots(figsize=(7, 3.8))
        ...
        style(ax, "time (RTTs)", "flows in the system")
        png = p.save(fig)
        return p.record(source=..., figures=[Figure(png, caption)], params=...)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import fctlab

from ..plots import params_caption, pyplot
from ..plots import save as _save
from ..progress import RunProgress
from ..report import Reproduction
from . import registry

#: House style: legend and panel-title font sizes.
LEGEND_SIZE, TITLE_SIZE = 7, 9


def run(cfg: Mapping[str, Any], label: str | None = None, *, warn: bool = True):
    """``fctlab.run(cfg)``; with ``label``, a progress line on standard error while it runs."""
    if label is None:
        return fctlab.run(cfg, warn=warn)
    prog = RunProgress(label=f"  {label}: ")
    try:
        return fctlab.run(cfg, progress=prog, warn=warn)
    finally:
        prog.close()


def style(
    ax,
    xlabel: str | None = None,
    ylabel: str | None = None,
    *,
    title: str | None = None,
    log: str = "",
    xlim=None,
    ylim=None,
    legend: bool = True,
    loc: str | None = None,
    legend_size: int = LEGEND_SIZE,
) -> None:
    """The house style of a panel: labels, a small title, log scales (``log``
    holds "x" and/or "y"), limits and a small legend."""
    if "x" in log:
        ax.set_xscale("log")
    if "y" in log:
        ax.set_yscale("log")
    if log:
        ax.grid(True, which="both", alpha=0.3)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, fontsize=TITLE_SIZE)
    if xlim is not None:
        ax.set_xlim(*xlim) if isinstance(xlim, tuple) else ax.set_xlim(xlim)
    if ylim is not None:
        ax.set_ylim(*ylim) if isinstance(ylim, tuple) else ax.set_ylim(ylim)
    if legend:
        ax.legend(fontsize=legend_size, loc=loc)


def parameters(params: Mapping[str, Any]) -> str:
    """The scenario part of a caption: ``Parameters: key = value; ... .``"""
    return f"Parameters: {params_caption(dict(params))}."


def quick_or_full(scale: str) -> str:
    return "full" if scale == "full" else "quick"


@functools.cache
def _published_file(path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore
    return tomllib.loads(Path(path).read_text())


def _none(v):
    """The data files write a number the source does not give as "?"."""
    if isinstance(v, dict):
        return {k: _none(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_none(x) for x in v]
    return None if v == "?" else v


def published(module_file: str, section: str) -> dict:
    """Section ``section`` of ``published.toml`` beside ``module_file``: the
    source's own numbers, with the key ``source`` saying where they are from;
    cells given as "?" (not in the source) come back as None."""
    data = _published_file(str(Path(module_file).with_name("published.toml")))[section]
    return {k: _none(v) for k, v in data.items()}


class Page:
    """One page being built: its name, output directory, scale and clock."""

    def __init__(self, name: str, out, scale: str):
        self.spec = registry.spec(name)
        self.name = name
        self.out = Path(out)
        self.scale = scale
        self.full = scale == "full"
        self.t0 = time.monotonic()

    def run(self, cfg: Mapping[str, Any], label: str | None = None, *, warn: bool = True):
        """`run`."""
        return run(cfg, label, warn=warn)

    def subplots(self, *args, **kw):
        """``matplotlib.pyplot.subplots`` on the report's backend and defaults."""
        return pyplot().subplots(*args, **kw)

    def save(self, fig, suffix: str = "", *, name: str | None = None) -> str:
        """Lay out and write ``<page name><suffix>.png`` (or ``name``); return its file name."""
        return _save(fig, self.out, name or f"{self.name}{suffix}.png")

    def wall(self) -> float:
        """Seconds since the page started."""
        return time.monotonic() - self.t0

    def record(
        self,
        *,
        source: str,
        figures=(),
        tables=(),
        params: Mapping[str, Any] | None = None,
        seed: Any = None,
        notes: str = "",
        title: str | None = None,
        wall_s: float | None = None,
        command: str = "",
    ) -> list:
        """The page's `fctlab.report.Reproduction` (in a list, as page functions return)."""
        return [
            Reproduction(
                name=self.name,
                title=title or self.spec.title,
                source=source,
                figures=list(figures),
                tables=list(tables),
                params=dict(params or {}),
                seed=seed,
                wall_s=self.wall() if wall_s is None else wall_s,
                scale=self.scale,
                notes=notes,
                command=command,
            )
        ]


def size_grid(top: float, bottom: float = 1.0, points: int = 300):
    """Whole flow sizes (packets), log-spaced from ``bottom`` to ``top``: the
    x values of an analytic curve drawn beside measured FCTs."""
    import numpy as np

    return np.unique(np.round(np.logspace(np.log10(bottom), np.log10(top), points)).astype(int))

"""What the pages of Tables 4.1 to 4.10 share: the published rows, a table of
one row per scheme beside the paper's, its caption, and the ratios the notes
quote."""

from __future__ import annotations

import math

from ...report import Table
from ..page import Page, parameters, published
from .network import SCHEMES, SOURCE


def published_rows(section: str) -> dict:
    """The published rows of one table (``table4_1``, ``table4_7b``, ...): scheme -> cells (None: not given)."""
    return published(__file__, section)["rows"]


def pad(vals, n: int) -> list:
    vals = list(vals)
    return (vals + [None] * n)[:n]


def caption(number: str, what: str, params: dict, extra: str = "") -> str:
    return (
        f"{SOURCE}, Table {number}: {what}. Each cell fctlab | paper | difference; hbh on the extra-hop variant (three "
        f"more switches on each source's access line, delays kept). {extra}{parameters(params)}"
    )


def title(what: str, number: str) -> str:
    return f"{what} ({SOURCE}, Table {number})"


def ratios(rows: list, names, col: int, section: str) -> list:
    """fctlab's value over the paper's in column ``col`` (1 = the first after the
    scheme) for the schemes ``names`` the paper gives a number for."""
    pub = published_rows(section)
    out = []
    for r in rows:
        p = pub.get(r[0], [None] * col)
        if r[0] in names and len(p) >= col and p[col - 1] and isinstance(r[col], float) and not math.isnan(r[col]):
            out.append(r[col] / p[col - 1])
    return out


def span(vals) -> str:
    """``1.17-1.34``: the range of some ratios."""
    lo, hi = min(vals), max(vals)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}"


def percent(x: float) -> str:
    """A small relative difference as a caption writes it: ``4%``, ``0.8%``, ``0.03%``."""
    for digits in (0, 1):
        if round(x * 100, digits) != 0:
            return f"{x:.{digits}%}"
    return f"{x:.2%}"


def row_of(rows: list, name: str) -> list:
    return next(r for r in rows if r[0] == name)


def simple_table(
    p: Page,
    number: str,
    what: str,
    cols: list,
    optimal_row: list,
    published: dict,
    row_fn,
    scenario_fn,
    params: dict,
    varied: tuple | None = None,
    optimal_note: str = "",
    notes=None,
) -> list:
    """One table: the optimal row, then one row per scheme beside the published
    row; with ``varied`` (label, row function, optimal row) a second table with
    one parameter changed. ``published``: the paper's rows (`published_rows`).
    ``notes``: text, or a function of the rows that returns it."""
    pub_rows = published
    rows = [["optimal", *optimal_row]]
    pub = [["optimal", *pad(pub_rows.get("optimal", ()), len(cols))]]
    cfgs = {}
    for name, tp, net in SCHEMES:
        cfgs[name] = scenario_fn(tp, net)
        rows.append([name, *row_fn(tp, net)])
        pub.append([name, *pad(pub_rows.get(name, ()), len(cols))])
    extra = optimal_note + " Deterministic: one run per scheme. "
    tables = [
        Table(
            title=f"Table {number}",
            columns=["scheme", *cols],
            rows=rows,
            published=pub,
            key_columns=1,
            published_source=f"Table {number}",
            caption=caption(number, what, params, extra),
        )
    ]
    if varied is not None:
        tables.append(_varied_table(number, cols, varied))
    text = notes(rows) if callable(notes) else (notes or "")
    return p.record(source=f"{SOURCE}, Table {number}", tables=tables, params=cfgs, seed=1, notes=text)


def _varied_table(number: str, cols: list, varied: tuple) -> Table:
    label, fn, opt = varied
    rows = [["optimal", *opt]]
    for name, tp, net in SCHEMES:
        rows.append([name, *fn(tp, net)])
    return Table(
        title=f"Varied once: {label}",
        columns=["scheme", *cols[: len(opt)]],
        rows=rows,
        caption=f"Table {number} with one unstated or reconstructed parameter changed: {label}.",
    )


def free_rate_finish_s(work_bits: float, capacity_bps: float, taken: list) -> float:
    """When ``work_bits`` are done by a server of ``capacity_bps`` from which
    the piecewise-constant rates ``taken`` = [(start_s, stop_s, bps), ...] are
    taken (the open-loop streams as fluid, below their fair share)."""
    edges = sorted({0.0} | {a for a, _, _ in taken} | {b for _, b, _ in taken})
    left = work_bits
    for a, b in zip(edges, edges[1:] + [float("inf")]):
        free = capacity_bps - sum(r for s, e, r in taken if s <= a < e)
        if free > 0 and left <= free * (b - a):
            return a + left / free
        left -= max(free, 0.0) * (b - a)
    raise ValueError("never done")

"""The HTML report: one page per reproduction plus an index (``report.html``)."""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional


@dataclass
class Figure:
    """A PNG written by matplotlib, with its caption (source, figure, parameters)."""

    path: str  # relative to the report directory
    caption: str


@dataclass
class Table:
    title: str
    columns: list
    rows: list
    caption: str = ""


@dataclass
class Reproduction:
    """One reproduced figure or table set from a source document."""

    name: str  # slug, also the page's file name
    title: str
    source: str  # e.g. "Dukkipati & McKeown, CCR 2006, Fig. 1"
    figures: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    seed: Optional[int] = None
    wall_s: float = 0.0
    scale: str = "quick"
    notes: str = ""


_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:.9em;color:#444}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f4f4f4}
code,pre{background:#f6f6f6}pre{padding:.6em;overflow-x:auto;font-size:.85em}
"""


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>{body}</body></html>\n"
    )


def _table_html(t: Table) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in t.columns)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r) + "</tr>" for r in t.rows)
    cap = f"<caption>{html.escape(t.title)}</caption>"
    note = f"<p>{html.escape(t.caption)}</p>" if t.caption else ""
    return f"<table>{cap}<tr>{head}</tr>{rows}</table>{note}"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_report(out_dir: os.PathLike | str, reproductions: list, *, title: str = "fctlab report", version: str = "") -> Path:
    """Write one page per reproduction and the index ``report.html``; return its path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = []
    for r in reproductions:
        body = [f"<p><a href='report.html'>&larr; index</a></p><h1>{html.escape(r.title)}</h1>"]
        body.append(f"<p>Source: {html.escape(r.source)}. Scale: {html.escape(r.scale)}. Seed: {r.seed}. "
                    f"Wall time: {r.wall_s:.1f} s. fctlab {html.escape(version)}.</p>")
        if r.notes:
            body.append(f"<p>{html.escape(r.notes)}</p>")
        for f in r.figures:
            body.append(f"<figure><img src='{html.escape(f.path)}' alt='{html.escape(r.title)}'>"
                        f"<figcaption>{html.escape(f.caption)}</figcaption></figure>")
        for t in r.tables:
            body.append(_table_html(t))
        body.append("<h2>Parameters</h2><pre>" + html.escape(json.dumps(r.params, indent=2, sort_keys=True, default=str)) + "</pre>")
        _write(out / f"{r.name}.html", _page(r.title, "".join(body)))
        items.append(f"<li><a href='{html.escape(r.name)}.html'>{html.escape(r.title)}</a> &mdash; {html.escape(r.source)}"
                     f" ({r.wall_s:.1f} s)</li>")
        # The index also shows every figure, so one page holds the whole report.
        figs = "".join(f"<figure><img src='{html.escape(f.path)}' alt='{html.escape(r.title)}'>"
                       f"<figcaption>{html.escape(f.caption)}</figcaption></figure>" for f in r.figures)
        items.append(figs)
    index = f"<h1>{html.escape(title)}</h1><p>fctlab {html.escape(version)}</p><ul>{''.join(items)}</ul>"
    path = out / "report.html"
    _write(path, _page(title, index))
    return path

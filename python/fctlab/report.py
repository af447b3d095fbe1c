"""The HTML report: one page per reproduction (or sweep) plus an index (``report.html``).

Reproductions build `Reproduction` objects holding `Figure` (PNG
files written beside the pages) and `Table` objects, and call
`write_report`. `write_store_report` (``fctlab report STORE``) builds
the same pages from the runs of a results store: one page per sweep, one for runs
outside any sweep.

Every page states the source, the fctlab version, the seed(s), the wall time and
every parameter, and carries a small inline check that runs when the page loads:
it verifies that every image decoded (``naturalWidth > 0``) and every table has
rendered rows, shows a red banner naming what is broken if not, and records the
outcome on ``<div id="fctlab-check" data-status="ok|fail" ...>`` (the test suite
reads it from headless Chromium's ``--dump-dom``).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Figure:
    """A PNG written by matplotlib, with its caption (source, figure, parameters)."""

    path: str  # relative to the report directory
    caption: str
    alt: str = ""  # short text for screen readers; default: the page title


@dataclass
class Table:
    """A table. With ``published`` it sets fctlab's numbers beside the paper's.

    - ``columns``, ``rows``: fctlab's table (rows of cells; numbers are formatted
      to 4 significant digits, strings shown as given).
    - ``published``: optional rows parallel to ``rows`` (same length, same columns)
      holding the source document's numbers; ``None`` in a cell where the source
      gives none. Each compared column is then shown as *fctlab | paper | diff*.
    - ``key_columns``: how many leading columns label a row (not compared).
    - ``published_source``: where the published numbers come from ("Table 2").
    """

    title: str
    columns: list
    rows: list
    caption: str = ""
    published: list | None = None
    key_columns: int = 1
    published_source: str = ""


@dataclass
class Reproduction:
    """One reproduced figure or table set from a source document (or one sweep)."""

    name: str  # slug, also the page's file name
    title: str
    source: str  # e.g. "Dukkipati & McKeown, CCR 2006, Fig. 1"
    figures: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    params: dict = field(default_factory=dict)
    seed: Any = None  # an int, or a list of seeds
    wall_s: float = 0.0
    scale: str = "quick"
    notes: str = ""
    version: str = ""  # fctlab version of the runs; default: the report's
    command: str = ""  # how to regenerate this page


# ------------------------------------------------------------------- formatting


def fmt(v: Any) -> str:
    """A cell: 4 significant digits for floats (no exponent between 1e-3 and 1e6),
    integers as they are, NaN/None as an en dash."""
    if v is None:
        return "\u2013"
    if isinstance(v, bool):
        return "yes" if v else "no"
    try:
        import numpy as np

        if isinstance(v, np.generic):
            v = v.item()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "\u2013"
        if math.isinf(v):
            return "\u221e" if v > 0 else "-\u221e"
        a = abs(v)
        if a == 0:
            return "0"
        if 1e-3 <= a < 1e6:
            d = max(0, 3 - math.floor(math.log10(a)))
            t = f"{v:.{d}f}"
            return t.rstrip("0").rstrip(".") if "." in t else t
        m, e = f"{v:.3e}".split("e")
        m = m.rstrip("0").rstrip(".")
        return f"{m}e{int(e)}"
    if isinstance(v, (list, dict)):
        return json.dumps(v, sort_keys=True)
    return str(v)


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


#: Lists of tables longer than this are summarised on a page (every entry
#: stays on it, in a collapsed block).
COLLAPSE_ENTRIES = 8


class Entries(list):
    """A long list of parameter tables (explicit flows, say), shown summarised."""


def flatten_params(params: dict, prefix: str = "") -> list:
    """(dotted key, value) pairs of a nested parameter dict, in order. A list
    of more than `COLLAPSE_ENTRIES` tables stays one pair whose value is
    an `Entries` (summarised by `summarize_entries`)."""
    out = []
    for k, v in params.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.extend(flatten_params(v, key))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            if len(v) > COLLAPSE_ENTRIES:
                out.append((key, Entries(v)))
                continue
            for i, x in enumerate(v):
                out.extend(flatten_params(x, f"{key}[{i}]"))
        else:
            out.append((key, v))
    return out


def _span(vals: list) -> str:
    nums = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(nums) == len(vals):
        lo, hi = min(nums), max(nums)
        return fmt(lo) if lo == hi else f"{fmt(lo)} to {fmt(hi)}"
    distinct = list(dict.fromkeys(fmt(v) for v in vals))
    return ", ".join(distinct[:4]) + (f" (+{len(distinct) - 4} more)" if len(distinct) > 4 else "")


def summarize_entries(entries: list) -> str:
    """``617 entries; size_pkts 1 to 1000; start_s 0 to 2.47; ...``: each key's
    range (numbers) or values (others), and in how many entries it appears."""
    flat = [dict(flatten_params(e)) for e in entries]
    keys: list = []
    for f in flat:
        keys += [k for k in f if k not in keys]
    parts = [f"{len(entries)} entries"]
    for k in keys:
        vals = [f[k] for f in flat if k in f]
        vals = [json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v for v in vals]
        where = f" (in {len(vals)})" if len(vals) < len(flat) else ""
        parts.append(f"{k} {_span(vals)}{where}")
    return "; ".join(parts)


# ------------------------------------------------------------------------- HTML

_CSS = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#dde1e8;--bg:#fff;--soft:#f5f7fa;--accent:#2456a6;--bad:#b42318}
*{box-sizing:border-box}
body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
  color:var(--fg);background:var(--bg);margin:0}
header.top{background:#1d2330;color:#fff;padding:.7em 0}
header.top .wrap{display:flex;gap:1.5em;align-items:baseline}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top span{color:#aeb7c7;font-size:.9em}
.wrap{max-width:1100px;margin:0 auto;padding:0 1.2em}
main{padding:1.2em 0 3em}
h1{font-size:1.6em;margin:.4em 0 .2em;line-height:1.25}
h2{font-size:1.2em;margin:2em 0 .6em;padding-bottom:.25em;border-bottom:1px solid var(--line)}
a{color:var(--accent)}
.source{color:var(--muted);margin:0 0 1em}
dl.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:.6em 1.2em;background:var(--soft);
  border:1px solid var(--line);border-radius:8px;padding:.8em 1em;margin:1em 0}
dl.meta div{min-width:0}dl.meta dt{font-size:.75em;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
dl.meta dd{margin:0;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.notes{border-left:3px solid var(--accent);padding:.2em 1em;color:#333;background:#f7f9fd}
.notes p{margin:.5em 0}.notes summary{cursor:pointer;color:var(--accent);margin:.3em 0}
figure{margin:1.5em 0;padding:0}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
figcaption{font-size:.88em;color:var(--muted);margin-top:.5em;max-width:900px}
.tablewrap{overflow-x:auto;margin:1em 0 1.5em}
table{border-collapse:collapse;font-size:.88em;font-variant-numeric:tabular-nums}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0 .5em;color:var(--fg)}
th,td{padding:.3em .7em;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{background:var(--soft);font-weight:600;border-bottom:2px solid var(--line);white-space:normal;vertical-align:bottom}
details summary{cursor:pointer;color:var(--accent);margin-top:.3em}details pre{max-height:24em;white-space:pre}
th.key,td.key{text-align:left}
td.key{white-space:normal;min-width:6em}
tbody tr:nth-child(even){background:#fafbfc}
td.paper{color:#6a3d9a}td.diff{color:var(--muted);font-size:.92em}
th.group{text-align:center;border-left:1px solid var(--line)}
td.first-of-group,th.first-of-group{border-left:1px solid var(--line)}
p.tnote{font-size:.85em;color:var(--muted);margin:-.8em 0 1.5em;max-width:900px}
table.params td{white-space:normal;text-align:left;overflow-wrap:anywhere}
table.params td.key{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em;white-space:nowrap}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);border-radius:4px}
code{padding:.05em .3em}pre{padding:.7em;overflow-x:auto;font-size:.85em}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:1em;padding:0;list-style:none}
.card{border:1px solid var(--line);border-radius:8px;padding:.9em 1em;background:#fff}
.card h3{margin:0 0 .3em;font-size:1.05em;line-height:1.3}
.card p{margin:.2em 0;color:var(--muted);font-size:.88em}
.card .thumbs{display:flex;gap:.5em;margin-top:.6em;flex-wrap:wrap}
.card .thumbs img{height:110px;width:auto;border:1px solid var(--line);border-radius:4px}
#fctlab-check{display:none}
#fctlab-check.fail{display:block;background:#fef3f2;border:1px solid var(--bad);color:var(--bad);
  padding:.6em 1em;border-radius:6px;margin:1em 0}
footer{color:var(--muted);font-size:.8em;border-top:1px solid var(--line);padding:1em 0 2em}
"""

# Runs on load: every image decoded, every table has body rows and takes space;
# tables wider than the page are counted (data-overflow).
_CHECK_JS = """
window.addEventListener('load', function () {
  var el = document.getElementById('fctlab-check'), bad = [];
  var imgs = Array.prototype.slice.call(document.images), okImgs = 0;
  imgs.forEach(function (im) {
    if (im.complete && im.naturalWidth > 0) { okImgs++; }
    else { bad.push('image ' + im.getAttribute('src') + ' did not load'); }
  });
  var tables = Array.prototype.slice.call(document.querySelectorAll('table')), okTables = 0;
  tables.forEach(function (t, i) {
    var rows = t.querySelectorAll('tbody tr').length, h = t.getBoundingClientRect().height;
    if (rows > 0 && h > 0) { okTables++; } else { bad.push('table ' + (t.id || i) + ' has no rendered rows'); }
  });
  // Tables wider than the page (they scroll sideways): recorded, not an error.
  var wide = tables.filter(function (t) { var w = t.parentElement; return w && t.offsetWidth > w.clientWidth + 1; });
  el.setAttribute('data-overflow', wide.length);
  el.setAttribute('data-overflow-tables', wide.map(function (t, i) {
    return t.id || (t.caption && t.caption.textContent) || i; }).join('|'));
  el.setAttribute('data-height', document.documentElement.scrollHeight);
  el.setAttribute('data-images', imgs.length);
  el.setAttribute('data-images-ok', okImgs);
  el.setAttribute('data-tables', tables.length);
  el.setAttribute('data-tables-ok', okTables);
  el.setAttribute('data-status', bad.length ? 'fail' : 'ok');
  if (bad.length) { el.className = 'fail'; el.textContent = 'This page is broken: ' + bad.join('; '); }
  else { el.textContent = 'all ' + imgs.length + ' images and ' + tables.length + ' tables rendered'; }
});
"""


def _page(title: str, body: str, *, version: str = "", index_title: str = "fctlab report") -> str:
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    nav = (
        f"<header class='top'><div class='wrap'><a href='report.html'>{_e(index_title)}</a>"
        f"<span>fctlab {_e(version)}</span></div></header>"
    )
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{_CSS}</style><script>{_CHECK_JS}</script></head>"
        f"<body>{nav}<main class='wrap'>"
        "<div id='fctlab-check' data-status='pending' role='alert'></div>"
        f"{body}</main><footer><div class='wrap'>Generated by fctlab {_e(version)} on {_e(now)}.</div></footer>"
        "</body></html>\n"
    )


def _cell(v: Any, cls: str = "") -> str:
    c = f" class='{cls}'" if cls else ""
    return f"<td{c}>{_e(fmt(v))}</td>"


def _diff(ours: Any, paper: Any) -> str:
    a, b = _num(ours), _num(paper)
    if a is None or b is None or b == 0:
        return "\u2013"
    return f"{100 * (a - b) / abs(b):+.1f}%"


def table_html(t: Table, ident: str = "") -> str:
    """A `Table` as HTML (compared with the published numbers if given)."""
    cols = list(t.columns)
    k = max(0, min(int(t.key_columns), len(cols)))
    idattr = f" id='{_e(ident)}'" if ident else ""
    cap = f"<caption>{_e(t.title)}</caption>" if t.title else ""
    if t.published is None:
        head = (
            "<tr>" + "".join(f"<th class='{'key' if i < k else ''}'>{_e(c)}</th>" for i, c in enumerate(cols)) + "</tr>"
        )
        body = "".join(
            "<tr>" + "".join(_cell(v, "key" if i < k else "") for i, v in enumerate(r)) + "</tr>" for r in t.rows
        )
    else:
        if len(t.published) != len(t.rows):
            raise ValueError(f"Table {t.title!r}: published has {len(t.published)} rows, rows has {len(t.rows)}")
        src = t.published_source or "paper"
        head = (
            "<tr>"
            + "".join(f"<th class='key' rowspan='2'>{_e(c)}</th>" for c in cols[:k])
            + "".join(f"<th class='group first-of-group' colspan='3'>{_e(c)}</th>" for c in cols[k:])
            + "</tr><tr>"
            + "".join(f"<th class='first-of-group'>fctlab</th><th>{_e(src)}</th><th>diff</th>" for _ in cols[k:])
            + "</tr>"
        )
        rows = []
        for r, p in zip(t.rows, t.published):
            cells = "".join(_cell(v, "key") for v in r[:k])
            for j in range(k, len(cols)):
                ours = r[j] if j < len(r) else None
                theirs = p[j] if p is not None and j < len(p) else None
                cells += (
                    _cell(ours, "first-of-group")
                    + _cell(theirs, "paper")
                    + f"<td class='diff'>{_diff(ours, theirs)}</td>"
                )
            rows.append(f"<tr>{cells}</tr>")
        body = "".join(rows)
    note = f"<p class='tnote'>{_e(t.caption)}</p>" if t.caption else ""
    return f"<div class='tablewrap'><table{idattr}>{cap}<thead>{head}</thead><tbody>{body}</tbody></table></div>{note}"


def _param_value(v: Any) -> str:
    if not isinstance(v, Entries):
        return _e(fmt(v))
    every = "\n".join(json.dumps(e, sort_keys=True) for e in v)
    return f"{_e(summarize_entries(v))}<details><summary>all {len(v)} entries</summary><pre>{_e(every)}</pre></details>"


#: A parameter table longer than this shows each large group (a top-level key
#: with more than `GROUP_ROWS` parameters, e.g. one scenario per scheme)
#: as one row, its parameters in a collapsed block.
LONG_TABLE, GROUP_ROWS = 80, 12


def _grouped(items: list) -> list:
    """(key, value html) rows: every item, or for a long table each large group
    under its top-level key collapsed into one row."""
    rows = [(k, _param_value(v)) for k, v in items]
    if len(items) <= LONG_TABLE:
        return rows
    groups: dict = {}
    for k, v in items:
        groups.setdefault(k.split(".", 1)[0].split("[", 1)[0], []).append((k, v))
    rows = []
    for top, members in groups.items():
        if len(members) <= GROUP_ROWS:
            rows += [(k, _param_value(v)) for k, v in members]
            continue
        text = "\n".join(
            f"{k} = " + ("\n  ".join(json.dumps(e, sort_keys=True) for e in v) if isinstance(v, Entries) else fmt(v))
            for k, v in members
        )
        rows.append(
            (top, f"{len(members)} parameters<details><summary>show them</summary><pre>{_e(text)}</pre></details>")
        )
    return rows


def _params_html(params: dict) -> str:
    items = flatten_params(params)
    if not items:
        return "<p>No parameters recorded.</p>"
    rows = "".join(f"<tr><td class='key'>{_e(k)}</td><td>{v}</td></tr>" for k, v in _grouped(items))
    return (
        "<div class='tablewrap'><table class='params' id='parameters'><thead><tr><th class='key'>parameter</th>"
        f"<th class='key'>value</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _seed_text(seed: Any) -> str:
    if seed is None:
        return "\u2013"
    if isinstance(seed, (list, tuple)):
        return ", ".join(str(s) for s in seed) if len(seed) <= 8 else f"{len(seed)} seeds: {seed[0]} \u2026 {seed[-1]}"
    return str(seed)


def _figure_html(f: Figure, alt: str) -> str:
    return f"<figure><img src='{_e(f.path)}' alt='{_e(f.alt or alt)}'><figcaption>{_e(f.caption)}</figcaption></figure>"


def _meta_html(r: Reproduction, version: str) -> str:
    items = [("fctlab", r.version or version), ("seed", _seed_text(r.seed)), ("wall time", f"{r.wall_s:.1f} s")]
    if r.scale:
        items.insert(0, ("scale", r.scale))
    cells = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in items)
    return f"<dl class='meta'>{cells}</dl>"


#: Notes longer than this show their first paragraph and fold the rest.
NOTES_FOLD_CHARS = 1200


def notes_html(notes: str) -> str:
    """A page's notes: one paragraph per blank-line-separated part; when they
    are long, the first paragraph is shown and the rest folded in a
    ``<details>`` block, so the figures stay near the top of the page."""
    paras = [p.strip() for p in notes.split("\n\n") if p.strip()]
    if len(paras) == 1 and len(notes) > NOTES_FOLD_CHARS:
        # One long paragraph: its opening sentences stay in view.
        cut = notes.find(". ", 300)
        if 0 < cut < len(notes) - 200:
            paras = [notes[: cut + 1], notes[cut + 2 :]]
    html = [f"<p>{_e(p)}</p>" for p in paras]
    if len(notes) > NOTES_FOLD_CHARS and len(paras) > 1:
        rest = "".join(html[1:])
        more = "more" if len(paras) == 2 else f"{len(paras) - 1} more paragraphs"
        return f"<div class='notes'>{html[0]}<details><summary>{more}</summary>{rest}</details></div>"
    return f"<div class='notes'>{''.join(html)}</div>"


def reproduction_html(r: Reproduction, *, version: str = "", index_title: str = "fctlab report") -> str:
    """The page of one reproduction."""
    body = [f"<h1>{_e(r.title)}</h1>", f"<p class='source'>Source: {_e(r.source)}</p>", _meta_html(r, version)]
    if r.notes:
        body.append(notes_html(r.notes))
    if r.figures:
        body.append("<h2>Figures</h2>")
        body.extend(_figure_html(f, r.title) for f in r.figures)
    if r.tables:
        body.append("<h2>Tables</h2>")
        body.extend(table_html(t, f"table-{i}") for i, t in enumerate(r.tables))
    body.append("<h2>Parameters</h2>")
    body.append(_params_html(r.params))
    if r.command:
        body.append(f"<p>Regenerate with <code>{_e(r.command)}</code>.</p>")
    return _page(r.title, "".join(body), version=r.version or version, index_title=index_title)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_report(
    out_dir: os.PathLike | str,
    reproductions: list,
    *,
    title: str = "fctlab report",
    version: str = "",
    notes: str = "",
) -> Path:
    """Write one page per reproduction (``<name>.html``) and the index
    ``report.html`` into ``out_dir``; return the index's path. Figures' PNGs must
    already be in ``out_dir`` (their paths are relative to it). ``notes``: a
    paragraph on the index (damaged runs left out, say)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cards = []
    total_wall = 0.0
    for r in reproductions:
        _write(out / f"{r.name}.html", reproduction_html(r, version=version, index_title=title))
        total_wall += r.wall_s or 0.0
        thumbs = "".join(
            f"<a href='{_e(r.name)}.html'><img src='{_e(f.path)}' alt='{_e(f.alt or r.title)}'></a>" for f in r.figures
        )
        scale = f"{_e(r.scale)} &middot; " if r.scale else ""
        cards.append(
            f"<li class='card'><h3><a href='{_e(r.name)}.html'>{_e(r.title)}</a></h3>"
            f"<p>{_e(r.source)}</p><p>{scale}seed {_e(_seed_text(r.seed))} &middot; {r.wall_s:.1f} s"
            f" &middot; {len(r.figures)} figure{'s' if len(r.figures) != 1 else ''},"
            f" {len(r.tables)} table{'s' if len(r.tables) != 1 else ''}</p>"
            f"<div class='thumbs'>{thumbs}</div></li>"
        )
    summary = (
        f"<p class='source'>{len(reproductions)} page{'s' if len(reproductions) != 1 else ''}, "
        f"{total_wall:.1f} s of wall time in all. Each page lists every parameter, the seed and the fctlab version.</p>"
    )
    note = f"<p class='notes'>{_e(notes)}</p>" if notes else ""
    body = f"<h1>{_e(title)}</h1>{summary}{note}<ul class='cards'>{''.join(cards)}</ul>"
    if not reproductions:
        body += "<p>Nothing to show yet.</p>"
    path = out / "report.html"
    _write(path, _page(title, body, version=version, index_title=title))
    return path


# --------------------------------------------------------------- store report


def write_store_report(store, out_dir: os.PathLike | str | None = None, *, title: str | None = None) -> Path:
    """The report of a results store or a run directory (see `fctlab.report_store.write_store_report`)."""
    from .report_store import write_store_report as write

    return write(store, out_dir, title=title)

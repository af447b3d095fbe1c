"""The HTML report: one page per reproduction (or sweep) plus an index (``report.html``).

Reproductions build :class:`Reproduction` objects holding :class:`Figure` (PNG
files written beside the pages) and :class:`Table` objects, and call
:func:`write_report`. :func:`write_store_report` (``fctlab report STORE``) builds
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

from .plots import ci_errorbar, loglog, save


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


def flatten_params(params: dict, prefix: str = "") -> list:
    """(dotted key, value) pairs of a nested parameter dict, in order."""
    out = []
    for k, v in params.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) and v:
            out.extend(flatten_params(v, key))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for i, x in enumerate(v):
                out.extend(flatten_params(x, f"{key}[{i}]"))
        else:
            out.append((key, v))
    return out


# ------------------------------------------------------------------------- HTML

_CSS = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#dde1e8;--bg:#fff;--soft:#f5f7fa;--accent:#2456a6;--bad:#b42318}
*{box-sizing:border-box}
body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg);margin:0}
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
figure{margin:1.5em 0;padding:0}
figure img{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
figcaption{font-size:.88em;color:var(--muted);margin-top:.5em;max-width:900px}
.tablewrap{overflow-x:auto;margin:1em 0 1.5em}
table{border-collapse:collapse;font-size:.88em;font-variant-numeric:tabular-nums}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0 .5em;color:var(--fg)}
th,td{padding:.3em .7em;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{background:var(--soft);font-weight:600;border-bottom:2px solid var(--line)}
th.key,td.key{text-align:left}
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
#fctlab-check.fail{display:block;background:#fef3f2;border:1px solid var(--bad);color:var(--bad);padding:.6em 1em;border-radius:6px;margin:1em 0}
footer{color:var(--muted);font-size:.8em;border-top:1px solid var(--line);padding:1em 0 2em}
"""

# Runs on load: every image decoded, every table has body rows and takes space.
_CHECK_JS = """
window.addEventListener('load', function () {
  var el = document.getElementById('fctlab-check'), bad = [];
  var imgs = Array.prototype.slice.call(document.images), okImgs = 0;
  imgs.forEach(function (im) {
    if (im.complete && im.naturalWidth > 0) { okImgs++; } else { bad.push('image ' + im.getAttribute('src') + ' did not load'); }
  });
  var tables = Array.prototype.slice.call(document.querySelectorAll('table')), okTables = 0;
  tables.forEach(function (t, i) {
    var rows = t.querySelectorAll('tbody tr').length, h = t.getBoundingClientRect().height;
    if (rows > 0 && h > 0) { okTables++; } else { bad.push('table ' + (t.id || i) + ' has no rendered rows'); }
  });
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
    """A :class:`Table` as HTML (compared with the published numbers if given)."""
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


def _params_html(params: dict) -> str:
    items = flatten_params(params)
    if not items:
        return "<p>No parameters recorded.</p>"
    rows = "".join(f"<tr><td class='key'>{_e(k)}</td><td>{_e(fmt(v))}</td></tr>" for k, v in items)
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


def reproduction_html(r: Reproduction, *, version: str = "", index_title: str = "fctlab report") -> str:
    """The page of one reproduction."""
    body = [f"<h1>{_e(r.title)}</h1>", f"<p class='source'>Source: {_e(r.source)}</p>", _meta_html(r, version)]
    if r.notes:
        body.append(f"<p class='notes'>{_e(r.notes)}</p>")
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
    out_dir: os.PathLike | str, reproductions: list, *, title: str = "fctlab report", version: str = ""
) -> Path:
    """Write one page per reproduction (``<name>.html``) and the index
    ``report.html`` into ``out_dir``; return the index's path. Figures' PNGs must
    already be in ``out_dir`` (their paths are relative to it)."""
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
    body = f"<h1>{_e(title)}</h1>{summary}<ul class='cards'>{''.join(cards)}</ul>"
    if not reproductions:
        body += "<p>Nothing to show yet.</p>"
    path = out / "report.html"
    _write(path, _page(title, body, version=version, index_title=title))
    return path


# --------------------------------------------------------------- store report


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _slug(s: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-") or "page"


def _ms(ns: float) -> float:
    return ns / 1e6


def _ci_text(est: float, lo: float, hi: float, scale: float = 1e-6) -> str:
    if est is None or (isinstance(est, float) and math.isnan(est)):
        return "\u2013"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return fmt(est * scale)
    return f"{fmt(est * scale)} \u00b1 {fmt((hi - lo) / 2 * scale)}"


def _group_points(record: dict) -> list:
    """Points grouped by their labels without the seed: [(labels, [point, ...])]."""
    groups: dict = {}
    for p in record.get("points", []):
        lab = {k: v for k, v in p.get("labels", {}).items() if k != "seed"}
        groups.setdefault(json.dumps(lab, sort_keys=True), (lab, []))[1].append(p)
    return list(groups.values())


def _label_text(lab: dict) -> str:
    return ", ".join(f"{k.split('.')[-1]}={fmt(v)}" for k, v in lab.items()) or "base"


def _sweep_page(store, name: str, rec: dict, out: Path, plt) -> Reproduction:
    import numpy as np
    import pandas as pd

    from .replicate import summarize

    groups = _group_points(rec)
    axes_keys = [k for k in list(rec.get("axes", {})) + [k for t in rec.get("linked", {}).values() for k in t]]
    missing = 0
    wall = 0.0
    versions = set()
    per_group = []  # (labels, flows frame with 'replication' = run index within the group, metas, n_runs)
    for lab, pts in groups:
        frames, metas, n = [], [], 0
        for p in pts:
            for key in p.get("run_keys", []):
                n += 1
                if not store.has(key):
                    missing += 1
                    continue
                res = store.get(key)
                f = res.flows[["size_pkts", "fct_ns", "ideal_ns", "completed"]].copy()
                f["replication"] = len(metas)
                frames.append(f)
                metas.append(res.meta)
                wall += float(res.meta.get("wall_s", 0.0))
                versions.add(res.meta.get("fctlab_version", ""))
        flows = (
            pd.concat(frames, ignore_index=True)
            if frames
            else pd.DataFrame(columns=["size_pkts", "fct_ns", "ideal_ns", "completed", "replication"])
        )
        per_group.append((lab, flows, metas, n))

    figures, tables = [], []
    slug = _slug(f"sweep-{name}")
    shown = [g for g in per_group if len(g[1])][:12]
    # Figure 1: mean FCT vs flow size, one line per configuration (seeds/replications pooled, CI bars)
    if shown:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for lab, flows, _metas, _n in shown:
            s = summarize(flows, per_decade=4)
            if s.empty:
                continue
            # One run has no interval: its bounds are missing and draw as no bar.
            ci_errorbar(
                ax,
                s["size_pkts"],
                s["mean"],
                s["mean_lo"],
                s["mean_hi"],
                1e6,
                fmt="o-",
                ms=3,
                lw=1.2,
                capsize=2 if len(metas) > 1 else 0,
                label=_label_text(lab) if len(shown) > 1 or lab else "all runs",
            )
        loglog(ax, "flow size (packets)", "mean FCT (ms)", legend_size=7)
        if len(shown) > 6:
            ax.legend(fontsize=7, ncol=2)
        png = save(fig, out, f"{slug}-fct-vs-size.png")
        more = f" Only the first 12 of {len(per_group)} configurations are drawn." if len(per_group) > 12 else ""
        ci = (
            " Error bars: 95% Student-t confidence intervals over the seeds/replications of each configuration."
            if any(len(g[2]) > 1 for g in shown)
            else ""
        )
        figures.append(
            Figure(
                png,
                f"Sweep {name}: mean FCT of completed flows by flow size (log-spaced buckets, 4 per "
                f"decade), one line per configuration, seeds and replications pooled.{ci}{more}",
            )
        )
    # Figure 2: mean FCT vs the first numeric axis
    num_axis = next(
        (
            k
            for k in rec.get("axes", {})
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rec["axes"][k])
        ),
        None,
    )
    if num_axis and any(len(g[1]) for g in per_group):
        series: dict = {}
        for lab, flows, _metas, _n in per_group:
            if not len(flows):
                continue
            rest = {k: v for k, v in lab.items() if k != num_axis}
            s = summarize(flows, edges=[0.0, math.inf])
            if s.empty:
                continue
            row = s.iloc[0]
            series.setdefault(json.dumps(rest, sort_keys=True), (rest, []))[1].append(
                (lab[num_axis], row["mean"], row["mean_lo"], row["mean_hi"])
            )
        if series:
            fig, ax = plt.subplots(figsize=(7.5, 4.2))
            for rest, pts in list(series.values())[:12]:
                pts.sort(key=lambda x: x[0])
                x = [p[0] for p in pts]
                y = np.array([p[1] for p in pts]) / 1e6
                lo = np.array([p[1] - p[2] if not math.isnan(p[2]) else 0 for p in pts]) / 1e6
                hi = np.array([p[3] - p[1] if not math.isnan(p[3]) else 0 for p in pts]) / 1e6
                ax.errorbar(x, y, yerr=np.vstack([lo, hi]), fmt="o-", ms=4, capsize=3, label=_label_text(rest))
            ax.set_xlabel(num_axis)
            ax.set_ylabel("mean FCT (ms)")
            ax.set_yscale("log")
            if len(series) > 1 or list(series.values())[0][0]:
                ax.legend(fontsize=7)
            png = save(fig, out, f"{slug}-fct-vs-axis.png")
            figures.append(
                Figure(
                    png,
                    f"Sweep {name}: mean FCT of all completed flows against {num_axis}, one line per "
                    "combination of the other axes; 95% confidence intervals where there are several "
                    "seeds or replications.",
                )
            )

    # Table 1: one row per configuration
    keys = [k for k in axes_keys if any(k in g[0] for g in per_group)]
    cols = keys + ["runs", "flows done", "mean FCT (ms)", "median FCT (ms)", "p99 FCT (ms)", "wall (s)"]
    rows = []
    for lab, flows, metas, n in per_group:
        done = int(flows["completed"].astype(bool).sum()) if len(flows) else 0
        if len(flows) and done:
            s = summarize(flows, edges=[0.0, math.inf]).iloc[0]
            m, p50, p99 = (
                _ci_text(s["mean"], s["mean_lo"], s["mean_hi"]),
                _ci_text(s["p50"], s["p50_lo"], s["p50_hi"]),
                _ci_text(s["p99"], s["p99_lo"], s["p99_hi"]),
            )
        else:
            m = p50 = p99 = "\u2013"
        rows.append(
            [lab.get(k) for k in keys]
            + [
                f"{len(metas)}/{n}",
                f"{done}/{len(flows)}",
                m,
                p50,
                p99,
                sum(float(x.get("wall_s", 0.0)) for x in metas),
            ]
        )
    tables.append(
        Table(
            f"Sweep {name}: results by configuration",
            cols,
            rows,
            key_columns=len(keys),
            caption="FCT statistics over completed flows. With several seeds or replications, a value is the mean of the "
            "per-run values \u00b1 the half-width of its 95% Student-t confidence interval (fctlab.replicate)."
            + (
                f" {missing} run(s) of this sweep are not in the store (still running, failed or damaged): "
                "run the sweep again to complete it."
                if missing
                else ""
            ),
        )
    )
    # Table 2: CI by size bucket for the first replicated configuration
    rep = next((g for g in per_group if len(g[2]) > 1 and len(g[1])), None)
    if rep:
        lab, flows, metas, n = rep
        s = summarize(flows, per_decade=2)
        trows = [
            [
                f"{fmt(r.size_lo_pkts)}\u2013{fmt(r.size_hi_pkts)}",
                int(r.n_flows),
                int(r.n_min),
                _ci_text(r.mean, r.mean_lo, r.mean_hi),
                _ci_text(r.p50, r.p50_lo, r.p50_hi),
                _ci_text(r.p99, r.p99_lo, r.p99_hi),
            ]
            for r in s.itertuples()
        ]
        tables.append(
            Table(
                f"Confidence intervals by flow size ({_label_text(lab)}; {len(metas)} runs)",
                ["size (pkts)", "flows", "fewest in a run", "mean FCT (ms)", "median FCT (ms)", "p99 FCT (ms)"],
                trows,
                caption="Per bucket, each statistic is computed within each run (seed or replication); shown is their mean "
                "\u00b1 the 95% Student-t half-width across runs. For percentiles this is an interval for the "
                "per-run percentile, close to the population percentile when 'fewest in a run' is large.",
            )
        )

    # Figure 3: the first replicated configuration's mean and percentiles by size, with their intervals
    if rep:
        lab, flows, metas, n = rep
        s = summarize(flows, per_decade=4)
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        for stat, style in (("mean", "o-"), ("p50", "s--"), ("p99", "^:")):
            ci_errorbar(
                ax,
                s["size_pkts"],
                s[stat],
                s[f"{stat}_lo"],
                s[f"{stat}_hi"],
                1e6,
                fmt=style,
                ms=3,
                lw=1.1,
                capsize=2,
                label={"mean": "mean", "p50": "median", "p99": "99th percentile"}[stat],
            )
        loglog(ax, "flow size (packets)", "FCT (ms)")
        png = save(fig, out, f"{slug}-ci.png")
        figures.append(
            Figure(
                png,
                f"Sweep {name} ({_label_text(lab)}): mean, median and 99th-percentile FCT by flow "
                f"size over {len(metas)} runs ({int(flows['completed'].astype(bool).sum()):,} completed "
                "flows), each with its 95% Student-t confidence interval across the runs "
                "(fctlab.replicate.summarize).",
            )
        )

    params = {
        "base": rec.get("base", {}),
        "axes": rec.get("axes", {}),
        "linked": rec.get("linked", {}),
        "seeds": rec.get("seeds"),
        "replications": rec.get("replications", 1),
    }
    base_seed = rec.get("base", {}).get("seed", 0)
    seeds = rec.get("seeds") or [base_seed]
    src = rec.get("source") or "fctlab.sweep (Python)"
    notes = rec.get("description") or ""
    if rec.get("wall_s") is not None:
        notes += (
            f" The last sweep took {rec['wall_s']:.1f} s of elapsed time"
            f"{' on a Dask cluster' if rec.get('scheduler') else ''}; the wall time above sums the runs'."
        )
    if rec.get("failed"):
        notes += f" {len(rec['failed'])} run(s) failed in the last attempt."
    return Reproduction(
        name=slug,
        title=f"Sweep {name}",
        source=f"sweep spec {src}; {_plural(len(rec.get('points', [])), 'point')}, "
        f"{_plural(sum(g[3] for g in per_group), 'run')}",
        figures=figures,
        tables=tables,
        params=params,
        seed=seeds if len(seeds) > 1 else seeds[0],
        wall_s=wall,
        scale="",
        notes=notes.strip(),
        version=", ".join(sorted(v for v in versions if v)),
        command=f"fctlab sweep {src} --store {store.path}" if rec.get("source") else "",
    )


def _other_runs_page(store, keys: list, out: Path, plt) -> Reproduction:
    from .store import flatten

    rows, wall, seeds, versions = [], 0.0, [], set()
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    from .replicate import summarize

    for i, k in enumerate(keys):
        res = store.get(k)
        m = res.meta
        f = res.flows.copy()
        f["replication"] = 0
        s = summarize(f, edges=[0.0, math.inf])
        cfg = m.get("config", {})
        flat = flatten(cfg)
        desc = ", ".join(
            f"{kk}={fmt(v)}"
            for kk, v in flat.items()
            if kk.startswith(("transport.scheme", "network.bottleneck_bps", "traffic[0].load", "network.queue"))
        )
        mean = s.iloc[0]["mean"] if not s.empty else None
        p99 = s.iloc[0]["p99"] if not s.empty else None
        rows.append(
            [
                k[:12],
                m.get("seed"),
                desc,
                f"{m.get('flows_completed')}/{m.get('flows_total')}",
                None if mean is None else mean / 1e6,
                None if p99 is None else p99 / 1e6,
                m.get("wall_s", 0.0),
            ]
        )
        wall += float(m.get("wall_s", 0.0))
        seeds.append(m.get("seed"))
        versions.add(m.get("fctlab_version", ""))
        if i < 12:
            b = summarize(f, per_decade=4)
            if not b.empty:
                ax.plot(b["size_pkts"], b["mean"] / 1e6, "o-", ms=3, label=f"{k[:8]} (seed {m.get('seed')})")
    loglog(ax, "flow size (packets)", "mean FCT (ms)", legend_size=7)
    png = save(fig, out, "runs-fct-vs-size.png")
    table = Table(
        "Runs outside any sweep",
        ["run", "seed", "configuration", "flows done", "mean FCT (ms)", "p99 FCT (ms)", "wall (s)"],
        rows,
        key_columns=3,
        caption="Each run's full configuration is in the store (runs/<key>/meta.json) and in the "
        "`runs` table of `fctlab query`.",
    )
    params = {k[:12]: store.meta(k).get("config", {}) for k in keys[:50]}
    return Reproduction(
        name="runs",
        title="Other runs",
        source=f"store {store.path}",
        figures=[Figure(png, "Mean FCT by flow size of each run outside a sweep (first 12).")],
        tables=[table],
        params=params,
        seed=seeds,
        wall_s=wall,
        scale="",
        version=", ".join(sorted(v for v in versions if v)),
    )


def write_store_report(store, out_dir: os.PathLike | str | None = None, *, title: str | None = None) -> Path:
    """Write the report of a results store (``fctlab report STORE``): one page
    per sweep recorded in it, one for runs outside any sweep, and the index.
    ``store`` is a path or a :class:`fctlab.store.Store`; ``out_dir`` defaults to
    ``STORE/report``. Returns the index's path."""
    from . import __version__
    from .plots import pyplot
    from .store import Store
    from .store import open as open_store

    st = store if isinstance(store, Store) else open_store(store)
    out = Path(out_dir) if out_dir is not None else st.path / "report"
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    pages = []
    in_sweeps = set()
    for name, rec in st.sweeps().items():
        pages.append(_sweep_page(st, name, rec, out, plt))
        for p in rec.get("points", []):
            in_sweeps.update(p.get("run_keys", []))
    others = [k for k in st if k not in in_sweeps and st.has(k)]
    if others:
        pages.append(_other_runs_page(st, others, out, plt))
    return write_report(out, pages, title=title or f"fctlab results: {st.path.name}", version=__version__)

"""The report of a results store (``fctlab report STORE``): one page per sweep,
one for the runs outside any sweep, and the index (see `fctlab.report`).

A sweep page draws mean FCT by flow size (one line per configuration) and
against the first numeric axis that takes more than one value; legends and
table headers name only what varies from one configuration to the next (what
is constant is in the caption). Damaged runs are left out and named on the
index page.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from .plots import ci_errorbar, loglog, save
from .report import Figure, Reproduction, Table, fmt, write_report

#: Configurations drawn on one figure at most.
MAX_LINES = 12


@dataclass
class _Group:
    """The runs of one configuration of a sweep (its points over the seeds)."""

    labels: dict
    flows: object = None  # DataFrame: size_pkts, fct_ns, ideal_ns, completed, replication
    metas: list = field(default_factory=list)
    runs: int = 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _slug(s: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-") or "page"


def _ci_text(est: float, lo: float, hi: float, scale: float = 1e-6) -> str:
    if est is None or (isinstance(est, float) and math.isnan(est)):
        return "\u2013"
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return fmt(est * scale)
    return f"{fmt(est * scale)} \u00b1 {fmt((hi - lo) / 2 * scale)}"


def _sentence(text: str) -> str:
    """``text`` ending as a sentence does (so that the next one does not run on)."""
    text = text.strip()
    return text if not text or text[-1] in ".?!" else text + "."


def _groups(store, rec: dict) -> tuple:
    """The sweep's configurations (points grouped by their labels without the
    seed) with their stored runs loaded; and how many runs are missing."""
    import pandas as pd

    by_labels: dict = {}
    frames: dict = {}
    for p in rec.get("points", []):
        lab = {k: v for k, v in p.get("labels", {}).items() if k != "seed"}
        ident = json.dumps(lab, sort_keys=True)
        g = by_labels.setdefault(ident, _Group(lab))
        for key in p.get("run_keys", []):
            g.runs += 1
            if not store.has(key):
                continue
            res = store.get(key)
            f = res.flows[["size_pkts", "fct_ns", "ideal_ns", "completed"]].copy()
            f["replication"] = len(g.metas)
            frames.setdefault(ident, []).append(f)
            g.metas.append(res.meta)
    columns = ["size_pkts", "fct_ns", "ideal_ns", "completed", "replication"]
    for ident, g in by_labels.items():
        got = frames.get(ident)
        g.flows = pd.concat(got, ignore_index=True) if got else pd.DataFrame(columns=columns)
    groups = list(by_labels.values())
    missing = sum(g.runs - len(g.metas) for g in groups)
    return groups, missing


def _varying(groups: list, order: list) -> list:
    """The label keys whose value differs between configurations, in the
    axes' order (``order``; others after)."""
    keys: list = [k for k in order if any(k in g.labels for g in groups)]
    for g in groups:
        keys += [k for k in g.labels if k not in keys]
    return [k for k in keys if len({json.dumps(g.labels.get(k), sort_keys=True) for g in groups}) > 1]


def _short_keys(keys: list) -> dict:
    """Each dotted key by its last part where that is unambiguous."""
    leaves = [k.split(".")[-1] for k in keys]
    return {k: (leaf if leaves.count(leaf) == 1 else k) for k, leaf in zip(keys, leaves)}


def _label(labels: dict, keys: list) -> str:
    short = _short_keys(keys)
    return ", ".join(f"{short[k]}={fmt(labels.get(k))}" for k in keys) or "all runs"


def _constant_text(groups: list, keys: list) -> str:
    """The label keys every configuration shares, as text for a caption."""
    if not groups:
        return ""
    same = [(k, v) for k, v in groups[0].labels.items() if k not in keys]
    return "; ".join(f"{k} = {fmt(v)}" for k, v in same)


def _fig_by_size(name: str, groups: list, keys: list, out: Path, plt, slug: str) -> Figure | None:
    from .replicate import summarize

    shown = [g for g in groups if len(g.flows)][:MAX_LINES]
    if not shown:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for g in shown:
        s = summarize(g.flows, per_decade=4)
        if not s.empty:  # one run has no interval: its bounds are missing and draw as no bar
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
                capsize=2 if len(g.metas) > 1 else 0,
                label=_label(g.labels, keys),
            )
    loglog(ax, "flow size (packets)", "mean FCT (ms)", legend_size=7)
    if len(shown) == 1:
        ax.get_legend().remove()
    elif len(shown) > 6:
        ax.legend(fontsize=7, ncol=2)
    png = save(fig, out, f"{slug}-fct-vs-size.png")
    more = f" Only the first {MAX_LINES} of {len(groups)} configurations are drawn." if len(groups) > MAX_LINES else ""
    ci = (
        " Error bars: 95% Student-t confidence intervals over the seeds/replications of each configuration."
        if any(len(g.metas) > 1 for g in shown)
        else ""
    )
    fixed = _constant_text(groups, keys)
    lines = "one line per configuration" if len(shown) > 1 else "all runs pooled"
    return Figure(
        png,
        f"Sweep {name}: mean FCT of completed flows by flow size (log-spaced buckets, 4 per decade), {lines}, "
        f"seeds and replications pooled.{ci}{more}" + (f" Same in every configuration: {fixed}." if fixed else ""),
    )


def _numeric_axis(rec: dict, keys: list) -> str | None:
    """The first axis whose values are numbers, taking more than one value."""
    for k, vals in rec.get("axes", {}).items():
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        if numeric and k in keys and len(set(vals)) > 1:
            return k
    return None


def _fig_by_axis(name: str, rec: dict, groups: list, keys: list, out: Path, plt, slug: str) -> Figure | None:
    import numpy as np

    from .replicate import summarize

    axis = _numeric_axis(rec, keys)
    if axis is None:
        return None
    rest_keys = [k for k in keys if k != axis]
    series: dict = {}
    for g in groups:
        s = summarize(g.flows, edges=[0.0, math.inf]) if len(g.flows) else None
        if s is None or s.empty:
            continue
        r = s.iloc[0]
        rest = {k: g.labels.get(k) for k in rest_keys}
        series.setdefault(json.dumps(rest, sort_keys=True, default=str), (rest, []))[1].append(
            (g.labels[axis], r["mean"], r["mean_lo"], r["mean_hi"])
        )
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for rest, pts in list(series.values())[:MAX_LINES]:
        pts.sort(key=lambda x: x[0])
        y = np.array([p[1] for p in pts]) / 1e6
        lo = np.array([p[1] - p[2] if not math.isnan(p[2]) else 0 for p in pts]) / 1e6
        hi = np.array([p[3] - p[1] if not math.isnan(p[3]) else 0 for p in pts]) / 1e6
        ax.errorbar(
            [p[0] for p in pts], y, yerr=np.vstack([lo, hi]), fmt="o-", ms=4, capsize=3, label=_label(rest, rest_keys)
        )
    ax.set_xlabel(axis)
    ax.set_ylabel("mean FCT (ms)")
    ax.set_yscale("log")
    if rest_keys:
        ax.legend(fontsize=7)
    png = save(fig, out, f"{slug}-fct-vs-axis.png")
    lines = "one line per combination of the other axes; " if rest_keys else ""
    return Figure(
        png,
        f"Sweep {name}: mean FCT of all completed flows against {axis}, {lines}95% confidence intervals where "
        "there are several seeds or replications.",
    )


def _results_table(name: str, groups: list, keys: list, missing: int) -> Table:
    from .replicate import summarize

    short = _short_keys(keys)
    cols = [short[k] for k in keys] + ["runs", "flows done", "mean FCT (ms)", "median FCT (ms)", "p99 FCT (ms)"]
    rows = []
    for g in groups:
        done = int(g.flows["completed"].astype(bool).sum()) if len(g.flows) else 0
        stats = ["\u2013"] * 3
        if done:
            s = summarize(g.flows, edges=[0.0, math.inf]).iloc[0]
            stats = [_ci_text(s[x], s[f"{x}_lo"], s[f"{x}_hi"]) for x in ("mean", "p50", "p99")]
        rows.append([g.labels.get(k) for k in keys] + [f"{len(g.metas)}/{g.runs}", f"{done}/{len(g.flows)}", *stats])
    gone = (
        f" {missing} run(s) of this sweep are not in the store (still running, failed or damaged): "
        "run the sweep again to complete it."
        if missing
        else ""
    )
    return Table(
        f"Sweep {name}: results by configuration",
        cols,
        rows,
        key_columns=len(keys),
        caption="FCT statistics over completed flows. With several seeds or replications, a value is the mean of "
        "the per-run values \u00b1 the half-width of its 95% Student-t confidence interval (fctlab.replicate)." + gone,
    )


def _ci_parts(name: str, g: _Group, keys: list, out: Path, plt, slug: str) -> tuple:
    """For a replicated configuration: its table of confidence intervals by
    flow size, and the figure of mean, median and p99 with their intervals."""
    from .replicate import summarize

    s = summarize(g.flows, per_decade=2)
    trows = [
        [
            f"{fmt(r.size_lo_pkts)}\u2013{fmt(r.size_hi_pkts)}",
            int(r.n_flows),
            int(r.n_min),
            *(_ci_text(getattr(r, x), getattr(r, f"{x}_lo"), getattr(r, f"{x}_hi")) for x in ("mean", "p50", "p99")),
        ]
        for r in s.itertuples()
    ]
    lab = _label(g.labels, keys)
    table = Table(
        f"Confidence intervals by flow size ({lab}; {len(g.metas)} runs)",
        ["size (pkts)", "flows", "fewest in a run", "mean FCT (ms)", "median FCT (ms)", "p99 FCT (ms)"],
        trows,
        caption="Per bucket, each statistic is computed within each run (seed or replication); shown is their "
        "mean \u00b1 the 95% Student-t half-width across runs. For percentiles this is an interval for the "
        "per-run percentile, close to the population percentile when 'fewest in a run' is large.",
    )
    s = summarize(g.flows, per_decade=4)
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for stat, style, text in (("mean", "o-", "mean"), ("p50", "s--", "median"), ("p99", "^:", "99th percentile")):
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
            label=text,
        )
    loglog(ax, "flow size (packets)", "FCT (ms)")
    png = save(fig, out, f"{slug}-ci.png")
    done = int(g.flows["completed"].astype(bool).sum())
    figure = Figure(
        png,
        f"Sweep {name} ({lab}): mean, median and 99th-percentile FCT by flow size over {len(g.metas)} runs "
        f"({done:,} completed flows), each with its 95% Student-t confidence interval across the runs "
        "(fctlab.replicate.summarize).",
    )
    return table, figure


def _sweep_notes(rec: dict) -> str:
    notes = _sentence(rec.get("description") or "")
    if rec.get("wall_s") is not None:
        where = " on a Dask cluster" if rec.get("scheduler") else ""
        notes += (
            f" The last sweep took {rec['wall_s']:.1f} s of elapsed time{where}; the wall time above sums the runs'."
        )
    if rec.get("failed"):
        notes += f" {len(rec['failed'])} run(s) failed in the last attempt."
    return notes.strip()


def _sweep_page(store, name: str, rec: dict, out: Path, plt) -> Reproduction:
    groups, missing = _groups(store, rec)
    keys = _varying(groups, rec.get("axis_order", []))
    slug = _slug(f"sweep-{name}")
    figures = [f for f in (_fig_by_size(name, groups, keys, out, plt, slug),) if f]
    figures += [f for f in (_fig_by_axis(name, rec, groups, keys, out, plt, slug),) if f]
    tables = [_results_table(name, groups, keys, missing)]
    rep = next((g for g in groups if len(g.metas) > 1 and len(g.flows)), None)
    if rep:
        t, f = _ci_parts(name, rep, keys, out, plt, slug)
        tables.append(t)
        figures.append(f)
    params = {
        "base": rec.get("base", {}),
        "axes": rec.get("axes", {}),
        "linked": rec.get("linked", {}),
        "seeds": rec.get("seeds"),
        "replications": rec.get("replications", 1),
    }
    seeds = rec.get("seeds") or [rec.get("base", {}).get("seed", 0)]
    src = rec.get("source") or "fctlab.sweep (Python)"
    versions = {m.get("fctlab_version", "") for g in groups for m in g.metas}
    return Reproduction(
        name=slug,
        title=f"Sweep {name}",
        source=f"sweep spec {src}; {_plural(len(rec.get('points', [])), 'point')}, "
        f"{_plural(sum(g.runs for g in groups), 'run')}",
        figures=figures,
        tables=tables,
        params=params,
        seed=seeds if len(seeds) > 1 else seeds[0],
        wall_s=sum(float(m.get("wall_s", 0.0)) for g in groups for m in g.metas),
        scale="",
        notes=_sweep_notes(rec),
        version=", ".join(sorted(v for v in versions if v)),
        command=f"fctlab sweep {src} --store {store.path}" if rec.get("source") else "",
    )


def _run_row(k: str, m: dict, f) -> list:
    from .replicate import summarize
    from .store import flatten

    s = summarize(f, edges=[0.0, math.inf])
    desc = ", ".join(
        f"{kk}={fmt(v)}"
        for kk, v in flatten(m.get("config", {})).items()
        if kk.startswith(("transport.scheme", "network.bottleneck_bps", "traffic[0].load", "network.queue"))
    )
    mean = None if s.empty else s.iloc[0]["mean"] / 1e6
    p99 = None if s.empty else s.iloc[0]["p99"] / 1e6
    done = f"{m.get('flows_completed')}/{m.get('flows_total')}" + (" (interrupted)" if m.get("interrupted") else "")
    return [k[:12], m.get("seed"), desc, done, mean, p99, m.get("wall_s", 0.0)]


def _other_runs_page(store, keys: list, out: Path, plt) -> Reproduction:
    from .replicate import summarize

    rows, metas = [], []
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for i, k in enumerate(keys):
        res = store.get(k)
        f = res.flows.copy()
        f["replication"] = 0
        rows.append(_run_row(k, res.meta, f))
        metas.append(res.meta)
        b = summarize(f, per_decade=4) if i < MAX_LINES else None
        if b is not None and not b.empty:
            ax.plot(b["size_pkts"], b["mean"] / 1e6, "o-", ms=3, label=f"{k[:8]} (seed {res.meta.get('seed')})")
    loglog(ax, "flow size (packets)", "mean FCT (ms)", legend_size=7)
    png = save(fig, out, "runs-fct-vs-size.png")
    table = Table(
        "Runs outside any sweep",
        ["run", "seed", "configuration", "flows done", "mean FCT (ms)", "p99 FCT (ms)", "wall (s)"],
        rows,
        key_columns=3,
        caption="Each run's full configuration is in its meta.json and in the `runs` table of `fctlab query`.",
    )
    return Reproduction(
        name="runs",
        title="Other runs",
        source=f"store {store.path}",
        figures=[Figure(png, f"Mean FCT by flow size of each run outside a sweep (the first {MAX_LINES}).")],
        tables=[table],
        params={k[:12]: m.get("config", {}) for k, m in zip(keys[:50], metas)},
        seed=[m.get("seed") for m in metas],
        wall_s=sum(float(m.get("wall_s", 0.0)) for m in metas),
        scale="",
        version=", ".join(sorted({m.get("fctlab_version", "") for m in metas} - {""})),
    )


def _damaged_note(st) -> str:
    bad = st.damaged()
    if not bad:
        return ""
    listed = "; ".join(f"{k} ({why})" for k, why in list(bad.items())[:20])
    more = f"; and {len(bad) - 20} more" if len(bad) > 20 else ""
    return f"{_plural(len(bad), 'damaged run')} left out of this report: {listed}{more}."


def write_store_report(store, out_dir: os.PathLike | str | None = None, *, title: str | None = None) -> Path:
    """Write the report of a results store (``fctlab report STORE``): one page
    per sweep recorded in it, one for runs outside any sweep, and the index,
    which names any damaged run left out. ``store`` is a path (a store or a
    run directory) or a `fctlab.store.Store`; ``out_dir`` defaults to
    ``STORE/report``. Returns the index's path."""
    from . import __version__
    from .plots import pyplot
    from .store import Store
    from .store import open as open_store

    st = store if isinstance(store, Store) else open_store(store)
    out = Path(out_dir) if out_dir is not None else st.path / "report"
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    pages, in_sweeps = [], set()
    for name, rec in st.sweeps().items():
        pages.append(_sweep_page(st, name, rec, out, plt))
        for p in rec.get("points", []):
            in_sweeps.update(p.get("run_keys", []))
    others = [k for k in st if k not in in_sweeps and st.has(k)]
    if others:
        pages.append(_other_runs_page(st, others, out, plt))
    return write_report(
        out, pages, title=title or f"fctlab results: {st.path.name}", version=__version__, notes=_damaged_note(st)
    )

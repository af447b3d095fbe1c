"""A run's headline numbers, as a short text (``repr(result)``) and as an HTML
table (what a notebook shows for a `fctlab.Result`)."""

from __future__ import annotations

import html
import math


def _ms(v) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) / 1e6


def headline(res) -> dict:
    """Scheme(s), flows completed and started, FCT statistics (ms) and mean
    slowdown of the completed flows, simulated and wall time, seed, whether
    the run was interrupted, and the rows of each table."""
    f = res.flows
    m = res.meta
    done = f[f["completed"]] if len(f) else f
    fct = done["fct_ns"].astype("float64") if len(done) else None
    slow = done["slowdown"].astype("float64").dropna() if len(done) else None
    schemes = list(dict.fromkeys(f["scheme"])) if len(f) else []
    if not schemes:
        schemes = [((m.get("config") or {}).get("transport") or {}).get("scheme", "tcp-newreno")]
    st = m.get("stats", {})
    return {
        "scheme": ", ".join(schemes[:3]) + (f" (+{len(schemes) - 3})" if len(schemes) > 3 else ""),
        "flows_completed": int(m.get("flows_completed", len(done))),
        "flows_total": int(m.get("flows_total", len(f))),
        "mean_fct_ms": _ms(fct.mean()) if fct is not None and len(fct) else None,
        "median_fct_ms": _ms(fct.median()) if fct is not None and len(fct) else None,
        "p99_fct_ms": _ms(fct.quantile(0.99)) if fct is not None and len(fct) else None,
        "mean_slowdown": float(slow.mean()) if slow is not None and len(slow) else None,
        "simulated_s": st.get("end_ns", 0) / 1e9,
        "wall_s": float(m.get("wall_s", 0.0)),
        "seed": m.get("seed"),
        "interrupted": bool(st.get("interrupted")),
        "tables": {n: len(getattr(res, n)) for n in ("flows", "series", "prefixes", "size_stats", "probes")},
    }


def _g(v, unit: str = "") -> str:
    if v is None:
        return "\u2013"
    return f"{v:.4g}{unit}"


def text(h: dict) -> str:
    """One line: ``fctlab.Result(tcp-newreno: 250/250 flows completed; FCT mean ...)``."""
    fct = (
        f"; FCT mean {_g(h['mean_fct_ms'], ' ms')}, median {_g(h['median_fct_ms'], ' ms')}, "
        f"p99 {_g(h['p99_fct_ms'], ' ms')}; mean slowdown {_g(h['mean_slowdown'])}"
        if h["mean_fct_ms"] is not None
        else ""
    )
    stop = "; INTERRUPTED" if h["interrupted"] else ""
    return (
        f"fctlab.Result({h['scheme']}: {h['flows_completed']}/{h['flows_total']} flows completed{fct}; "
        f"simulated {h['simulated_s']:.4g} s in {h['wall_s']:.2f} s; seed {h['seed']}{stop})"
    )


def html_table(h: dict) -> str:
    """The headline numbers as a small HTML table."""
    rows = [
        ("scheme", h["scheme"]),
        ("flows completed", f"{h['flows_completed']:,} of {h['flows_total']:,}"),
        ("mean FCT", _g(h["mean_fct_ms"], " ms")),
        ("median FCT", _g(h["median_fct_ms"], " ms")),
        ("99th percentile FCT", _g(h["p99_fct_ms"], " ms")),
        ("mean slowdown", _g(h["mean_slowdown"])),
        ("simulated", f"{h['simulated_s']:.4g} s in {h['wall_s']:.2f} s of wall time"),
        ("seed", str(h["seed"])),
    ]
    if h["interrupted"]:
        rows.append(("interrupted", "yes: the tables hold what finished before the stop"))
    tables = ", ".join(f"{n} ({k:,} rows)" for n, k in h["tables"].items() if k or n in ("flows", "series"))
    rows.append(("tables", tables))
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table><caption style='text-align:left'><b>fctlab.Result</b></caption>{body}</table>"

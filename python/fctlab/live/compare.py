"""``fctlab compare``: two runs' FCT by flow size, side by side (table and figure)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def size_bins(sizes_pkts: np.ndarray) -> np.ndarray:
    """Bin edges in packets: powers of two, 1, 2, 4, ... past the largest size."""
    top = int(max(1, np.nanmax(sizes_pkts))) if len(sizes_pkts) else 1
    edges = [1]
    while edges[-1] <= top:
        edges.append(edges[-1] * 2)
    return np.array(edges)


def _label(lo: int, hi: int) -> str:
    return f"{lo}" if hi - lo == 1 else f"{lo}-{hi - 1}"


def by_size(flows_a: pd.DataFrame, flows_b: pd.DataFrame, edges: np.ndarray | None = None) -> pd.DataFrame:
    """Median and 90th-percentile FCT (ms) of completed flows per size bin
    (bins [2^k, 2^(k+1)) packets), with counts, for two runs, the ratio of
    the medians (b / a), and the median FCT of the same flows under ideal
    processor sharing (``ps_median_ms_a``, ``_b``; NaN where a run has no
    ``ps_fct_ns``, as live runs). Flows are matched by bin only, so two runs
    of different workloads compare too."""
    a = flows_a[flows_a["completed"]]
    b = flows_b[flows_b["completed"]]
    if edges is None:
        edges = size_bins(np.concatenate([a["size_pkts"].to_numpy(float), b["size_pkts"].to_numpy(float)]))
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        row = {"size_pkts": _label(int(lo), int(hi)), "lo": int(lo), "hi": int(hi)}
        for tag, f in (("a", a), ("b", b)):
            in_bin = f[(f["size_pkts"] >= lo) & (f["size_pkts"] < hi)]
            sel = in_bin["fct_ns"].to_numpy(float) / 1e6
            ps = in_bin["ps_fct_ns"].dropna().to_numpy(float) / 1e6 if "ps_fct_ns" in in_bin else np.array([])
            row[f"flows_{tag}"] = len(sel)
            row[f"median_ms_{tag}"] = float(np.median(sel)) if len(sel) else np.nan
            row[f"p90_ms_{tag}"] = float(np.quantile(sel, 0.9)) if len(sel) else np.nan
            row[f"ps_median_ms_{tag}"] = float(np.median(ps)) if len(ps) else np.nan
        row["ratio_b_a"] = row["median_ms_b"] / row["median_ms_a"] if row["flows_a"] and row["flows_b"] else np.nan
        if row["flows_a"] or row["flows_b"]:
            rows.append(row)
    return pd.DataFrame(rows)


def labelled(table: pd.DataFrame, label_a: str, label_b: str) -> pd.DataFrame:
    """The table of `by_size` for people: columns named after the two runs
    (``<a> flows``, ``<a> median ms``, ``<a> p90 ms``, ... ``<b>/<a> median``),
    and one ``PS median ms`` column (the ideal processor-sharing FCT of run a's
    flows, else of run b's)."""
    out = pd.DataFrame({"size_pkts": table["size_pkts"]})
    for tag, name in (("a", label_a), ("b", label_b)):
        out[f"{name} flows"] = table[f"flows_{tag}"]
        out[f"{name} median ms"] = table[f"median_ms_{tag}"]
        out[f"{name} p90 ms"] = table[f"p90_ms_{tag}"]
    out[f"{label_b}/{label_a} median"] = table["ratio_b_a"]
    ps = table["ps_median_ms_a"] if table["ps_median_ms_a"].notna().any() else table["ps_median_ms_b"]
    out["PS median ms"] = ps
    return out


def figure(table: pd.DataFrame, path: Path, label_a: str, label_b: str, title: str = "") -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    x = np.sqrt(table["lo"].to_numpy(float) * (table["hi"].to_numpy(float) - 1).clip(min=1))
    ax.plot(x, table["median_ms_a"], "o-", label=f"{label_a} (median)")
    ax.plot(x, table["median_ms_b"], "s--", label=f"{label_b} (median)")
    ax.fill_between(x, table["median_ms_a"], table["p90_ms_a"], alpha=0.15)
    ax.fill_between(x, table["median_ms_b"], table["p90_ms_b"], alpha=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (packets, bins of powers of two)")
    ax.set_ylabel("FCT (ms): median, shaded to p90")
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def compare_dirs(dir_a, dir_b, out=None) -> tuple[pd.DataFrame, Path | None]:
    """Compare two result directories (``fctlab run`` or ``fctlab live``); with
    ``out``, write ``compare.csv`` (`labelled`) and ``compare.png``."""
    from ..result import Result

    ra, rb = Result.read(dir_a), Result.read(dir_b)
    t = by_size(ra.flows, rb.flows)
    fig = None
    if out is not None:
        o = Path(out)
        o.mkdir(parents=True, exist_ok=True)
        bins = t[["lo", "hi"]].rename(columns={"lo": "size_lo_pkts", "hi": "size_hi_pkts"})
        labelled(t, Path(dir_a).name, Path(dir_b).name).join(bins).to_csv(o / "compare.csv", index=False)
        la = f"{Path(dir_a).name} ({ra.meta.get('mode', 'sim')})"
        lb = f"{Path(dir_b).name} ({rb.meta.get('mode', 'sim')})"
        fig = figure(t, o / "compare.png", la, lb)
    return t, fig

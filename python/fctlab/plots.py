"""Figure helpers shared by the reproductions (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"figure.dpi": 110, "axes.grid": True, "grid.alpha": 0.3, "font.size": 9})
    return plt


def _size_buckets(sizes: np.ndarray, bins_per_decade: int):
    """Log-spaced size buckets from 1 packet up: yield (geometric centre, mask)
    for each non-empty bucket."""
    hi = max(np.log10(sizes.max()), 0.1) + 1e-9
    edges = np.logspace(0, hi, int(np.ceil(hi * bins_per_decade)) + 1)
    idx = np.clip(np.digitize(sizes, edges) - 1, 0, len(edges) - 2)
    for b in np.unique(idx):
        m = idx == b
        yield float(np.exp(np.log(sizes[m]).mean())), m


def mean_by_size(flows: pd.DataFrame, value: str = "fct_ns", bins_per_decade: int = 8) -> pd.DataFrame:
    """Mean (and count) of ``value`` over completed flows in log-spaced size bins.

    Returns columns ``size_pkts`` (geometric bin centre), ``mean``, ``max``, ``n``.
    """
    done = flows[flows["completed"]]
    if done.empty:
        return pd.DataFrame(columns=["size_pkts", "mean", "max", "n"])
    sizes = done["size_pkts"].astype(float).to_numpy()
    vals = done[value].astype(float).to_numpy()
    rows = [(c, vals[m].mean(), vals[m].max(), int(m.sum())) for c, m in _size_buckets(sizes, bins_per_decade)]
    return pd.DataFrame(rows, columns=["size_pkts", "mean", "max", "n"])


def params_caption(params: dict) -> str:
    """'key = value; ...' for a figure caption."""
    return "; ".join(f"{k} = {v}" for k, v in params.items())


def log_binned_slowdown(sizes, slowdown, bins_per_decade: int = 5) -> pd.DataFrame:
    """Mean and 99th percentile of ``slowdown`` in log-spaced size buckets.

    Returns columns ``size_pkts`` (geometric bucket centre), ``mean``, ``p99``, ``n``.
    """
    sizes = np.asarray(sizes, dtype=float)
    slowdown = np.asarray(slowdown, dtype=float)
    rows = [
        (c, slowdown[m].mean(), np.percentile(slowdown[m], 99), int(m.sum()))
        for c, m in _size_buckets(sizes, bins_per_decade)
    ]
    return pd.DataFrame(rows, columns=["size_pkts", "mean", "p99", "n"])


def loglog(ax, xlabel: str, ylabel: str, legend_size: int = 8) -> None:
    """Log-log axes with labels and a legend."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=legend_size)


def save(fig, out_dir, name: str) -> str:
    """Lay out, write ``out_dir/name`` and close the figure; return ``name``."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(Path(out_dir) / name)
    plt.close(fig)
    return name


def ci_errorbar(ax, x, est, lo, hi, scale: float = 1.0, **kw):
    """Plot ``est`` with asymmetric error bars to ``lo`` and ``hi`` (missing
    bounds drawn as none), all divided by ``scale``."""
    est = pd.Series(np.asarray(est, dtype=float))
    below = (est - np.asarray(lo, dtype=float)).fillna(0).clip(lower=0)
    above = (np.asarray(hi, dtype=float) - est).fillna(0).clip(lower=0)
    return ax.errorbar(x, est / scale, yerr=np.vstack([below, above]) / scale, **kw)

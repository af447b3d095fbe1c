"""The pages of Figs. 4 and 5: throughput or RTT over time of four of the ten
transfers, for NewReno, SRF, Libra and Tarheel, cropped at the first loss as
the paper does and over the whole run."""

from __future__ import annotations

import numpy as np

from ... import fairness
from ...report import Figure
from ..page import Page, parameters, style
from .fairness_runs import fig45_notes, fig45_params, fig45_runs, fig45_table, first_loss_s
from .scenarios import (
    FIG4_BUFFER_BDP,
    FIG4_C_BPS,
    FIG4_FROM_S,
    FIG4_RTTS_MS,
    FIG4_SCHEMES,
    FIG4_SHOWN,
    FIG4_SMOOTH,
    SOURCE,
)

#: The paper's figure of each metric, and what its panels show.
FIGURES = {
    "throughput_bps": (4, "T(t) as % of bottleneck capacity", "throughput (% of bottleneck)"),
    "rtt_ms": (5, "RTT(t) (the sender's smoothed estimate)", "RTT (s, smoothed)"),
}


def _panel(ax, w, metric: str, loss: float, crop: bool) -> None:
    for f in FIG4_SHOWN:
        g = w[f].dropna()
        if metric == "throughput_bps":
            # A window per RTT arrives in bursts: average over 2 s (20 samples).
            g = g.rolling(FIG4_SMOOTH, min_periods=1).mean()
        t = g.index.to_numpy() / 1e9
        keep = t <= loss if crop else np.ones(len(t), dtype=bool)
        y = g.to_numpy()[keep] / FIG4_C_BPS * 100 if metric == "throughput_bps" else g.to_numpy()[keep] / 1e3
        ax.plot(t[keep], y, lw=0.8, label=f"{FIG4_RTTS_MS[f]:g} ms")


def _draw(p: Page, runs: dict, metric: str) -> str:
    fig, axes = p.subplots(2, 4, figsize=(15, 7))
    ylabel = FIGURES[metric][2]
    for k, (name, _) in enumerate(FIG4_SCHEMES):
        cfg, res = runs[(name, FIG4_BUFFER_BDP[0])]
        loss = first_loss_s(res, cfg)
        w = fairness.flow_series(res, metric)
        for row, crop in ((0, True), (1, False)):
            _panel(axes[row, k], w, metric, loss, crop)
            title = f"{name}" + (f", until the first loss ({loss:.1f} s)" if crop else ", whole run")
            style(axes[row, k], "t (s)", ylabel, title=title, legend_size=6)
    return p.save(fig)


def _over_time_table(runs: dict):
    stop = runs[("NewReno", FIG4_BUFFER_BDP[0])][0]["stop_s"]
    edges = [FIG4_FROM_S] + [float(t) for t in np.arange(100.0, stop + 1e-9, 100.0)]
    return fairness.table(
        {n: runs[(n, FIG4_BUFFER_BDP[0])][1] for n, _ in FIG4_SCHEMES},
        {f"{a:g}-{b:g} s": (a, b) for a, b in zip(edges[:-1], edges[1:])},
        title=f"Fairness across the 10 senders over time ({FIG4_BUFFER_BDP[0]:g} BDP; fctlab.fairness.table)",
        caption="Each flow's mean throughput over the window; Jain's index (sum x)^2 / (n sum x^2) and max/min.",
    )


def over_time_page(p: Page, metric: str) -> list:
    """The page of Fig. 4 (``throughput_bps``) or Fig. 5 (``rtt_ms``)."""
    runs = fig45_runs(p.scale)
    png = _draw(p, runs, metric)
    number, what, _ = FIGURES[metric]
    shown = ", ".join(f"{FIG4_RTTS_MS[f]:g}" for f in FIG4_SHOWN)
    caption = (
        f"{SOURCE}, Fig. {number}: {what} for {len(FIG4_SHOWN)} of the {len(FIG4_RTTS_MS)} transfers (minimum RTT "
        f"{shown} ms); top row cropped after the first loss event as the paper does, bottom row the whole run. "
        "Throughput: payload delivered in order per 100 ms, averaged over the last 2 s in the curves (each window's "
        f"mean in the table). {parameters(fig45_params(runs, p.scale))}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. {number}",
        title=f"Ten transfers, 50-500 ms: {what} (2010, Fig. {number})",
        figures=[Figure(png, caption)],
        tables=[fig45_table(runs), _over_time_table(runs)],
        notes=fig45_notes(runs),
        params={f"{n} ({b:g} BDP)": c for (n, b), (c, _) in runs.items()},
        seed=1,
    )

"""Fig. 5.3: link utilisation against the number of mouse-flow generators."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fctlab

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, run, style
from ..registry import reproduction
from .scenarios import (
    C_BPS,
    FIG53_FLOW_PKTS,
    FIG53_GENERATORS,
    FIG53_MEASURE_S,
    FIG53_RUNS,
    FIG53_WARMUP_S,
    PKT_BYTES,
    PROTOCOLS,
    RTT_S,
    SOURCE,
    fig53_scenario,
)


def fig53_samples(transport: dict, network: dict, generators: int, runs: int) -> np.ndarray:
    """The per-second utilisation samples after the warm-up, over ``runs`` seeds."""
    vals = []
    for r in range(runs):
        s = run(fig53_scenario(transport, network, generators, seed=r + 1), warn=False).series
        u = s[(s["metric"] == "utilization_pkts") & (s["element"] == "bottleneck") & (s["t_ns"] > FIG53_WARMUP_S * 1e9)]
        vals.extend(u["value"].tolist())
    return np.asarray(vals)


def _protocol(ax, j: int, name: str, tp: dict, net: dict, runs: int) -> list:
    """One protocol at every number of generators: drawn, and its table rows."""
    med, lo, hi, rows = [], [], [], []
    for g in FIG53_GENERATORS:
        v = fig53_samples(tp, net, g, runs)
        q10, q50, q90 = np.quantile(v, [0.1, 0.5, 0.9])
        med.append(q50)
        lo.append(q50 - q10)
        hi.append(q90 - q50)
        rows.append([name, g, len(v), q50, q10, q90])
    n = np.asarray(FIG53_GENERATORS, dtype=float)
    x = n * (1 + 0.03 * (j - 2))  # spread the protocols' error bars apart
    ax.errorbar(x, med, yerr=[lo, hi], marker="o", ms=3, lw=1, capsize=2, label=name)
    return rows


def _params(tcp: dict, runs: int) -> dict:
    per_s = C_BPS / (8 * PKT_BYTES)
    return {
        "links": f"all {captions.rate(C_BPS)}",
        "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell)",
        "packet": captions.packet(tcp) + f" (1 KB on the wire: {per_s:.0f} a second)",
        "generators": f"{', '.join(map(str, FIG53_GENERATORS))} (not listed in the thesis; chosen), each on its own "
        f"sender, restarting {FIG53_FLOW_PKTS}-packet flows at once, starting uniformly within the first RTT",
        "samples": f"per second from {FIG53_WARMUP_S:g} to {FIG53_WARMUP_S + FIG53_MEASURE_S:g} s",
        "buffer": f"1 BDP, {fctlab.describe(tcp)['buffer_pkts']} packets (not given in the thesis; chosen)",
        "TCP": captions.tcp(tcp),
        "RED, FQ, RCP": "as in Fig. 5.1",
        "runs": f"{runs} per point, seeds 1-{runs} ({runs * int(FIG53_MEASURE_S)} samples; the thesis: "
        f"{FIG53_RUNS['full']} runs, {FIG53_RUNS['full'] * int(FIG53_MEASURE_S):,} samples)",
    }


@reproduction(
    "mussmann2012-fig5-3",
    title="Utilisation with mouse flows only (Mussmann 2012, Fig. 5.3)",
    aliases=("mussmann2012-fig5.3",),
)
def fig53(out: Path, scale: str) -> list:
    """Fig. 5.3: link utilisation against the number of mouse-flow generators."""
    p = Page("mussmann2012-fig5-3", out, scale)
    runs = FIG53_RUNS[scale]
    fig, ax = p.subplots(figsize=(7, 4.2))
    rows, cfgs = [], {}
    for j, (name, tp, net) in enumerate(PROTOCOLS):
        cfgs[name] = fig53_scenario(tp, net, FIG53_GENERATORS[0], 1)
        rows += _protocol(ax, j, name, tp, net, runs)
    n = np.asarray(FIG53_GENERATORS, dtype=float)
    ax.set_xscale("log", base=2)
    ax.set_xticks(n, [str(g) for g in FIG53_GENERATORS])
    per_s = C_BPS / (8 * PKT_BYTES)
    style(ax, "concurrent mouse-flow generators", f"utilisation (packets delivered per s / {per_s:.0f})")
    png = p.save(fig)
    first, last = FIG53_GENERATORS[0], FIG53_GENERATORS[-1]
    quick = f"Quick scale: {runs} runs per point (full: {FIG53_RUNS['full']}). " if scale == "quick" else ""
    caption = (
        f"{SOURCE}, Fig. 5.3: link utilisation against concurrent mouse flows, counted as the thesis counts it "
        f"(utilization_pkts: data packets delivered over the bottleneck in each second over {per_s:.0f}, the 1 KB "
        f"packets {captions.rate(C_BPS)} carries in a second). Median with the 10th to 90th percentile as error bars. "
        "The thesis finds fair queueing highest, RCP near 0.9, RED rising above the standard TCPs as generators are "
        "added, and IW 10 alone making no appreciable difference. Each new flow here opens a fresh connection "
        "(handshake, initial window); the thesis does not say whether its generators reuse one. Here, median at "
        f"{last} generators: "
        + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == last)
        + f"; at {first}: "
        + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == first)
        + f". {quick}{parameters(_params(cfgs['TCP'], runs))}"
    )
    table = Table(
        title="Utilisation per second after the warm-up",
        columns=["protocol", "generators", "samples", "median", "10th pct", "90th pct"],
        rows=rows,
        key_columns=2,
    )
    return p.record(
        source=f"{SOURCE}, Fig. 5.3",
        figures=[Figure(png, caption)],
        tables=[table],
        params=cfgs,
        seed=list(range(1, runs + 1)),
    )

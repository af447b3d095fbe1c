"""Fig. 5.4: Fig. 5.1 at increasing bandwidth-delay products."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, run, style
from ..registry import reproduction
from .fig5_1 import READ_AT, prefixes, slow_start_bounds
from .scenarios import (
    FIG51_BACKGROUND,
    FIG51_MEASURE_PKTS,
    FIG54_BUFFER_ALT,
    FIG54_RUNS,
    FIG54_STEPS,
    FIG54_STOP_RTTS,
    PKT_BYTES,
    PROTOCOLS,
    SOURCE,
    fig54_rtt_s,
    fig54_scenario,
)

COLUMNS = [
    "step",
    "BDP (pkts)",
    "protocol",
    "runs",
    "runs completing 200 pkts",
    "bottleneck utilisation, 10 RTT before the measuring flow (mean)",
    "median, 12",
    "p99, 12",
    "median, 133",
    "p99, 133",
]
ALT_COLUMNS = ["protocol", "runs"] + [
    f"{what} {size}, {b:g} BDP" for b in (FIG54_BUFFER_ALT, 1.0) for size in READ_AT for what in ("median", "p99")
]


def fig54_prefixes(
    transport: dict,
    network: dict,
    runs: int,
    bw: float,
    latency_ms: float,
    buffer_bdp: float = 1.0,
    util: list | None = None,
) -> np.ndarray:
    """Prefix FCTs (s), one row per run, one column per k (NaN: not reached);
    ``util`` gets each run's bottleneck utilisation over the last 10 RTT
    sampled before the measuring flow starts."""
    out = np.full((runs, FIG51_MEASURE_PKTS), np.nan)
    for r in range(runs):
        cfg = fig54_scenario(transport, network, r + 1, bw, latency_ms, buffer_bdp)
        res = run(cfg, warn=False)
        k, fct = prefixes(res)
        out[r, k - 1] = fct
        if util is not None:
            s = res.series
            u = s[(s["metric"] == "utilization") & (s["t_ns"] <= cfg["flows"][-1]["start_s"] * 1e9)]
            util.append(float(u["value"].iloc[-1]))
    return out


def median_p99(fct: np.ndarray):
    """Median and 99th percentile per k over the runs; a run that never
    reached k counts as infinitely slow (so it can only raise the percentiles)."""
    x = np.where(np.isnan(fct), np.inf, fct)
    med = np.quantile(x, 0.5, axis=0, method="lower")
    p99 = np.quantile(x, 0.99, axis=0, method="lower")
    return np.where(np.isinf(med), np.nan, med), np.where(np.isinf(p99), np.nan, p99)


def _at_sizes(med, p99) -> list:
    return [v for s in READ_AT for v in (med[s - 1] * 1e3, p99[s - 1] * 1e3)]


def _step(axes, j: int, bw: float, lat: float, runs: int, cfgs: dict, last: bool) -> tuple:
    """Every protocol at one step: drawn, its table rows and the buffer variation's rows."""
    rtt = fig54_rtt_s(lat)
    bdp = bw * rtt / (8 * PKT_BYTES)
    k = np.arange(1, FIG51_MEASURE_PKTS + 1)
    rows, alt_rows = [], []
    for name, tp, net in PROTOCOLS:
        util: list = []
        fct = fig54_prefixes(tp, net, runs, bw, lat, util=util)
        if j == 0:
            cfgs[name] = fig54_scenario(tp, net, 1, bw, lat)
        med, p99 = median_p99(fct)
        axes[0, j].plot(k, med * 1e3, lw=1, label=name)
        axes[1, j].plot(k, p99 * 1e3, lw=1, label=name)
        done = int(np.sum(~np.isnan(fct[:, -1])))
        step = f"{captions.rate(bw)}, {rtt * 1e3:g} ms"
        rows.append([step, round(bdp), name, runs, done, float(np.mean(util)), *_at_sizes(med, p99)])
        if last:
            alt = median_p99(fig54_prefixes(tp, net, runs, bw, lat, buffer_bdp=FIG54_BUFFER_ALT))
            alt_rows.append([name, runs, *_at_sizes(*alt), *_at_sizes(med, p99)])
    slow_start_bounds(axes[0, j], k, bw, rtt)
    for i, what in ((0, "median"), (1, "99th percentile")):
        style(
            axes[i, j],
            "flow size k (packets of 1 KB)",
            f"{what} FCT (ms)",
            title=f"({'abcdef'[3 * i + j]}) {what}: {captions.rate(bw)}, RTT {rtt * 1e3:g} ms, BDP {bdp:,.0f} pkts",
            legend_size=6,
        )
    return rows, alt_rows


def fig54_notes(rows: list) -> str:
    """Where the largest step departs from the thesis, from the table's rows."""
    top = [r for r in rows if r[1] == max(x[1] for x in rows)]
    u = {r[2]: r[5] for r in top}
    tcp = [r for r in top if r[2] == "TCP"][0]
    return (
        "At the largest step the window-based protocols have not filled the link by 250 RTT: the bottleneck's "
        f"utilisation in the 10 RTT before the measuring flow is {u['TCP']:.2f} (TCP), {u['TCP IW10']:.2f} (IW 10), "
        f"{u['RED']:.2f} (RED), {u['FQ']:.2f} (FQ) against {u['RCP']:.2f} for RCP. Four Reno flows overshoot in slow "
        "start, lose many packets of one window, time out and then grow by one packet per RTT each, so at a BDP of "
        "thousands of packets they need hundreds of RTT to fill the pipe; with spare capacity there is no standing "
        f"queue, and the measuring flow's median at {READ_AT[0]} packets under TCP is {tcp[6]:.0f} ms, its slow-start "
        "bound. The thesis's panels (e) and (f) show timeouts at the 99th percentile, a loaded link: its largest step "
        "was smaller, or its long-lived flows had filled the link. "
    )


def _params(tcp: dict, runs_per_step) -> dict:
    steps = "; ".join(
        f"{captions.rate(bw)} with the senders' links at {lat:g} ms (RTT {fig54_rtt_s(lat) * 1e3:g} ms)"
        for bw, lat in FIG54_STEPS
    )
    return {
        "steps": steps + " (not listed in the thesis; chosen: Fig. 5.1's set-up up to Fig. 5.2's RTT, bandwidth x4 "
        "per step)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "background": f"{FIG51_BACKGROUND} long-lived flows starting uniformly within the first RTT",
        "measuring flow": f"{FIG51_MEASURE_PKTS} packets from its own sender at 250 RTT plus a uniform 0-10 RTT, "
        f"{FIG54_STOP_RTTS} RTT to finish",
        "buffer": f"1 BDP at every step (not given in the thesis; chosen); {FIG54_BUFFER_ALT:g} BDP at the largest "
        "step as the variation",
        "TCP": captions.tcp(tcp),
        "RED, FQ, RCP": "as in Fig. 5.1",
        "runs": " / ".join(str(r) for r in runs_per_step) + " per protocol at the three steps, seeds from 1",
    }


def _caption(rows: list, tcp: dict, runs_per_step, scale: str) -> str:
    quick = (
        "Quick scale: few runs per step, so the 99th percentile is the slowest run or close to it. "
        if scale == "quick"
        else ""
    )
    return (
        f"{SOURCE}, Fig. 5.4: median (top) and 99th-percentile (bottom) FCT of every prefix of a measuring flow "
        "against four long-lived flows, at three bandwidth-delay products. The thesis finds RCP's gain over TCP "
        "growing with the bandwidth-delay product (about twice as fast at the median throughout), RED as fast as RCP "
        "at the median at the smaller products but worst at the 99th percentile at the largest, and FQ between IW 10 "
        "and RED at the median but better at the 99th percentile, more so as the product grows. Dotted and dashed: "
        "the slow-start bound on the empty path. A run whose measuring flow has not reached k by the end counts as "
        f"slowest at k. {fig54_notes(rows)}{quick}{parameters(_params(tcp, runs_per_step))}"
    )


@reproduction(
    "mussmann2012-fig5-4",
    title="Increasing the bandwidth-delay product (Mussmann 2012, Fig. 5.4)",
    aliases=("mussmann2012-fig5.4",),
)
def fig54(out: Path, scale: str) -> list:
    """Fig. 5.4: Fig. 5.1 at increasing bandwidth-delay products."""
    p = Page("mussmann2012-fig5-4", out, scale)
    runs_per_step = FIG54_RUNS[scale]
    fig, axes = p.subplots(2, 3, figsize=(14, 7.5))
    rows, cfgs, alt_rows = [], {}, []
    for j, ((bw, lat), runs) in enumerate(zip(FIG54_STEPS, runs_per_step)):
        r, a = _step(axes, j, bw, lat, runs, cfgs, j == len(FIG54_STEPS) - 1)
        rows += r
        alt_rows += a
    png = p.save(fig)
    table = Table(title="Prefix FCT (ms) at 12 and 133 packets", columns=COLUMNS, rows=rows, key_columns=3)
    alt = Table(
        title=f"Buffer varied at the largest step: {FIG54_BUFFER_ALT:g} BDP against 1 BDP (ms)",
        columns=ALT_COLUMNS,
        rows=alt_rows,
        key_columns=1,
    )
    return p.record(
        source=f"{SOURCE}, Fig. 5.4",
        figures=[Figure(png, _caption(rows, cfgs["TCP"], runs_per_step, scale))],
        tables=[table, alt],
        params=cfgs,
        seed=list(range(1, max(runs_per_step) + 1)),
    )

"""Fig. 5.1: a measuring flow against four long-lived flows, FCT of every prefix."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import fctlab

from ... import ideal
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, run, style
from ..registry import reproduction
from .scenarios import (
    BOTTLENECK_MS,
    C_BPS,
    FIG51_BACKGROUND,
    FIG51_MEASURE_PKTS,
    FIG51_RUNS,
    LATENCY_MS,
    PKT_BYTES,
    PROTOCOLS,
    RTT_S,
    SOURCE,
    fig51_scenario,
)

#: The sizes the thesis reads off (packets): the median and 90th percentile of KB per host on the web.
READ_AT = (12, 133)
COLUMNS = [
    "protocol",
    "runs",
    "runs completing 200 pkts",
    "median, 12 pkts",
    "p99, 12 pkts",
    "median, 133 pkts",
    "p99, 133 pkts",
]


def prefixes(res) -> tuple:
    """The measuring flow's prefixes: (k, FCT in s)."""
    p = res.prefixes[res.prefixes["flow_id"] == FIG51_BACKGROUND]
    return p["k"].to_numpy(), p["fct_ns"].to_numpy() / 1e9


def fig51_prefixes(transport: dict, network: dict, runs: int) -> np.ndarray:
    """The measuring flows' prefix FCTs (s), one row per run, one column per k
    (NaN where a run ended before the prefix arrived)."""
    out = np.full((runs, FIG51_MEASURE_PKTS), np.nan)
    for r in range(runs):
        k, fct = prefixes(run(fig51_scenario(transport, network, seed=r + 1), warn=False))
        out[r, k - 1] = fct
    return out


def slow_start_bounds(ax, k, bw: float, rtt_s: float) -> None:
    """The slow-start bound on the empty path (queueing excluded) with IW 2 and 10."""
    for iw, ls in ((2, ":"), (10, "--")):
        b = ideal.slow_start_fct_ns(k, bw, rtt_s * 1e9, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True)
        ax.plot(k, b / 1e6, "k" + ls, lw=0.8, label=f"slow start, IW {iw}")


def _draw(axes, name: str, fct: np.ndarray, runs: int) -> list:
    k = np.arange(1, FIG51_MEASURE_PKTS + 1)
    med = np.nanmedian(fct, axis=0)
    p99 = np.nanquantile(fct, 0.99, axis=0, method="lower")
    axes[0, 0].plot(k, med * 1e3, lw=1, label=name)
    axes[0, 1].plot(k, p99 * 1e3, lw=1, label=name)
    for ax, size in zip(axes[1], READ_AT):
        x = np.sort(fct[:, size - 1][~np.isnan(fct[:, size - 1])])
        ax.step(x * 1e3, np.arange(1, len(x) + 1) / runs, where="post", lw=1, label=name)
    done = int(np.sum(~np.isnan(fct[:, -1])))
    return [name, runs, done, *(v for s in READ_AT for v in (med[s - 1] * 1e3, p99[s - 1] * 1e3))]


def _style(axes) -> None:
    for ax, what, tag in ((axes[0, 0], "median", "(a)"), (axes[0, 1], "99th percentile", "(b)")):
        style(ax, "flow size k (packets of 1 KB)", f"{what} FCT (ms)", title=f"{tag} {what} FCT")
    for ax, size, tag in zip(axes[1], READ_AT, ("(c)", "(d)")):
        style(ax, f"FCT of {size} packets (ms)", "fraction of runs", title=f"{tag} CDF at {size} packets")


def _params(tcp: dict, runs: int) -> dict:
    return {
        "links": f"all {captions.rate(C_BPS)}",
        "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell: senders' links {LATENCY_MS:g} ms, bottleneck {BOTTLENECK_MS:g} ms)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "background": f"{FIG51_BACKGROUND} long-lived flows starting uniformly within the first RTT",
        "measuring flow": f"{FIG51_MEASURE_PKTS} packets from its own sender, started at 250 RTT plus a uniform "
        "offset of 0-10 RTT (range not given in the thesis)",
        "buffer": f"1 BDP, {fctlab.describe(tcp)['buffer_pkts']} packets (not given in the thesis; chosen)",
        "TCP": captions.tcp(tcp),
        "RED": "ns-2 automatic thresholds and weight, mean packet 1000 B",
        "FQ": "DRR over 1000 buckets, quantum 1000 B, overflow drops the tail of the longest queue",
        "RCP": "ns-2 patch hosts and router (mode ns2), alpha = beta = 1",
        "runs": f"{runs} per protocol, seeds 1-{runs}",
    }


@reproduction(
    "mussmann2012-fig5-1",
    title="A mouse against four elephants: FCT of every prefix (Mussmann 2012, Fig. 5.1)",
    aliases=("mussmann2012-fig5.1",),
)
def fig51(out: Path, scale: str) -> list:
    """Fig. 5.1: a measuring flow against four long-lived flows, FCT of every prefix."""
    p = Page("mussmann2012-fig5-1", out, scale)
    runs = FIG51_RUNS[scale]
    fig, axes = p.subplots(2, 2, figsize=(11, 7.5))
    rows, cfgs = [], {}
    for name, tp, net in PROTOCOLS:
        cfgs[name] = fig51_scenario(tp, net, 1)
        rows.append(_draw(axes, name, fig51_prefixes(tp, net, runs), runs))
    slow_start_bounds(axes[0, 0], np.arange(1, FIG51_MEASURE_PKTS + 1), C_BPS, RTT_S)
    _style(axes)
    png = p.save(fig)
    quick = f"Quick scale: {runs} runs per protocol (full: {FIG51_RUNS['full']}). " if scale == "quick" else ""
    caption = (
        f"{SOURCE}, Fig. 5.1: FCT of a mouse against elephants. Each run's measuring flow records when packets "
        "1..k have all arrived, for every k (the thesis's method, section 4.2), so one run gives the FCT of "
        "every flow size up to its own; median and 99th percentile over the runs, and the CDF over the runs "
        f"at {READ_AT[0]} and {READ_AT[1]} packets (the median and 90th percentile of KB per host on the web the "
        "thesis cites). Dotted and dashed: the slow-start bound on the empty path (fctlab.ideal.slow_start_fct_ns: "
        f"handshake, IW 2 or 10, queueing excluded). {quick}{parameters(_params(cfgs['TCP'], runs))}"
    )
    table = Table(title="Prefix FCT (ms) at the sizes the thesis discusses", columns=COLUMNS, rows=rows, key_columns=1)
    return p.record(
        source=f"{SOURCE}, Fig. 5.1",
        figures=[Figure(png, caption)],
        tables=[table],
        params=cfgs,
        seed=list(range(1, runs + 1)),
    )

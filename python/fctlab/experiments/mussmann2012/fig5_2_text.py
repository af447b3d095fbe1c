"""The tables, caption and notes of the mussmann2012-fig5-2 page, read off its runs."""

from __future__ import annotations

import fctlab

from ... import ideal
from ...report import Table
from .. import captions
from ..page import parameters, published
from .scenarios import (
    FIG52_ALPHA,
    FIG52_BUFFER_ALT,
    FIG52_BUFFER_BDP,
    FIG52_C_BPS,
    FIG52_GAP_SIZES,
    FIG52_LOAD,
    FIG52_MEAN_PKTS,
    FIG52_MIN_FLOWS,
    FIG52_MIN_MARKER_FLOWS,
    FIG52_RATE,
    FIG52_RTT_S,
    PKT_BYTES,
    SOURCE,
)

GAP_COLUMNS = [
    "statistic",
    "size (pkts)",
    "TCP flows of this size",
    "TCP FCT (ms)",
    "RCP FCT (ms)",
    "IW10 closes",
    "RED closes",
    "FQ closes",
    "thesis: FQ closes",
    f"FQ closes, buffer {FIG52_BUFFER_ALT:g} BDP",
    "RCP alpha 0.1 FCT (ms)",
    "FQ closes of the gap to RCP alpha 0.1",
    "FQ FCT (ms)",
    f"TCP FCT, buffer {FIG52_BUFFER_ALT:g} BDP (ms)",
    f"RCP FCT, buffer {FIG52_BUFFER_ALT:g} BDP (ms)",
]
POINT_COLUMNS = [
    "protocol",
    "size (pkts)",
    "flows completed",
    "median",
    "p99",
    f"median, buffer {FIG52_BUFFER_ALT:g} BDP",
    f"p99, buffer {FIG52_BUFFER_ALT:g} BDP",
]


def gap_closed(tcp: float, rcp: float, x: float) -> float:
    """The share of the TCP-to-RCP gap that x closes: (TCP - x) / (TCP - RCP)."""
    return (tcp - x) / (tcp - rcp)


def at(t, size: int, col: str, min_flows: int) -> float:
    """Column ``col`` of a size_stats table at ``size`` packets; NaN with fewer than ``min_flows`` flows."""
    r = t[t["size_pkts"] == size]
    if not len(r) or int(r["flows_completed"].iloc[0]) < max(min_flows, 1):
        return float("nan")
    return float(r[col].iloc[0])


def thesis_fq_share() -> dict:
    """The thesis's shares of the gap FQ closes: {"median" | "p99": {size: share}}."""
    pub = published(__file__, "fq_share")
    return {what: dict(zip(pub["sizes_pkts"], pub[what])) for what in ("median", "p99")}


def gap_table(stats: dict, alt: dict, rcp_alt, min_flows: int) -> tuple:
    """The share of the TCP-to-RCP gap each change closes, and the table's rows:
    [statistic, size, n, TCP, RCP, IW10 %, RED %, FQ %, thesis FQ %, FQ % at the
    small buffer, RCP alpha 0.1, FQ % of that gap, FQ, TCP at the small buffer,
    RCP at the small buffer] (FCTs in ms)."""
    thesis, rows = thesis_fq_share(), []
    for col, what in (("p50_fct_ns", "median"), ("p99_fct_ns", "p99")):
        for size in FIG52_GAP_SIZES:
            v = {n: at(stats[n], size, col, min_flows) for n in stats}
            va = {n: at(alt[n], size, col, 1) for n in alt}
            r01 = at(rcp_alt, size, col, 1)
            n_done = int(stats["TCP"].loc[stats["TCP"]["size_pkts"] == size, "flows_completed"].sum())
            row = [what, size, n_done, v["TCP"] / 1e6, v["RCP"] / 1e6]
            row += [100 * gap_closed(v["TCP"], v["RCP"], v[n]) for n in ("TCP IW10", "RED", "FQ")]
            row += [100 * thesis[what][size], 100 * gap_closed(va["TCP"], va["RCP"], va["FQ"])]
            row += [r01 / 1e6, 100 * gap_closed(v["TCP"], r01, v["FQ"]), v["FQ"] / 1e6]
            row += [va["TCP"] / 1e6, va["RCP"] / 1e6]
            rows.append(row)
    title = "Share of the TCP-to-RCP gap closed (%): (TCP - X) / (TCP - RCP)"
    return Table(title=title, columns=GAP_COLUMNS, rows=rows, key_columns=2), rows


def points_table(stats: dict, alt: dict) -> Table:
    rows = []
    for (name, t), (_, ta) in zip(stats.items(), alt.items()):
        for size in FIG52_GAP_SIZES:
            rows.append(
                [
                    name,
                    size,
                    at(t, size, "flows_completed", 0),
                    at(t, size, "p50_fct_ns", 1) / 1e6,
                    at(t, size, "p99_fct_ns", 1) / 1e6,
                    at(ta, size, "p50_fct_ns", 1) / 1e6,
                    at(ta, size, "p99_fct_ns", 1) / 1e6,
                ]
            )
    return Table(title="FCT (ms) at the thesis's reading points", columns=POINT_COLUMNS, rows=rows, key_columns=2)


def _params(stats: dict, tcp: dict, sc: dict, scale: str) -> dict:
    counted = [int(t["flows_completed"].sum()) for t in stats.values()]
    started = [int(t["flows_started"].sum()) for t in stats.values()]
    min_flows = FIG52_MIN_FLOWS[scale]
    shown = (
        " (the thesis: 5000; each marker size expects about 5000)"
        if scale == "full"
        else f" ({FIG52_MIN_MARKER_FLOWS[scale]} for the marker sizes)"
    )
    return {
        "link": f"{captions.rate(FIG52_C_BPS)}, RTT {FIG52_RTT_S * 1e3:g} ms (one link between two hosts)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "arrivals": f"Poisson, load {FIG52_LOAD} counting headers ({FIG52_RATE:,.0f} flows/s)",
        "flow sizes": "Pareto mean 25 pkts, shape 1.2; 1 flow in 500 uniform over 100, 125, ..., 1075 pkts "
        f"(mean {FIG52_MEAN_PKTS:.3f})",
        "buffer": f"{FIG52_BUFFER_BDP:g} BDP = {fctlab.describe(tcp)['buffer_pkts']:,} pkts (not given in the "
        f"thesis; chosen); {FIG52_BUFFER_ALT:g} BDP as the variation",
        "TCP": captions.tcp(tcp),
        "RED": "ns-2 automatic thresholds (5 ms target) and weight, mean packet 1000 B",
        "FQ": "DRR over 1000 buckets, quantum 1000 B, overflow drops the tail of the longest queue",
        "RCP": "ns-2 patch hosts and router (mode ns2), alpha = beta = 1; alpha = 0.1 (the 2006 paper's) as the "
        "variation",
        "flows": f"{sc['flows']:,} counted per configuration (the expected number; counted: {min(counted):,} to "
        f"{max(counted):,} completed of {min(started):,} to {max(started):,}), in {sc['chunks']} chunk(s) of their "
        f"own seeds 1-{sc['chunks']}; each chunk starts empty, its first {sc['warm_s']:g} s and the arrivals of its "
        f"last {sc['cool_s']:g} s are not counted; variations: {sc['alt_flows']:,} flows",
        "statistics": f"streaming per size (metrics.size_stats, DDSketch, quantiles within {FIG52_ALPHA:.1%}), "
        "chunks merged exactly (fctlab.sizestats.merge)",
        "sizes shown": f"with at least {min_flows:,} completed flows" + shown,
    }


def caption(stats: dict, tcp: dict, sc: dict, scale: str) -> str:
    quick = (
        "Quick scale: a small fraction of the thesis's flows, so the 99th percentiles of the larger sizes rest on few "
        "flows; fctlab reproduce mussmann2012-fig5.2 --full runs 10^8 flows per configuration (resumable). "
        if scale == "quick"
        else ""
    )
    return (
        f"{SOURCE}, Fig. 5.2: median and 99th-percentile FCT by flow size, RCP's home turf (the 2006 FCT paper's "
        f"single {captions.rate(FIG52_C_BPS)} link). The thesis's method: Pareto sizes give enough flows of each size "
        "up to about 213 packets at 10^8 flows, and 1 flow in 500 is a marker flow of 100-1075 packets for the larger "
        "sizes. Dotted and dashed: the slow-start bound on the empty path with IW 2 and 10 "
        "(fctlab.ideal.slow_start_fct_ns, handshake included); grey: the mean FCT under processor sharing at load "
        f"{FIG52_LOAD:g}. {quick}{parameters(_params(stats, tcp, sc, scale))}"
    )


def bound_ms(size: int, iw: int) -> float:
    """The slow-start bound on the empty path (handshake included), ms."""
    b = ideal.slow_start_fct_ns(
        size, FIG52_C_BPS, FIG52_RTT_S * 1e9, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True
    )
    return float(b) / 1e6


def _shares_text(gap_rows: list) -> str:
    parts = []
    for what in ("median", "p99"):
        got = [(r[1], r[7], r[8]) for r in gap_rows if r[0] == what]
        parts.append(
            f"FQ closes at the {'median' if what == 'median' else '99th percentile'} "
            + ", ".join(f"{g:.0f}% at {s} pkts (thesis {t:.0f}%)" for s, g, t in got)
        )
    return "; ".join(parts) + ". "


def _small_flows_text(p: dict, thesis: dict) -> str:
    m13, q13 = p[("median", 13)], p[("p99", 13)]
    share = thesis["p99"][13]
    need = q13[3] - (q13[3] - q13[12]) / share
    return (
        f"At 13 packets fctlab's FQ has a 99th percentile of {q13[12]:.0f} ms (its slow-start bound with IW 10 is "
        f"{bound_ms(13, 10):.0f} ms) and TCP {q13[3]:.0f} ms; the thesis's {share:.0%} would need RCP's 99th "
        f"percentile at {need:.0f} ms, while fctlab's RCP with alpha = beta = 1 has {q13[4]:.0f} ms against a median "
        f"of {m13[4]:.0f} ms. The cause is RCP's router with alpha = 1, ten times the 2006 paper's 0.1: when Pareto "
        "arrivals bunch, the rate it hands out overshoots and the queue swings up to the whole 1 BDP buffer (sampled "
        "per second in a 20 s run of this set-up: maxima up to the full 30,000 packets, 100 ms of queueing, with "
        f"drops), and a short flow arriving then waits in it. With alpha = 0.1 (last columns) RCP's 99th percentile "
        f"at 13 packets is {q13[10]:.0f} ms and FQ closes {q13[11]:.0f}% of that gap. The thesis states alpha = beta "
        "= 1; whether its ns-2 RCP kept a shorter queue with them cannot be checked from the text. "
    )


def _median_text(p: dict, thesis: dict) -> str:
    text, rtt_ms = "", FIG52_RTT_S * 1e3
    for size in (500, 1000):
        r = p[("median", size)]
        need = r[3] - thesis["median"][size] * (r[3] - r[4])
        b = bound_ms(size, 10)
        text += (
            f"At the median, {size}-packet flows under FQ take {r[12]:.0f} ms (quantiles within {FIG52_ALPHA:.1%}) "
            f"against their slow-start bound with IW 10 of {b:.0f} ms ({b - rtt_ms:.0f} ms without the handshake's "
            f"round trip); the thesis's {100 * thesis['median'][size]:.0f}% would need {need:.0f} ms, "
            + (
                "below that bound even without the handshake: no TCP that starts with 10 packets and doubles its "
                "window once per round trip finishes there, so this share is out of reach for any of the TCP "
                "configurations. "
                if need < b - rtt_ms
                else "which a slow-starting TCP can reach. "
            )
        )
    return text


def _p99_text(p: dict, thesis: dict) -> str:
    text, enough = "", True
    for size in (500, 1000):
        r = p[("p99", size)]
        share = thesis["p99"][size]
        tcp_needed = (r[12] - share * r[4]) / (1 - share)
        enough &= r[13] >= tcp_needed
        text += (
            f"At {size} packets (marker flows, {r[2]:,} TCP flows) RCP's 99th percentile is {r[4]:.0f} ms and FQ's "
            f"{r[12]:.0f} ms (its slow-start bound with IW 10: {bound_ms(size, 10):.0f} ms); against TCP's "
            f"{r[3]:.0f} ms FQ closes {r[7]:.0f}%. With these FQ and RCP values the thesis's {100 * share:.0f}% needs "
            f"TCP's 99th percentile at {tcp_needed / 1e3:.1f} s; fctlab's TCP has {r[3] / 1e3:.1f} s with the "
            f"{FIG52_BUFFER_BDP:g} BDP buffer and {r[13] / 1e3:.1f} s with {FIG52_BUFFER_ALT:g} BDP. "
        )
    if enough:
        return text + (
            "So the thesis's shares at the marker sizes fit a TCP that times out about as often as fctlab's does with "
            f"the {FIG52_BUFFER_ALT:g} BDP buffer, beside an RCP that keeps its 99th percentile near 2-3 RTT; fctlab's "
            "RCP with alpha = 1 does not at that buffer (its 99th percentile at 500 packets is then "
            f"{p[('p99', 500)][14]:.0f} ms), which is why FQ closes more than the whole gap there. The thesis gives "
            "neither its buffer nor TCP's own percentiles, so which buffer it ran cannot be settled from its text. "
        )
    return text + (
        "So at these sizes the thesis's TCP must have met timeouts more often than fctlab's does with either buffer; "
        "the thesis gives neither its buffer nor TCP's own 99th percentiles, so the difference cannot be pinned down "
        "further from its text. "
    )


def fig52_notes(gap_rows: list, scale: str) -> str:
    """How the shares compare with the thesis's, and why they differ, from the gap table's rows."""
    p, thesis = {(r[0], r[1]): r for r in gap_rows}, thesis_fq_share()
    text = _shares_text(gap_rows) + _small_flows_text(p, thesis) + _median_text(p, thesis) + _p99_text(p, thesis)
    return text + ("At quick scale the marker sizes rest on a handful of flows. " if scale == "quick" else "")

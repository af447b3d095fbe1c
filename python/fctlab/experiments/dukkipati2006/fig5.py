"""Fig. 5: a long flow holds the link; three 300-packet flows take several RTTs, not PS's one."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, published, style
from ..registry import reproduction
from .scenarios import FIG5_SCHEMES, SOURCE, fig5_scenario

BUFFERS_BDP = (1.0, 0.25)  # the first is drawn
#: Line styles of the three short flows, so that curves lying on one another stay visible.
SHORT_STYLES = ("--", ":", "-.")
#: Curves closer than this (relative) cannot be told apart in the figure.
HIDDEN = 0.01


def _row(name: str, bdp: float, res, rtt_s: float) -> list:
    f = res.flows[res.flows["flow_id"] > 0]
    rtts = (f["fct_ns"] / 1e9 / rtt_s).to_numpy()
    ps = (f["ps_fct_ns"] / 1e9 / rtt_s).to_numpy()
    return [
        name,
        f"{bdp:g} BDP",
        float(np.mean(rtts)),
        float(np.max(rtts)),
        float(np.mean(ps)),
        float(np.max(rtts) / np.mean(ps)),
    ]


def _windows(res, start_s: float, rtt_s: float):
    """The per-flow window series from 5 RTTs before the short flows start."""
    s = res.series
    return s[(s["metric"] == "cwnd_pkts") & (s["t_ns"] >= (start_s - 5 * rtt_s) * 1e9)]


def _draw_windows(ax, w, start_s: float, rtt_s: float, size: int) -> None:
    for el, g in w.groupby("element"):
        x = (g["t_ns"] / 1e9 - start_s) / rtt_s
        if el == "flow0":
            ax.plot(x, g["value"], lw=1.4, color="C0", label="long flow")
        else:
            k = int(str(el)[4:])
            ax.plot(x, g["value"], lw=1.0, ls=SHORT_STYLES[k - 1], color=f"C{k}", label=f"{size}-pkt {el}")


def _before(w, start_s: float) -> float:
    """The long flow's mean window in the samples before the short flows start."""
    g = w[(w["element"] == "flow0") & (w["t_ns"] < start_s * 1e9)]
    return float(g["value"].mean())


def short_flows_spread(w) -> float:
    """The largest spread of the short flows' windows at one sample, relative to
    the largest of them (0: the curves are the same)."""
    p = w[w["element"] != "flow0"].pivot_table(index="t_ns", columns="element", values="value", dropna=False)
    top = p.max(axis=1)
    spread = ((p.max(axis=1) - p.min(axis=1)) / top)[top > 0]
    return float(spread.max()) if p.notna().all(axis=None) and len(spread) else float("inf")


def slow_start_rounds(size: int, iw: float) -> int:
    """Rounds slow start from ``iw`` packets needs for ``size`` packets: iw (2^k - 1) >= size."""
    return math.ceil(math.log2(size / iw + 1))


def _runs(p: Page, axes):
    """Each scheme at each buffer; the windows of the first buffer's runs drawn.
    Returns the table rows, the drawn runs' scenarios and what the captions read."""
    rows, ran, seen = [], {}, {}
    for ax, (name, scheme, queue) in zip(axes, FIG5_SCHEMES):
        for bdp in BUFFERS_BDP:
            cfg = fig5_scenario(scheme, queue, bdp)
            rtt_s = 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3
            start_s = cfg["flows"][1]["start_s"]
            res = p.run(cfg)
            rows.append(_row(name, bdp, res, rtt_s))
            if bdp != BUFFERS_BDP[0]:
                continue
            ran[name] = cfg
            w = _windows(res, start_s, rtt_s)
            _draw_windows(ax, w, start_s, rtt_s, cfg["flows"][1]["size_pkts"])
            seen[name] = (_before(w, start_s), short_flows_spread(w))
        style(
            ax,
            "RTTs after the three flows start",
            "window (packets; RCP: rate x RTT)",
            title=name,
            xlim=(-5, 30),
        )
    return rows, ran, seen


def _caption(tcp: dict, rows: list, seen: dict, params: dict, bdp_pkts: float) -> str:
    pub = published(__file__, "fig5")
    net, short = tcp["network"], tcp["flows"][1:]
    size, rtt_s = short[0]["size_pkts"], 2 * net["bottleneck_delay_ms"] / 1e3
    first = f"{BUFFERS_BDP[0]:g} BDP"
    worst = {r[0]: r[5] for r in rows if r[1] == first}
    # The paper counts PS as "1 RTT": the transfer alone, without the SYN round
    # trip and the last half RTT that the flows table's FCT includes.
    transfer = {r[0]: (r[3] - 1.5) / (r[4] - 1.5) for r in rows if r[1] == first}
    coincide = {k: spread for k, (_, spread) in seen.items() if spread <= HIDDEN}
    iw = tcp["transport"]["init_cwnd_pkts"]
    return (
        f"{SOURCE}, Fig. 5: unfair sharing. A long flow runs alone on a {captions.rate(net['bottleneck_bps'])} link; "
        f"{len(short)} flows of {size} packets start in RTT {short[0]['start_s'] / rtt_s:.0f}. Windows of the four "
        "flows around their start; in the RTTs before it the long flow's window averages "
        + ", ".join(f"{k} {v[0] / bdp_pkts:.0%}" for k, v in seen.items())
        + f" of the bandwidth-delay product ({bdp_pkts:.0f} packets). "
        + (
            f"Under {' and '.join(coincide)} the {len(short)} short flows' windows stay within "
            f"{max(coincide.values()):.1%} of each other at every sample, so their curves lie on one another (drawn "
            "dashed, dotted and dash-dotted). "
            if coincide
            else ""
        )
        + "The paper: under PS the three would finish in about one RTT (plus the handshake), under TCP and "
        f"XCP up to {pub['slower_than_ps']:g} times later. Here the slowest of the three takes "
        + ", ".join(f"{k} {v:.1f}x" for k, v in worst.items())
        + " its PS FCT (which includes the handshake RTT and the last half RTT); counting the transfer alone "
        "as the paper does (FCT - 1.5 RTT, PS: about 1 RTT), "
        + ", ".join(f"{k} {v:.1f}x" for k, v in transfer.items())
        + f". TCP's flows cannot beat slow start from {captions.num(iw)} packets: "
        f"{slow_start_rounds(size, iw)} rounds for {size} packets. RCP gives each new flow a fair share at once: its "
        "routers count the new flows from their SYNs and offer every flow, the long one included, "
        f"C/{len(tcp['flows'])} until the three finish, so they finish as under PS and the long flow then gets the "
        f"link back. {parameters(params)}"
    )


@reproduction("dukkipati2006-fig5", title="A long flow keeps new flows from their share (2006, Fig. 5)")
def fig5(out: Path, scale: str) -> list:
    """Fig. 5: a long flow holds the link; three 300-packet flows take several RTTs, not PS's one."""
    p = Page("dukkipati2006-fig5", out, scale)
    fig, axes = p.subplots(1, len(FIG5_SCHEMES), figsize=(12, 3.6), sharey=False)
    rows, ran, seen = _runs(p, axes)
    png = p.save(fig)
    tcp = ran["TCP NewReno"]
    net, short = tcp["network"], tcp["flows"][1:]
    rtt_s = 2 * net["bottleneck_delay_ms"] / 1e3
    bdp_pkts = net["bottleneck_bps"] * rtt_s / 8 / captions.packet_bytes(tcp)
    params = {
        "C": captions.rate(net["bottleneck_bps"]),
        "RTT": f"{rtt_s * 1e3:g} ms (dumbbell, access links 10x faster and without delay)",
        "long flow": "starts at t = 0 and never ends",
        "short flows": f"{len(short)} x {short[0]['size_pkts']} packets at RTT {short[0]['start_s'] / rtt_s:.0f}",
        "packet": captions.packet(tcp),
        "TCP": captions.tcp(tcp),
        "buffer": f"{BUFFERS_BDP[0]:g} BDP ({bdp_pkts:.0f} pkts; not stated in the paper, chosen), "
        f"{BUFFERS_BDP[1]:g} BDP in the table",
        "XCP": "router defaults",
        "RCP": "router and host defaults",
        "seed": tcp["seed"],
    }
    table = Table(
        title="The three 300-packet flows: FCT in RTTs (PS: max-min share of the same flows, from the fluid model)",
        columns=["scheme", "buffer", "mean FCT", "max FCT", "PS FCT", "max / PS"],
        rows=rows,
        key_columns=2,
    )
    caption = _caption(tcp, rows, seen, params, bdp_pkts)
    return p.record(
        source=f"{SOURCE}, Fig. 5",
        figures=[Figure(png, caption)],
        tables=[table],
        params=dict(ran),
        seed=tcp["seed"],
    )

"""RCP's convergence to the fair share (the paper, sec. IV: RCP flows pick up
their fair share at once): staggered arrivals and a load step, modes ps and ns2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, quick_or_full, style
from ..registry import reproduction
from .scenarios import (
    CONV_FIRST_S,
    CONV_FLOWS,
    CONV_GAP_RTTS,
    CONV_RTT_S,
    RCP_MODES,
    SOURCE,
    STEP_AT_S,
    STEP_END_S,
    rcp_stagger_scenario,
    rcp_step_scenario,
)

#: Flows starting this long after the step count as "early".
EARLY_S = 0.5
COLUMNS = [
    "experiment",
    "RTTs to converge after arrivals 1..4",
    "max queue (pkts)",
    "FCT / PS at 0.3",
    "FCT / PS, first 0.5 s (25 RTTs) at 0.95",
    "FCT / PS, later at 0.95",
]


def convergence_rtts(series, starts_s, bdp_pkts: float, rtt_s: float = CONV_RTT_S, tol: float = 0.1) -> list:
    """After each arrival, RTTs until every flow present holds R·RTT within
    `tol` of its share of the BDP (1/n) in every later sample before the next
    arrival; None if never."""
    w = series[series["metric"] == "cwnd_pkts"]
    out = []
    for k, t0 in enumerate(starts_s):
        t1 = starts_s[k + 1] if k + 1 < len(starts_s) else w["t_ns"].max() / 1e9 + 1e-9
        win = w[(w["t_ns"] > t0 * 1e9) & (w["t_ns"] < t1 * 1e9)]
        piv = win.pivot_table(index="t_ns", columns="element", values="value")
        piv = piv[[f"flow{i}" for i in range(k + 1) if f"flow{i}" in piv.columns]]
        share = bdp_pkts / (k + 1)
        ok = ((piv - share).abs() <= tol * share).all(axis=1).to_numpy()
        bad = np.nonzero(~ok)[0]
        if len(bad) == 0:
            out.append(0.0)
        elif bad[-1] + 1 >= len(ok):
            out.append(None)
        else:
            out.append((piv.index[bad[-1] + 1] / 1e9 - t0) / rtt_s)
    return out


def bottleneck(s, metric: str):
    return s[(s["metric"] == metric) & (s["element"] == "bottleneck")]


def staggered(p: Page, ax, mode: str, ran: dict) -> list:
    """Four long flows joining one by one: each one's R x RTT over the BDP, and the table row."""
    cfg = rcp_stagger_scenario(mode)
    ran[f"staggered, mode {mode}"] = cfg
    bdp = cfg["network"]["bottleneck_bps"] * CONV_RTT_S / 8 / captions.packet_bytes(cfg)
    starts = [CONV_FIRST_S + i * CONV_GAP_RTTS * CONV_RTT_S for i in range(CONV_FLOWS)]
    s = p.run(cfg, warn=False).series  # long-lived flows never complete
    for el, g in s[s["metric"] == "cwnd_pkts"].groupby("element"):
        ax.plot(g["t_ns"] / 1e9, g["value"] / bdp, lw=0.8, label=str(el))
    for k, st in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else cfg["stop_s"]
        ax.hlines(1 / (k + 1), st, end, colors="k", linestyles=":", lw=0.8)
    style(
        ax,
        "time (s)",
        "R x RTT / BDP (about R / C)",
        title=f"mode {mode}: staggered arrivals",
        ylim=(0, 1.3),
        loc="upper right",
    )
    conv = convergence_rtts(s, starts, bdp)
    return [
        f"staggered, mode {mode}",
        ", ".join("never" if c is None else f"{c:.1f}" for c in conv),
        float(bottleneck(s, "queue_pkts")["value"].max()),
        None,
        None,
        None,
    ]


def _concat(parts):
    return pd.concat(parts) if parts else pd.Series(dtype=float)


def _draw_step(bx, mode: str, res) -> float:
    """The first seed's run: FCT over PS by start time and the utilisation; returns
    the largest queue after the step."""
    f = res.flows[res.flows["completed"]]
    st, r = f["start_ns"] / 1e9, f["fct_ns"] / f["ps_fct_ns"]
    edges = np.arange(STEP_AT_S - 5, STEP_END_S + 0.25, 0.25)
    idx = np.digitize(st, edges)
    m = [float(r[idx == i].mean()) if (idx == i).any() else np.nan for i in range(1, len(edges))]
    bx[0].step(edges[:-1], m, where="post", lw=0.9, label=f"mode {mode}")
    s = res.series
    u = bottleneck(s, "utilization")
    u = u[u["t_ns"] > (STEP_AT_S - 5) * 1e9]
    q = bottleneck(s, "queue_pkts")
    bx[1].plot(u["t_ns"] / 1e9, u["value"].rolling(5).mean(), lw=0.7, label=f"utilisation per 100 ms, mode {mode}")
    return float(q[q["t_ns"] > STEP_AT_S * 1e9]["value"].max())


def load_step(p: Page, bx, mode: str, seeds: tuple, ran: dict) -> list:
    """Poisson arrivals stepping from load 0.3 to 0.95: mean FCT over PS before, early after and later."""
    ratios = {"before": [], "early": [], "late": []}
    for seed in seeds:
        cfg = rcp_step_scenario(mode, seed=seed)
        ran[f"load step, mode {mode}, seed {seed}"] = cfg
        res = p.run(cfg)
        f = res.flows[res.flows["completed"]]
        st, r = f["start_ns"] / 1e9, f["fct_ns"] / f["ps_fct_ns"]
        ratios["before"].append(r[st < STEP_AT_S])
        ratios["early"].append(r[(st >= STEP_AT_S) & (st < STEP_AT_S + EARLY_S)])
        ratios["late"].append(r[st >= STEP_AT_S + EARLY_S])
        if seed == seeds[0]:
            qmax = _draw_step(bx, mode, res)
    cat = {k: _concat(v) for k, v in ratios.items()}
    return [f"load step, mode {mode}", None, qmax, *(float(cat[k].mean()) for k in ("before", "early", "late"))]


def _style_step(bx) -> None:
    for ax in bx:
        ax.axvline(STEP_AT_S, color="k", lw=0.8)
    bx[0].axhline(1, color="k", ls=":", lw=0.8)
    bx[0].set_yscale("log")
    style(bx[0], None, "mean FCT / PS FCT\n(flows by start time, 0.25 s bins)", xlim=(STEP_AT_S - 5, STEP_END_S + 1))
    style(bx[1], "time (s)", "utilisation")


def _params(ran: dict, seeds: tuple) -> dict:
    st, step = ran[f"staggered, mode {RCP_MODES[0]}"], ran[f"load step, mode {RCP_MODES[0]}, seed {seeds[0]}"]
    low, high = (t["load"] for t in step["traffic"])
    return {
        "staggered": f"{len(st['flows'])} long-lived flows from one host, one every {CONV_GAP_RTTS} RTTs from "
        f"{st['flows'][0]['start_s']:g} s, C = {captions.rate(st['network']['bottleneck_bps'])}, RTT = "
        f"{2 * st['network']['bottleneck_delay_ms']:g} ms, buffer {st['network']['buffer_bdp']:g} BDP",
        "load step": f"Poisson, exponential sizes of mean {step['traffic'][0]['sizes']['mean_pkts']} pkts, C = "
        f"{captions.rate(step['network']['bottleneck_bps'])}, RTT = {2 * step['network']['bottleneck_delay_ms']:g} ms, "
        f"load {low:g} until {STEP_AT_S:g} s then {high:g} until {STEP_END_S:g} s; seeds {', '.join(map(str, seeds))}",
        "RCP": f"{captions.table(st, 'network.rcp', ('alpha', 'beta'))} (the paper), mode ps (fctlab's default) or "
        "ns2 (the released patch) in both tables",
        "packet": captions.packet(st),
    }


def _captions(rows: list, params: dict, scale: str, seeds: tuple) -> tuple:
    by = {r[0]: r for r in rows}
    ca = (
        f"{SOURCE}, sec. IV (RCP flows pick up their fair share at once): {CONV_FLOWS} long RCP flows join one every "
        f"{CONV_GAP_RTTS} RTTs; each flow's R x RTT over the BDP, dotted: the fair share 1/n. RTTs until every flow "
        f"is within 10% of its share after each arrival: mode ps {by['staggered, mode ps'][1]}; mode ns2 "
        f"{by['staggered, mode ns2'][1]}. In mode ps the router counts the flows (a SYN announces one) and offers "
        "the newcomer and the others C/n within a round trip; the patch's router (ns2) moves R by the rate equation "
        "alone, by at most alpha of the spare capacity per RTT ('never': not within the "
        f"{CONV_GAP_RTTS} RTTs before the next arrival). {parameters(params)}"
    )
    ps, ns2 = by["load step, mode ps"], by["load step, mode ns2"]
    cb = (
        f"A load step from 0.3 to 0.95 at {STEP_AT_S:g} s. Top: mean FCT over PS FCT of the flows by start time; "
        f"bottom: utilisation (100 ms average). Flows starting in the first {EARLY_S:g} s after the step: mode ps "
        f"{ps[4]:.2f}x PS, later {ps[5]:.2f}x; mode ns2 {ns2[4]:.2f}x, later {ns2[5]:.2f}x (table). "
        f"Scale: {quick_or_full(scale)} ({len(seeds)} seed{'s' if len(seeds) > 1 else ''} of the step). "
        "Parameters as above."
    )
    return ca, cb


@reproduction("dukkipati2006-rcp-convergence", title="RCP converges to the fair share (2006, sec. IV)")
def rcp_convergence(out: Path, scale: str) -> list:
    """RCP's convergence to the fair share: staggered arrivals and a load step 0.3 -> 0.95, modes ps and ns2."""
    p = Page("dukkipati2006-rcp-convergence", out, scale)
    fig, axes = p.subplots(1, len(RCP_MODES), figsize=(11, 3.8), sharey=True, squeeze=False)
    rows, ran = [], {}
    for j, mode in enumerate(RCP_MODES):
        rows.append(staggered(p, axes[0, j], mode, ran))
    seeds = (5, 6, 7) if p.full else (5,)
    fig2, bx = p.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for mode in RCP_MODES:
        rows.append(load_step(p, bx, mode, seeds, ran))
    _style_step(bx)
    png_a, png_b = p.save(fig, "-staggered"), p.save(fig2, "-step")
    table = Table(
        title="Convergence: RTTs until every flow holds its share within 10% after each arrival; the load step's "
        "mean FCT / PS",
        columns=COLUMNS,
        rows=rows,
        key_columns=1,
    )
    ca, cb = _captions(rows, _params(ran, seeds), scale, seeds)
    return p.record(
        source=f"{SOURCE}, sec. IV",
        figures=[Figure(png_a, ca), Figure(png_b, cb)],
        tables=[table],
        params=ran,
        seed=1,
    )

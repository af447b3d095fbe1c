"""Fig. 1: the throughput ratio delta(r_b, t) of eqs. 3 and 5, and measured on NewReno."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, style
from ..registry import reproduction
from .scenarios import FAST_BPS, FIG1_RA, FIG1_RB, FIG1_W, SOURCE, cwnd, eq3, eq3_rounds, eq5, no_queue_scenario, run

#: The r_b simulated (s), and the larger window varied in congestion avoidance.
SIMULATED_RB, W_VARIED = (0.02, 0.05), 100.0
TABLE_COLUMNS = ["phase", "r_b", "samples", "max |measured / model - 1|", "min measured / eq.", "max measured / eq."]


def _analytic(ax) -> None:
    ts = np.linspace(0, 0.5, 501)
    for rb in FIG1_RB:
        ax[0].semilogy(ts, eq3(rb, ts), label=f"r_b = {rb * 1e3:g} ms")
    tc = np.linspace(0, 10, 501)
    for rb in FIG1_RB:
        ax[1].semilogy(tc, eq5(rb, tc, FIG1_W, FIG1_W), label=f"r_b = {rb * 1e3:g} ms")
        ax[1].semilogy(tc, eq5(rb, tc, W_VARIED, W_VARIED), ":", color=ax[1].lines[-1].get_color(), lw=0.8)
    style(ax[0], "t (s)", "delta = T_a / T_b", title=f"(a) eq. 3, slow start, r_a = {FIG1_RA * 1e3:g} ms")
    what = f"w_a = w_b = {FIG1_W:g}; dotted: {W_VARIED:g}"
    style(ax[1], "t (s)", "delta = T_a / T_b", title=f"(b) eq. 5, congestion avoidance ({what})")


def _windows(res) -> tuple:
    """Sample times and the two flows' windows."""
    (ta, wa), (_, wb) = cwnd(res, 0), cwnd(res, 1)
    return ta, wa, wb


def _slow_start(ax, rb: float, ran: dict) -> list:
    """NewReno, r_a = 10 ms against r_b, no queue, no handshake: the measured
    ratio against eq. 3 (and eq. 3 in whole rounds)."""
    cfg = no_queue_scenario([FIG1_RA * 1e3, rb * 1e3], {"scheme": "tcp-newreno", "init_cwnd_pkts": 1}, 0.12, 0.5)
    ran[f"slow start, r_b = {rb * 1e3:g} ms"] = cfg
    ta, wa, wb = _windows(run(cfg))
    keep = (ta > rb) & (wa > 0) & (wb > 0)
    t, meas = ta[keep], (wa[keep] / FIG1_RA) / (wb[keep] / rb)
    line = ax.semilogy(t, meas, lw=1.2, label=f"NewReno, r_b = {rb * 1e3:g} ms")[0]
    ax.semilogy(t, eq3(rb, t), "--", color=line.get_color(), lw=0.8, label="eq. 3")
    ax.semilogy(t, eq3_rounds(rb, t), ":", color=line.get_color(), lw=0.8, label="eq. 3 in whole rounds")
    # Once a round's ACKs are all back (the latter half of a round: a burst of
    # 4096 packets takes 3.4 ms at 10 Gb/s), the measured ratio is the whole-rounds form.
    settled = lambda r: (np.modf(t / r)[0] > 0.5) & (np.modf(t / r)[0] < 0.95)  # noqa: E731
    clear = settled(FIG1_RA) & settled(rb)
    err = np.abs(meas[clear] / eq3_rounds(rb, t[clear]) - 1)
    span = meas[clear] / eq3(rb, t[clear])
    return ["slow start", f"{rb * 1e3:g} ms", int(clear.sum()), float(err.max()), float(span.min()), float(span.max())]


def _congestion_avoidance(ax, rb: float, w: float, ran: dict) -> list:
    """NewReno from cwnd = ssthresh = w: the measured ratio against eq. 5."""
    transport = {"scheme": "tcp-newreno", "init_cwnd_pkts": w, "init_ssthresh_pkts": w}
    cfg = no_queue_scenario([FIG1_RA * 1e3, rb * 1e3], transport, 5.0, 10.0)
    ran[f"congestion avoidance, r_b = {rb * 1e3:g} ms, w = {w:g}"] = cfg
    ta, wa, wb = _windows(run(cfg))
    keep = ta > 0.5
    meas = (wa[keep] / FIG1_RA) / (wb[keep] / rb)
    model = eq5(rb, ta[keep], w, w)
    rel = meas / model
    if w == FIG1_W:
        line = ax.semilogy(ta[keep], meas, lw=1.2, label=f"NewReno, r_b = {rb * 1e3:g} ms")[0]
        ax.semilogy(ta[keep], model, "--", color=line.get_color(), lw=0.8, label="eq. 5")
    label = f"{rb * 1e3:g} ms, w {w:g}"
    return ["cong. avoidance", label, int(keep.sum()), float(np.abs(rel - 1).max()), float(rel.min()), float(rel.max())]


def _params(cfg: dict) -> dict:
    return {
        "r_a": f"{FIG1_RA * 1e3:g} ms",
        "r_b": ", ".join(f"{r * 1e3:g} ms" for r in FIG1_RB)
        + " (analytic); "
        + ", ".join(f"{r * 1e3:g}" for r in SIMULATED_RB)
        + " ms (simulated)",
        "eq. 5 windows at t = 0": f"w_a = w_b = {FIG1_W:g} packets (not stated in the paper; chosen), "
        f"{W_VARIED:g} dotted",
        "simulated network": f"dumbbell of {captions.rate(FAST_BPS)} links (never queues), no handshake, long-lived "
        "flows",
        "packet": captions.packet(cfg),
        "throughput": "T = cwnd / r (the paper's T_t = w_t / r), cwnd sampled every 0.5 ms (slow start) or 10 ms",
    }


@reproduction("gavaletz2010-fig1", title="RTT bias in slow start and congestion avoidance (2010, Fig. 1)")
def fig1(out: Path, scale: str) -> list:
    """Fig. 1: delta(r_b, t) of eqs. 3 and 5, and measured on NewReno."""
    p = Page("gavaletz2010-fig1", out, scale)
    fig, ax = p.subplots(2, 2, figsize=(11, 8))
    _analytic(ax[0])
    rows, ran = [], {}
    for rb in SIMULATED_RB:
        rows.append(_slow_start(ax[1, 0], rb, ran))
    for rb in SIMULATED_RB:
        for w in (FIG1_W, W_VARIED):
            rows.append(_congestion_avoidance(ax[1, 1], rb, w, ran))
    ylabel = "delta (cwnd_a / r_a) / (cwnd_b / r_b)"
    style(ax[1, 0], "t (s)", ylabel, title=f"(c) measured: NewReno IW 1, r_a = {FIG1_RA * 1e3:g} ms (cwnd / r)")
    style(ax[1, 1], "t (s)", ylabel, title=f"(d) measured: NewReno from cwnd = ssthresh = {FIG1_W:g}")
    png = p.save(fig)
    table = Table(
        title="Measured delta against the equations",
        columns=TABLE_COLUMNS,
        rows=rows,
        key_columns=2,
        caption="Slow start: the model is eq. 3 in whole rounds (the error column) and eq. 3 itself (the last two "
        "columns: the discreteness of rounds puts the measured ratio within a factor 2 of it either way). "
        "Congestion avoidance: the model is eq. 5; NewReno adds 1/cwnd per ACK, which is eq. 4's one packet "
        "per RTT up to the window's discreteness.",
    )
    caption = (
        f"{SOURCE}, Fig. 1: delta(r_b, t), r_a = {FIG1_RA:g} s. (a) and (b) are the paper's equations 3 and 5; (c) "
        "and (d) the same ratio measured on two simulated NewReno flows. "
        + parameters(_params(next(iter(ran.values()))))
    )
    return p.record(source=f"{SOURCE}, Fig. 1", figures=[Figure(png, caption)], tables=[table], params=ran, seed=1)

"""What the pages of Figs. 2 and 3 share: 20, 30 and 40 ms transfers under
standard AIMD (NewReno, Fig. 2) or the scaled rules (Tarheel, Fig. 3),
window and throughput, simulated beside the paper's equations."""

from __future__ import annotations

import numpy as np

from ... import fairness
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, style
from .scenarios import (
    FAST_BPS,
    FIG23_RREF_MS,
    FIG23_RTTS_MS,
    FIG23_SST,
    FIG23_T_S,
    FIG23_W0,
    MSS_BYTES,
    SOURCE,
    aimd_window,
    cwnd,
    no_queue_scenario,
    run,
)

#: Initial windows run: the paper's, and one varied in the table.
W0S = (FIG23_W0, 3.0)
#: Times (s) at which the table reads the throughputs.
READ_AT_S = (0.5, 1.0, 1.5)


def scenario(w0: float, scaled: bool) -> dict:
    """The three transfers from window ``w0``: NewReno with SST, or Tarheel told each sender's RTT."""
    if scaled:
        transport = {
            "scheme": "tcp-tarheel",
            "init_cwnd_pkts": w0,
            "tarheel": {"ref_rtt_ms": FIG23_RREF_MS, "ssthresh_ref_pkts": FIG23_SST, "queue_delay": "none"},
        }
        per_sender = [{"tarheel": {"base_rtt_ms": r}} for r in FIG23_RTTS_MS]
    else:
        transport = {"scheme": "tcp-newreno", "init_cwnd_pkts": w0, "init_ssthresh_pkts": FIG23_SST}
        per_sender = None
    return no_queue_scenario(list(FIG23_RTTS_MS), transport, FIG23_T_S, 5.0, per_sender)


def _draw(a1, a2, t, w, r: float, w0: float, s: float, label: str) -> None:
    ts = np.linspace(0, FIG23_T_S, 601)
    model = aimd_window(ts, r, w0, FIG23_SST, s)
    mbps = MSS_BYTES * 8 / 1e6
    line = a2.plot(t, w, lw=1.2, label=f"{label}, simulated")[0]
    a2.plot(ts, model, "--", color=line.get_color(), lw=0.8, label="model")
    a1.plot(t, w / r * mbps, lw=1.2, color=line.get_color(), label=f"{label}, simulated")
    a1.plot(ts, model / r * mbps, "--", color=line.get_color(), lw=0.8)


def _run_w0(a1, a2, w0: float, scaled: bool, ran: dict) -> list:
    """The three transfers from one initial window: drawn (the paper's), and the table's rows."""
    cfg = scenario(w0, scaled)
    res = run(cfg)
    ran[f"w0 = {w0:g}"] = cfg
    thr = {}
    for i, r_ms in enumerate(FIG23_RTTS_MS):
        r = r_ms / 1e3
        t, w = cwnd(res, i)
        if w0 == FIG23_W0:
            _draw(a1, a2, t, w, r, w0, r_ms / FIG23_RREF_MS if scaled else 1.0, f"{r_ms:g} ms")
        thr[r_ms] = {tq: float(np.interp(tq, t, w)) / r for tq in READ_AT_S}
    rows = []
    for tq in READ_AT_S:
        vals = [thr[r][tq] for r in FIG23_RTTS_MS]
        first = f"w0{'_ref' if scaled else ''} = {w0:g}"
        rows.append([first, f"{tq:g} s", *[v * MSS_BYTES * 8 / 1e6 for v in vals], fairness.max_min_ratio(vals)])
    return rows


def scaled_note() -> str:
    r, ref = FIG23_RTTS_MS[0], FIG23_RREF_MS
    return (
        "Scaled (Tarheel, eqs. 7, 9-13): the three transfers' throughputs coincide once each has left slow start. "
        f"The {r:g} ms transfer's eq. 7 window, {FIG23_W0:g} x {r:g}/{ref:g} = {FIG23_W0 * r / ref:.2f} packets, "
        "cannot be sent: it starts at one packet, ahead of REF, and its curve runs above the others until its window "
        f"passes SST ({FIG23_SST * r / ref:.1f} packets), where all three meet; with w0_ref = {W0S[1]:g} (table) "
        "every w0 is a whole number of packets and the curves agree throughout. The simulated slow start advances "
        "per round (steps); the model is continuous."
    )


STANDARD_NOTE = (
    "Standard AIMD (NewReno, eqs. 1 and 4): the shorter the RTT the faster slow start, and the higher the "
    "throughput at which it leaves it; in congestion avoidance the gap grows further."
)


def _params(cfg: dict, scaled: bool) -> dict:
    params = {
        "RTTs": ", ".join(f"{r:g}" for r in FIG23_RTTS_MS) + " ms",
        "w0": f"{FIG23_W0:g} (the paper's), {W0S[1]:g} varied in the table",
        "SST": f"{FIG23_SST:g} packets (the paper's)",
        "packet": captions.packet(cfg),
        "network": f"dumbbell of {captions.rate(FAST_BPS)} links that never queues, no handshake",
        "duration": f"{FIG23_T_S:g} s (the paper's axis is not stated; chosen)",
    }
    if scaled:
        params["r_ref"] = f"{FIG23_RREF_MS:g} ms (the paper's)"
        params["r"] = "given to each sender (transport.per_sender[i].tarheel.base_rtt_ms), queue_delay none"
    else:
        params["TCP"] = f"NewReno, init_ssthresh_pkts {captions.num(cfg['transport']['init_ssthresh_pkts'])}"
    return params


def aimd_page(p: Page, scaled: bool) -> list:
    """The page of Fig. 3 (``scaled``) or Fig. 2."""
    fig, (a1, a2) = p.subplots(1, 2, figsize=(11, 4))
    rows, ran = [], {}
    for w0 in W0S:
        rows += _run_w0(a1, a2, w0, scaled, ran)
    style(a1, "t (s)", "T = w / r (Mb/s of payload)")
    style(a2, "t (s)", "w (packets)")
    png = p.save(fig)
    what, number = ("scaled", 3) if scaled else ("standard", 2)
    table = Table(
        title=f"Throughput (Mb/s of payload) of the three transfers, {what}",
        columns=["", "t", *(f"{r:g} ms" for r in FIG23_RTTS_MS), "max/min"],
        rows=rows,
        key_columns=2,
    )
    caption = (
        f"{SOURCE}, Fig. {number}: {what} AIMD; (left) throughput T = w / r, (right) window; dashed: the paper's "
        f"equations, solid: fctlab. {scaled_note() if scaled else STANDARD_NOTE} "
        + parameters(_params(ran[f"w0 = {FIG23_W0:g}"], scaled))
    )
    return p.record(
        source=f"{SOURCE}, Fig. {number}", figures=[Figure(png, caption)], tables=[table], params=ran, seed=1
    )

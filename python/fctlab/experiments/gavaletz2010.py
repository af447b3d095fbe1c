"""Gavaletz & Kaur, "Decomposing RTT-Unfairness in Transport Protocols" (2010).

Fig. 1: the throughput ratio delta of two transfers with RTTs r_a = 10 ms and
r_b in slow start (eq. 3) and congestion avoidance (eq. 5), beside the same
ratio measured on two simulated NewReno flows. Figs. 2 and 3: window and
throughput of 20, 30 and 40 ms transfers under standard AIMD (w0 = 1, SST =
100) and under the scaled rules (eqs. 7-13, r_ref = 30 ms), analytic and
simulated. Figs. 4 and 5: ten senders with minimum RTTs 50-500 ms on a
100 Mb/s bottleneck with 1 Gb/s access links, losses forced in every transfer
when the buffer nears full (the `sync-drop` queue), throughput as % of the
bottleneck and RTT over time for NewReno, SRF, Libra and Tarheel (oracle).
"""

from __future__ import annotations

import functools
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np

import fctlab

from .. import fairness
from ..plots import params_caption, pyplot, save
from ..report import Figure, Reproduction, Table
from . import captions

SOURCE = "Gavaletz & Kaur 2010"
#: ns-2's default packetSize_ (the paper does not state its packets).
MSS_BYTES, HEADER_BYTES = 1000, 40
#: A network that never queues for Figs. 1-3 (their curves are analytic).
FAST_BPS = 10e9


def _run(cfg: dict):
    """fctlab.run, quiet about its long-lived flows never completing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fctlab.NoCompletedFlowWarning)
        return fctlab.run(cfg)


def _cwnd(res, flow: int):
    """(t in s, cwnd) of one flow from the run's series."""
    s = res.series
    g = s[(s["metric"] == "cwnd_pkts") & (s["element"] == f"flow{flow}")]
    return g["t_ns"].to_numpy() / 1e9, g["value"].to_numpy()


def no_queue_scenario(rtts_ms, transport: dict, stop_s: float, interval_ms: float, per_sender=None) -> dict:
    """Long-lived flows from t = 0, one per RTT, on a dumbbell of 10 Gb/s links
    (1 ms bottleneck delay) that never queues: base RTT 2 (access + 1 ms)."""
    t = {"mss_bytes": MSS_BYTES, "header_bytes": HEADER_BYTES, "handshake": False, **transport}
    if per_sender:
        t["per_sender"] = per_sender
    return {
        "seed": 1,
        "stop_s": stop_s,
        "network": {
            "topology": "dumbbell",
            "senders": len(rtts_ms),
            "bottleneck_bps": FAST_BPS,
            "access_bps": FAST_BPS,
            "bottleneck_delay_ms": 1.0,
            "access_delay_ms": [r / 2 - 1.0 for r in rtts_ms],
            "buffer_pkts": 1_000_000,
        },
        "transport": t,
        "flows": [{"sender": i, "long_lived": True} for i in range(len(rtts_ms))],
        "metrics": {"interval_ms": interval_ms, "cwnd_flows": list(range(len(rtts_ms))), "links": []},
    }


# ---------------------------------------------------------------- Fig. 1


def eq3(rb: float, t, ra: float = 0.01):
    """Eq. 3: delta = (r_b / r_a) 2^(t/r_a - t/r_b)."""
    return rb / ra * np.exp2(np.asarray(t) / ra - np.asarray(t) / rb)


def eq3_rounds(rb: float, t, ra: float = 0.01):
    """Eq. 3 in whole rounds: without a handshake the first window's ACKs
    return at r, so a flow has completed floor(t / r) rounds at t."""
    t = np.asarray(t)
    return rb / ra * np.exp2(np.floor(t / ra + 1e-9) - np.floor(t / rb + 1e-9))


def eq5(rb: float, t, wa: float, wb: float, ra: float = 0.01):
    """Eq. 5: delta = (r_b^2 / r_a^2) (w_a r_a + t) / (w_b r_b + t)."""
    t = np.asarray(t)
    return rb**2 / ra**2 * (wa * ra + t) / (wb * rb + t)


FIG1_RA = 0.01
FIG1_RB = (0.02, 0.05, 0.1, 0.2, 0.5)
#: Fig. 1(b)'s windows at t = 0 are not stated: chosen 10 packets each, 100 varied.
FIG1_W = 10.0


def fig1(out: Path, scale: str) -> list:
    """Fig. 1: delta(r_b, t) of eqs. 3 and 5, and measured on NewReno."""
    t0 = time.monotonic()
    plt = pyplot()
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    ts = np.linspace(0, 0.5, 501)
    for rb in FIG1_RB:
        ax[0, 0].semilogy(ts, eq3(rb, ts), label=f"r_b = {rb * 1e3:g} ms")
    ax[0, 0].set_title("(a) eq. 3, slow start, r_a = 10 ms")
    tc = np.linspace(0, 10, 501)
    for rb in FIG1_RB:
        ax[0, 1].semilogy(tc, eq5(rb, tc, FIG1_W, FIG1_W), label=f"r_b = {rb * 1e3:g} ms")
        ax[0, 1].semilogy(tc, eq5(rb, tc, 100.0, 100.0), ":", color=ax[0, 1].lines[-1].get_color(), lw=0.8)
    ax[0, 1].set_title(f"(b) eq. 5, congestion avoidance (w_a = w_b = {FIG1_W:g}; dotted: 100)")
    for a in ax[0]:
        a.set_xlabel("t (s)")
        a.set_ylabel("delta = T_a / T_b")
        a.legend(fontsize=7)
    # Simulated: NewReno, r_a = 10 ms against r_b = 20 and 50 ms, no queue, no handshake.
    rows, ran = [], {}
    for rb in (0.02, 0.05):
        cfg = no_queue_scenario([FIG1_RA * 1e3, rb * 1e3], {"scheme": "tcp-newreno", "init_cwnd_pkts": 1}, 0.12, 0.5)
        res = _run(cfg)
        ran[f"slow start, r_b = {rb * 1e3:g} ms"] = cfg
        (ta, wa), (_, wb) = _cwnd(res, 0), _cwnd(res, 1)
        keep = (ta > rb) & (wa > 0) & (wb > 0)
        meas = (wa[keep] / FIG1_RA) / (wb[keep] / rb)
        line = ax[1, 0].semilogy(ta[keep], meas, lw=1.2, label=f"NewReno, r_b = {rb * 1e3:g} ms")[0]
        ax[1, 0].semilogy(ta[keep], eq3(rb, ta[keep]), "--", color=line.get_color(), lw=0.8, label="eq. 3")
        ax[1, 0].semilogy(
            ta[keep], eq3_rounds(rb, ta[keep]), ":", color=line.get_color(), lw=0.8, label="eq. 3 in whole rounds"
        )
        # Once a round's ACKs are all back (the latter half of a round: a burst of
        # 4096 packets takes 3.4 ms at 10 Gb/s), the measured ratio is the whole-rounds form.
        settled = lambda r: (np.modf(ta[keep] / r)[0] > 0.5) & (np.modf(ta[keep] / r)[0] < 0.95)  # noqa: E731
        clear = settled(FIG1_RA) & settled(rb)
        err = np.abs(meas[clear] / eq3_rounds(rb, ta[keep][clear]) - 1)
        span = meas[clear] / eq3(rb, ta[keep][clear])
        rows.append(
            ["slow start", f"{rb * 1e3:g} ms", int(clear.sum()), float(err.max()), float(span.min()), float(span.max())]
        )
    ax[1, 0].set_title("(c) measured: NewReno IW 1, r_a = 10 ms (cwnd / r)")
    for rb in (0.02, 0.05):
        for w in (FIG1_W, 100.0):
            cfg = no_queue_scenario(
                [FIG1_RA * 1e3, rb * 1e3],
                {"scheme": "tcp-newreno", "init_cwnd_pkts": w, "init_ssthresh_pkts": w},
                5.0,
                10.0,
            )
            res = _run(cfg)
            ran[f"congestion avoidance, r_b = {rb * 1e3:g} ms, w = {w:g}"] = cfg
            (ta, wa), (_, wb) = _cwnd(res, 0), _cwnd(res, 1)
            keep = ta > 0.5
            meas = (wa[keep] / FIG1_RA) / (wb[keep] / rb)
            model = eq5(rb, ta[keep], w, w)
            rel = meas / model
            rows.append(
                [
                    "cong. avoidance",
                    f"{rb * 1e3:g} ms, w {w:g}",
                    int(keep.sum()),
                    float(np.abs(rel - 1).max()),
                    float(rel.min()),
                    float(rel.max()),
                ]
            )
            if w == FIG1_W:
                line = ax[1, 1].semilogy(ta[keep], meas, lw=1.2, label=f"NewReno, r_b = {rb * 1e3:g} ms")[0]
                ax[1, 1].semilogy(ta[keep], model, "--", color=line.get_color(), lw=0.8, label="eq. 5")
    ax[1, 1].set_title(f"(d) measured: NewReno from cwnd = ssthresh = {FIG1_W:g}")
    for a in ax[1]:
        a.set_xlabel("t (s)")
        a.set_ylabel("delta (cwnd_a / r_a) / (cwnd_b / r_b)")
        a.legend(fontsize=7)
    png = save(fig, out, "gavaletz2010-fig1.png")
    cfg = next(iter(ran.values()))
    params = {
        "r_a": "10 ms",
        "r_b": ", ".join(f"{r * 1e3:g} ms" for r in FIG1_RB) + " (analytic); 20, 50 ms (simulated)",
        "eq. 5 windows at t = 0": f"w_a = w_b = {FIG1_W:g} packets (not stated in the paper; chosen), 100 dotted",
        "simulated network": f"dumbbell of {captions.rate(FAST_BPS)} links (never queues), no handshake, long-lived flows",
        "packet": captions.packet(cfg),
        "throughput": "T = cwnd / r (the paper's T_t = w_t / r), cwnd sampled every 0.5 ms (slow start) or 10 ms",
    }
    table = Table(
        title="Measured delta against the equations",
        columns=["phase", "r_b", "samples", "max |measured / model - 1|", "min measured / eq.", "max measured / eq."],
        rows=rows,
        key_columns=2,
        caption="Slow start: the model is eq. 3 in whole rounds (the error column) and eq. 3 itself (the last two "
        "columns: the discreteness of rounds puts the measured ratio within a factor 2 of it either way). "
        "Congestion avoidance: the model is eq. 5; NewReno adds 1/cwnd per ACK, which is eq. 4's one packet "
        "per RTT up to the window's discreteness.",
    )
    caption = (
        f"{SOURCE}, Fig. 1: delta(r_b, t), r_a = 0.01 s. (a) and (b) are the paper's equations 3 and 5; (c) and (d) the "
        "same ratio measured on two simulated NewReno flows. Parameters: " + params_caption(params) + "."
    )
    return [
        Reproduction(
            name="gavaletz2010-fig1",
            title="RTT bias in slow start and congestion avoidance (2010, Fig. 1)",
            source=f"{SOURCE}, Fig. 1",
            figures=[Figure(png, caption)],
            tables=[table],
            params=ran,
            seed=1,
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


# ---------------------------------------------------------------- Figs. 2 and 3

FIG23_RTTS_MS = (20.0, 30.0, 40.0)
FIG23_W0, FIG23_SST, FIG23_RREF_MS = 1.0, 100.0, 30.0
FIG23_T_S = 1.5


def aimd_window(t, r: float, w0: float = 1.0, sst: float = 100.0, s: float = 1.0):
    """Eqs. 1 and 4 (s = 1) or 10, 11 and 13 (s = r / r_ref): w0 s 2^(s t / r)
    until s SST, then + s^2 per RTT."""
    t = np.asarray(t, dtype=float)
    w_start, w_sst = w0 * s, sst * s
    t_ss = r / s * math.log2(w_sst / w_start)
    return np.where(t < t_ss, w_start * np.exp2(s * t / r), w_sst + s * s * (t - t_ss) / r)


def _fig23(out: Path, scale: str, scaled: bool) -> list:
    t0 = time.monotonic()
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    ts = np.linspace(0, FIG23_T_S, 601)
    rows, ran = [], {}
    for w0 in (FIG23_W0, 3.0):
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
        cfg = no_queue_scenario(list(FIG23_RTTS_MS), transport, FIG23_T_S, 5.0, per_sender)
        res = _run(cfg)
        ran[f"w0 = {w0:g}"] = cfg
        thr = {}
        for i, r_ms in enumerate(FIG23_RTTS_MS):
            r = r_ms / 1e3
            t, w = _cwnd(res, i)
            s = r_ms / FIG23_RREF_MS if scaled else 1.0
            if w0 == FIG23_W0:
                line = a2.plot(t, w, lw=1.2, label=f"{r_ms:g} ms, simulated")[0]
                a2.plot(ts, aimd_window(ts, r, w0, FIG23_SST, s), "--", color=line.get_color(), lw=0.8, label="model")
                a1.plot(
                    t, w / r * (MSS_BYTES * 8) / 1e6, lw=1.2, color=line.get_color(), label=f"{r_ms:g} ms, simulated"
                )
                a1.plot(
                    ts,
                    aimd_window(ts, r, w0, FIG23_SST, s) / r * MSS_BYTES * 8 / 1e6,
                    "--",
                    color=line.get_color(),
                    lw=0.8,
                )
            thr[r_ms] = {tq: float(np.interp(tq, t, w)) / r for tq in (0.5, 1.0, 1.5)}
        for tq in (0.5, 1.0, 1.5):
            vals = [thr[r][tq] for r in FIG23_RTTS_MS]
            rows.append(
                [
                    f"w0{'_ref' if scaled else ''} = {w0:g}",
                    f"{tq:g} s",
                    *[v * MSS_BYTES * 8 / 1e6 for v in vals],
                    fairness.max_min_ratio(vals),
                ]
            )
    a1.set_ylabel("T = w / r (Mb/s of payload)")
    a2.set_ylabel("w (packets)")
    for a in (a1, a2):
        a.set_xlabel("t (s)")
        a.legend(fontsize=7)
    what = "scaled" if scaled else "standard"
    name = "gavaletz2010-fig3" if scaled else "gavaletz2010-fig2"
    png = save(fig, out, f"{name}.png")
    cfg = ran[f"w0 = {FIG23_W0:g}"]
    params = {
        "RTTs": "20, 30, 40 ms",
        "w0": f"{FIG23_W0:g} (the paper's), 3 varied in the table",
        "SST": f"{FIG23_SST:g} packets (the paper's)",
        "packet": captions.packet(cfg),
        "network": f"dumbbell of {captions.rate(FAST_BPS)} links that never queues, no handshake",
        "duration": f"{FIG23_T_S:g} s (the paper's axis is not stated; chosen)",
    }
    if scaled:
        params["r_ref"] = f"{FIG23_RREF_MS:g} ms (the paper's)"
        params["r"] = "given to each sender (transport.per_sender[i].tarheel.base_rtt_ms), queue_delay none"
        note = (
            "Scaled (Tarheel, eqs. 7, 9-13): the three transfers' throughputs coincide once each has left slow start. "
            "The 20 ms transfer's eq. 7 window, 1 x 20/30 = 0.67 packets, cannot be sent: it starts at one packet, "
            "ahead of REF, and its curve runs above the others until its window passes SST (66.7 packets), where all "
            "three meet; with w0_ref = 3 (table) every w0 is a whole number of packets and the curves agree throughout. "
            "The simulated slow start advances per round (steps); the model is continuous."
        )
    else:
        params["TCP"] = "NewReno, init_ssthresh_pkts 100"
        note = (
            "Standard AIMD (NewReno, eqs. 1 and 4): the shorter the RTT the faster slow start, and the higher the "
            "throughput at which it leaves it; in congestion avoidance the gap grows further."
        )
    table = Table(
        title=f"Throughput (Mb/s of payload) of the three transfers, {what}",
        columns=["", "t", "20 ms", "30 ms", "40 ms", "max/min"],
        rows=rows,
        key_columns=2,
    )
    caption = (
        f"{SOURCE}, Fig. {3 if scaled else 2}: {what} AIMD; (left) throughput T = w / r, (right) window; dashed: the "
        f"paper's equations, solid: fctlab. {note} Parameters: " + params_caption(params) + "."
    )
    return [
        Reproduction(
            name=name,
            title=f"{what.capitalize()} AIMD for 20, 30 and 40 ms transfers (2010, Fig. {3 if scaled else 2})",
            source=f"{SOURCE}, Fig. {3 if scaled else 2}",
            figures=[Figure(png, caption)],
            tables=[table],
            params=ran,
            seed=1,
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


def fig2(out: Path, scale: str) -> list:
    """Fig. 2: standard AIMD (w0 = 1, SST = 100) for 20, 30, 40 ms."""
    return _fig23(out, scale, scaled=False)


def fig3(out: Path, scale: str) -> list:
    """Fig. 3: scaled AIMD (r_ref = 30 ms)."""
    return _fig23(out, scale, scaled=True)


# ---------------------------------------------------------------- Figs. 4 and 5

FIG4_C_BPS, FIG4_ACCESS_BPS = 100e6, 1e9
FIG4_RTTS_MS = tuple(50.0 * (i + 1) for i in range(10))
FIG4_BN_DELAY_MS = 10.0
#: The buffer is not in the paper: 1 BDP of the mean minimum RTT (275 ms), 0.25 BDP varied.
FIG4_BUFFER_BDP = (1.0, 0.25)
#: Not in the paper (chosen, see the caption): IW 10 (RFC 6928), SST 100 packets (the paper's Figs. 2-3),
#: Tarheel's REF the longest path (r_ref 500 ms: no flow grows faster than NewReno would on it), 100 ms varied.
FIG4_IW, FIG4_SST, FIG4_RREF_MS = 10, 100, 500.0
FIG4_STOP_S = {"quick": 600.0, "full": 900.0}
FIG4_SCHEMES = (
    ("NewReno", {"scheme": "tcp-newreno"}),
    ("SRF", {"scheme": "tcp-srf"}),
    ("Libra", {"scheme": "tcp-libra"}),
    ("Tarheel", {"scheme": "tcp-tarheel", "tarheel": {"ref_rtt_ms": FIG4_RREF_MS, "ssthresh_ref_pkts": FIG4_SST}}),
)
FIG4_VARIANTS = (
    (
        "Tarheel, r_ref 100 ms",
        {"scheme": "tcp-tarheel", "tarheel": {"ref_rtt_ms": 100.0, "ssthresh_ref_pkts": FIG4_SST}},
    ),
    (
        "Tarheel, end-to-end q",
        {
            "scheme": "tcp-tarheel",
            "tarheel": {"ref_rtt_ms": FIG4_RREF_MS, "ssthresh_ref_pkts": FIG4_SST, "queue_delay": "end-to-end"},
        },
    ),
)
#: Flows drawn (the paper shows "a selected few").
FIG4_SHOWN = (0, 3, 6, 9)
#: Samples (100 ms each) averaged in the throughput curves.
FIG4_SMOOTH = 20
#: The paper: NewReno "significantly different"; SRF and Libra "can differ by up to a factor of 4"; Tarheel fair.
FIG4_PUBLISHED = {"SRF": 4.0, "Libra": 4.0, "Tarheel": 1.0}
#: Windows start at 1 s: every handshake (up to 500 ms) and first round trip are over.
FIG4_FROM_S, FIG4_SS_S = 1.0, 3.0


def fig4_scenario(transport: dict, buffer_bdp: float, stop_s: float, sync: float = 0.9) -> dict:
    t = {"mss_bytes": MSS_BYTES, "header_bytes": HEADER_BYTES, "init_cwnd_pkts": FIG4_IW, **transport}
    if t["scheme"] != "tcp-tarheel":
        t["init_ssthresh_pkts"] = FIG4_SST
    return {
        "seed": 1,
        "stop_s": stop_s,
        "network": {
            "topology": "dumbbell",
            "senders": 10,
            "bottleneck_bps": FIG4_C_BPS,
            "access_bps": FIG4_ACCESS_BPS,
            "bottleneck_delay_ms": FIG4_BN_DELAY_MS,
            "access_delay_ms": [r / 2 - FIG4_BN_DELAY_MS for r in FIG4_RTTS_MS],
            "buffer_bdp": buffer_bdp,
            "queue": "sync-drop",
            "sync_drop": {"threshold": sync},
        },
        "transport": t,
        "flows": [{"sender": i, "long_lived": True} for i in range(10)],
        "metrics": {"interval_ms": 100.0, "cwnd_flows": list(range(10)), "links": ["bottleneck"]},
    }


@functools.lru_cache(maxsize=32)
def _fig4_run(key: str):
    return _run(json.loads(key))


def fig4_run(cfg: dict):
    """One Figs. 4-5 run (cached: both figures draw the same runs)."""
    return _fig4_run(json.dumps(cfg, sort_keys=True))


def first_loss_s(res, cfg: dict) -> float:
    """The first loss event, to the sampling interval: the first sample at
    which some flow's cumulative ``drops`` series is above zero (the run's
    end if none)."""
    d = fairness.flow_series(res, "drops")
    hit = d.index[(d > 0).any(axis=1).to_numpy()]
    return float(hit[0] / 1e9) if len(hit) else float(cfg["stop_s"])


def persistent_queue_s(res, cfg: dict, frac: float = 0.1) -> float:
    """The onset of persistent queuing: the first sample from which the
    bottleneck queue stays above `frac` of the buffer for 10 s (NaN if never)."""
    s = res.series
    q = s[(s["metric"] == "queue_pkts") & (s["element"] == "bottleneck")]
    limit = fctlab.describe(cfg)["buffer_pkts"]
    t, v = q["t_ns"].to_numpy() / 1e9, q["value"].to_numpy() >= frac * limit
    for i in np.flatnonzero(v):
        j = np.searchsorted(t, t[i] + 10.0)
        if j <= len(t) and v[i:j].all() and j < len(t):
            return float(t[i])
    return math.nan


def _fig45_runs(scale: str):
    stop = FIG4_STOP_S["full" if scale == "full" else "quick"]
    runs = {}
    for bdp in FIG4_BUFFER_BDP:
        for name, tr in FIG4_SCHEMES:
            cfg = fig4_scenario(tr, bdp, stop)
            runs[(name, bdp)] = (cfg, fig4_run(cfg))
    for name, tr in FIG4_VARIANTS:
        cfg = fig4_scenario(tr, FIG4_BUFFER_BDP[0], stop)
        runs[(name, FIG4_BUFFER_BDP[0])] = (cfg, fig4_run(cfg))
    cfg = fig4_scenario(FIG4_SCHEMES[3][1], FIG4_BUFFER_BDP[0], stop, sync=0.7)
    runs[("Tarheel, sync-drop at 0.7", FIG4_BUFFER_BDP[0])] = (cfg, fig4_run(cfg))
    return runs


def fig45_table(runs) -> Table:
    """Max/min throughput ratio across the 10 senders in slow start, until the
    first loss, and over the whole run, per scheme, beside the paper's."""
    rows, pub = [], []
    for (name, bdp), (cfg, res) in runs.items():
        loss = first_loss_s(res, cfg)
        end = cfg["stop_s"]
        ss = fairness.window(res, FIG4_FROM_S, FIG4_SS_S)
        crop = fairness.window(res, FIG4_FROM_S, loss)
        whole = fairness.window(res, FIG4_FROM_S, end)
        f = res.flows
        rows.append(
            [
                name,
                f"{bdp:g} BDP",
                ss["max_min"],
                loss,
                crop["max_min"],
                crop["jain"],
                whole["max_min"],
                whole["jain"],
                persistent_queue_s(res, cfg),
                int(f["drops"].sum()),
                int(f["retransmits"].sum()),
            ]
        )
        p = FIG4_PUBLISHED.get(name) if bdp == FIG4_BUFFER_BDP[0] else None
        pub.append(
            [
                name,
                f"{bdp:g} BDP",
                None,
                None,
                p,
                None,
                None,
                None,
                180.0 if name == "Tarheel" and bdp == 1.0 else None,
                None,
                None,
            ]
        )
    return Table(
        title="Max/min throughput ratio across the 10 senders (mean throughput per flow over each window)",
        columns=[
            "scheme",
            "buffer",
            f"max/min, slow start ({FIG4_FROM_S:g}-{FIG4_SS_S:g} s)",
            "first loss (s)",
            "max/min until the first loss",
            "Jain until the first loss",
            "max/min, whole run",
            "Jain, whole run",
            "persistent queuing from (s)",
            "drops",
            "retransmissions",
        ],
        rows=rows,
        published=pub,
        key_columns=2,
        published_source="Gavaletz & Kaur 2010, section IV (text)",
        caption="The paper gives no numbers, only its reading of Figs. 4-5: NewReno 'significantly different', SRF and "
        "Libra 'can differ by up to a factor of 4', Tarheel fair, persistent queuing from about 180 s (Tarheel). "
        "Persistent queuing: the first time from which the bottleneck queue stays above 10% of the buffer "
        "for 10 s. Every window starts at 1 s, when every handshake and first round trip are over. "
        "Retransmissions beyond the drops: go-back-N after timeouts, some of them spurious (see the notes).",
    )


def fig45_notes(runs) -> str:
    """Where fctlab's runs differ from the paper's reading, and why."""
    b = FIG4_BUFFER_BDP[0]
    ratio = {
        n: (
            fairness.window(res, FIG4_FROM_S, FIG4_SS_S)["max_min"],
            fairness.window(res, FIG4_FROM_S, first_loss_s(res, cfg))["max_min"],
        )
        for (n, bb), (cfg, res) in runs.items()
        if bb == b
    }
    pq = {n: persistent_queue_s(res, cfg) for (n, bb), (cfg, res) in runs.items() if bb == b}

    def lossless(res) -> int:
        # Flows that retransmitted before any packet of theirs was dropped.
        d, r = fairness.flow_series(res, "drops"), fairness.flow_series(res, "retransmits")
        return int(((r > 0) & (d == 0)).any(axis=0).sum())

    spurious = [
        f"{n} at {bb:g} BDP ({int(res.flows['retransmits'].sum())} retransmissions, {int(res.flows['drops'].sum())} drops; "
        f"{lossless(res)} of 10 flows retransmitted before losing any packet)"
        for (n, bb), (cfg, res) in runs.items()
        if res.flows["retransmits"].sum() > 2 * max(1, res.flows["drops"].sum())
    ]
    return (
        f"Where fctlab differs from the paper. (1) SRF and Libra: the paper reads their transfers as up to a factor of 4 "
        f"apart. Until the first loss their max/min ratio is {ratio['SRF'][1]:.2f} (SRF) and {ratio['Libra'][1]:.2f} (Libra), "
        f"but between {FIG4_FROM_S:g} and {FIG4_SS_S:g} s it is {ratio['SRF'][0]:.1f} and {ratio['Libra'][0]:.1f}, as NewReno's "
        f"{ratio['NewReno'][0]:.1f}: both correct congestion avoidance only, so they leave slow start as NewReno does, the "
        "50 ms transfer at ten times the 500 ms one's rate (the same threshold over a tenth of the RTT), and close the gap over "
        "the following tens of seconds; a factor of 4 is that convergence seen part way. Both are our readings of laws whose "
        "full texts were out of reach (README, scheme table). "
        f"(2) Tarheel: {ratio['Tarheel'][0]:.2f} in slow start (the handshake starts a 500 ms transfer up to 450 ms after a "
        f"50 ms one, the one delay the scaling does not undo) and {ratio['Tarheel'][1]:.2f} until the first loss, the paper's "
        f"fairness. Its persistent queuing starts at {pq['Tarheel']:.0f} s here, at about 180 s in the paper: the onset is "
        "when REF's rate, summed over the ten transfers, reaches the bottleneck, which depends on r_ref and SST_ref, neither "
        f"of which the paper states (with r_ref = 100 ms it starts at {pq.get('Tarheel, r_ref 100 ms', math.nan):.0f} s). "
        "The end-to-end estimate of q (RTT - min RTT) gives the same fairness as the oracle on this dumbbell, where the only "
        "queue is the bottleneck's and the first RTT sample sees it empty: the paper's footnote 5 says as much. "
        "(3) Retransmissions beyond the drops: "
        + ("; ".join(spurious) if spurious else "none")
        + ". They come from retransmission timeouts, after each of which go-back-N resends the whole window; some of these "
        "timeouts follow no loss at all: on a path of constant delay RFC 6298's RTTVAR shrinks towards zero, and a queue that "
        "builds within one round trip then delays the ACKs past SRTT + 4 RTTVAR (fctlab's clock granularity is 1 ns; ns-2's "
        "10 ms tick and Linux's RTTVAR floor of 200 ms would hide some of them)."
    )


def _fig45_params(runs, scale: str) -> dict:
    cfg = runs[("NewReno", FIG4_BUFFER_BDP[0])][0]
    d = fctlab.describe(cfg)
    return {
        "senders": "10, minimum RTT 50, 100, ..., 500 ms (bottleneck 10 ms each way, access links the rest)",
        "bottleneck": captions.rate(FIG4_C_BPS),
        "access and egress links": captions.rate(FIG4_ACCESS_BPS),
        "buffer": f"{FIG4_BUFFER_BDP[0]:g} BDP of the mean minimum RTT ({d['buffer_pkts']} packets; not in the paper, chosen), "
        f"{FIG4_BUFFER_BDP[1]:g} BDP varied",
        "queue": "sync-drop (one data packet of every queued flow once the queue reaches 0.9 of the buffer, re-armed at "
        "0.5; threshold chosen, 0.7 varied for Tarheel)",
        "packet": captions.packet(cfg),
        "flows": "long-lived, all starting at t = 0, SYN handshake",
        "IW": f"{FIG4_IW} (not in the paper; RFC 6928), initial ssthresh {FIG4_SST} packets (not in the paper; its Figs. 2-3's SST)",
        "Tarheel": f"r_ref {FIG4_RREF_MS:g} ms (chosen: the longest path, so no flow grows faster than NewReno on it; "
        f"100 ms varied), SST_ref {FIG4_SST}, w0_ref {FIG4_IW}, q from the oracle (end-to-end varied)",
        "SRF": "T0 " + captions.num(captions.value(cfg, "transport.srf.ref_rtt_ms")) + " ms (chosen)",
        "Libra": "k1 "
        + captions.num(captions.value(cfg, "transport.libra.k1"))
        + ", k2 "
        + captions.num(captions.value(cfg, "transport.libra.k2"))
        + ", T1 "
        + captions.num(captions.value(cfg, "transport.libra.t1_ms"))
        + " ms (chosen)",
        "duration": f"{cfg['stop_s']:g} s ({scale}); series every 100 ms",
    }


def _fig45(out: Path, scale: str, metric: str) -> list:
    t0 = time.monotonic()
    plt = pyplot()
    runs = _fig45_runs(scale)
    fig, axes = plt.subplots(2, 4, figsize=(15, 7))
    for k, (name, _) in enumerate(FIG4_SCHEMES):
        cfg, res = runs[(name, FIG4_BUFFER_BDP[0])]
        loss = first_loss_s(res, cfg)
        w = fairness.flow_series(res, metric)
        for row, crop in ((0, True), (1, False)):
            ax = axes[row, k]
            for f in FIG4_SHOWN:
                g = w[f].dropna()
                if metric == "throughput_bps":
                    # A window per RTT arrives in bursts: average over 2 s (20 samples).
                    g = g.rolling(FIG4_SMOOTH, min_periods=1).mean()
                t = g.index.to_numpy() / 1e9
                keep = t <= loss if crop else np.ones(len(t), dtype=bool)
                y = g.to_numpy()[keep] / FIG4_C_BPS * 100 if metric == "throughput_bps" else g.to_numpy()[keep] / 1e3
                ax.plot(t[keep], y, lw=0.8, label=f"{FIG4_RTTS_MS[f]:g} ms")
            ax.set_title(f"{name}" + (f", until the first loss ({loss:.1f} s)" if crop else ", whole run"), fontsize=9)
            ax.set_xlabel("t (s)")
            ax.set_ylabel("throughput (% of bottleneck)" if metric == "throughput_bps" else "RTT (s, smoothed)")
            ax.legend(fontsize=6)
    fig_no = 4 if metric == "throughput_bps" else 5
    png = save(fig, out, f"gavaletz2010-fig{fig_no}.png")
    params = _fig45_params(runs, scale)
    table = fig45_table(runs)
    stop = runs[("NewReno", FIG4_BUFFER_BDP[0])][0]["stop_s"]
    edges = [FIG4_FROM_S] + [float(t) for t in np.arange(100.0, stop + 1e-9, 100.0)]
    over = fairness.table(
        {n: runs[(n, FIG4_BUFFER_BDP[0])][1] for n, _ in FIG4_SCHEMES},
        {f"{a:g}-{b:g} s": (a, b) for a, b in zip(edges[:-1], edges[1:])},
        title=f"Fairness across the 10 senders over time ({FIG4_BUFFER_BDP[0]:g} BDP; fctlab.fairness.table)",
        caption="Each flow's mean throughput over the window; Jain's index (sum x)^2 / (n sum x^2) and max/min.",
    )
    what = "T(t) as % of bottleneck capacity" if fig_no == 4 else "RTT(t) (the sender's smoothed estimate)"
    caption = (
        f"{SOURCE}, Fig. {fig_no}: {what} for 4 of the 10 transfers (minimum RTT 50, 200, 350, 500 ms); top row cropped "
        "after the first loss event as the paper does, bottom row the whole run. Throughput: payload delivered in order "
        "per 100 ms, averaged over the last 2 s in the curves (each window's mean in the table). Parameters: "
        + params_caption(params)
        + "."
    )
    return [
        Reproduction(
            name=f"gavaletz2010-fig{fig_no}",
            title=f"Ten transfers, 50-500 ms: {what} (2010, Fig. {fig_no})",
            source=f"{SOURCE}, Fig. {fig_no}",
            figures=[Figure(png, caption)],
            tables=[table, over],
            notes=fig45_notes(runs),
            params={f"{n} ({b:g} BDP)": c for (n, b), (c, _) in runs.items()},
            seed=1,
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


def fig4(out: Path, scale: str) -> list:
    """Fig. 4: throughput over time of NewReno, SRF, Libra and Tarheel."""
    return _fig45(out, scale, "throughput_bps")


def fig5(out: Path, scale: str) -> list:
    """Fig. 5: RTT over time."""
    return _fig45(out, scale, "rtt_ms")

"""DCTCP's queue and throughput against its marking threshold K, beside the
closed forms of the DCTCP paper's analysis and NewReno over the same buffer.

Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, section 3.3: with N
synchronised long-lived flows on a link of capacity C and round-trip time RTT
(C x RTT in packets), the queue saw-tooths between

    Q_max = K + N,    Q_min = Q_max - A,    A = 1/2 sqrt(2 N (C x RTT + K)),

and it never empties (full throughput) when K > (C x RTT) / 7, the paper's
guideline (eq. 13, for small N).
"""

from __future__ import annotations

import math

import numpy as np

from ...report import Figure, Table
from ..page import Page, parameters, style
from ..registry import reproduction

C_BPS, ACCESS_BPS = 10e9, 40e9
#: One-way delays (ms): access 25 us, bottleneck 25 us, egress 0: a base RTT of 100 us.
ACCESS_DELAY_MS, BOTTLENECK_DELAY_MS = 0.025, 0.025
RTT_S = 2 * (ACCESS_DELAY_MS + BOTTLENECK_DELAY_MS) / 1e3
MSS_BYTES, HEADER_BYTES = 1460, 40
#: C x RTT in packets on the wire.
BDP_PKTS = C_BPS * RTT_S / (8 * (MSS_BYTES + HEADER_BYTES))
#: The switch port's buffer (packets): larger than every K, so DCTCP never drops.
BUFFER_PKTS = 400
K_VALUES = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 65, 100)
#: Simulated seconds per run and the warm-up left out of every statistic.
STOP_S = {"quick": 0.12, "full": 1.0}
FROM_S = 0.02
SAMPLE_MS = 0.005
TRANSPORT = {"mss_bytes": MSS_BYTES, "header_bytes": HEADER_BYTES, "init_cwnd_pkts": 10, "handshake": False}


def scenario(k: float | None, n: int, stop_s: float, scheme: str = "tcp-dctcp", **transport) -> dict:
    """``n`` long-lived flows from t = 0 through one port; ``k`` None: DropTail."""
    queue = {"queue": "droptail"} if k is None else {"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": k}}
    return {
        "seed": 1,
        "stop_s": stop_s,
        "network": {
            "topology": "dumbbell",
            "senders": n,
            "bottleneck_bps": C_BPS,
            "access_bps": ACCESS_BPS,
            "bottleneck_delay_ms": BOTTLENECK_DELAY_MS,
            "access_delay_ms": ACCESS_DELAY_MS,
            "buffer_pkts": BUFFER_PKTS,
            **queue,
        },
        "transport": {"scheme": scheme, **TRANSPORT, **transport},
        "flows": [{"sender": i, "long_lived": True} for i in range(n)],
        "metrics": {"interval_ms": SAMPLE_MS, "links": ["bottleneck"]},
    }


def q_max(k: float, n: int) -> float:
    return k + n


def q_min(k: float, n: int, bdp: float = BDP_PKTS) -> float:
    """Q_max - A, floored at 0 (the queue cannot go below empty)."""
    return max(0.0, k + n - 0.5 * math.sqrt(2 * n * (bdp + k)))


def measure(res) -> dict:
    """The bottleneck's queue (min, 1st, 50th, 99th percentile, max) and its
    utilisation, from ``FROM_S`` on."""
    s = res.series
    s = s[(s["element"] == "bottleneck") & (s["t_ns"] > FROM_S * 1e9)]
    q = s[s["metric"] == "queue_pkts"]["value"].to_numpy()
    u = s[s["metric"] == "utilization"]["value"].to_numpy()
    return {
        "min": float(q.min()),
        "p1": float(np.quantile(q, 0.01)),
        "p50": float(np.quantile(q, 0.5)),
        "p99": float(np.quantile(q, 0.99)),
        "max": float(q.max()),
        "util": float(u.mean()),
        "drops": int(res.flows["drops"].sum()),
    }


def _sweep(p: Page, n: int, stop: float, label: str, **transport) -> dict:
    return {k: measure(p.run(scenario(k, n, stop, **transport), f"{label} K {k:g}", warn=False)) for k in K_VALUES}


def _draw(p: Page, runs: dict, reno: dict, n: int) -> str:
    ks = np.array(K_VALUES, dtype=float)
    fig, (ax1, ax2) = p.subplots(2, 1, figsize=(7, 7))
    for key, style_, label in (("max", "v-", "max"), ("p99", "^-", "99th pct"), ("p1", "o-", "1st pct")):
        ax1.plot(ks, [runs[k][key] for k in K_VALUES], style_, ms=4, label=f"DCTCP queue, {label} (fctlab)")
    ax1.plot(ks, [q_max(k, n) for k in K_VALUES], "k--", lw=1, label="Q_max = K + N (paper)")
    ax1.plot(ks, [q_min(k, n) for k in K_VALUES], "k:", lw=1.2, label="Q_min = Q_max - A (paper)")
    ax1.axhline(reno["p50"], color="tab:red", lw=1, label=f"NewReno, DropTail {BUFFER_PKTS}: median queue")
    ax1.axvline(BDP_PKTS / 7, color="grey", lw=0.8, ls="-.", label="K = C x RTT / 7")
    style(ax1, None, "bottleneck queue (packets)", log="xy", loc="upper left")
    ax2.plot(ks, [100 * runs[k]["util"] for k in K_VALUES], "o-", ms=4, label="DCTCP (fctlab)")
    ax2.axhline(100 * reno["util"], color="tab:red", lw=1, label=f"NewReno, DropTail {BUFFER_PKTS}")
    ax2.axvline(BDP_PKTS / 7, color="grey", lw=0.8, ls="-.", label="K = C x RTT / 7")
    style(ax2, "marking threshold K (packets)", "bottleneck utilisation (%)", log="x", loc="lower right")
    return p.save(fig)


def _table(runs: dict, n: int) -> Table:
    rows = [
        [k, q_min(k, n), runs[k]["min"], runs[k]["p1"], q_max(k, n), runs[k]["max"], runs[k]["util"] * 100]
        for k in K_VALUES
    ]
    return Table(
        title=f"DCTCP, {n} flows: the queue's extremes against the closed forms",
        columns=["K (pkts)", "Q_min (paper)", "min", "1st pct", "Q_max (paper)", "max", "utilisation (%)"],
        rows=rows,
        caption="Q_min and Q_max from the DCTCP paper's section 3.3 with C x RTT = "
        f"{BDP_PKTS:.1f} packets (a floor of 0 on Q_min); measured over the steady part of the run from "
        f"{FROM_S:g} s, sampled every {SAMPLE_MS * 1e3:g} us.",
    )


@reproduction("dctcp-queue", title="DCTCP's queue and throughput against K, beside NewReno and the paper's analysis")
def dctcp_queue(out, scale: str) -> list:
    p = Page("dctcp-queue", out, scale)
    stop, n = STOP_S["full" if p.full else "quick"], 2
    runs = _sweep(p, n, stop, "DCTCP")
    reno = measure(p.run(scenario(None, n, stop, scheme="tcp-newreno"), "NewReno DropTail", warn=False))
    png = _draw(p, runs, reno, n)
    # Varied once: ten flows; delayed ACKs (DCTCP's receiver state machine then
    # acknowledges every other packet, at once on a change of CE).
    ten = _sweep(p, 10, stop, "DCTCP, 10 flows")
    delack = _sweep(p, n, stop, "DCTCP, delayed ACKs", delayed_ack=True)
    guide = BDP_PKTS / 7
    worst = max(abs(runs[k]["max"] - q_max(k, n)) for k in K_VALUES)
    small = [k for k in K_VALUES if k < guide]
    caption = (
        f"{n} long-lived DCTCP flows (RFC 8257: g = 1/16, the window cut by alpha/2 once per window) from t = 0 "
        f"through one switch port that marks CE when its queue at arrival exceeds K (the DCTCP paper's switch), "
        f"{C_BPS / 1e9:g} Gb/s, base RTT {RTT_S * 1e6:g} us (C x RTT = {BDP_PKTS:.1f} packets of "
        f"{MSS_BYTES + HEADER_BYTES} B), buffer {BUFFER_PKTS} packets; beside NewReno over DropTail with the same "
        f"buffer (red lines: median queue {reno['p50']:.0f} packets, utilisation {100 * reno['util']:.1f}%). "
        f"Top: the queue's maximum, 99th and 1st percentiles against the analysis' Q_max = K + N and Q_min; the "
        f"largest gap between the measured maximum and Q_max is {worst:.0f} packet(s): the switch marks an arrival "
        "that finds more than K packets waiting, so the queue holds K + 1 before the first mark is sent, where the "
        "analysis' fluid reading counts K. Bottom: utilisation; the "
        f"paper's guideline K > C x RTT / 7 = {guide:.1f} packets (dash-dot). Below it (K in {small}) the queue "
        f"empties in each saw-tooth and utilisation is {100 * min(runs[k]['util'] for k in small):.1f}% at worst; "
        f"at and above it {100 * min(runs[k]['util'] for k in K_VALUES if k >= guide):.1f}% at worst. DCTCP drops "
        f"{sum(r['drops'] for r in runs.values())} packets over the sweep, NewReno {reno['drops']}. Varied once: "
        f"ten flows (utilisation at K = {K_VALUES[0]}: {100 * ten[K_VALUES[0]]['util']:.1f}%, max queue at K = 65: "
        f"{ten[65]['max']:.0f} against Q_max {q_max(65, 10):.0f}); delayed ACKs, every second packet "
        f"(utilisation at K = {K_VALUES[0]}: {100 * delack[K_VALUES[0]]['util']:.1f}%, max queue at K = 65: "
        f"{delack[65]['max']:.0f}). Chosen (the analysis has no such parameters): initial window 10, no handshake, "
        f"{STOP_S['full' if p.full else 'quick']:g} s simulated, statistics from {FROM_S:g} s. "
        + parameters({"transport": TRANSPORT})
    )
    return p.record(
        source="Alizadeh et al., Data Center TCP (DCTCP), SIGCOMM 2010, section 3.3 (analysis) and 4.1",
        figures=[Figure(png, caption)],
        tables=[_table(runs, n), _table(ten, 10)],
        params={"k_values": list(K_VALUES), "bdp_pkts": BDP_PKTS, "buffer_pkts": BUFFER_PKTS, "flows": n},
        seed=1,
    )

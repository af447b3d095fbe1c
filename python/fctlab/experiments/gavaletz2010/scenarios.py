"""The scenarios and equations of Gavaletz & Kaur 2010's figures: the network
that never queues of Figs. 1-3, the ten senders of Figs. 4-5, and the
paper's equations for the throughput ratio and the window."""

from __future__ import annotations

import functools
import json
import math
import warnings

import numpy as np

import fctlab

SOURCE = "Gavaletz & Kaur 2010"
#: ns-2's default packetSize_ (the paper does not state its packets).
MSS_BYTES, HEADER_BYTES = 1000, 40
#: A network that never queues for Figs. 1-3 (their curves are analytic).
FAST_BPS = 10e9


def run(cfg: dict):
    """fctlab.run, quiet about its long-lived flows never completing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fctlab.NoCompletedFlowWarning)
        return fctlab.run(cfg)


def cwnd(res, flow: int):
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
    return run(json.loads(key))


def fig4_run(cfg: dict):
    """One Figs. 4-5 run (cached: both figures draw the same runs)."""
    return _fig4_run(json.dumps(cfg, sort_keys=True))

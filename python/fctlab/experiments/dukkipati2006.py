"""Dukkipati & McKeown, "Why Flow-Completion Time is the Right Metric for
Congestion Control", ACM CCR 36(1), 2006 (seed 000)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

import fctlab
from ..plots import mean_by_size, params_caption, pyplot
from ..progress import RunProgress
from ..report import Figure, Reproduction

SOURCE = "Dukkipati & McKeown, CCR 2006"


def slow_start_fct_s(L, rtt_s: float, c_bps: float, pkt_bytes: int):
    """The paper's slow-start FCT (sec. III-A): (ceil(log2(L+1)) + 1/2) RTT + L/C,
    for a flow of L packets, excluding queueing delay."""
    L = np.asarray(L, dtype=float)
    return (np.ceil(np.log2(L + 1)) + 0.5) * rtt_s + L * pkt_bytes * 8 / c_bps


def ps_fct_s(L, rtt_s: float, c_bps: float, rho: float, pkt_bytes: int):
    """Processor sharing as the RCP papers draw it: 1.5 RTT + L / (C (1 - rho))
    (Dukkipati et al., "Processor Sharing Flows in the Internet", IWQoS 2005)."""
    L = np.asarray(L, dtype=float)
    return 1.5 * rtt_s + L * pkt_bytes * 8 / (c_bps * (1 - rho))


def fig1(out: Path, scale: str) -> list:
    """Fig. 1: TCP's average FCT vs flow size and active flows vs time, with PS and
    the slow-start bound. Poisson arrivals, Pareto sizes (mean 30 pkts, shape 1.4),
    1000-byte packets, C = 2.4 Gb/s, RTT = 100 ms, offered load 0.9."""
    full = scale == "full"
    c_bps, rtt_s, rho, mean_pkts, shape = 2.4e9, 0.1, 0.9, 30, 1.4
    count = 1_000_000 if full else 100_000
    cfg = {
        "seed": 1,
        "network": {"topology": "single-link", "bottleneck_bps": c_bps, "bottleneck_delay_ms": rtt_s * 1e3 / 2, "buffer_bdp": 1.0},
        "transport": {"scheme": "tcp-newreno", "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2, "handshake": True},
        "traffic": [{"arrivals": "poisson", "load": rho, "sizes": {"dist": "pareto", "mean_pkts": mean_pkts, "shape": shape}, "count": count}],
        "metrics": {"interval_ms": 10.0},
    }
    t0 = time.monotonic()
    prog = RunProgress(label="  fig1: ")
    res = fctlab.run(cfg, progress=prog)
    prog.close()
    wall = time.monotonic() - t0
    pkt_bytes = 1040
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 7.5))
    agg = mean_by_size(res.flows)
    ax1.plot(agg["size_pkts"], agg["mean"] / 1e9, "o-", ms=3, label="TCP NewReno (fctlab)")
    L = np.logspace(0, np.log10(max(agg["size_pkts"].max(), 10)), 200)
    ax1.plot(L, slow_start_fct_s(L, rtt_s, c_bps, pkt_bytes), "--", label="slow-start bound")
    ax1.plot(L, ps_fct_s(L, rtt_s, c_bps, rho, pkt_bytes), "-", label="PS (analytic)")
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("flow size (packets)")
    ax1.set_ylabel("average FCT (s)")
    ax1.legend()
    s = res.series
    act = s[s["metric"] == "active_flows"]
    ax2.plot(act["t_ns"] / 1e9, act["value"], lw=0.6, label="TCP NewReno (fctlab)")
    ax2.axhline(rho / (1 - rho), color="C2", label=f"PS mean, rho/(1-rho) = {rho / (1 - rho):.0f}")
    ax2.set_xlabel("time (s)")
    ax2.set_ylabel("active flows")
    ax2.legend()
    fig.tight_layout()
    png = "dukkipati2006-fig1.png"
    fig.savefig(out / png)
    plt.close(fig)
    done = int(res.flows["completed"].sum())
    params = {
        "C": "2.4 Gb/s", "RTT": "100 ms (single link, 50 ms each way)", "offered load": rho,
        "flow sizes": f"Pareto, mean {mean_pkts} pkts, shape {shape}", "packet": "1000 B payload + 40 B header",
        "arrivals": "Poisson", "flows": count, "buffer": f"1 BDP = {res.meta['stats']['buffer_pkts']} pkts (not stated in the paper)",
        "TCP": "NewReno, IW 2, SYN handshake, ACK per packet, min RTO 200 ms", "seed": cfg["seed"],
    }
    scaled = ("full: 1,000,000 flows" if full else f"quick: {count:,} flows instead of the full run's 1,000,000 (same link, load and sizes); "
              "averages of the largest, rarest sizes are noisy")
    caption = (f"{SOURCE}, Fig. 1 (TCP curve). Top: average FCT vs flow size, with the paper's slow-start "
               f"bound and the analytic PS FCT. Bottom: active flows vs time. {done:,} of {len(res.flows):,} flows "
               f"completed. Scale: {scaled}. Parameters: {params_caption(params)}.")
    return [Reproduction(name="dukkipati2006-fig1", title="FCT of TCP vs processor sharing (2006, Fig. 1)",
                         source=f"{SOURCE}, Fig. 1", figures=[Figure(png, caption)], params={"scenario": cfg, **params},
                         seed=cfg["seed"], wall_s=wall, scale=scale)]

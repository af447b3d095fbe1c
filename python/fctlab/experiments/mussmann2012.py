"""Mussmann, "Making Short Flows Finish Faster with TCP", MS thesis, University
of Illinois at Urbana-Champaign, 2012 (Mussmann 2012).

Set-up (thesis sections 4.2-4.3 and chapter 5): a half-dumbbell, every link
10 Mb/s, the senders' links 10 ms and the bottleneck 10 ms (RTT 40 ms), 1 KB
packets; five protocols: TCP Reno with IW 2 over DropTail ("TCP"), Reno with
IW 10 over DropTail, RED (ns-2's automatic settings) and fair queueing, and RCP
with alpha = beta = 1.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import fctlab
from .. import ideal
from . import captions
from ..plots import params_caption, pyplot, save
from ..report import Figure, Reproduction, Table

SOURCE = "Mussmann, MS thesis (UIUC) 2012"

C_BPS = 10e6
LATENCY_MS = 10.0  # the senders' links
BOTTLENECK_MS = 10.0
RTT_S = 2 * (LATENCY_MS + BOTTLENECK_MS) / 1e3
# "we configure all packets to have size 1KB": 1000 B on the wire, so a 10 Mb/s
# link carries 1250 of them a second (the thesis's denominator, section 5.2).
MSS_BYTES, HEADER_BYTES = 960, 40
PKT_BYTES = MSS_BYTES + HEADER_BYTES

#: name, [transport] keys, [network] keys (section 4.3).
PROTOCOLS = (
    ("TCP", {"scheme": "tcp-reno", "init_cwnd_pkts": 2}, {"queue": "droptail"}),
    ("TCP IW10", {"scheme": "tcp-reno", "init_cwnd_pkts": 10}, {"queue": "droptail"}),
    ("RED", {"scheme": "tcp-reno", "init_cwnd_pkts": 10}, {"queue": "red", "red": {"mean_pktsize": PKT_BYTES}}),
    ("FQ", {"scheme": "tcp-reno", "init_cwnd_pkts": 10}, {"queue": "fq", "fq": {"quantum_bytes": PKT_BYTES}}),
    ("RCP", {"scheme": "rcp", "rcp": {"mode": "ns2"}}, {"queue": "rcp", "rcp": {"mode": "ns2", "alpha": 1.0, "beta": 1.0}}),
)


def _network(senders: int, net: dict) -> dict:
    return {"topology": "half-dumbbell", "senders": senders, "bottleneck_bps": C_BPS, "access_bps": C_BPS,
            "bottleneck_delay_ms": BOTTLENECK_MS, "access_delay_ms": LATENCY_MS, "buffer_bdp": 1.0,
            **{k: (dict(v) if isinstance(v, dict) else v) for k, v in net.items()}}


def _transport(tp: dict) -> dict:
    return {"mss_bytes": MSS_BYTES, "header_bytes": HEADER_BYTES, "handshake": True,
            **{k: (dict(v) if isinstance(v, dict) else v) for k, v in tp.items()}}


# ----------------------------------------------------------------- Figure 5.1

#: Chapter 5: "4 background flows of infinite size"; the measuring flow starts
#: "after 250 RTTs and a random offset" (the offset's range is not given: 0 to
#: 10 RTT here); its size is not given either: 200 packets covers the sizes the
#: thesis discusses (12 and 133 packets).
FIG51_BACKGROUND = 4
FIG51_MEASURE_PKTS = 200
FIG51_RUNS = {"quick": 60, "full": 1000}


def fig51_scenario(transport: dict, network: dict, seed: int) -> dict:
    """One run of Fig. 5.1: four long-lived flows starting within the first RTT,
    one measuring flow after 250 RTT plus a random offset (both drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    jitter = rng.uniform(0.0, RTT_S, FIG51_BACKGROUND)
    start = 250 * RTT_S + float(rng.uniform(0.0, 10 * RTT_S))
    flows = [{"sender": i, "start_s": float(jitter[i]), "long_lived": True} for i in range(FIG51_BACKGROUND)]
    flows.append({"sender": FIG51_BACKGROUND, "start_s": start, "size_pkts": FIG51_MEASURE_PKTS, "measure": True})
    return {
        "seed": seed,
        "stop_s": start + 400 * RTT_S,
        "network": _network(FIG51_BACKGROUND + 1, network),
        "transport": _transport(transport),
        "flows": flows,
        "metrics": {"series": False, "ps_fct": False},
    }


def fig51_prefixes(transport: dict, network: dict, runs: int) -> np.ndarray:
    """The measuring flows' prefix FCTs (s), one row per run, one column per k
    (NaN where a run ended before the prefix arrived)."""
    out = np.full((runs, FIG51_MEASURE_PKTS), np.nan)
    for r in range(runs):
        res = fctlab.run(fig51_scenario(transport, network, seed=r + 1), warn=False)
        p = res.prefixes[res.prefixes["flow_id"] == FIG51_BACKGROUND]
        out[r, p["k"].to_numpy() - 1] = p["fct_ns"].to_numpy() / 1e9
    return out


def fig51(out: Path, scale: str) -> list:
    """Fig. 5.1: a measuring flow against four long-lived flows, FCT of every prefix."""
    t0 = time.monotonic()
    runs = FIG51_RUNS[scale]
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    k = np.arange(1, FIG51_MEASURE_PKTS + 1)
    rows, cfgs = [], {}
    for name, tp, net in PROTOCOLS:
        cfgs[name] = fig51_scenario(tp, net, 1)
        fct = fig51_prefixes(tp, net, runs)
        med = np.nanmedian(fct, axis=0)
        p99 = np.nanquantile(fct, 0.99, axis=0, method="lower")
        axes[0, 0].plot(k, med * 1e3, lw=1, label=name)
        axes[0, 1].plot(k, p99 * 1e3, lw=1, label=name)
        for ax, size in ((axes[1, 0], 12), (axes[1, 1], 133)):
            x = np.sort(fct[:, size - 1][~np.isnan(fct[:, size - 1])])
            ax.step(x * 1e3, np.arange(1, len(x) + 1) / runs, where="post", lw=1, label=name)
        done = int(np.sum(~np.isnan(fct[:, -1])))
        rows.append([name, runs, done, med[11] * 1e3, p99[11] * 1e3, med[132] * 1e3, p99[132] * 1e3])
    # The slow-start bound on the empty path (queueing excluded), RTT 40 ms.
    for iw, style in ((2, ":"), (10, "--")):
        b = ideal.slow_start_fct_ns(k, C_BPS, RTT_S * 1e9, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True) / 1e6
        axes[0, 0].plot(k, b, "k" + style, lw=0.8, label=f"slow start, IW {iw}")
    for ax, what in ((axes[0, 0], "median"), (axes[0, 1], "99th percentile")):
        ax.set_xlabel("flow size k (packets of 1 KB)")
        ax.set_ylabel(f"{what} FCT (ms)")
        ax.set_title(f"(a) {what} FCT" if what == "median" else f"(b) {what} FCT", fontsize=9)
        ax.legend(fontsize=7)
    for ax, size, tag in ((axes[1, 0], 12, "(c)"), (axes[1, 1], 133, "(d)")):
        ax.set_xlabel(f"FCT of {size} packets (ms)")
        ax.set_ylabel("fraction of runs")
        ax.set_title(f"{tag} CDF at {size} packets", fontsize=9)
        ax.legend(fontsize=7)
    png = save(fig, out, "mussmann2012-fig5-1.png")
    tcp = cfgs["TCP"]
    buf = fctlab.describe(tcp)["buffer_pkts"]
    params = {"links": f"all {captions.rate(C_BPS)}", "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell: senders' links {LATENCY_MS:g} ms, bottleneck {BOTTLENECK_MS:g} ms)",
              "packet": captions.packet(tcp) + " (1 KB on the wire)",
              "background": f"{FIG51_BACKGROUND} long-lived flows starting uniformly within the first RTT",
              "measuring flow": f"{FIG51_MEASURE_PKTS} packets from its own sender, started at 250 RTT plus a uniform offset of 0-10 RTT (range not given in the thesis)",
              "buffer": f"1 BDP, {buf} packets (not given in the thesis; chosen)",
              "TCP": captions.tcp(tcp), "RED": "ns-2 automatic thresholds and weight, mean packet 1000 B",
              "FQ": "DRR over 1000 buckets, quantum 1000 B, overflow drops the tail of the longest queue",
              "RCP": "ns-2 patch hosts and router (mode ns2), alpha = beta = 1",
              "runs": f"{runs} per protocol, seeds 1-{runs}"}
    caption = (f"{SOURCE}, Fig. 5.1: FCT of a mouse against elephants. Each run's measuring flow records when packets "
               "1..k have all arrived, for every k (the thesis's method, section 4.2), so one run gives the FCT of "
               "every flow size up to its own; median and 99th percentile over the runs, and the CDF over the runs "
               "at 12 and 133 packets (the median and 90th percentile of KB per host on the web the thesis cites). "
               "Dotted and dashed: the slow-start bound on the empty path (fctlab.ideal.slow_start_fct_ns: handshake, IW 2 or 10, queueing excluded). "
               + ("Quick scale: " + str(runs) + " runs per protocol (full: " + str(FIG51_RUNS['full']) + "). " if scale == "quick" else "")
               + "Parameters: " + params_caption(params) + ".")
    table = Table(title="Prefix FCT (ms) at the sizes the thesis discusses",
                  columns=["protocol", "runs", "runs completing 200 pkts", "median, 12 pkts", "p99, 12 pkts", "median, 133 pkts", "p99, 133 pkts"],
                  rows=rows, key_columns=1)
    return [Reproduction(name="mussmann2012-fig5-1", title="A mouse against four elephants: FCT of every prefix (Mussmann 2012, Fig. 5.1)",
                         source=f"{SOURCE}, Fig. 5.1", figures=[Figure(png, caption)], tables=[table], params=cfgs,
                         seed=list(range(1, runs + 1)), wall_s=time.monotonic() - t0, scale=scale)]


# ----------------------------------------------------------------- Figure 5.3

#: Section 5.2: generators that restart 32-packet flows, the measuring flow off;
#: 20 s to stabilise, then the packets delivered in each of the next 20 seconds
#: over 1250; 500 runs per point in the thesis. The numbers of generators are
#: not listed in the text: powers of two up to 32 here.
FIG53_FLOW_PKTS = 32
FIG53_GENERATORS = (1, 2, 4, 8, 16, 32)
FIG53_RUNS = {"quick": 5, "full": 500}
FIG53_WARMUP_S, FIG53_MEASURE_S = 20.0, 20.0


def fig53_scenario(transport: dict, network: dict, generators: int, seed: int) -> dict:
    """One run of Fig. 5.3: ``generators`` closed-loop senders of 32-packet
    flows, each starting uniformly within the first RTT (drawn from ``seed``)."""
    rng = np.random.default_rng(seed)
    starts = rng.uniform(0.0, RTT_S, generators)
    return {
        "seed": seed,
        "stop_s": FIG53_WARMUP_S + FIG53_MEASURE_S,
        "network": _network(generators, network),
        "transport": _transport(transport),
        "traffic": [{"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": FIG53_FLOW_PKTS}, "senders": [i],
                     "start_s": float(starts[i])} for i in range(generators)],
        "metrics": {"interval_ms": 1000.0, "links": ["bottleneck"], "utilization_pkts": True, "ps_fct": False},
    }


def fig53_samples(transport: dict, network: dict, generators: int, runs: int) -> np.ndarray:
    """The per-second utilisation samples after the warm-up, over ``runs`` seeds."""
    vals = []
    for r in range(runs):
        s = fctlab.run(fig53_scenario(transport, network, generators, seed=r + 1), warn=False).series
        u = s[(s["metric"] == "utilization_pkts") & (s["element"] == "bottleneck") & (s["t_ns"] > FIG53_WARMUP_S * 1e9)]
        vals.extend(u["value"].tolist())
    return np.asarray(vals)


def fig53(out: Path, scale: str) -> list:
    """Fig. 5.3: link utilisation against the number of mouse-flow generators."""
    t0 = time.monotonic()
    runs = FIG53_RUNS[scale]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    rows, cfgs = [], {}
    n = np.asarray(FIG53_GENERATORS, dtype=float)
    for j, (name, tp, net) in enumerate(PROTOCOLS):
        cfgs[name] = fig53_scenario(tp, net, FIG53_GENERATORS[0], 1)
        med, lo, hi = [], [], []
        for g in FIG53_GENERATORS:
            v = fig53_samples(tp, net, g, runs)
            q10, q50, q90 = np.quantile(v, [0.1, 0.5, 0.9])
            med.append(q50)
            lo.append(q50 - q10)
            hi.append(q90 - q50)
            rows.append([name, g, len(v), q50, q10, q90])
        x = n * (1 + 0.03 * (j - 2))  # spread the protocols' error bars apart
        ax.errorbar(x, med, yerr=[lo, hi], marker="o", ms=3, lw=1, capsize=2, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xticks(n, [str(g) for g in FIG53_GENERATORS])
    ax.set_xlabel("concurrent mouse-flow generators")
    ax.set_ylabel("utilisation (packets delivered per s / 1250)")
    ax.legend(fontsize=7)
    png = save(fig, out, "mussmann2012-fig5-3.png")
    tcp = cfgs["TCP"]
    params = {"links": f"all {captions.rate(C_BPS)}", "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell)",
              "packet": captions.packet(tcp) + " (1 KB on the wire: 1250 a second)",
              "generators": f"{', '.join(map(str, FIG53_GENERATORS))} (not listed in the thesis; chosen), each on its own sender, restarting {FIG53_FLOW_PKTS}-packet flows at once, starting uniformly within the first RTT",
              "samples": f"per second from {FIG53_WARMUP_S:g} to {FIG53_WARMUP_S + FIG53_MEASURE_S:g} s",
              "buffer": f"1 BDP, {fctlab.describe(tcp)['buffer_pkts']} packets (not given in the thesis; chosen)",
              "TCP": captions.tcp(tcp), "RED, FQ, RCP": "as in Fig. 5.1",
              "runs": f"{runs} per point, seeds 1-{runs} ({runs * int(FIG53_MEASURE_S)} samples; the thesis: 500 runs, 10,000 samples)"}
    caption = (f"{SOURCE}, Fig. 5.3: link utilisation against concurrent mouse flows, counted as the thesis counts it "
               "(utilization_pkts: data packets delivered over the bottleneck in each second over 1250, the 1 KB "
               "packets 10 Mb/s carries in a second). Median with the 10th to 90th percentile as error bars. The thesis "
               "finds fair queueing highest, RCP near 0.9, RED rising above the standard TCPs as generators are added, and "
               "IW 10 alone making no appreciable difference. Each new flow here opens a fresh connection (handshake, "
               "initial window); the thesis does not say whether its generators reuse one. Here, median at " + str(FIG53_GENERATORS[-1]) + " generators: "
               + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == FIG53_GENERATORS[-1])
               + "; at 1: " + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == FIG53_GENERATORS[0]) + ". "
               + ("Quick scale: " + str(runs) + " runs per point (full: 500). " if scale == "quick" else "")
               + "Parameters: " + params_caption(params) + ".")
    table = Table(title="Utilisation per second after the warm-up",
                  columns=["protocol", "generators", "samples", "median", "10th pct", "90th pct"], rows=rows, key_columns=2)
    return [Reproduction(name="mussmann2012-fig5-3", title="Utilisation with mouse flows only (Mussmann 2012, Fig. 5.3)",
                         source=f"{SOURCE}, Fig. 5.3", figures=[Figure(png, caption)], tables=[table], params=cfgs,
                         seed=list(range(1, runs + 1)), wall_s=time.monotonic() - t0, scale=scale)]

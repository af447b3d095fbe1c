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
from ..plots import params_caption, pyplot, save
from ..report import Figure, Reproduction, Table
from . import captions

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
    (
        "RCP",
        {"scheme": "rcp", "rcp": {"mode": "ns2"}},
        {"queue": "rcp", "rcp": {"mode": "ns2", "alpha": 1.0, "beta": 1.0}},
    ),
)


def _network(senders: int, net: dict) -> dict:
    return {
        "topology": "half-dumbbell",
        "senders": senders,
        "bottleneck_bps": C_BPS,
        "access_bps": C_BPS,
        "bottleneck_delay_ms": BOTTLENECK_MS,
        "access_delay_ms": LATENCY_MS,
        "buffer_bdp": 1.0,
        **{k: (dict(v) if isinstance(v, dict) else v) for k, v in net.items()},
    }


def _transport(tp: dict) -> dict:
    return {
        "mss_bytes": MSS_BYTES,
        "header_bytes": HEADER_BYTES,
        "handshake": True,
        **{k: (dict(v) if isinstance(v, dict) else v) for k, v in tp.items()},
    }


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
    params = {
        "links": f"all {captions.rate(C_BPS)}",
        "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell: senders' links {LATENCY_MS:g} ms, bottleneck {BOTTLENECK_MS:g} ms)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "background": f"{FIG51_BACKGROUND} long-lived flows starting uniformly within the first RTT",
        "measuring flow": f"{FIG51_MEASURE_PKTS} packets from its own sender, started at 250 RTT plus a uniform offset of 0-10 RTT (range not given in the thesis)",
        "buffer": f"1 BDP, {buf} packets (not given in the thesis; chosen)",
        "TCP": captions.tcp(tcp),
        "RED": "ns-2 automatic thresholds and weight, mean packet 1000 B",
        "FQ": "DRR over 1000 buckets, quantum 1000 B, overflow drops the tail of the longest queue",
        "RCP": "ns-2 patch hosts and router (mode ns2), alpha = beta = 1",
        "runs": f"{runs} per protocol, seeds 1-{runs}",
    }
    caption = (
        f"{SOURCE}, Fig. 5.1: FCT of a mouse against elephants. Each run's measuring flow records when packets "
        "1..k have all arrived, for every k (the thesis's method, section 4.2), so one run gives the FCT of "
        "every flow size up to its own; median and 99th percentile over the runs, and the CDF over the runs "
        "at 12 and 133 packets (the median and 90th percentile of KB per host on the web the thesis cites). "
        "Dotted and dashed: the slow-start bound on the empty path (fctlab.ideal.slow_start_fct_ns: handshake, IW 2 or 10, queueing excluded). "
        + (
            "Quick scale: " + str(runs) + " runs per protocol (full: " + str(FIG51_RUNS["full"]) + "). "
            if scale == "quick"
            else ""
        )
        + "Parameters: "
        + params_caption(params)
        + "."
    )
    table = Table(
        title="Prefix FCT (ms) at the sizes the thesis discusses",
        columns=[
            "protocol",
            "runs",
            "runs completing 200 pkts",
            "median, 12 pkts",
            "p99, 12 pkts",
            "median, 133 pkts",
            "p99, 133 pkts",
        ],
        rows=rows,
        key_columns=1,
    )
    return [
        Reproduction(
            name="mussmann2012-fig5-1",
            title="A mouse against four elephants: FCT of every prefix (Mussmann 2012, Fig. 5.1)",
            source=f"{SOURCE}, Fig. 5.1",
            figures=[Figure(png, caption)],
            tables=[table],
            params=cfgs,
            seed=list(range(1, runs + 1)),
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


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
        "traffic": [
            {
                "arrivals": "closed-loop",
                "sizes": {"dist": "fixed", "pkts": FIG53_FLOW_PKTS},
                "senders": [i],
                "start_s": float(starts[i]),
            }
            for i in range(generators)
        ],
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
    params = {
        "links": f"all {captions.rate(C_BPS)}",
        "RTT": f"{RTT_S * 1e3:g} ms (half-dumbbell)",
        "packet": captions.packet(tcp) + " (1 KB on the wire: 1250 a second)",
        "generators": f"{', '.join(map(str, FIG53_GENERATORS))} (not listed in the thesis; chosen), each on its own sender, restarting {FIG53_FLOW_PKTS}-packet flows at once, starting uniformly within the first RTT",
        "samples": f"per second from {FIG53_WARMUP_S:g} to {FIG53_WARMUP_S + FIG53_MEASURE_S:g} s",
        "buffer": f"1 BDP, {fctlab.describe(tcp)['buffer_pkts']} packets (not given in the thesis; chosen)",
        "TCP": captions.tcp(tcp),
        "RED, FQ, RCP": "as in Fig. 5.1",
        "runs": f"{runs} per point, seeds 1-{runs} ({runs * int(FIG53_MEASURE_S)} samples; the thesis: 500 runs, 10,000 samples)",
    }
    caption = (
        f"{SOURCE}, Fig. 5.3: link utilisation against concurrent mouse flows, counted as the thesis counts it "
        "(utilization_pkts: data packets delivered over the bottleneck in each second over 1250, the 1 KB "
        "packets 10 Mb/s carries in a second). Median with the 10th to 90th percentile as error bars. The thesis "
        "finds fair queueing highest, RCP near 0.9, RED rising above the standard TCPs as generators are added, and "
        "IW 10 alone making no appreciable difference. Each new flow here opens a fresh connection (handshake, "
        "initial window); the thesis does not say whether its generators reuse one. Here, median at "
        + str(FIG53_GENERATORS[-1])
        + " generators: "
        + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == FIG53_GENERATORS[-1])
        + "; at 1: "
        + ", ".join(f"{r[0]} {r[3]:.2f}" for r in rows if r[1] == FIG53_GENERATORS[0])
        + ". "
        + ("Quick scale: " + str(runs) + " runs per point (full: 500). " if scale == "quick" else "")
        + "Parameters: "
        + params_caption(params)
        + "."
    )
    table = Table(
        title="Utilisation per second after the warm-up",
        columns=["protocol", "generators", "samples", "median", "10th pct", "90th pct"],
        rows=rows,
        key_columns=2,
    )
    return [
        Reproduction(
            name="mussmann2012-fig5-3",
            title="Utilisation with mouse flows only (Mussmann 2012, Fig. 5.3)",
            source=f"{SOURCE}, Fig. 5.3",
            figures=[Figure(png, caption)],
            tables=[table],
            params=cfgs,
            seed=list(range(1, runs + 1)),
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


# ----------------------------------------------------------------- Figure 5.2

#: Section 5.1: "a single 2.4 Gb/s link with 100ms RTT", Poisson arrivals at
#: load 0.9, Pareto sizes of mean 25 packets and shape 1.2, and 1 flow in 500
#: a marker flow uniform over {100, 125, ..., 1075} packets; 10^8 flows.
FIG52_C_BPS = 2.4e9
FIG52_RTT_S = 0.1
FIG52_LOAD = 0.9
FIG52_SIZES = {
    "dist": "mixture",
    "components": [
        {"weight": 499, "dist": "pareto", "mean_pkts": 25, "shape": 1.2},
        {"weight": 1, "dist": "uniform", "min_pkts": 100, "max_pkts": 1075, "step_pkts": 25},
    ],
}
#: Mean size (packets): 499/500 x 25 + 1/500 x 587.5, the thesis's 25 + 1.175 - 0.05.
FIG52_MEAN_PKTS = 499 / 500 * 25 + 587.5 / 500
#: Flows per second at load 0.9 (the load counts the 1 KB on the wire).
FIG52_RATE = FIG52_LOAD * FIG52_C_BPS / (8 * PKT_BYTES * FIG52_MEAN_PKTS)
#: Buffer: not given in the thesis. 1 BDP chosen, 0.1 BDP as the variation.
FIG52_BUFFER_BDP, FIG52_BUFFER_ALT = 1.0, 0.1
#: The variation of RCP: the 2006 paper's alpha = 0.1 (beta = 1) instead of the thesis's alpha = 1.
FIG52_RCP_ALT = (
    "RCP alpha 0.1",
    {"scheme": "rcp", "rcp": {"mode": "ns2"}},
    {"queue": "rcp", "rcp": {"mode": "ns2", "alpha": 0.1, "beta": 1.0}},
)
#: The thesis's sizes and reading points (section 5.1).
FIG52_GAP_SIZES = (13, 133, 500, 1000)
FIG52_QS = (0.5, 0.99)
FIG52_ALPHA = 0.005
#: Scale: flows counted per configuration, split into chunks (each a run of
#: its own seed that starts empty: its first warm_s and the flows arriving in
#: its last cool_s keep the link loaded but are not counted).
FIG52_SCALE = {
    "quick": {"flows": 100_000, "chunks": 1, "warm_s": 2.0, "cool_s": 1.0, "alt_flows": 100_000, "alt_chunks": 1},
    "full": {
        "flows": 100_000_000,
        "chunks": 20,
        "warm_s": 10.0,
        "cool_s": 5.0,
        "alt_flows": 10_000_000,
        "alt_chunks": 2,
    },
}
#: Sizes shown need this many completed flows (the thesis: at least 5000).
#: 4000 at full scale: each marker size expects 5000 marker flows (plus a few
#: hundred Pareto flows of the same size), so a strict 5000 would drop some at random.
FIG52_MIN_FLOWS = {"quick": 20, "full": 4000}
#: Marker sizes at quick scale have a handful of flows each: shown from 3.
FIG52_MIN_MARKER_FLOWS = {"quick": 3, "full": 4000}


def fig52_chunk(
    transport: dict,
    network: dict,
    seed: int,
    count_s: float,
    warm_s: float,
    cool_s: float,
    buffer_bdp: float = FIG52_BUFFER_BDP,
) -> dict:
    """One chunk of Fig. 5.2: Poisson arrivals for warm_s + count_s + cool_s
    seconds; size_stats counts the flows that start in [warm_s, warm_s + count_s);
    no per-flow records are kept."""
    net = {k: (dict(v) if isinstance(v, dict) else v) for k, v in network.items()}
    return {
        "seed": seed,
        "network": {
            "topology": "single-link",
            "bottleneck_bps": FIG52_C_BPS,
            "bottleneck_delay_ms": FIG52_RTT_S * 1e3 / 2,
            "buffer_bdp": buffer_bdp,
            **net,
        },
        "transport": _transport(transport),
        "traffic": [
            {"arrivals": "poisson", "load": FIG52_LOAD, "sizes": FIG52_SIZES, "stop_s": warm_s + count_s + cool_s}
        ],
        "metrics": {
            "series": False,
            "ps_fct": False,
            "flows": False,
            "size_stats": True,
            "size_stats_quantiles": list(FIG52_QS),
            "size_stats_alpha": FIG52_ALPHA,
            "size_stats_from_s": warm_s,
            "size_stats_until_s": warm_s + count_s,
        },
    }


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def fig52_stats(
    name: str,
    transport: dict,
    network: dict,
    flows: int,
    chunks: int,
    warm_s: float,
    cool_s: float,
    buffer_bdp: float = FIG52_BUFFER_BDP,
    store=None,
    workers=None,
    progress: bool = True,
):
    """The merged size_stats of ``chunks`` chunks counting ``flows`` flows in
    all (Poisson: the expected number), and the chunk configs. With ``store``
    the chunks run as a sweep into that results store (in parallel, resumable:
    chunks already stored are not run again); without it, one after another here."""
    from .. import sizestats

    count_s = flows / chunks / FIG52_RATE
    cfgs = [
        fig52_chunk(
            transport, network, seed=c + 1, count_s=count_s, warm_s=warm_s, cool_s=cool_s, buffer_bdp=buffer_bdp
        )
        for c in range(chunks)
    ]
    if store is None:
        tables = [fctlab.run(c, warn=False).size_stats for c in cfgs]
    else:
        from ..sweep import run_sweep

        base = dict(cfgs[0])
        base.pop("seed")
        tag = f"{_slug(name)}-buffer{buffer_bdp:g}-{flows}"
        res = run_sweep(
            {"name": f"mussmann2012-fig5-2-{tag}", "base": base, "seeds": list(range(1, chunks + 1))},
            store=store,
            workers=workers,
            progress=progress,
        )
        tables = [res.store.get(r.key).size_stats for p in res.points for r in p.runs]
    return sizestats.merge(tables, alpha=FIG52_ALPHA, quantiles=FIG52_QS), cfgs


def gap_closed(tcp: float, rcp: float, x: float) -> float:
    """The share of the TCP-to-RCP gap that x closes: (TCP - x) / (TCP - RCP)."""
    return (tcp - x) / (tcp - rcp)


#: The thesis's shares (section 5.1 and chapter 1), for FQ only: "about half"
#: at the median; 75%, 75%, 85%, 88% at the 99th percentile.
THESIS_FQ_SHARE = {"median": {s: 0.5 for s in FIG52_GAP_SIZES}, "p99": {13: 0.75, 133: 0.75, 500: 0.85, 1000: 0.88}}


def _at(t, size: int, col: str, min_flows: int) -> float:
    r = t[t["size_pkts"] == size]
    if not len(r) or int(r["flows_completed"].iloc[0]) < max(min_flows, 1):
        return float("nan")
    return float(r[col].iloc[0])


def fig52(out: Path, scale: str, *, store=None) -> list:
    """Fig. 5.2: FCT by size on 2.4 Gb/s, 100 ms, Pareto sizes with marker flows."""
    t0 = time.monotonic()
    sc = FIG52_SCALE[scale]
    if scale == "full" and store is None:
        store = Path(out) / "mussmann2012-fig5-2-store"
    min_flows = FIG52_MIN_FLOWS[scale]
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    stats, cfgs, alt = {}, {}, {}
    for name, tp, net in PROTOCOLS:
        print(f"  {name}: {sc['flows']:,} flows in {sc['chunks']} chunk(s)", flush=True)
        stats[name], c = fig52_stats(name, tp, net, sc["flows"], sc["chunks"], sc["warm_s"], sc["cool_s"], store=store)
        cfgs[name] = c[0]
        alt[name], _ = fig52_stats(
            name,
            tp,
            net,
            sc["alt_flows"],
            sc["alt_chunks"],
            sc["warm_s"],
            sc["cool_s"],
            buffer_bdp=FIG52_BUFFER_ALT,
            store=store,
        )
    rcp_alt, _ = fig52_stats(*FIG52_RCP_ALT, sc["alt_flows"], sc["alt_chunks"], sc["warm_s"], sc["cool_s"], store=store)
    small = np.arange(1, 214)
    for name, t in stats.items():
        ok = t[t["flows_completed"] >= min_flows]
        okm = t[t["flows_completed"] >= FIG52_MIN_MARKER_FLOWS[scale]]
        lo, hi = ok[ok["size_pkts"] <= 213], okm[(okm["size_pkts"] >= 100) & ((okm["size_pkts"] - 100) % 25 == 0)]
        for j, (col, what) in enumerate((("p50_fct_ns", "median"), ("p99_fct_ns", "p99"))):
            axes[j, 0].plot(lo["size_pkts"], lo[col] / 1e6, lw=1, label=name)
            axes[j, 1].plot(hi["size_pkts"], hi[col] / 1e6, lw=1, marker=".", ms=3, label=name)
    rtt_ns = FIG52_RTT_S * 1e9
    for iw, style in ((2, ":"), (10, "--")):
        for ax, k in ((axes[0, 0], small), (axes[0, 1], np.arange(100, 1076, 25))):
            b = (
                ideal.slow_start_fct_ns(k, FIG52_C_BPS, rtt_ns, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True)
                / 1e6
            )
            ax.plot(k, b, "k" + style, lw=0.8, label=f"slow start, IW {iw}")
    for ax, k in ((axes[0, 0], small), (axes[0, 1], np.arange(100, 1076, 25))):
        ps = ideal.ps_fct_ns(k * PKT_BYTES, FIG52_C_BPS, FIG52_LOAD, rtt_ns, handshake=True) / 1e6
        ax.plot(k, ps, color="0.5", lw=0.8, label="PS (mean)")
    titles = (
        ("(a) median, smaller flows", "(b) median, larger flows (marker sizes)"),
        ("(c) 99th percentile, smaller flows", "(d) 99th percentile, larger flows (marker sizes)"),
    )
    for j in range(2):
        for i in range(2):
            ax = axes[j, i]
            ax.set_title(titles[j][i], fontsize=9)
            ax.set_xlabel("flow size (packets of 1 KB)")
            ax.set_ylabel(("median" if j == 0 else "99th percentile") + " FCT (ms)")
            ax.legend(fontsize=6)
    png = save(fig, out, "mussmann2012-fig5-2.png")

    # The share of the TCP-to-RCP gap each change closes.
    gap_rows = []
    for col, what in (("p50_fct_ns", "median"), ("p99_fct_ns", "p99")):
        for size in FIG52_GAP_SIZES:
            v = {n: _at(stats[n], size, col, min_flows if scale == "full" else 1) for n in stats}
            n_done = int(stats["TCP"].loc[stats["TCP"]["size_pkts"] == size, "flows_completed"].sum())
            row = [what, size, n_done, v["TCP"] / 1e6, v["RCP"] / 1e6]
            for n in ("TCP IW10", "RED", "FQ"):
                row.append(100 * gap_closed(v["TCP"], v["RCP"], v[n]))
            row.append(100 * THESIS_FQ_SHARE[what][size])
            va = {n: _at(alt[n], size, col, 1) for n in alt}
            row.append(100 * gap_closed(va["TCP"], va["RCP"], va["FQ"]))
            r01 = _at(rcp_alt, size, col, 1)
            row.append(r01 / 1e6)
            row.append(100 * gap_closed(v["TCP"], r01, v["FQ"]))
            row.append(v["FQ"] / 1e6)
            row.append(va["TCP"] / 1e6)
            row.append(va["RCP"] / 1e6)
            gap_rows.append(row)
    gap = Table(
        title="Share of the TCP-to-RCP gap closed (%): (TCP - X) / (TCP - RCP)",
        columns=[
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
        ],
        rows=gap_rows,
        key_columns=2,
    )
    rows = []
    for (name, t), (_, ta) in zip(stats.items(), alt.items()):
        for size in FIG52_GAP_SIZES:
            rows.append(
                [
                    name,
                    size,
                    _at(t, size, "flows_completed", 0),
                    _at(t, size, "p50_fct_ns", 1) / 1e6,
                    _at(t, size, "p99_fct_ns", 1) / 1e6,
                    _at(ta, size, "p50_fct_ns", 1) / 1e6,
                    _at(ta, size, "p99_fct_ns", 1) / 1e6,
                ]
            )
    table = Table(
        title="FCT (ms) at the thesis's reading points",
        columns=[
            "protocol",
            "size (pkts)",
            "flows completed",
            "median",
            "p99",
            f"median, buffer {FIG52_BUFFER_ALT:g} BDP",
            f"p99, buffer {FIG52_BUFFER_ALT:g} BDP",
        ],
        rows=rows,
        key_columns=2,
    )
    counted = {n: int(t["flows_completed"].sum()) for n, t in stats.items()}
    started = {n: int(t["flows_started"].sum()) for n, t in stats.items()}
    tcp = cfgs["TCP"]
    buf = fctlab.describe(tcp)["buffer_pkts"]
    params = {
        "link": f"{captions.rate(FIG52_C_BPS)}, RTT {FIG52_RTT_S * 1e3:g} ms (one link between two hosts)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "arrivals": f"Poisson, load {FIG52_LOAD} counting headers ({FIG52_RATE:,.0f} flows/s)",
        "flow sizes": f"Pareto mean 25 pkts, shape 1.2; 1 flow in 500 uniform over 100, 125, ..., 1075 pkts (mean {FIG52_MEAN_PKTS:.3f})",
        "buffer": f"{FIG52_BUFFER_BDP:g} BDP = {buf:,} pkts (not given in the thesis; chosen); {FIG52_BUFFER_ALT:g} BDP as the variation",
        "TCP": captions.tcp(tcp),
        "RED": "ns-2 automatic thresholds (5 ms target) and weight, mean packet 1000 B",
        "FQ": "DRR over 1000 buckets, quantum 1000 B, overflow drops the tail of the longest queue",
        "RCP": "ns-2 patch hosts and router (mode ns2), alpha = beta = 1; alpha = 0.1 (the 2006 paper's) as the variation",
        "flows": f"{sc['flows']:,} counted per configuration (the expected number; counted: {min(counted.values()):,} to {max(counted.values()):,} completed of "
        f"{min(started.values()):,} to {max(started.values()):,}), in {sc['chunks']} chunk(s) of their own seeds 1-{sc['chunks']}; each chunk starts "
        f"empty, its first {sc['warm_s']:g} s and the arrivals of its last {sc['cool_s']:g} s are not counted; variations: {sc['alt_flows']:,} flows",
        "statistics": f"streaming per size (metrics.size_stats, DDSketch, quantiles within {FIG52_ALPHA:.1%}), chunks merged exactly (fctlab.sizestats.merge)",
        "sizes shown": f"with at least {min_flows:,} completed flows"
        + (
            " (the thesis: 5000; each marker size expects about 5000)"
            if scale == "full"
            else f" ({FIG52_MIN_MARKER_FLOWS[scale]} for the marker sizes)"
        ),
    }
    caption = (
        f"{SOURCE}, Fig. 5.2: median and 99th-percentile FCT by flow size, RCP's home turf (the 2006 FCT paper's "
        "single 2.4 Gb/s link). The thesis's method: Pareto sizes give enough flows of each size up to about 213 packets "
        "at 10^8 flows, and 1 flow in 500 is a marker flow of 100-1075 packets for the larger sizes. Dotted and dashed: "
        "the slow-start bound on the empty path with IW 2 and 10 (fctlab.ideal.slow_start_fct_ns, handshake included); "
        "grey: the mean FCT under processor sharing at load 0.9. "
        + (
            "Quick scale: a small fraction of the thesis's flows, so the 99th percentiles of the larger sizes rest on few flows; "
            "fctlab reproduce mussmann2012-fig5.2 --full runs 10^8 flows per configuration (resumable). "
            if scale == "quick"
            else ""
        )
        + "Parameters: "
        + params_caption(params)
        + "."
    )
    notes = fig52_notes(gap_rows, scale)
    return [
        Reproduction(
            name="mussmann2012-fig5-2",
            title="RCP's home turf: FCT by size with Pareto flows (Mussmann 2012, Fig. 5.2)",
            source=f"{SOURCE}, Fig. 5.2",
            figures=[Figure(png, caption)],
            tables=[gap, table],
            params=cfgs,
            seed=list(range(1, sc["chunks"] + 1)),
            wall_s=time.monotonic() - t0,
            scale=scale,
            notes=notes,
        )
    ]


def fig52_notes(gap_rows: list, scale: str) -> str:
    """How the shares compare with the thesis's, and why they differ, from the
    gap table's rows: [statistic, size, n, TCP, RCP, IW10 %, RED %, FQ %,
    thesis FQ %, FQ % at the small buffer, RCP alpha 0.1, FQ % of that gap,
    FQ, TCP at the small buffer, RCP at the small buffer] (FCTs in ms)."""
    p = {(r[0], r[1]): r for r in gap_rows}
    rtt_ns = FIG52_RTT_S * 1e9

    def bound(size: int, iw: int) -> float:
        return (
            float(
                ideal.slow_start_fct_ns(
                    size, FIG52_C_BPS, rtt_ns, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True
                )
            )
            / 1e6
        )

    parts = []
    for what in ("median", "p99"):
        got = [(r[1], r[7], r[8]) for r in gap_rows if r[0] == what]
        parts.append(
            f"FQ closes at the {'median' if what == 'median' else '99th percentile'} "
            + ", ".join(f"{g:.0f}% at {s} pkts (thesis {t:.0f}%)" for s, g, t in got)
        )
    text = "; ".join(parts) + ". "
    m13, q13 = p[("median", 13)], p[("p99", 13)]
    need = q13[3] - (q13[3] - q13[12]) / THESIS_FQ_SHARE["p99"][13]
    text += (
        f"At 13 packets fctlab's FQ has a 99th percentile of {q13[12]:.0f} ms (its slow-start bound with IW 10 is "
        f"{bound(13, 10):.0f} ms) and TCP {q13[3]:.0f} ms; the thesis's 75% would need RCP's 99th percentile at "
        f"{need:.0f} ms, while fctlab's RCP with alpha = beta = 1 has {q13[4]:.0f} ms against a median of {m13[4]:.0f} ms. "
        "The cause is RCP's router with alpha = 1, ten times the 2006 paper's 0.1: when Pareto arrivals bunch, the rate it "
        "hands out overshoots and the queue swings up to the whole 1 BDP buffer (sampled per second in a 20 s run of this "
        "set-up: maxima up to the full 30,000 packets, 100 ms of queueing, with drops), and a short flow arriving then waits "
        f"in it. With alpha = 0.1 (last columns) RCP's 99th percentile at 13 packets is {q13[10]:.0f} ms and FQ closes "
        f"{q13[11]:.0f}% of that gap. The thesis states alpha = beta = 1; whether its ns-2 RCP kept a shorter queue with "
        "them cannot be checked from the text. "
    )
    for size in (500, 1000):
        r = p[("median", size)]
        need = r[3] - THESIS_FQ_SHARE["median"][size] * (r[3] - r[4])
        text += (
            f"At the median, {size}-packet flows under FQ take {r[12]:.0f} ms (quantiles within {FIG52_ALPHA:.1%}) against their slow-start bound with IW 10 of "
            f"{bound(size, 10):.0f} ms ({bound(size, 10) - rtt_ns / 1e6:.0f} ms without the handshake's round trip); the "
            f"thesis's {100 * THESIS_FQ_SHARE['median'][size]:.0f}% would need {need:.0f} ms, "
            + (
                "below that bound even without the handshake: no TCP that starts with 10 packets and doubles its window "
                "once per round trip finishes there, so this share is out of reach for any of the TCP configurations. "
                if need < bound(size, 10) - rtt_ns / 1e6
                else "which a slow-starting TCP can reach. "
            )
        )
    enough = True
    for size in (500, 1000):
        r = p[("p99", size)]
        share = THESIS_FQ_SHARE["p99"][size]
        tcp_needed = (r[12] - share * r[4]) / (1 - share)
        enough &= r[13] >= tcp_needed
        text += (
            f"At {size} packets (marker flows, {r[2]:,} TCP flows) RCP's 99th percentile is {r[4]:.0f} ms and FQ's "
            f"{r[12]:.0f} ms (its slow-start bound with IW 10: {bound(size, 10):.0f} ms); against TCP's {r[3]:.0f} ms FQ "
            f"closes {r[7]:.0f}%. With these FQ and RCP values the thesis's {100 * share:.0f}% needs TCP's 99th percentile "
            f"at {tcp_needed / 1e3:.1f} s; fctlab's TCP has {r[3] / 1e3:.1f} s with the 1 BDP buffer and {r[13] / 1e3:.1f} s "
            f"with {FIG52_BUFFER_ALT:g} BDP. "
        )
    r5 = p[("p99", 500)]
    if enough:
        text += (
            f"So the thesis's shares at the marker sizes fit a TCP that times out about as often as fctlab's does with the "
            f"{FIG52_BUFFER_ALT:g} BDP buffer, beside an RCP that keeps its 99th percentile near 2-3 RTT; fctlab's RCP with "
            f"alpha = 1 does not at that buffer (its 99th percentile at 500 packets is then {r5[14]:.0f} ms), which is why "
            "FQ closes more than the whole gap there. The thesis gives neither its buffer nor TCP's own percentiles, so "
            "which buffer it ran cannot be settled from its text. "
        )
    else:
        text += (
            "So at these sizes the thesis's TCP must have met timeouts more often than fctlab's does with either buffer; "
            "the thesis gives neither its buffer nor TCP's own 99th percentiles, so the difference cannot be pinned down "
            "further from its text. "
        )
    text += "At quick scale the marker sizes rest on a handful of flows. " if scale == "quick" else ""
    return text


# ----------------------------------------------------------------- Figure 5.4

#: Section 5.3: Fig. 5.1's set-up (four long-lived flows, a measuring flow
#: after 250 RTT) "while increasing the RTT and bandwidth". The steps are not
#: listed; the text names six panels, RED matching RCP at the median in (a) and
#: (b) and the 99th percentiles in (e) and (f), so three steps with the medians
#: above and the 99th percentiles below. Chosen: from Fig. 5.1's 10 Mb/s and
#: 40 ms up to the 100 ms RTT of Fig. 5.2, the bandwidth four times larger at
#: each step (all links at that bandwidth; the senders' links' latency sets the RTT).
FIG54_STEPS = ((10e6, 10.0), (40e6, 20.0), (160e6, 40.0))  # (bandwidth, senders' link latency ms)
FIG54_RUNS = {"quick": (20, 10, 4), "full": (1000, 1000, 1000)}
#: The measuring flow has 150 RTT to finish (Fig. 5.1: 400); runs where it has not are counted as unfinished.
FIG54_STOP_RTTS = 150
FIG54_BUFFER_ALT = 0.25  # BDP, the variation (at the largest step)


def fig54_rtt_s(latency_ms: float) -> float:
    return 2 * (latency_ms + BOTTLENECK_MS) / 1e3


def fig54_scenario(
    transport: dict, network: dict, seed: int, bw: float, latency_ms: float, buffer_bdp: float = 1.0
) -> dict:
    """One run of Fig. 5.4 at one step: as Fig. 5.1 (four long-lived flows
    within the first RTT, a 200-packet measuring flow at 250 RTT plus 0-10 RTT)
    with every link at ``bw`` and the senders' links at ``latency_ms``."""
    rtt = fig54_rtt_s(latency_ms)
    rng = np.random.default_rng(seed)
    jitter = rng.uniform(0.0, rtt, FIG51_BACKGROUND)
    start = 250 * rtt + float(rng.uniform(0.0, 10 * rtt))
    flows = [{"sender": i, "start_s": float(jitter[i]), "long_lived": True} for i in range(FIG51_BACKGROUND)]
    flows.append({"sender": FIG51_BACKGROUND, "start_s": start, "size_pkts": FIG51_MEASURE_PKTS, "measure": True})
    net = _network(FIG51_BACKGROUND + 1, network)
    net.update(bottleneck_bps=bw, access_bps=bw, access_delay_ms=latency_ms, buffer_bdp=buffer_bdp)
    # The series samples the bottleneck every 10 RTT: how busy the link the
    # measuring flow joins is.
    return {
        "seed": seed,
        "stop_s": start + FIG54_STOP_RTTS * rtt,
        "network": net,
        "transport": _transport(transport),
        "flows": flows,
        "metrics": {"series": True, "interval_ms": 10 * rtt * 1e3, "links": ["bottleneck"], "ps_fct": False},
    }


def fig54_prefixes(
    transport: dict,
    network: dict,
    runs: int,
    bw: float,
    latency_ms: float,
    buffer_bdp: float = 1.0,
    util: list | None = None,
) -> np.ndarray:
    """Prefix FCTs (s), one row per run, one column per k (NaN: not reached);
    ``util`` gets each run's bottleneck utilisation over the last 10 RTT
    sampled before the measuring flow starts."""
    out = np.full((runs, FIG51_MEASURE_PKTS), np.nan)
    for r in range(runs):
        cfg = fig54_scenario(transport, network, r + 1, bw, latency_ms, buffer_bdp)
        res = fctlab.run(cfg, warn=False)
        p = res.prefixes[res.prefixes["flow_id"] == FIG51_BACKGROUND]
        out[r, p["k"].to_numpy() - 1] = p["fct_ns"].to_numpy() / 1e9
        if util is not None:
            s = res.series
            u = s[(s["metric"] == "utilization") & (s["t_ns"] <= cfg["flows"][-1]["start_s"] * 1e9)]
            util.append(float(u["value"].iloc[-1]))
    return out


def _median_p99(fct: np.ndarray):
    """Median and 99th percentile per k over the runs; a run that never
    reached k counts as infinitely slow (so it can only raise the percentiles)."""
    x = np.where(np.isnan(fct), np.inf, fct)
    med = np.quantile(x, 0.5, axis=0, method="lower")
    p99 = np.quantile(x, 0.99, axis=0, method="lower")
    return np.where(np.isinf(med), np.nan, med), np.where(np.isinf(p99), np.nan, p99)


def fig54(out: Path, scale: str) -> list:
    """Fig. 5.4: Fig. 5.1 at increasing bandwidth-delay products."""
    t0 = time.monotonic()
    runs_per_step = FIG54_RUNS[scale]
    plt = pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(14, 7.5))
    k = np.arange(1, FIG51_MEASURE_PKTS + 1)
    rows, cfgs, alt_rows = [], {}, []
    letters = "abcdef"
    for j, ((bw, lat), runs) in enumerate(zip(FIG54_STEPS, runs_per_step)):
        rtt = fig54_rtt_s(lat)
        bdp = bw * rtt / (8 * PKT_BYTES)
        for name, tp, net in PROTOCOLS:
            util: list = []
            fct = fig54_prefixes(tp, net, runs, bw, lat, util=util)
            if j == 0:
                cfgs[name] = fig54_scenario(tp, net, 1, bw, lat)
            med, p99 = _median_p99(fct)
            axes[0, j].plot(k, med * 1e3, lw=1, label=name)
            axes[1, j].plot(k, p99 * 1e3, lw=1, label=name)
            done = int(np.sum(~np.isnan(fct[:, -1])))
            rows.append(
                [
                    f"{captions.rate(bw)}, {rtt * 1e3:g} ms",
                    round(bdp),
                    name,
                    runs,
                    done,
                    float(np.mean(util)),
                    med[11] * 1e3,
                    p99[11] * 1e3,
                    med[132] * 1e3,
                    p99[132] * 1e3,
                ]
            )
            if j == len(FIG54_STEPS) - 1:
                fa = fig54_prefixes(tp, net, runs, bw, lat, buffer_bdp=FIG54_BUFFER_ALT)
                ma, pa = _median_p99(fa)
                alt_rows.append(
                    [
                        name,
                        runs,
                        ma[11] * 1e3,
                        pa[11] * 1e3,
                        ma[132] * 1e3,
                        pa[132] * 1e3,
                        med[11] * 1e3,
                        p99[11] * 1e3,
                        med[132] * 1e3,
                        p99[132] * 1e3,
                    ]
                )
        for iw, style in ((2, ":"), (10, "--")):
            b = ideal.slow_start_fct_ns(k, bw, rtt * 1e9, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True) / 1e6
            axes[0, j].plot(k, b, "k" + style, lw=0.8, label=f"slow start, IW {iw}")
        for i, what in ((0, "median"), (1, "99th percentile")):
            ax = axes[i, j]
            ax.set_title(
                f"({letters[3 * i + j]}) {what}: {captions.rate(bw)}, RTT {rtt * 1e3:g} ms, BDP {bdp:,.0f} pkts",
                fontsize=8,
            )
            ax.set_xlabel("flow size k (packets of 1 KB)")
            ax.set_ylabel(f"{what} FCT (ms)")
            ax.legend(fontsize=6)
    png = save(fig, out, "mussmann2012-fig5-4.png")
    tcp = cfgs["TCP"]
    steps = "; ".join(
        f"{captions.rate(bw)} with the senders' links at {lat:g} ms (RTT {fig54_rtt_s(lat) * 1e3:g} ms)"
        for bw, lat in FIG54_STEPS
    )
    params = {
        "steps": steps
        + " (not listed in the thesis; chosen: Fig. 5.1's set-up up to Fig. 5.2's RTT, bandwidth x4 per step)",
        "packet": captions.packet(tcp) + " (1 KB on the wire)",
        "background": f"{FIG51_BACKGROUND} long-lived flows starting uniformly within the first RTT",
        "measuring flow": f"{FIG51_MEASURE_PKTS} packets from its own sender at 250 RTT plus a uniform 0-10 RTT, {FIG54_STOP_RTTS} RTT to finish",
        "buffer": f"1 BDP at every step (not given in the thesis; chosen); {FIG54_BUFFER_ALT:g} BDP at the largest step as the variation",
        "TCP": captions.tcp(tcp),
        "RED, FQ, RCP": "as in Fig. 5.1",
        "runs": " / ".join(str(r) for r in runs_per_step) + " per protocol at the three steps, seeds from 1",
    }
    caption = (
        f"{SOURCE}, Fig. 5.4: median (top) and 99th-percentile (bottom) FCT of every prefix of a measuring flow "
        "against four long-lived flows, at three bandwidth-delay products. The thesis finds RCP's gain over TCP growing "
        "with the bandwidth-delay product (about twice as fast at the median throughout), RED as fast as RCP at the median at "
        "the smaller products but worst at the 99th percentile at the largest, and FQ between IW 10 and RED at the median but "
        "better at the 99th percentile, more so as the product grows. Dotted and dashed: the slow-start bound on the empty path. "
        "A run whose measuring flow has not reached k by the end counts as slowest at k. "
        + fig54_notes(rows)
        + (
            "Quick scale: few runs per step, so the 99th percentile is the slowest run or close to it. "
            if scale == "quick"
            else ""
        )
        + "Parameters: "
        + params_caption(params)
        + "."
    )
    table = Table(
        title="Prefix FCT (ms) at 12 and 133 packets",
        columns=[
            "step",
            "BDP (pkts)",
            "protocol",
            "runs",
            "runs completing 200 pkts",
            "bottleneck utilisation, 10 RTT before the measuring flow (mean)",
            "median, 12",
            "p99, 12",
            "median, 133",
            "p99, 133",
        ],
        rows=rows,
        key_columns=3,
    )
    alt = Table(
        title=f"Buffer varied at the largest step: {FIG54_BUFFER_ALT:g} BDP against 1 BDP (ms)",
        columns=[
            "protocol",
            "runs",
            f"median 12, {FIG54_BUFFER_ALT:g} BDP",
            f"p99 12, {FIG54_BUFFER_ALT:g} BDP",
            f"median 133, {FIG54_BUFFER_ALT:g} BDP",
            f"p99 133, {FIG54_BUFFER_ALT:g} BDP",
            "median 12, 1 BDP",
            "p99 12, 1 BDP",
            "median 133, 1 BDP",
            "p99 133, 1 BDP",
        ],
        rows=alt_rows,
        key_columns=1,
    )
    return [
        Reproduction(
            name="mussmann2012-fig5-4",
            title="Increasing the bandwidth-delay product (Mussmann 2012, Fig. 5.4)",
            source=f"{SOURCE}, Fig. 5.4",
            figures=[Figure(png, caption)],
            tables=[table, alt],
            params=cfgs,
            seed=list(range(1, max(runs_per_step) + 1)),
            wall_s=time.monotonic() - t0,
            scale=scale,
        )
    ]


def fig54_notes(rows: list) -> str:
    """Where the largest step departs from the thesis, from the table's rows."""
    top = [r for r in rows if r[1] == max(x[1] for x in rows)]
    u = {r[2]: r[5] for r in top}
    tcp = [r for r in top if r[2] == "TCP"][0]
    return (
        f"At the largest step the window-based protocols have not filled the link by 250 RTT: the bottleneck's utilisation "
        f"in the 10 RTT before the measuring flow is {u['TCP']:.2f} (TCP), {u['TCP IW10']:.2f} (IW 10), {u['RED']:.2f} (RED), "
        f"{u['FQ']:.2f} (FQ) against {u['RCP']:.2f} for RCP. Four Reno flows overshoot in slow start, lose many packets of one "
        "window, time out and then grow by one packet per RTT each, so at a BDP of thousands of packets they need hundreds "
        "of RTT to fill the pipe; with spare capacity there is no standing queue, and the measuring flow's median at 12 "
        f"packets under TCP is {tcp[6]:.0f} ms, its slow-start bound. The thesis's panels (e) and (f) show timeouts at the 99th percentile, a "
        "loaded link: its largest step was smaller, or its long-lived flows had filled the link. "
    )

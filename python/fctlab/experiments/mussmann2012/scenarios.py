"""The scenarios of Mussmann 2012's figures: the half-dumbbell of Figs 5.1, 5.3
and 5.4, the single link of Fig. 5.2, and the five protocols."""

from __future__ import annotations

import numpy as np

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

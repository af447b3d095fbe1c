"""The bench's shapes of run: each a scenario sized by the data packets it
should deliver, whose speed is unique delivered data packets per wall second
(for ``ps``, flows per wall second of the fluid model).

* ``tcp``: the reference scenario (`fctlab.bench.reference_scenario`),
  TCP NewReno on a 10-sender dumbbell, 1 Gb/s, RTT 100 ms, 1 BDP, Pareto 25/1.2
  at load 0.8.
* ``cubic``: the reference scenario with ``tcp-cubic`` (HyStart++ on).
* ``bbr``: the reference scenario with ``tcp-bbr`` (paced, SACK recovery).
* ``rcp``: RCP at 2.4 Gb/s, the set-up of Fig. 12 of Dukkipati & McKeown,
  "Why flow-completion time is the right metric for congestion control", CCR
  2006: one link, RTT 100 ms, load 0.9, Pareto mean 25 shape 1.2, a buffer that
  never overflows (10^6 packets, as the released ns-2 scripts), SYN first.
* ``fq``: the reference scenario with fair queueing, 1000 queues (``[network.fq]
  buckets = 1000``, flows hashed to them, Deficit Round Robin).
* ``red``: the reference scenario with RED (the queue's defaults).
* ``graph``: a general graph, a chain of 100 routers (299 links, 598 ports):
  1 Gb/s, 10 ms core links, each router with a sending and a receiving host on
  10 Gb/s links; sender i crosses 3 core links, so every interior core link
  carries 3 senders' flows, offered load 0.8 there (Pareto 25/1.2, TCP NewReno,
  1 BDP buffers).
* ``fattree``: a k = 8 fat-tree (128 hosts, 10 Gb/s links, 1 us each, 100-packet
  switch ports), TCP NewReno (1000-B payloads, IW 2, no handshake, 1 ms RTO
  floor) with flows between all pairs of hosts outside the source's rack,
  web-search sizes at load 0.5 of each host link, ECMP per flow;
  `fattree_scenario` takes k.
* ``ps``: the fluid processor-sharing model behind the ``ps_fct_ns`` column
  (`fctlab.ideal.fluid_maxmin`) on the reference workload's flows (Poisson
  arrivals at load 0.8 on 1 Gb/s, Pareto 25/1.2 in 1040-byte packets).
"""

from __future__ import annotations

import math

from ..bench import MEAN_PKTS, SHAPE, reference_scenario

#: Shapes in the order ``--shape all`` runs them.
SHAPES = ("tcp", "cubic", "bbr", "rcp", "fq", "red", "graph", "fattree", "ps")
#: What each shape is, one line.
DESCRIPTIONS = {
    "tcp": "TCP NewReno dumbbell (the reference scenario)",
    "cubic": "the reference dumbbell with CUBIC",
    "bbr": "the reference dumbbell with BBR (paced)",
    "rcp": "RCP at 2.4 Gb/s, load 0.9 (Dukkipati & McKeown 2006, Fig. 12 set-up)",
    "fq": "the reference dumbbell with fair queueing, 1000 queues (DRR)",
    "red": "the reference dumbbell with RED",
    "graph": "general graph: a chain of 100 routers, 299 links",
    "fattree": "k = 8 fat-tree, web search at load 0.5 per host, ECMP",
    "ps": "fluid processor sharing (the ps_fct_ns column) on the reference workload",
}
#: Default size of each shape under ``--shape all`` (data packets; ``ps``: flows),
#: chosen so that one run takes about a second here and the five runs of every
#: shape about a minute in all.
QUICK = {
    "tcp": 1e6,
    "cubic": 1e6,
    "bbr": 1e6,
    "rcp": 1e6,
    "fq": 1e6,
    "red": 1e6,
    "graph": 5e5,
    "fattree": 5e5,
    "ps": 1e6,
}
#: Default size of a shape run alone (``--shape NAME``): the reference scenario
#: at about 10^7 packets, as the bench has always measured it; the ps column on
#: 10^7 flows.
SINGLE = {
    "tcp": 1e7,
    "cubic": 2e6,
    "bbr": 2e6,
    "rcp": 2e6,
    "fq": 2e6,
    "red": 2e6,
    "graph": 1e6,
    "fattree": 2e6,
    "ps": 1e7,
}


def _count(packets: float) -> int:
    # Pareto sizes are rounded up to whole packets: about half a packet per flow more.
    return max(1, int(packets / (MEAN_PKTS + 0.5)))


def rcp_scenario(packets: float, seed: int = 1) -> dict:
    """RCP, the 2006 paper's Fig. 12 set-up (see ``experiments/dukkipati2006/scenarios.py``)."""
    return {
        "seed": seed,
        "network": {
            "topology": "single-link",
            "bottleneck_bps": 2.4e9,
            "bottleneck_delay_ms": 50.0,
            "buffer_pkts": 1_000_000,
            "queue": "rcp",
        },
        "transport": {"scheme": "rcp", "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2, "handshake": True},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.9,
                "sizes": {"dist": "pareto", "mean_pkts": MEAN_PKTS, "shape": SHAPE},
                "count": _count(packets),
            }
        ],
        "metrics": {"series": False},
    }


def fq_scenario(packets: float, seed: int = 1) -> dict:
    cfg = reference_scenario(packets, seed)
    cfg["network"]["queue"] = "fq"
    cfg["network"]["fq"] = {"buckets": 1000, "classify": "flow", "discipline": "drr"}
    return cfg


def scheme_scenario(scheme: str, packets: float, seed: int = 1) -> dict:
    """The reference scenario with another TCP."""
    cfg = reference_scenario(packets, seed)
    cfg["transport"]["scheme"] = scheme
    return cfg


def red_scenario(packets: float, seed: int = 1) -> dict:
    cfg = reference_scenario(packets, seed)
    cfg["network"]["queue"] = "red"
    return cfg


def chain_scenario(
    packets: float,
    routers: int = 100,
    hops: int = 3,
    seed: int = 1,
    *,
    core_bps: float = 1e9,
    core_delay_ms: float = 10.0,
    load: float = 0.8,
) -> dict:
    """A chain of ``routers`` routers (``3 routers - 1`` links): core links
    r_i - r_{i+1}; host s_i sends into r_i and r_i delivers to host d_i. Sender i
    (i = 0 .. routers - 1 - hops) sends from s_i to d_{i+hops}, across ``hops``
    core links, so each interior core link carries ``hops`` senders' flows; the
    Poisson rate puts offered load ``load`` on each of them."""
    if routers < hops + 1:
        raise ValueError(f"a chain of {routers} routers has no path of {hops} core links")
    access_bps = 10 * core_bps
    links = [
        {"name": f"c{i}", "a": f"r{i}", "b": f"r{i + 1}", "rate_bps": core_bps, "delay_ms": core_delay_ms}
        for i in range(routers - 1)
    ]
    links += [{"a": f"s{i}", "b": f"r{i}", "rate_bps": access_bps} for i in range(routers)]
    links += [{"a": f"r{i}", "b": f"d{i}", "rate_bps": access_bps} for i in range(routers)]
    senders = routers - hops
    paths = [[f"s{i}", f"d{i + hops}"] for i in range(senders)]
    pkt_bytes = 1040
    rtt_s = 2 * hops * core_delay_ms / 1e3
    buffer_pkts = math.ceil(core_bps * rtt_s / 8 / pkt_bytes)
    # Each sender's share of the arrivals is 1/senders; an interior core link
    # carries `hops` senders: hops/senders x rate x mean x bits = load x C.
    rate = load * core_bps * senders / (hops * 8.0 * MEAN_PKTS * pkt_bytes)
    return {
        "seed": seed,
        "network": {
            "topology": "graph",
            "buffer_pkts": buffer_pkts,
            "graph": {
                "routers": [f"r{i}" for i in range(routers)],
                "links": links,
                "paths": paths,
                "bottleneck": f"c{routers // 2}",
            },
        },
        "transport": {"scheme": "tcp-newreno", "mss_bytes": 1000, "header_bytes": 40, "init_cwnd_pkts": 2},
        "traffic": [
            {
                "arrivals": "poisson",
                "rate_per_s": rate,
                "sizes": {"dist": "pareto", "mean_pkts": MEAN_PKTS, "shape": SHAPE},
                "count": _count(packets),
            }
        ],
        "metrics": {"series": False},
    }


#: Mean web-search flow in 1000-B packets: 1,711,250 B (the table's mean), rounded up to whole packets.
WEBSEARCH_MEAN_PKTS = 1711.25 + 0.5


def fattree_scenario(packets: float, k: int = 8, seed: int = 1) -> dict:
    """TCP NewReno on a k-ary fat-tree: all-to-all web-search flows at load
    0.5 of each host link, ECMP; about ``packets`` data packets."""
    return {
        "seed": seed,
        "network": {
            "topology": "fat-tree",
            "routing": "ecmp",
            "buffer_pkts": 100,
            "fat-tree": {"k": k, "host_bps": 10e9, "fabric_bps": 10e9, "link_delay_us": 1.0},
        },
        "transport": {
            "scheme": "tcp-newreno",
            "mss_bytes": 1000,
            "header_bytes": 40,
            "init_cwnd_pkts": 2,
            "handshake": False,
            "min_rto_ms": 1.0,
            "initial_rto_ms": 1.0,
        },
        "traffic": [
            {
                "arrivals": "poisson",
                "matrix": "all-to-all",
                "load": 0.5,
                "sizes": {"dist": "websearch"},
                "count": max(1, int(packets / WEBSEARCH_MEAN_PKTS)),
            }
        ],
        "metrics": {"series": False},
    }


def ps_params(flows: float, seed: int = 1) -> dict:
    """The fluid model's workload: the reference scenario's law, ``flows`` flows."""
    ref = reference_scenario(1, seed)
    n, t, g = ref["network"], ref["transport"], ref["traffic"][0]
    return {
        "seed": seed,
        "flows": int(flows),
        "capacity_bps": n["bottleneck_bps"],
        "load": g["load"],
        "mean_pkts": g["sizes"]["mean_pkts"],
        "shape": g["sizes"]["shape"],
        "mss_bytes": t["mss_bytes"],
        "header_bytes": t["header_bytes"],
    }


def scenario(shape: str, size: float, seed: int = 1) -> dict:
    """The scenario (for ``ps``: the fluid workload) of ``shape`` at ``size``."""
    if shape == "tcp":
        return reference_scenario(size, seed)
    if shape in ("cubic", "bbr"):
        return scheme_scenario(f"tcp-{shape}", size, seed)
    if shape == "rcp":
        return rcp_scenario(size, seed)
    if shape == "fq":
        return fq_scenario(size, seed)
    if shape == "red":
        return red_scenario(size, seed)
    if shape == "graph":
        return chain_scenario(size, seed=seed)
    if shape == "fattree":
        return fattree_scenario(size, seed=seed)
    if shape == "ps":
        return ps_params(size, seed)
    raise ValueError(f"unknown shape {shape!r} (known: {', '.join(SHAPES)})")

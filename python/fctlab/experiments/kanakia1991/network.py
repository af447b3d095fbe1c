"""The networks, transports and measurements every experiment of Kanakia,
Keshav & Mishra 1991 shares.

Common set-up (section 4): 500-byte packets, 40-byte ACKs, one ACK per packet;
slow lines 40 Mb/s, fast lines 100 Mb/s; switch buffers of one bandwidth-delay
product, shared; FCFS switches for TCP, Tri-S, DUAL and DECbit (DECbit's
marking router), round-robin fair queueing for packet-pair and e2e-ef; hbh on
the paper's extra-hop variant of each network (three more switches between
each source and the bottleneck, the round trip unchanged).
"""

from __future__ import annotations

import fctlab

SOURCE = "Kanakia, Keshav & Mishra 1991"

SLOW_BPS, FAST_BPS = 40e6, 100e6
PKT_BYTES, HEADER_BYTES = 500, 40
MSS_BYTES = PKT_BYTES - HEADER_BYTES
#: One-way propagation: 1 ms on each fast line and 20 ms on the slow one, so
#: the round trip is the 44 ms the text gives for experiment 1 (Figure 2,
#: experiment 3's network, is not in the text: chosen the same).
ACCESS_MS, CORE_MS = 1.0, 20.0

#: Section 4: "the configuration used for the hop-by-hop scheme is modified so
#: that there are three additional intermediate hops between the source and the
#: bottleneck; the round-trip delay path for each traffic source remains the
#: same". fctlab splits every source's access line into four of a quarter of its
#: delay each, joined by three switches (the paper's details are left out).
HBH_EXTRA_HOPS = 3

#: The schemes of the paper's rows: name, [transport], [network] (the
#: "extra_hops" key is this module's: it turns the network into a graph with
#: that many switches added on each source's access line, see ``finalize``).
SCHEMES = (
    ("tcp (tahoe)", {"scheme": "tcp-tahoe"}, {"queue": "droptail"}),
    ("tcp (reno)", {"scheme": "tcp-reno"}, {"queue": "droptail"}),
    ("tcp (w/red)", {"scheme": "tcp-reno"}, {"queue": "red", "red": {"mean_pktsize": PKT_BYTES}}),
    ("tri-s", {"scheme": "tri-s"}, {"queue": "droptail"}),
    ("dual", {"scheme": "dual"}, {"queue": "droptail"}),
    ("decbit", {"scheme": "decbit"}, {"queue": "decbit"}),
    ("pp", {"scheme": "packet-pair"}, {"queue": "fq", "fq": {"quantum_bytes": PKT_BYTES}}),
    ("e2e-ef", {"scheme": "e2e-ef"}, {"queue": "fq-ef", "fq": {"quantum_bytes": PKT_BYTES}}),
    ("hbh", {"scheme": "hbh"}, {"queue": "hbh", "extra_hops": HBH_EXTRA_HOPS}),
)


PROBE_INTERVAL_MS, PROBE_BYTES = 20.0, 500


def network(scheme_net: dict, access_ms: float = ACCESS_MS, core_ms: float = CORE_MS) -> dict:
    """One connection: sender -100 Mb/s- S1 -40 Mb/s- S2 -100 Mb/s- receiver,
    one bandwidth-delay product of buffer."""
    return {
        "topology": "dumbbell",
        "senders": 1,
        "bottleneck_bps": SLOW_BPS,
        "access_bps": FAST_BPS,
        "bottleneck_delay_ms": core_ms,
        "access_delay_ms": access_ms,
        "receiver_delay_ms": access_ms,
        "buffer_bdp": 1.0,
        **{k: (dict(v) if isinstance(v, dict) else v) for k, v in scheme_net.items()},
    }


def _access_chain(host: str, router: str, rate_bps: float, delay_ms: float, hops: int, tag: str) -> tuple:
    """The links and added switches of a host's access line split into
    ``hops + 1`` links of equal delay (the extra-hop variant)."""
    nodes = [host] + [f"x{tag}_{k}" for k in range(hops)] + [router]
    links = [
        {"a": a, "b": b, "rate_bps": rate_bps, "delay_ms": delay_ms / (hops + 1)} for a, b in zip(nodes, nodes[1:])
    ]
    return links, nodes[1:-1]


def dumbbell_graph(nw: dict, hops: int = 0) -> dict:
    """A dumbbell network (``network()``'s keys) as the equivalent graph:
    sender i on its access line into s1, the bottleneck s1-s2 ("core"), an
    egress line to receiver i; ``hops`` switches added on each access line."""
    n = int(nw["senders"])
    acc = nw.get("access_delay_ms", ACCESS_MS)
    acc = list(acc) if isinstance(acc, (list, tuple)) else [acc] * n
    links, routers = [], ["s1", "s2"]
    for i in range(n):
        ls, rs = _access_chain(f"h{i}", "s1", nw["access_bps"], acc[i], hops, str(i))
        links += ls
        routers += rs
    links.append(
        {"name": "core", "a": "s1", "b": "s2", "rate_bps": nw["bottleneck_bps"], "delay_ms": nw["bottleneck_delay_ms"]}
    )
    links += [
        {"a": "s2", "b": f"r{i}", "rate_bps": nw["access_bps"], "delay_ms": nw["receiver_delay_ms"]} for i in range(n)
    ]
    out = {
        k: v
        for k, v in nw.items()
        if k
        not in (
            "topology",
            "senders",
            "bottleneck_bps",
            "access_bps",
            "bottleneck_delay_ms",
            "access_delay_ms",
            "receiver_delay_ms",
            "extra_hops",
        )
    }
    out["topology"] = "graph"
    out["graph"] = {
        "routers": routers,
        "links": links,
        "paths": [[f"h{i}", f"r{i}"] for i in range(n)],
        "bottleneck": "core",
    }
    return out


def add_hops(g: dict, hops: int) -> dict:
    """A graph with ``hops`` switches added on the access line of every host
    that sends (each host has one line), the delays kept."""
    if hops == 0:
        return g
    sources = {p[0] for p in g["paths"]}
    links, routers = [], list(g["routers"])
    for line in g["links"]:
        host = line["a"] if line["a"] in sources else (line["b"] if line["b"] in sources else None)
        if host is None:
            links.append(line)
            continue
        router = line["b"] if host == line["a"] else line["a"]
        ls, rs = _access_chain(host, router, line["rate_bps"], line.get("delay_ms", 0.0), hops, host)
        links += ls
        routers += rs
    return {**g, "routers": routers, "links": links}


def finalize(sc: dict) -> dict:
    """The scenario as fctlab runs it: a network with this module's
    "extra_hops" key becomes a graph with the switches added."""
    nw = sc["network"]
    hops = nw.get("extra_hops")
    if hops is None:
        return sc
    if nw.get("topology") == "graph":
        nw = {k: v for k, v in nw.items() if k != "extra_hops"}
        nw["graph"] = add_hops(nw["graph"], int(hops))
    else:
        nw = dumbbell_graph(nw, int(hops))
    return {**sc, "network": nw}


def run(sc: dict):
    """Run a scenario of this module (see ``finalize``)."""
    return fctlab.run(finalize(sc), warn=False)


def transport(tp: dict) -> dict:
    """500-byte packets, one ACK each, no handshake (the transfer starts when
    the data is available), a window of one packet to start (4.3BSD-Tahoe)."""
    return {
        "mss_bytes": MSS_BYTES,
        "header_bytes": HEADER_BYTES,
        "handshake": False,
        "init_cwnd_pkts": 1,
        "delayed_ack": False,
        **{k: (dict(v) if isinstance(v, dict) else v) for k, v in tp.items()},
    }


def rtt_ms(access_ms: float = ACCESS_MS, core_ms: float = CORE_MS) -> float:
    return 2 * (2 * access_ms + core_ms)


def experiment(nw: dict, tp: dict, flows: list, traffic: list | None = None, seed: int = 1) -> dict:
    """A scenario of the suite as fctlab runs it (see ``finalize``): no series, no PS column."""
    sc = {"seed": seed, "network": nw, "transport": transport(tp), "flows": flows}
    if traffic is not None:
        sc["traffic"] = traffic
    sc["metrics"] = {"series": False, "ps_fct": False}
    return finalize(sc)


def probe(sender: int, interval_ms: float = PROBE_INTERVAL_MS) -> dict:
    """The probe: a 500-byte packet every ``interval_ms`` from host ``sender``, answered at once."""
    return {
        "arrivals": "probe",
        "senders": [sender],
        "interval_ms": interval_ms,
        "pkt_bytes": PROBE_BYTES,
        "stop_s": 60.0,
    }


def link(a: str, b: str, rate_bps: float, delay_ms: float, name: str | None = None) -> dict:
    d = {"a": a, "b": b, "rate_bps": rate_bps, "delay_ms": delay_ms}
    if name:
        d["name"] = name
    return d


def graph_network(net: dict, routers: list, links: list, paths: list, bottleneck: str, buffer_pkts: int) -> dict:
    """A graph network with the scheme's [network] keys (``extra_hops`` is applied by ``finalize``)."""
    return {
        "topology": "graph",
        "buffer_pkts": buffer_pkts,
        "graph": {"routers": routers, "links": links, "paths": paths, "bottleneck": bottleneck},
        **{k: (dict(v) if isinstance(v, dict) else v) for k, v in net.items()},
    }


def path_idle_rtt_ms(path: list, hops: int = 0, probe_bytes: int = PROBE_BYTES, ack_bytes: int = HEADER_BYTES) -> float:
    """A probe's round trip on an empty path of (rate_bps, one-way delay_ms)
    lines: propagation plus the probe and its answer serialised on each line
    (``hops`` more 100 Mb/s lines in the extra-hop variant)."""
    rates = [r for r, _ in path] + [FAST_BPS] * hops
    return 2 * sum(d for _, d in path) + sum((probe_bytes + ack_bytes) * 8 / r for r in rates) * 1e3


def measure(res, main_ids: list, idle_ms: float | None) -> tuple:
    """Transfer times (ms) of the main connections, the probe's delay beyond the
    empty path's (mean, std, ms) over the probes sent while the first main
    connection runs, and the packets dropped."""
    f = res.flows.set_index("flow_id")
    times = []
    for i in main_ids:
        r = f.loc[i]
        times.append(float(r.acked_ns - r.start_ns) / 1e6 if r.completed else float("nan"))
    mean = std = float("nan")
    if idle_ms is not None and res.probes is not None and len(res.probes):
        p = res.probes
        r0 = f.loc[main_ids[0]]
        p = p[p.rtt_ns.notna()]
        if r0.completed:
            p = p[p.sent_ns <= r0.acked_ns]
        d = p.rtt_ns.astype("float64").to_numpy() / 1e6 - idle_ms
        if len(d):
            mean, std = float(d.mean()), float(d.std())
    return times, mean, std, int(res.flows.drops.sum())


def extra_hops(net: dict) -> int:
    """The switches added on each access line in the extra-hop variant."""
    return int(net.get("extra_hops", 0))

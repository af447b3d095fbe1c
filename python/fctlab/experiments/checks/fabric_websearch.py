"""TCP NewReno over DropTail on pFabric's 144-host leaf-spine, under the web
search and data mining workloads: mean and 99th-percentile FCT slowdown per
pFabric size bin against the fluid ideal, max-min fair sharing of the same
flows on the very paths ECMP gave them."""

from __future__ import annotations

import numpy as np

from ...report import Figure
from ...slowdown import slowdown_by_size
from ..page import Page, parameters, style
from ..registry import reproduction
from .fabric_scenarios import BUFFER_PKTS, LEAF_SPINE, TRANSPORT, websearch_cfg

WORKLOADS = ("websearch", "datamining")
#: Flows per run: quick, full (the load is per host link, so the arrival
#: rate, and the simulated time these flows span, scale with the load).
COUNTS = {"quick": {"websearch": 400, "datamining": 150}, "full": {"websearch": 20_000, "datamining": 8_000}}
LOADS = {"quick": (0.2, 0.5, 0.8), "full": (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)}
#: Each chosen parameter varied once, at load 0.5 under web search.
VARIANTS = {
    "buffer_pkts = 50": {"buffer_pkts": 50},
    "max_cwnd_pkts = 256": {"max_cwnd_pkts": 256},
    "init_cwnd_pkts = 2": {"init_cwnd_pkts": 2},
    "min_rto_ms = 5": {"min_rto_ms": 5.0, "initial_rto_ms": 5.0},
    "seed = 2": {"seed": 2},
}


def fluid(flows):
    """The same flows with ``fabric_slowdown`` replaced by the fluid one: the
    max-min finish (``ps_fct_ns``, which adds the path's one-way propagation)
    plus the last ACK's return (``alone_ns - ideal_ns``), over the same for
    the flow alone in the fluid model: its bytes on the wire at the host
    rate, the propagation of its 2 (same leaf) or 4 links, the ACK's return.
    The fluid model has no store-and-forward, so its own alone time, not the
    packets' ``alone_ns``, is its denominator."""
    f = flows.copy()
    ack = (f["alone_ns"] - f["ideal_ns"]).astype("float64")
    wire = f["size_bytes"].astype("float64") + TRANSPORT["header_bytes"] * f["size_pkts"].astype("float64")
    per_leaf = LEAF_SPINE["hosts_per_leaf"]
    hops = np.where(f["sender"] // per_leaf == f["dst"] // per_leaf, 2, 4)
    alone = wire * 8e9 / LEAF_SPINE["host_bps"] + hops * LEAF_SPINE["link_delay_us"] * 1e3 + ack
    f["fabric_slowdown"] = (f["ps_fct_ns"].astype("float64") + ack) / alone
    return f


def _run(p: Page, dist: str, load: float, count: int, **extra):
    seed = extra.pop("seed", 1)
    res = p.run(websearch_cfg(dist, load, count, seed, **extra), f"{dist} load {load:g}")
    if not res.flows["completed"].all():
        raise RuntimeError(f"{dist} at load {load}: flows left unfinished")
    return slowdown_by_size(res.flows), slowdown_by_size(fluid(res.flows)), res


@reproduction("fabric-websearch", title="TCP on pFabric's leaf-spine: slowdown by size against fluid max-min")
def fabric_websearch(out, scale: str) -> list:
    p = Page("fabric-websearch", out, scale)
    s = "full" if p.full else "quick"
    loads, counts = LOADS[s], COUNTS[s]
    tables = {(d, x): _run(p, d, x, counts[d]) for d in WORKLOADS for x in loads}
    fig, axes = p.subplots(2, 2, figsize=(10, 7.2))
    colors = ("tab:blue", "tab:orange", "tab:green")
    for row, dist in zip(axes, WORKLOADS):
        for ax, stat in zip(row, ("mean", "p99")):
            for b, c in enumerate(colors):
                label = tables[(dist, loads[0])][0]["bin"][b]
                tcp = [tables[(dist, x)][0][stat][b] for x in loads]
                flu = [tables[(dist, x)][1][stat][b] for x in loads]
                ax.plot(loads, tcp, "o-", color=c, ms=4, label=f"TCP {label}")
                ax.plot(loads, flu, "s--", color=c, ms=3, label=f"fluid max-min {label}")
            what = "mean" if stat == "mean" else "99th-percentile"
            first = ax is axes[0][0]
            style(ax, "load (of each host link)", f"{what} slowdown", title=dist, log="y", legend=first)
    png = p.save(fig)
    base = tables[("websearch", 0.5)][0] if 0.5 in loads else None
    varied = []
    for name, extra in VARIANTS.items():
        t = _run(p, "websearch", 0.5, counts["websearch"], **dict(extra))[0]
        varied.append(f"{name}: mean {t['mean'].iloc[-1]:.2f}, p99 {t['p99'].iloc[-1]:.1f}")
    base_txt = f"mean {base['mean'].iloc[-1]:.2f}, p99 {base['p99'].iloc[-1]:.1f}" if base is not None else ""
    caption = (
        "FCT slowdown (from a flow's start to its sender's ACK of the last byte, over the same alone on the empty "
        "fabric at line rate, store-and-forward, no handshake: fctlab's fabric_slowdown) of TCP NewReno over "
        "DropTail on pFabric's leaf-spine (Alizadeh et al., SIGCOMM 2013, section 5: 144 hosts, 9 leaves of 16, "
        "4 spines, 10/40 Gb/s, 1.5 us per link), all-to-all flows outside the source's rack with Poisson arrivals "
        "at the given load of each host link, ECMP per flow (seeded hash), in pFabric's size bins (0, 100 kB], "
        "(100 kB, 10 MB], (10 MB, inf). Solid: the packet-level run; dashed: the fluid ideal, max-min fair "
        "sharing of the very same flows (arrivals, sizes in bytes on the wire) on the paths ECMP gave them, "
        "plus the path's propagation and the last ACK's return, over the same for the flow alone in the fluid "
        "model (its bytes on the wire at the host rate: no store-and-forward). Workloads: web search (Alizadeh "
        "et al., DCTCP, "
        "SIGCOMM 2010) and data mining (Greenberg et al., VL2, SIGCOMM 2009), "
        f"{counts['websearch']:,} and {counts['datamining']:,} flows per run ({s} scale). Chosen parameters "
        f"(unstated by the set-up): buffer {BUFFER_PKTS} packets per switch port, 1460-B payloads and 40-B "
        "headers, initial window 10, a 64-packet receiver window, RTO floor and initial RTO 1 ms, no handshake, "
        f"seed 1. Each varied once (web search, load 0.5; all flows' slowdown): base {base_txt}; "
        + "; ".join(varied)
        + f". {parameters({'transport': TRANSPORT, 'leaf-spine': LEAF_SPINE})}"
    )
    return p.record(
        source="fctlab: the fabric papers' set-up (pFabric, PIAS) against its fluid ideal",
        figures=[Figure(png, caption)],
        params={"loads": list(loads), "counts": counts, "transport": TRANSPORT, "leaf-spine": LEAF_SPINE},
        seed=1,
    )

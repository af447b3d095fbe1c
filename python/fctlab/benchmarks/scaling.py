"""How the cost of a delivered packet grows with the number of concurrent flows
and with the number of links (``fctlab bench --scaling --out DIR``).

Concurrent flows: N TCP NewReno flows on one 10 Gb/s link (single-link
topology, RTT 20 ms, 1040-byte packets). They arrive as a Poisson process over
the first 100 ms, each far longer than the run (10^9 packets), so N are in
progress from then on; the run stops once the link could have carried
max(2 x 10^6, 10 N) packets, and its buffer holds max(1 BDP, 2 N) packets so
that every flow's initial window fits. N = 10 to 10^5 (10^6 with ``--full``).

Links: the chain of the ``graph`` shape (`.shapes.chain_scenario`) with
R = 10 to 300 routers (1000 with ``--full``), 3 R - 1 links; every
sender crosses 3 core links and every interior core link runs at offered load
0.8, and the run's flows are 3000 per core link (25,500 x (R - 3) packets), so
every point simulates the same time and per-link load.

Fat-trees: the bench's ``fattree`` shape (web-search flows between all
pairs of hosts at load 0.5 of each host link, ECMP, TCP NewReno; see
`.shapes.fattree_scenario`) for k = 4, 8, 16 and 32 (48 to 24,576 links), each
with the same data packets (10^6; 5 x 10^6 with ``--full``), beside the
reference dumbbell with as many, run alternately. A fat-tree path is six hops
and a dumbbell's three, so the cost is compared per event and per
packet-hop (one packet crossing one link), not per delivered packet. With
the same packets the flows are the same too, and on a larger tree they
arrive faster (the load is per host), so more are in progress at once:
more links are busy and more state is touched between two visits to a link.

Each point is one run in a process of its own; the cost is the engine's wall
time (and the whole process's CPU time, less sensitive to other load on the
machine) per unique delivered data packet (the ``delivered_pkts`` column
summed). The ``ps_fct_ns`` column is off (it is the ``ps`` shape's own
benchmark).
"""

from __future__ import annotations

import json
import math

from .runner import run_child
from .shapes import MEAN_PKTS, chain_scenario, fattree_scenario, reference_scenario

C_BPS = 10e9
RTT_MS = 20.0
PKT_BYTES = 1040
FLOWS = {"quick": (10, 100, 1_000, 10_000, 100_000), "full": (10, 100, 1_000, 10_000, 100_000, 1_000_000)}
ROUTERS = {"quick": (10, 30, 100, 300), "full": (10, 30, 100, 300, 1000)}
#: Flows per core link in the chain runs.
FLOWS_PER_LINK = 3000
FAT_TREE_K = (4, 8, 16, 32)
FAT_TREE_PACKETS = {"quick": 1e6, "full": 5e6}


def flows_scenario(n: int, seed: int = 1) -> dict:
    """N long flows in progress on one link (see the module's text)."""
    packets = max(2e6, 10.0 * n)
    bdp = C_BPS * RTT_MS / 1e3 / 8 / PKT_BYTES
    return {
        "seed": seed,
        "stop_s": 0.1 + packets * 8 * PKT_BYTES / C_BPS,
        "network": {
            "topology": "single-link",
            "senders": 1,
            "bottleneck_bps": C_BPS,
            "bottleneck_delay_ms": RTT_MS / 2,
            "buffer_pkts": int(max(math.ceil(bdp), 2 * n)),
        },
        "transport": {"scheme": "tcp-newreno", "mss_bytes": PKT_BYTES - 40, "header_bytes": 40, "init_cwnd_pkts": 2},
        "traffic": [
            {"arrivals": "poisson", "rate_per_s": n / 0.1, "count": n, "sizes": {"dist": "fixed", "pkts": 10**9}}
        ],
        "metrics": {"series": False, "ps_fct": False},
    }


def links_scenario(routers: int, seed: int = 1) -> dict:
    """The chain of ``routers`` routers with the same flows per core link."""
    hops = 3
    packets = (MEAN_PKTS + 0.5) * FLOWS_PER_LINK * (routers - hops) / hops
    cfg = chain_scenario(packets, routers=routers, hops=hops, seed=seed)
    cfg["metrics"]["ps_fct"] = False
    return cfg


def fat_tree_points(scale: str, progress=print) -> list:
    """Fat-trees of growing k and the reference dumbbell, alternately, with
    the same data packets; each fat-tree's cost per event and per
    packet-hop against the dumbbell run just before it."""
    packets = FAT_TREE_PACKETS[scale]
    out = []
    for k in FAT_TREE_K:
        ref = reference_scenario(packets)
        ref["metrics"]["ps_fct"] = False
        d = _point(ref)
        cfg = fattree_scenario(packets, k=k)
        cfg["metrics"]["ps_fct"] = False
        p = {"k": k, "links": 3 * k**3 // 4, "flows": cfg["traffic"][0]["count"], **_point(cfg)}
        for unit, key in (("event", "events"), ("hop", "packet_hops")):
            p[f"wall_ns_per_{unit}"] = p["wall_s"] / max(p[key], 1) * 1e9
            p[f"dumbbell_wall_ns_per_{unit}"] = d["wall_s"] / max(d[key], 1) * 1e9
            p[f"ratio_per_{unit}"] = p[f"wall_ns_per_{unit}"] / p[f"dumbbell_wall_ns_per_{unit}"]
        out.append(p)
        progress(
            f"  fat-tree k={k:<2} ({p['links']:>6,} links, {p['flows']:,} flows): {p['wall_ns_per_event']:5.0f} ns per "
            f"event, {p['wall_ns_per_hop']:5.0f} per packet-hop; dumbbell just before: "
            f"{p['dumbbell_wall_ns_per_event']:5.0f} and {p['dumbbell_wall_ns_per_hop']:5.0f}; ratio "
            f"{p['ratio_per_event']:.2f} per event, {p['ratio_per_hop']:.2f} per packet-hop "
            f"(peak {p['peak_rss_mb']:.0f} MB)"
        )
    return out


def _point(cfg: dict) -> dict:
    r = run_child(cfg)
    u = max(r["unique_delivered"], 1)
    return {
        "unique_delivered": r["unique_delivered"],
        "wall_s": r["wall_s"],
        "cpu_s": r["cpu_s"],
        "events": r["events"],
        "packet_hops": r["packet_hops"],
        "drops": r["drops"],
        "sim_s": r["sim_s"],
        "peak_rss_mb": r["peak_rss_mb"],
        "wall_ns_per_pkt": r["wall_s"] / u * 1e9,
        "cpu_ns_per_pkt": r["cpu_s"] / u * 1e9,
        "events_per_pkt": r["events"] / u,
        "hops_per_pkt": r["packet_hops"] / u,
    }


def measure(scale: str = "quick", progress=print) -> dict:
    out = {"flows": [], "links": []}
    for n in FLOWS[scale]:
        p = {"n": n, **_point(flows_scenario(n))}
        out["flows"].append(p)
        progress(
            f"  {n:>9,} concurrent flows: {p['wall_ns_per_pkt']:7.0f} ns wall, {p['cpu_ns_per_pkt']:7.0f} ns CPU per "
            f"unique delivered packet ({p['unique_delivered']:,} packets, {p['events_per_pkt']:.2f} events each, "
            f"peak {p['peak_rss_mb']:.0f} MB)"
        )
    for r in ROUTERS[scale]:
        cfg = links_scenario(r)
        p = {"routers": r, "links": len(cfg["network"]["graph"]["links"]), **_point(cfg)}
        out["links"].append(p)
        progress(
            f"  {p['links']:>9,} links: {p['wall_ns_per_pkt']:7.0f} ns wall, {p['cpu_ns_per_pkt']:7.0f} ns CPU per "
            f"unique delivered packet ({p['unique_delivered']:,} packets, {p['hops_per_pkt']:.2f} packet-hops and "
            f"{p['events_per_pkt']:.2f} events each, peak {p['peak_rss_mb']:.0f} MB)"
        )
    out["fattree"] = fat_tree_points(scale, progress)
    return out


def figure(res: dict, path) -> None:
    from ..plots import pyplot

    plt = pyplot()
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, key, xkey, xlabel in (
        (a, "flows", "n", "concurrent flows on one 10 Gb/s link"),
        (b, "links", "links", "links (chain of routers, 3 core hops per flow)"),
    ):
        pts = res[key]
        x = [p[xkey] for p in pts]
        ax.plot(x, [p["wall_ns_per_pkt"] for p in pts], "o-", label="engine wall time")
        ax.plot(x, [p["cpu_ns_per_pkt"] for p in pts], "s--", label="process CPU time")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("ns per unique delivered data packet")
        ax.legend(fontsize=8)
    pts = res.get("fattree", [])
    x = [p["links"] for p in pts]
    c.plot(x, [p["wall_ns_per_hop"] for p in pts], "o-", label="fat-tree, k = 4 to 32")
    c.plot(x, [p["dumbbell_wall_ns_per_hop"] for p in pts], "s--", label="reference dumbbell, run alternately")
    c.set_xscale("log")
    c.set_ylim(bottom=0)
    c.set_xlabel("links of the fat-tree")
    c.set_ylabel("engine wall ns per packet-hop")
    c.legend(fontsize=8)
    fig.suptitle("fctlab: cost per delivered packet against concurrent flows and links", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(args, out) -> int:
    scale = "full" if getattr(args, "full", False) else "quick"
    print(
        f"cost scaling ({scale}): {', '.join(f'{n:,}' for n in FLOWS[scale])} concurrent flows; chains of "
        f"{', '.join(map(str, ROUTERS[scale]))} routers; fat-trees k = {', '.join(map(str, FAT_TREE_K))} beside the "
        f"dumbbell, {FAT_TREE_PACKETS[scale]:.0e} packets each",
        flush=True,
    )
    res = measure(scale, progress=lambda m: print(m, flush=True))
    (out / "scaling.json").write_text(json.dumps(res, indent=1))
    figure(res, out / "scaling.png")
    print(f"wrote {out / 'scaling.json'} and {out / 'scaling.png'}")
    return 0

"""Every TCP fctlab models on two workloads, mean and 99th-percentile FCT by
flow size against processor sharing: the 2006 FCT paper's Fig. 1 workload
(Dukkipati & McKeown: Pareto flows at load 0.9 on one 2.4 Gb/s link) and the
web-search workload on pFabric's 144-host leaf-spine."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

import fctlab

from ...report import Figure, Table
from ..dukkipati2006.scenarios import fig1_scenario
from ..page import Page, parameters, style
from ..registry import reproduction
from .fabric_scenarios import BUFFER_PKTS, websearch_cfg

#: The schemes of the page (those this build registers are run).
SCHEMES = ("tcp-newreno", "tcp-sack", "tcp-cubic", "tcp-dctcp", "tcp-bbr", "tcp-vegas")
COUNTS = {"quick": {"fig1": 30_000, "fabric": 400}, "full": {"fig1": 1_000_000, "fabric": 20_000}}
#: The fabric's load (of each host link).
FABRIC_LOAD = 0.5
#: DCTCP's marking threshold on the fabric: the DCTCP paper's 65 packets at 10 Gb/s (section 4).
FABRIC_K = 65


def available() -> tuple:
    known = {s["name"] for s in fctlab.catalog()["schemes"]}
    return tuple(s for s in SCHEMES if s in known)


def fig1_cfg(scheme: str, count: int) -> dict:
    """The Fig. 1 workload with ``scheme``; DCTCP behind a marking port with
    the DCTCP paper's guideline K = C x RTT / 7 (rounded up)."""
    cfg = fig1_scenario(count)
    cfg["transport"]["scheme"] = scheme
    cfg["metrics"] = {"series": False}
    if scheme == "tcp-dctcp":
        n = cfg["network"]
        rtt_s = 2 * n["bottleneck_delay_ms"] / 1e3  # a single link: the RTT is its delay both ways
        bdp = n["bottleneck_bps"] * rtt_s / 8 / (cfg["transport"]["mss_bytes"] + cfg["transport"]["header_bytes"])
        n.update({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": math.ceil(bdp / 7)}})
    return cfg


def fabric_cfg(scheme: str, count: int) -> dict:
    cfg = websearch_cfg("websearch", FABRIC_LOAD, count, scheme=scheme)
    if scheme == "tcp-dctcp":
        cfg["network"].update({"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": FABRIC_K}})
    return cfg


def by_size(flows: pd.DataFrame, column: str, edges) -> pd.DataFrame:
    """Mean and 99th percentile of ``column`` (ns) per size bin (packets),
    completed flows only; bins with fewer than 10 flows left out."""
    f = flows[flows["completed"].astype(bool)]
    b = pd.cut(f["size_pkts"], edges, right=True)
    g = f.groupby(b, observed=True)[column]
    out = pd.DataFrame({"n": g.size(), "mean": g.mean() / 1e9, "p99": g.quantile(0.99) / 1e9})
    out["mid"] = [math.sqrt(max(i.left, 1) * i.right) for i in out.index]
    return out[out["n"] >= 10]


def _panel(axes, runs: dict, edges, title: str) -> dict:
    """Mean and p99 by size for each scheme and PS; returns the all-flow means."""
    ps_done = False
    means = {}
    for scheme, res in runs.items():
        t = by_size(res.flows, "fct_ns", edges)
        for ax, stat in zip(axes, ("mean", "p99")):
            ax.plot(t["mid"], t[stat], "o-", ms=3, label=scheme)
        if not ps_done:
            ps = by_size(res.flows, "ps_fct_ns", edges)
            for ax, stat in zip(axes, ("mean", "p99")):
                ax.plot(ps["mid"], ps[stat], "k--", lw=1.2, label="PS (fluid ideal)")
            ps_done = True
        done = res.flows[res.flows["completed"].astype(bool)]
        means[scheme] = (
            done["fct_ns"].mean() / done["ps_fct_ns"].mean(),
            float(np.mean(res.flows["completed"])),
            int(res.flows["drops"].sum()),
            int(res.flows["retransmits"].sum()),
        )
    for ax, stat in zip(axes, ("mean", "99th-percentile")):
        style(ax, "flow size (packets)", f"{stat} FCT (s)", title=title, log="xy", legend=ax is axes[0])
    return means


def _table(means: dict) -> Table:
    rows = [[w, s, m, 100 * c, d_, r] for w, d in means.items() for s, (m, c, d_, r) in d.items()]
    return Table(
        title="Mean FCT over PS's mean FCT, per scheme and workload",
        columns=["workload", "scheme", "mean FCT / mean PS FCT", "flows completed (%)", "drops", "retransmissions"],
        rows=rows,
        caption="Both means over the completed flows; PS is the fluid processor-sharing finish of the same flows "
        "(fctlab's ps_fct_ns, max-min on each flow's path).",
    )


@reproduction("modern-tcp-fct", title="CUBIC, DCTCP, BBR, Vegas beside NewReno and SACK: FCT by size against PS")
def modern_tcp_fct(out, scale: str) -> list:
    p = Page("modern-tcp-fct", out, scale)
    counts = COUNTS["full" if p.full else "quick"]
    schemes = available()
    fig1 = {s: p.run(fig1_cfg(s, counts["fig1"]), f"fig1 {s}", warn=False) for s in schemes}
    fab = {s: p.run(fabric_cfg(s, counts["fabric"]), f"websearch {s}", warn=False) for s in schemes}
    fig, axes = p.subplots(2, 2, figsize=(10, 8))
    means = {
        "2006 Fig. 1 workload": _panel(axes[0], fig1, np.logspace(0, 6, 25), "one 2.4 Gb/s link, Pareto, load 0.9"),
        "web search on the leaf-spine": _panel(axes[1], fab, np.logspace(0, 5, 21), "leaf-spine, web search, 0.5"),
    }
    png = p.save(fig)
    k1 = fig1_cfg("tcp-dctcp", 1)["network"]["ecn-threshold"]["k_pkts"]
    missing = [s for s in SCHEMES if s not in schemes]
    caption = (
        "Top: the 2006 FCT paper's Fig. 1 workload (Dukkipati & McKeown, CCR 2006: one 2.4 Gb/s link, RTT "
        "100 ms, Poisson arrivals of Pareto flows, mean 30 packets, shape 1.4, load 0.9, buffer 1 BDP, IW 2 with "
        f"the SYN handshake), {counts['fig1']:,} flows. Bottom: web search (Alizadeh et al., SIGCOMM 2010) "
        f"all-to-all at load {FABRIC_LOAD:g} of each host link on pFabric's leaf-spine (144 hosts, 10/40 Gb/s, "
        f"ECMP, {BUFFER_PKTS}-packet ports, as on the fabric-websearch page), {counts['fabric']:,} flows. Each "
        "TCP with its own defaults (CUBIC: RFC 9438 with HyStart++; DCTCP: RFC 8257, behind a port marking at K "
        f"= C x RTT / 7 = {k1} packets on the link and K = {FABRIC_K} on the fabric, the DCTCP paper's values; "
        "the others over DropTail). Dashed: processor sharing of the same flows, the ideal every scheme is "
        "judged against. Size bins are logarithmic; a bin with fewer than 10 flows is not drawn. On the link the "
        "schemes but Vegas coincide: its flows (mean 30 packets) are short against its bandwidth-delay product "
        f"(about {round(k1 * 7, -2):,.0f} packets) and its buffer holds one product, so they finish in slow start "
        f"(IW 2, doubling per round trip, alike in all of them; drops: "
        f"({', '.join(f'{s} {v[2]}' for s, v in means['2006 Fig. 1 workload'].items())}); the schemes differ "
        "in congestion avoidance and recovery, which these flows barely reach. Vegas leaves slow start when "
        "its RTT rises above the base by gamma, so its largest flows finish later. "
        + (f"Not in this build: {', '.join(missing)}. " if missing else "")
        + 'Chosen (not in either source): the schemes\' defaults and the RFC timers (transport.preset = "rfc"); '
        "the quick scale's flow counts. " + parameters({"schemes": list(schemes)})
    )
    return p.record(
        source="fctlab: Dukkipati & McKeown 2006 Fig. 1 and the fabric web-search workload, for the schemes of today",
        figures=[Figure(png, caption)],
        tables=[_table(means)],
        params={"counts": counts, "fabric_load": FABRIC_LOAD, "dctcp_k_fabric": FABRIC_K, "dctcp_k_link": k1},
        seed=1,
    )

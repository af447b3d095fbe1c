"""Fig. 7, drawn on the Fig. 6 page (``dukkipati2006-fig6``, alias
``dukkipati2006-fig7``): long TCP flows at load 0.8; part of the utilisation
is retransmissions."""

from __future__ import annotations

import numpy as np

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, published, quick_or_full, size_grid, style
from .scenarios import FIG7_FLOWS, FIG7_VARIANTS, SOURCE, fig7_scenario

COLUMNS = [
    "Pareto shape",
    "buffer",
    "utilisation",
    "retransmitted share",
    "retransmitted pkts",
    "drops",
    "mean FCT / PS",
    "median FCT / PS",
    "completed / flows",
]


def per(series, metric: str, every: int):
    """A bottleneck metric of a series, averaged over blocks of `every` samples."""
    u = series[(series["metric"] == metric) & (series["element"] == "bottleneck")]
    n = len(u) // every * every
    t = u["t_ns"].to_numpy()[:n].reshape(-1, every)[:, -1]
    v = u["value"].to_numpy()[:n].reshape(-1, every).mean(axis=1)
    return t, v


def retx_share(res, link: str = "bottleneck") -> float:
    """The retransmitted share of a link's busy time over the whole run (the
    link's totals: serialisation time of RETX-flagged packets over that of
    every packet)."""
    t = res.meta["stats"]["links"][link]
    return t["retx_busy_ns"] / t["busy_ns"] if t["busy_ns"] else 0.0


def _row(shape: float, bdp: float, res) -> list:
    f = res.flows[res.flows["completed"]]
    end = res.flows["start_ns"].max()
    tu, u = per(res.series, "utilization", 1)
    st = res.meta["stats"]
    slow = f["fct_ns"] / f["ps_fct_ns"]
    return [
        f"{shape:g}",
        f"{bdp:g} BDP",
        float(u[(tu > 0.1 * end) & (tu < end)].mean()),
        retx_share(res),
        st["links"]["bottleneck"]["retx_pkts_sent"],
        int(st["packets_dropped"]),
        float(slow.mean()),
        float(np.median(slow)),
        f"{len(f):,} / {len(res.flows):,}",
    ]


def _draw(p: Page, cfg: dict, res) -> str:
    f = res.flows[res.flows["completed"]]
    c, load = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    fig, (b1, b2) = p.subplots(2, 1, figsize=(7.5, 7))
    agg = mean_by_size(f, bins_per_decade=5)
    b1.plot(agg["size_pkts"], agg["mean"] / 1e9, "o-", ms=3, label=f"TCP {captions.scheme(cfg)} (fctlab)")
    L = size_grid(f["size_pkts"].max(), max(f["size_pkts"].min(), 1), 200)
    b1.plot(L, ideal.ps_fct_ns(L * captions.packet_bytes(cfg), c, load, rtt_ns) / 1e9, "k-", lw=1, label="PS")
    style(b1, "flow size (packets)", "average FCT (s)", log="xy")
    tu, u = per(res.series, "utilization", 1)
    tr, ur = per(res.series, "utilization_retx", 1)
    b2.plot(tu / 1e9, u, lw=0.6, label="utilisation per 100 ms")
    b2.plot(tr / 1e9, ur, lw=0.6, label="of which retransmissions")
    b2.axhline(load, color="k", ls=":", lw=0.8, label=f"offered load {load:g}")
    style(b2, "time (s)", "utilisation", ylim=(0, 1.05))
    return p.save(fig, name="dukkipati2006-fig7.png")


def _caption(scale: str, cfg: dict, res, first: list, count: int) -> str:
    g = cfg["traffic"][0]
    mean, shape, load = g["sizes"]["mean_pkts"], g["sizes"]["shape"], g["load"]
    others = sorted({s for s, _ in FIG7_VARIANTS} - {shape})
    bdps = sorted({b for _, b in FIG7_VARIANTS} - {cfg["network"]["buffer_bdp"]})
    params = captions.single_link(cfg)
    params.update(
        {
            "flow sizes": f"Pareto, mean {mean:,} pkts, shape {shape:g} (shape not stated in the paper, chosen; "
            + ", ".join(f"{s:g}" for s in others)
            + " in the table)",
            "flows per run": count,
            "TCP": captions.tcp(cfg),
            "buffer": f"{cfg['network']['buffer_bdp']:g} BDP = {res.meta['stats']['buffer_pkts']:,} pkts (not stated "
            "in the paper, chosen; " + ", ".join(f"{b:g}" for b in bdps) + " BDP in the table)",
            "retransmitted share": "serialisation time of packets the senders flagged as retransmissions over all "
            "busy time of the bottleneck",
            "seed": cfg["seed"],
        }
    )
    pub = published(__file__, "fig7")
    span = count / (load * cfg["network"]["bottleneck_bps"] / (8 * captions.packet_bytes(cfg) * mean))
    return (
        f"{SOURCE}, Fig. 7: long TCP flows (mean {mean:,} packets) at load {load:g}. Top: average FCT by size "
        f"against PS; bottom: utilisation per 100 ms and its retransmitted part. Retransmissions take {first[3]:.2%} "
        f"of the bottleneck's busy time (the paper: {pub['retransmitted_share']:.1%}) at utilisation {first[2]:.2f}; "
        f"the mean FCT is {first[6]:.1f}x PS (the paper: two orders of magnitude). {first[4]:,} packets are resent "
        f"for {first[5]:,} drops: most resends are of packets that were not lost (go-back-N after timeouts, as in "
        "Fig. 6), so the share counts more than the losses. It depends on the unstated buffer and shape (table). "
        f"Scale: {quick_or_full(scale)} ({count:,} flows per run; full: {FIG7_FLOWS['full']:,}); at quick scale the "
        f"run spans only about {span:.0f} s. " + parameters(params)
    )


def fig7_part(p: Page) -> tuple:
    """Fig. 7 and its variants of shape and buffer: the figure, its table and the scenarios run."""
    count = FIG7_FLOWS[quick_or_full(p.scale)]
    rows, ran, drawn = [], {}, None
    for shape, bdp in FIG7_VARIANTS:
        cfg = fig7_scenario(count, shape, bdp)
        res = p.run(cfg, f"fig7 shape {shape:g}, {bdp:g} BDP")
        rows.append(_row(shape, bdp, res))
        ran[f"shape {shape:g}, {bdp:g} BDP"] = cfg
        drawn = drawn or (cfg, res)
    png = _draw(p, *drawn)
    share = published(__file__, "fig7")["retransmitted_share"]
    table = Table(
        title="Fig. 7 set-up: utilisation, retransmissions and FCT (utilisation between the first 10% of arrivals "
        "and the last)",
        columns=COLUMNS,
        rows=rows,
        published=[[None, None, None, share] + [None] * 5] + [[None] * 9] * (len(rows) - 1),
        key_columns=2,
        published_source=f"Fig. 7 text ({share:.1%} of the utilisation)",
    )
    return Figure(png, _caption(p.scale, *drawn, rows[0], count)), table, ran

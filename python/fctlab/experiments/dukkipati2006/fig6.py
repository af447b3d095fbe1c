"""Figs 6 and 7 (one page): TCP's queue and utilisation on the Fig. 2 set-up;
utilisation made partly of retransmissions while flows last far longer than
under PS (Fig. 7, drawn by `.fig7`)."""

from __future__ import annotations

from pathlib import Path

from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, quick_or_full, style
from ..registry import reproduction
from .fig7 import fig7_part, per, retx_share
from .scenarios import FIG6_FLOWS, FIG6_VARIANTS, SOURCE, fig6_scenario

COLUMNS = [
    "buffer",
    "min RTO (ms)",
    "mean queue (pkts)",
    "samples within 10% of full",
    "utilisation",
    "retransmitted share",
    "retransmitted pkts",
    "drops",
    "mean FCT / PS",
]


def _row(cfg: dict, res) -> tuple:
    """The table row of one run, and what is drawn of it: the queue and the
    utilisation (all of it and the retransmitted part) per 100 ms."""
    s = res.series
    q = s[(s["metric"] == "queue_pkts") & (s["element"] == "bottleneck")]
    tu, u = per(s, "utilization", 10)
    retx = per(s, "utilization_retx", 10)
    st = res.meta["stats"]
    limit, end = st["buffer_pkts"], res.flows["start_ns"].max()
    steady = (q["t_ns"] > 0.1 * end) & (q["t_ns"] < end)
    done = res.flows[res.flows["completed"]]
    row = [
        f"{cfg['network']['buffer_bdp']:g} BDP ({limit:,} pkts)",
        f"{cfg['transport']['min_rto_ms']:g}",
        float(q[steady]["value"].mean()),
        float((q[steady]["value"] >= 0.9 * limit).mean()),
        float(u[(tu > 0.1 * end) & (tu < end)].mean()),
        retx_share(res),
        st["links"]["bottleneck"]["retx_pkts_sent"],
        int(st["packets_dropped"]),
        float((done["fct_ns"] / done["ps_fct_ns"]).mean()),
    ]
    return row, q, (tu, u), retx, limit


def _draw(axes, i: int, bdp: float, q, util, retx, limit: int) -> None:
    axes[i].plot(q["t_ns"] / 1e9, q["value"], lw=0.4, color=f"C{i}")
    axes[i].axhline(limit, color="k", ls=":", lw=0.8, label=f"buffer {bdp:g} BDP = {limit:,} pkts")
    style(axes[i], None, "queue (pkts)", loc="upper right")
    axes[2].plot(util[0] / 1e9, util[1], lw=0.6, color=f"C{i}", label=f"utilisation per 100 ms, {bdp:g} BDP")
    axes[2].plot(retx[0] / 1e9, retx[1], lw=0.6, color=f"C{i}", ls="--", label=f"of which retransmissions, {bdp:g} BDP")


def fig6_part(p: Page) -> tuple:
    """Fig. 6 at the chosen buffer of 1 BDP and at 0.1 BDP (and a longer minimum
    RTO in the table): the figure, its table and the scenarios run."""
    count = FIG6_FLOWS[quick_or_full(p.scale)]
    fig, axes = p.subplots(3, 1, figsize=(7.5, 8.5), sharex=True)
    rows, ran = [], {}
    for i, (bdp, rto) in enumerate(FIG6_VARIANTS):
        cfg = fig6_scenario(count, bdp, rto)
        res = p.run(cfg, f"fig6 {bdp:g} BDP, min RTO {rto:g} ms")
        ran[f"fig6, {bdp:g} BDP, min RTO {rto:g} ms"] = cfg
        row, q, util, retx, limit = _row(cfg, res)
        rows.append(row)
        if i < 2:
            _draw(axes, i, bdp, q, util, retx, limit)
    cfg6 = next(iter(ran.values()))
    load = cfg6["traffic"][0]["load"]
    axes[2].axhline(load, color="k", ls=":", lw=0.8, label=f"offered load {load:g}")
    style(axes[2], "time (s)", "utilisation", ylim=(0, 1.05))
    png = p.save(fig)
    table = Table(
        title="Fig. 6 set-up (TCP, Fig. 2's workload); queue and utilisation between the first 10% of arrivals "
        "and the last",
        columns=COLUMNS,
        rows=rows,
        key_columns=2,
    )
    return Figure(png, _caption(p.scale, cfg6, rows, count)), table, ran


def _caption(scale: str, cfg6: dict, rows: list, count: int) -> str:
    big, small, slow_rto = rows
    (b0, r0), (b1, _), (_, r2) = FIG6_VARIANTS
    params = captions.single_link(cfg6)
    params.update(
        {
            "flows": count,
            "TCP": captions.tcp(cfg6),
            "buffer": f"{b0:g} BDP (not stated in the paper, chosen as in Fig. 2); {b1:g} BDP drawn too",
            "samples": "queue every 10 ms, utilisation per 100 ms",
            "seed": cfg6["seed"],
        }
    )
    return (
        f"{SOURCE}, Fig. 6: TCP on the Fig. 2 set-up. Top two: the queue sampled every 10 ms with buffers of {b0:g} "
        f"and {b1:g} BDP; bottom: the utilisation per 100 ms and its retransmitted part. With {b0:g} BDP the queue "
        f"never comes near full ({big[3]:.0%} of the samples within 10% of it, {big[7]:,} drops), yet {big[5]:.1%} of "
        f"the busy time is retransmissions, none of them of lost packets: timeouts of flows whose RTO (the larger of "
        f"{r0:g} ms and srtt + 4 rttvar, which approaches srtt once rttvar has decayed) is hardly above the "
        f"{2 * cfg6['network']['bottleneck_delay_ms']:g} ms RTT, so a few ms of queueing fire it. With a minimum RTO "
        f"of {r2 / 1e3:g} s instead, {slow_rto[6]:,} packets are retransmitted (table). With {b1:g} BDP the queue is "
        f"within 10% of full in {small[3]:.0%} of the samples ({small[7]:,} drops; retransmissions {small[5]:.1%} of "
        "the busy time). The paper's 'stretches for which the queue is consistently full' are not reproduced with "
        "either buffer (the paper does not state its buffer): most flows end in slow start and the load the Pareto "
        f"sample offers is below the nominal {cfg6['traffic'][0]['load']:g} (see Fig. 2), so the utilisation stays "
        f"near {big[4]:.2f}. Scale: {quick_or_full(scale)} ({count:,} flows per run; full: {FIG6_FLOWS['full']:,}). "
        + parameters(params)
    )


@reproduction(
    "dukkipati2006-fig6",
    title="TCP fills buffers; retransmissions inflate utilisation (2006, Figs 6 and 7)",
    aliases=("dukkipati2006-fig7",),
)
def fig6(out: Path, scale: str) -> list:
    """Figs 6 and 7: TCP's queue and utilisation (the Fig. 2 set-up); utilisation
    made partly of retransmissions while flows last far longer than under PS."""
    p = Page("dukkipati2006-fig6", out, scale)
    f6, t6, ran6 = fig6_part(p)
    f7, t7, ran7 = fig7_part(p)
    return p.record(
        source=f"{SOURCE}, Figs 6 and 7",
        figures=[f6, f7],
        tables=[t6, t7],
        params={**ran6, **ran7},
        seed=next(iter(ran6.values()))["seed"],
    )

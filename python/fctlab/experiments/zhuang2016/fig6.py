"""The RCP figure on two hosts and one router, both Pareto readings; RCP with data sent with the SYN."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure, Table
from .. import captions
from ..dukkipati2006.scenarios import FIG12_SIZES
from ..page import Page, quick_or_full, size_grid, style
from ..registry import reproduction
from .fig6_text import data_with_syn_caption, figure_caption
from .scenarios import (
    ACCESS_VARIED,
    FLOWS,
    RUNS,
    SHORT_MEAN,
    SINGLE_LINK,
    SOURCE,
    TWO_HOSTS,
    short_flows_scenario,
    single_link_scenario,
    two_host_scenario,
)

COLUMNS = [
    "Pareto reading",
    "scheme",
    "set-up",
    "mean FCT / PS",
    "smallest tenth of the flows: mean FCT / PS",
    "smallest tenth below PS",
    "lowest size bin: mean FCT / PS",
    "realised load",
    "completed / flows",
]
MARKS = "os^v<"


def ps_formula(cfg: dict, sizes_pkts):
    """The analytic PS FCT (1.5 RTT + L/(C(1 - rho))) of flows of these sizes in ``cfg``'s workload."""
    c, rho = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    return ideal.ps_fct_ns(sizes_pkts * captions.packet_bytes(cfg), c, rho, rtt_ns)


def with_ps(f, cfg: dict):
    """The flows ``f`` with the analytic PS FCT of their size (column ``ps_formula``)."""
    return f.assign(ps_formula=ps_formula(cfg, f["size_pkts"].to_numpy()))


def smallest_tenth(f):
    """The smallest tenth of the flows (by size; ties included)."""
    return f["size_pkts"] <= f["size_pkts"].quantile(0.1)


def lowest_bin(f) -> float:
    """The lowest, over size bins (4 per decade), of mean FCT over mean analytic PS FCT."""
    a, p = mean_by_size(f, bins_per_decade=4), mean_by_size(f, value="ps_formula", bins_per_decade=4)
    return float((a["mean"] / p["mean"]).min())


def realised_load(res, cfg) -> float:
    """Bytes on the wire the run's flows offered, over C times the span of their arrivals."""
    f = res.flows
    wire = float((f["size_bytes"] + cfg["transport"]["header_bytes"] * f["size_pkts"]).sum()) * 8
    return wire / cfg["network"]["bottleneck_bps"] / ((f["start_ns"].max() - f["start_ns"].min()) / 1e9)


def below_ps(flows, cfg: dict) -> float:
    """Share of the smallest tenth of the completed flows whose FCT is below
    the analytic PS FCT of their size."""
    f = flows[flows["completed"]]
    g = with_ps(f[smallest_tenth(f)], cfg)
    return float((g["fct_ns"] < g["ps_formula"]).mean()) if len(g) else float("nan")


def _row(reading: str, label: str, where: str, cfg: dict, res):
    """The table row of one run, and its completed flows with their PS FCT."""
    f = with_ps(res.flows[res.flows["completed"]], cfg)
    small = f[smallest_tenth(f)]
    row = [
        reading,
        label,
        where,
        float(f["fct_ns"].mean() / f["ps_formula"].mean()),
        float(small["fct_ns"].mean() / small["ps_formula"].mean()),
        below_ps(res.flows, cfg),
        lowest_bin(f),
        realised_load(res, cfg),
        f"{len(f):,} / {len(res.flows):,}",
    ]
    return row, f


def _reading(p: Page, ax_fct, ax_ratio, sizes: tuple, count: int, ran: dict) -> list:
    """Every run of one Pareto reading: drawn, and its table rows."""
    mean_pkts, shape, whose = sizes
    reading = f"{whose}: mean {captions.num(mean_pkts)}, shape {captions.num(shape)}"
    rows, top = [], 10
    for k, (label, tr, queue, mode, dws) in enumerate(RUNS):
        cfg = two_host_scenario(tr, queue, mode, dws, mean_pkts, shape, count)
        ran[f"{label}, {reading}"] = cfg
        res = p.run(cfg, f"{label} ({reading})")
        row, f = _row(reading, label, TWO_HOSTS, cfg, res)
        rows.append(row)
        agg = mean_by_size(f)
        ax_fct.plot(agg["size_pkts"], agg["mean"] / 1e9, MARKS[k] + "-", ms=3, lw=0.9, label=label)
        top = max(top, float(agg["size_pkts"].max()))
        if mode is not None:
            a, ps = mean_by_size(f, bins_per_decade=4), mean_by_size(f, value="ps_formula", bins_per_decade=4)
            ax_ratio.plot(a["size_pkts"], a["mean"] / ps["mean"], MARKS[k] + "-", ms=3, lw=0.9, label=label)
    # The same RCP on the single link (fctlab's Fig. 12 set-up), and the access link varied once.
    label = RUNS[1][0]
    varied = f"two hosts, access = {captions.num(ACCESS_VARIED)} x C"
    for where, cfg in (
        (SINGLE_LINK, single_link_scenario(mean_pkts, shape, count)),
        (varied, two_host_scenario({"scheme": "rcp"}, "rcp", "ns2", False, mean_pkts, shape, count, ACCESS_VARIED)),
    ):
        ran[f"{label}, {reading}, {where}"] = cfg
        rows.append(_row(reading, label, where, cfg, p.run(cfg, f"{label} ({reading}, {where})"))[0])
    _style_reading(ax_fct, ax_ratio, cfg, reading, top)
    return rows


def _style_reading(ax_fct, ax_ratio, cfg: dict, reading: str, top: float) -> None:
    rtt_s = 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3
    L = size_grid(top)
    ps = ps_formula(cfg, L) / 1e9
    ax_fct.plot(L, ps, "k-", lw=1, label="PS, 1.5 RTT + L/(C(1-rho))")
    ax_fct.plot(L, ps - rtt_s, "k--", lw=1, label="PS without the handshake, 0.5 RTT + L/(C(1-rho))")
    style(ax_fct, "flow size (packets)", "average FCT (s)", title=reading, log="xy")
    ax_ratio.axhline(1, color="k", lw=0.8)
    ax_ratio.axhline(0.5 / 1.5, color="k", ls="--", lw=0.8, label="a 1-packet flow without the handshake")
    ax_ratio.set_xscale("log")
    style(ax_ratio, "flow size (packets)", "mean FCT / PS FCT (analytic)", title=reading, log="x")


def _short_flows(p: Page, ax, count: int, ran: dict) -> dict:
    """Where data with the SYN matters: the same link and load with short flows."""
    short = {}
    for dws in (False, True):
        cfg = short_flows_scenario(dws, count)
        label = "RCP, mode ns2" + (", data with the SYN" if dws else "")
        ran[f"{label}, exponential sizes of mean {SHORT_MEAN}"] = cfg
        res = p.run(cfg, f"{label} (exponential, mean {SHORT_MEAN})")
        f = with_ps(res.flows[res.flows["completed"]], cfg)
        by_l = f.groupby("size_pkts").agg(fct=("fct_ns", "mean"), ps=("ps_formula", "mean"), n=("fct_ns", "size"))
        by_l = by_l[by_l["n"] >= 20]
        ax.plot(by_l.index, by_l["fct"] / by_l["ps"], "s-" if dws else "o-", ms=3, lw=0.9, label=label)
        one = f[f["size_pkts"] == 1]
        short[dws] = (
            float(one["fct_ns"].mean() / one["ps_formula"].mean()),
            float((f["fct_ns"] / f["ps_formula"]).mean()),
        )
    ax.axhline(1, color="k", lw=0.8)
    ax.axhline(1 / 3, color="k", ls="--", lw=0.8, label="a 1-packet flow without the handshake")
    style(ax, "flow size (packets)", None, title=f"exponential sizes, mean {SHORT_MEAN} packets", log="x")
    return short


@reproduction("zhuang2016-fig6", title="The RCP figure on two hosts and one router; data with the SYN (CS244 2016)")
def fig6(out: Path, scale: str) -> list:
    """The RCP figure on two hosts and one router, both Pareto readings; RCP with data sent with the SYN."""
    p = Page("zhuang2016-fig6", out, scale)
    count = FLOWS[quick_or_full(scale)]
    figa, axa = p.subplots(1, len(FIG12_SIZES), figsize=(11.5, 4.5), squeeze=False)
    figb, axb = p.subplots(1, len(FIG12_SIZES) + 1, figsize=(15, 4.2), squeeze=False)
    rows, ran = [], {}
    for j, sizes in enumerate(FIG12_SIZES):
        rows += _reading(p, axa[0, j], axb[0, j], sizes, count, ran)
    short = _short_flows(p, axb[0, len(FIG12_SIZES)], count, ran)
    png_a = p.save(figa)
    for a in axb[0]:
        a.set_yscale("log")
    png_b = p.save(figb, "-data-with-syn")
    table = Table(
        title="Mean FCT over the analytic PS FCT (all flows; the smallest tenth of the flows by size), and the share "
        "of those small flows that finish faster than PS",
        columns=COLUMNS,
        rows=rows,
        key_columns=3,
    )
    return p.record(
        source=SOURCE,
        figures=[
            Figure(png_a, figure_caption(rows, ran, scale, count)),
            Figure(png_b, data_with_syn_caption(rows, ran, short)),
        ],
        tables=[table],
        params=ran,
        seed=1,
        notes="The report calls the figure it reproduces 'Figure (6)'; it is the RCP figure of Dukkipati & "
        "McKeown, CCR 2006 (Fig. 12 there).",
    )

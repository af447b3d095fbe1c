"""Fig. 2: TCP and XCP with Poisson arrivals: FCT by size, flows in progress, utilisation."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, quick_or_full, size_grid, style
from ..registry import reproduction
from .scenarios import FIG2_FLOWS, FIG2_SCHEMES, SOURCE, fig2_scenario

BUFFERS_BDP = (1.0, 0.1)  # the first is drawn


def bottleneck(series, metric: str):
    return series[(series["metric"] == metric) & (series["element"] == "bottleneck")]


def realised_load(flows, cfg: dict) -> float:
    """The load the sampled flows actually offered: bytes on the wire over C
    times the span of their arrivals. A Pareto law of shape 1.2 has infinite
    variance, so a finite sample's mean size falls short of the nominal one and
    so does the realised load."""
    wire = float((flows["size_bytes"] + cfg["transport"]["header_bytes"] * flows["size_pkts"]).sum()) * 8
    span = (flows["start_ns"].max() - flows["start_ns"].min()) / 1e9
    return wire / cfg["network"]["bottleneck_bps"] / span


def _row(name: str, bdp: float, cfg: dict, res) -> list:
    f, s = res.flows, res.series
    act, util = s[s["metric"] == "active_flows"], bottleneck(s, "utilization")
    end = f["start_ns"].max()
    steady = (util["t_ns"] > 0.1 * end) & (util["t_ns"] < end)
    asteady = (act["t_ns"] > 0.1 * end) & (act["t_ns"] < end)
    return [
        name,
        f"{bdp:g} BDP",
        float(f["fct_ns"].mean() / 1e9),
        float((f["fct_ns"] / f["ps_fct_ns"]).mean()),
        float(act[asteady]["value"].mean()),
        float(util[steady]["value"].mean()),
        realised_load(f, cfg),
    ]


def _runs(p: Page, axes, count: int):
    """Each scheme at each buffer; the 1 BDP runs drawn. Returns the table rows,
    the drawn runs' scenarios and the largest flow size drawn."""
    a1, a2, a3 = axes
    rows, ran, top = [], {}, 10
    for (name, scheme, queue), mark in zip(FIG2_SCHEMES, ("o-", "s-")):
        for bdp in BUFFERS_BDP:
            cfg = fig2_scenario(scheme, queue, count, bdp)
            res = p.run(cfg, f"fig2 {name}, {bdp:g} BDP")
            rows.append(_row(name, bdp, cfg, res))
            if bdp != BUFFERS_BDP[0]:
                continue
            ran[name] = cfg
            agg, s = mean_by_size(res.flows), res.series
            a1.plot(agg["size_pkts"], agg["mean"] / 1e9, mark, ms=3, label=name)
            top = max(top, float(agg["size_pkts"].max()))
            act, util = s[s["metric"] == "active_flows"], bottleneck(s, "utilization")
            a2.plot(act["t_ns"] / 1e9, act["value"], lw=0.6, label=name)
            a3.plot(util["t_ns"] / 1e9, util["value"], lw=0.6, label=name)
    return rows, ran, top


def _bounds(ax, cfg: dict, top: float) -> None:
    c, load = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns, pkt = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6, captions.packet_bytes(cfg)
    iw = cfg["transport"]["init_cwnd_pkts"]
    L = size_grid(top)
    ax.plot(L, ideal.ps_fct_ns(L * pkt, c, load, rtt_ns) / 1e9, "k-", lw=1, label="PS")
    ss = ideal.slow_start_fct_ns(L, c, rtt_ns, pkt_bytes=pkt, init_cwnd_pkts=iw) / 1e9
    ax.plot(L, ss, "k--", lw=1, label=f"slow start from IW {captions.num(iw)} (no queueing)")


TABLE_COLUMNS = [
    "scheme",
    "buffer",
    "mean FCT (s)",
    "mean FCT / PS FCT",
    "active flows",
    "utilisation",
    "realised load",
]


@reproduction("dukkipati2006-fig2", title="TCP and XCP: FCT, active flows and utilisation (2006, Fig. 2)")
def fig2(out: Path, scale: str) -> list:
    """Fig. 2: TCP's and XCP's average FCT by size, active flows and utilisation per 100 ms."""
    p = Page("dukkipati2006-fig2", out, scale)
    count = FIG2_FLOWS[quick_or_full(scale)]
    fig, axes = p.subplots(3, 1, figsize=(7.5, 10))
    rows, ran, top = _runs(p, axes, count)
    tcp = ran["TCP NewReno"]
    interval = captions.num(tcp["metrics"]["interval_ms"])
    _bounds(axes[0], tcp, top)
    style(axes[0], "flow size (packets)", "average FCT (s)", log="xy")
    style(axes[1], "time (s)", "active flows")
    style(axes[2], "time (s)", f"utilisation per {interval} ms", ylim=(0, 1.05))
    png = p.save(fig)
    params = captions.single_link(tcp)
    params.update(
        {
            "flows per run": count,
            "TCP": captions.tcp(tcp),
            "XCP": f"xcp hosts and routers ({captions.table(ran['XCP'], 'network.xcp', ('alpha', 'beta', 'gamma'))})",
            "buffer": f"{captions.num(BUFFERS_BDP[0])} BDP (not stated in the paper, chosen; "
            f"{captions.num(BUFFERS_BDP[1])} BDP in the table)",
            "utilisation": f"busy time per {interval} ms",
            "seed": tcp["seed"],
        }
    )
    table = Table(
        title="Means over the run (active flows and utilisation after the first 10% of arrivals)",
        columns=TABLE_COLUMNS,
        rows=rows,
        key_columns=2,
    )
    one = {r[0]: r for r in rows if r[1] == f"{BUFFERS_BDP[0]:g} BDP"}
    g = tcp["traffic"][0]
    caption = (
        f"{SOURCE}, Fig. 2: TCP and XCP with Poisson arrivals. Top: average FCT by flow size against PS and the "
        f"slow-start bound; middle: flows in progress; bottom: utilisation per {interval} ms. Most TCP flows never "
        "leave slow start, so their FCT follows the slow-start bound; XCP starts flows slowly and holds more of them: "
        + "; ".join(
            f"{k}: {v[4]:.0f} active flows on average, utilisation {v[5]:.2f}, mean FCT {v[3]:.1f}x PS"
            for k, v in one.items()
        )
        + f". Utilisation stays below the nominal load {g['load']:g} because the sampled flows offer only "
        f"{one['TCP NewReno'][6]:.2f} of the link (the sample mean of a Pareto law of shape "
        f"{g['sizes']['shape']:g} falls short of its mean); the largest flows outlast the arrivals. The buffer "
        f"hardly matters here (table). Scale: {quick_or_full(scale)} ({count:,} flows per run; full: "
        f"{FIG2_FLOWS['full']:,}). {parameters(params)}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. 2", figures=[Figure(png, caption)], tables=[table], params=ran, seed=tcp["seed"]
    )

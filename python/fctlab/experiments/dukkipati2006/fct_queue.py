"""The runs and figures shared by the pages of Figs 8-9 and 10-11: each
configuration of the HighSpeed TCP set-up for both Pareto shapes, average FCT
by size and the bottleneck queue over time."""

from __future__ import annotations

from ... import ideal
from ...plots import mean_by_size
from ...report import Table
from .. import captions
from ..page import Page, quick_or_full, size_grid, style
from .scenarios import FIG10_FLOWS, FIG10_SHAPES, fig10_scenario

COLUMNS = [
    "configuration",
    "Pareto shape",
    "mean FCT (s)",
    "mean FCT, smaller half (s)",
    "mean FCT / PS",
    "mean queue (pkts)",
    "drops",
    "ECN marks",
]


def _row(name: str, shape: float, res) -> tuple:
    f, s = res.flows, res.series
    q = s[(s["metric"] == "queue_pkts") & (s["element"] == "bottleneck")]
    st = res.meta["stats"]
    small = f[f["size_pkts"] <= f["size_pkts"].median()]
    row = [
        name,
        f"{shape:g}",
        float(f["fct_ns"].mean() / 1e9),
        float(small["fct_ns"].mean() / 1e9),
        float((f["fct_ns"] / f["ps_fct_ns"]).mean()),
        float(q["value"].mean()),
        int(st["packets_dropped"]),
        int(st["marks"]),
    ]
    return row, q


def _bounds(ax, cfg: dict, top: float) -> None:
    c, load = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns, pkt = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6, captions.packet_bytes(cfg)
    iw = cfg["transport"]["init_cwnd_pkts"]
    L = size_grid(top)
    ax.plot(L, ideal.ps_fct_ns(L * pkt, c, load, rtt_ns) / 1e9, "k-", lw=1, label="PS")
    ss = ideal.slow_start_fct_ns(L, c, rtt_ns, pkt_bytes=pkt, init_cwnd_pkts=iw) / 1e9
    ax.plot(L, ss, "k--", lw=1, label=f"slow start from IW {captions.num(iw)} (no queueing)")


def fct_queue_runs(p: Page, configs, fig_fct: str, fig_queue: str):
    """Run each configuration for both Pareto shapes; draw average FCT by size
    and the queue over time. Returns the two PNGs, the table rows, the
    scenarios run (first shape), and the flow count."""
    count = FIG10_FLOWS[quick_or_full(p.scale)]
    f10, ax = p.subplots(figsize=(7, 4.5))
    f11, qax = p.subplots(len(configs), 1, figsize=(7, 2.4 * len(configs) + 0.5), sharex=True)
    rows, ran, top = [], {}, 10
    for shape in FIG10_SHAPES:
        for i, (name, tr, net) in enumerate(configs):
            cfg = fig10_scenario(tr, net, shape, count)
            res = p.run(cfg, f"{fig_fct} {name}, shape {shape:g}")
            row, q = _row(name, shape, res)
            rows.append(row)
            if shape != FIG10_SHAPES[0]:
                continue
            ran[name] = cfg
            agg = mean_by_size(res.flows)
            ax.plot(agg["size_pkts"], agg["mean"] / 1e9, ("o-", "s-", "^-")[i], ms=3, label=name)
            top = max(top, float(agg["size_pkts"].max()))
            qax[i].plot(q["t_ns"] / 1e9, q["value"], lw=0.5, color=f"C{i}")
            style(qax[i], None, "queue (pkts)", title=name, legend=False)
    _bounds(ax, next(iter(ran.values())), top)
    style(ax, "flow size (packets)", "average FCT (s)", log="xy")
    qax[-1].set_xlabel("time (s)")
    pngs = (p.save(f10, name=f"dukkipati2006-{fig_fct}.png"), p.save(f11, name=f"dukkipati2006-{fig_queue}.png"))
    return (*pngs, rows, ran, count)


def fct_queue_params(cfg: dict, count: int) -> dict:
    pkt = captions.packet_bytes(cfg)
    bdp = cfg["network"]["bottleneck_bps"] * 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3 / 8 / pkt
    g = cfg["traffic"][0]
    params = captions.single_link(cfg)
    params.update(
        {
            "flow sizes": f"Pareto, mean {g['sizes']['mean_pkts']} pkts, shape {FIG10_SHAPES[0]:g} (not stated in the "
            f"paper, chosen; {FIG10_SHAPES[1]:g} in the table)",
            "buffer": f"{cfg['network']['buffer_bdp']:g} BDP = {bdp:,.0f} pkts (the paper)",
            "flows per run": count,
            "HSTCP": captions.table(cfg, "transport.hstcp", ("low_window", "high_window", "high_p", "high_decrease")),
            "TCP": captions.tcp(cfg),
            "seed": cfg["seed"],
        }
    )
    return params


def summary(rows: list) -> tuple:
    """The first shape's rows by configuration, and the caption's summary of them."""
    by = {r[0]: r for r in rows if r[1] == f"{FIG10_SHAPES[0]:g}"}
    text = "; ".join(
        f"{k}: mean FCT {v[2]:.2f} s, the smaller half of the flows {v[3]:.2f} s, mean queue {v[5]:.0f} pkts"
        for k, v in by.items()
    )
    return by, text


def means_table(rows: list) -> Table:
    return Table(title="Means over the run", columns=COLUMNS, rows=rows, key_columns=2)


def scaled(scale: str, count: int) -> str:
    return f"{quick_or_full(scale)}: {count:,} flows per run (full: {FIG10_FLOWS['full']:,})"

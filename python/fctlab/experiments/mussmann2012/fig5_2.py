"""Fig. 5.2: FCT by size on 2.4 Gb/s, 100 ms, Pareto sizes with marker flows
(RCP's home turf), and the share of the TCP-to-RCP gap each change closes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ... import ideal
from ...report import Figure
from ..page import Page, run, style
from ..registry import reproduction
from .fig5_2_text import caption, fig52_notes, gap_table, points_table
from .scenarios import (
    FIG52_ALPHA,
    FIG52_BUFFER_ALT,
    FIG52_BUFFER_BDP,
    FIG52_C_BPS,
    FIG52_LOAD,
    FIG52_MIN_FLOWS,
    FIG52_MIN_MARKER_FLOWS,
    FIG52_QS,
    FIG52_RATE,
    FIG52_RCP_ALT,
    FIG52_RTT_S,
    FIG52_SCALE,
    PKT_BYTES,
    PROTOCOLS,
    SOURCE,
    fig52_chunk,
)

#: The marker flows' sizes (packets): 100, 125, ..., 1075.
MARKER_SIZES = np.arange(100, 1076, 25)
#: The smaller flows drawn (packets): those Pareto sizes give enough of.
SMALL_SIZES = np.arange(1, 214)


def _slug(name: str) -> str:
    return name.lower().replace(" ", "-")


def fig52_stats(
    name: str,
    transport: dict,
    network: dict,
    flows: int,
    chunks: int,
    warm_s: float,
    cool_s: float,
    buffer_bdp: float = FIG52_BUFFER_BDP,
    store=None,
    workers=None,
    progress: bool = True,
):
    """The merged size_stats of ``chunks`` chunks counting ``flows`` flows in
    all (Poisson: the expected number), and the chunk configs. With ``store``
    the chunks run as a sweep into that results store (in parallel, resumable:
    chunks already stored are not run again); without it, one after another here."""
    from ... import sizestats

    count_s = flows / chunks / FIG52_RATE
    cfgs = [
        fig52_chunk(
            transport, network, seed=c + 1, count_s=count_s, warm_s=warm_s, cool_s=cool_s, buffer_bdp=buffer_bdp
        )
        for c in range(chunks)
    ]
    if store is None:
        tables = [run(c, warn=False).size_stats for c in cfgs]
    else:
        from ...sweep import run_sweep

        base = dict(cfgs[0])
        base.pop("seed")
        tag = f"{_slug(name)}-buffer{buffer_bdp:g}-{flows}"
        res = run_sweep(
            {"name": f"mussmann2012-fig5-2-{tag}", "base": base, "seeds": list(range(1, chunks + 1))},
            store=store,
            workers=workers,
            progress=progress,
        )
        tables = [res.store.get(r.key).size_stats for p in res.points for r in p.runs]
    return sizestats.merge(tables, alpha=FIG52_ALPHA, quantiles=FIG52_QS), cfgs


def _runs(sc: dict, store) -> tuple:
    """Each protocol at the chosen buffer and at the varied one, and RCP with
    alpha 0.1: their merged statistics and the first chunk's scenarios."""
    stats, cfgs, alt = {}, {}, {}
    common = (sc["warm_s"], sc["cool_s"])
    for name, tp, net in PROTOCOLS:
        print(f"  {name}: {sc['flows']:,} flows in {sc['chunks']} chunk(s)", flush=True)
        stats[name], c = fig52_stats(name, tp, net, sc["flows"], sc["chunks"], *common, store=store)
        cfgs[name] = c[0]
        alt[name], _ = fig52_stats(
            name, tp, net, sc["alt_flows"], sc["alt_chunks"], *common, buffer_bdp=FIG52_BUFFER_ALT, store=store
        )
    rcp_alt, _ = fig52_stats(*FIG52_RCP_ALT, sc["alt_flows"], sc["alt_chunks"], *common, store=store)
    return stats, cfgs, alt, rcp_alt


def _draw(p: Page, stats: dict, min_flows: int) -> str:
    fig, axes = p.subplots(2, 2, figsize=(11, 7.5))
    for name, t in stats.items():
        ok = t[t["flows_completed"] >= min_flows]
        okm = t[t["flows_completed"] >= FIG52_MIN_MARKER_FLOWS[p.scale]]
        lo = ok[ok["size_pkts"] <= SMALL_SIZES[-1]]
        hi = okm[(okm["size_pkts"] >= MARKER_SIZES[0]) & ((okm["size_pkts"] - MARKER_SIZES[0]) % 25 == 0)]
        for j, col in enumerate(("p50_fct_ns", "p99_fct_ns")):
            axes[j, 0].plot(lo["size_pkts"], lo[col] / 1e6, lw=1, label=name)
            axes[j, 1].plot(hi["size_pkts"], hi[col] / 1e6, lw=1, marker=".", ms=3, label=name)
    rtt_ns = FIG52_RTT_S * 1e9
    for ax, k in ((axes[0, 0], SMALL_SIZES), (axes[0, 1], MARKER_SIZES)):
        for iw, ls in ((2, ":"), (10, "--")):
            b = ideal.slow_start_fct_ns(k, FIG52_C_BPS, rtt_ns, pkt_bytes=PKT_BYTES, init_cwnd_pkts=iw, handshake=True)
            ax.plot(k, b / 1e6, "k" + ls, lw=0.8, label=f"slow start, IW {iw}")
    for ax, k in ((axes[0, 0], SMALL_SIZES), (axes[0, 1], MARKER_SIZES)):
        ps = ideal.ps_fct_ns(k * PKT_BYTES, FIG52_C_BPS, FIG52_LOAD, rtt_ns, handshake=True) / 1e6
        ax.plot(k, ps, color="0.5", lw=0.8, label="PS (mean)")
    titles = (
        ("(a) median, smaller flows", "(b) median, larger flows (marker sizes)"),
        ("(c) 99th percentile, smaller flows", "(d) 99th percentile, larger flows (marker sizes)"),
    )
    for j in range(2):
        for i in range(2):
            what = "median" if j == 0 else "99th percentile"
            style(axes[j, i], "flow size (packets of 1 KB)", f"{what} FCT (ms)", title=titles[j][i], legend_size=6)
    return p.save(fig)


@reproduction(
    "mussmann2012-fig5-2",
    title="RCP's home turf: FCT by size with Pareto flows (Mussmann 2012, Fig. 5.2)",
    aliases=("mussmann2012-fig5.2",),
)
def fig52(out: Path, scale: str, *, store=None) -> list:
    """Fig. 5.2: FCT by size on 2.4 Gb/s, 100 ms, Pareto sizes with marker flows."""
    p = Page("mussmann2012-fig5-2", out, scale)
    sc = FIG52_SCALE[scale]
    if scale == "full" and store is None:
        store = Path(out) / "mussmann2012-fig5-2-store"
    min_flows = FIG52_MIN_FLOWS[scale]
    stats, cfgs, alt, rcp_alt = _runs(sc, store)
    png = _draw(p, stats, min_flows)
    gap, gap_rows = gap_table(stats, alt, rcp_alt, min_flows if scale == "full" else 1)
    return p.record(
        source=f"{SOURCE}, Fig. 5.2",
        figures=[Figure(png, caption(stats, cfgs["TCP"], sc, scale))],
        tables=[gap, points_table(stats, alt)],
        params=cfgs,
        seed=list(range(1, sc["chunks"] + 1)),
        notes=fig52_notes(gap_rows, scale),
    )

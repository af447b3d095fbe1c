"""The 2006 paper's Fig. 1 workload at 10^6 flows (quick) or 10^7 (full), run as
10 independent replications in parallel and merged with 95% Student-t
confidence intervals on the mean and 99th-percentile FCT by flow size."""

from __future__ import annotations

import time
from pathlib import Path

from ... import ideal
from ... import replicate as rep
from ...plots import ci_errorbar
from ...report import Figure, Table
from .. import captions
from ..dukkipati2006.scenarios import SOURCE, fig1_scenario
from ..page import Page, parameters, quick_or_full, size_grid, style
from ..registry import reproduction

REPLICATIONS = 10
FLOWS = {"quick": 1_000_000, "full": 10_000_000}


def _draw(p: Page, cfg: dict, summ) -> str:
    fig, ax = p.subplots(figsize=(7, 4.5))
    for stat, mark, label in (("mean", "o-", "mean FCT"), ("p99", "s--", "99th-percentile FCT")):
        ci_errorbar(
            ax,
            summ["size_pkts"],
            summ[stat],
            summ[f"{stat}_lo"],
            summ[f"{stat}_hi"],
            1e9,
            fmt=mark,
            ms=3,
            capsize=2,
            label=f"TCP {captions.scheme(cfg)}, {label} (95% CI)",
        )
    L = size_grid(max(summ["size_pkts"].max(), 10))
    c, rho = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    ps = ideal.ps_fct_ns(L * captions.packet_bytes(cfg), c, rho, rtt_ns) / 1e9
    ax.plot(L, ps, "-", label="PS, 1.5 RTT + L/(C(1-rho))")
    style(ax, "flow size (packets)", "FCT (s)", log="xy")
    return p.save(fig)


def _table(summ) -> Table:
    rows = []
    for _, row in summ.iterrows():
        ci = {
            s: f"{row[s] / 1e6:.1f} [{row[s + '_lo'] / 1e6:.1f}, {row[s + '_hi'] / 1e6:.1f}]" for s in ("mean", "p99")
        }
        rows.append(
            [f"{row['size_lo_pkts']:.0f}-{row['size_hi_pkts']:.0f}", int(row["n_flows"]), ci["mean"], ci["p99"]]
        )
    return Table(
        title=f"FCT by flow size (ms): estimate [95% CI] over {REPLICATIONS} replications",
        columns=["size (pkts)", "flows", "mean", "p99"],
        rows=rows,
        caption="Estimate = average of the per-replication statistic; interval = Student t over the "
        f"{REPLICATIONS} replications.",
    )


@reproduction("replicated-fig1-workload", title="The Fig. 1 workload as 10 replications, with confidence intervals")
def replicated(out: Path, scale: str) -> list:
    """The Fig. 1 workload as 10 independent replications in parallel, merged
    with 95% confidence intervals on the mean and 99th-percentile FCT by size."""
    p = Page("replicated-fig1-workload", out, scale)
    k = REPLICATIONS
    cfg = fig1_scenario(FLOWS[quick_or_full(scale)])
    total = cfg["traffic"][0]["count"]
    cfg["metrics"] = {"series": False}
    t0 = time.monotonic()
    r = rep.replicate(cfg, k, progress=True)
    wall = time.monotonic() - t0
    summ = r.summary()
    png = _draw(p, cfg, summ)
    params = {"flows": f"{total:,} in {k} replications of {total // k:,}"}
    params.update(captions.single_link(cfg))
    params.update(
        {
            "TCP": captions.tcp(cfg),
            "replication seeds": f"fctlab.replicate.replication_seed({cfg['seed']}, r), r = 0..{k - 1}",
        }
    )
    caption = (
        f"{SOURCE}, Fig. 1 workload as {k} independent replications ({int(r.flows['completed'].sum()):,} flows "
        "completed), run in parallel and merged: mean and 99th-percentile FCT by flow size with 95% confidence "
        f"intervals. Scale: {quick_or_full(scale)} ({total:,} flows). {parameters(params)}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. 1 workload",
        title=f"{total:,} TCP flows as {k} replications, with confidence intervals",
        figures=[Figure(png, caption)],
        tables=[_table(summ)],
        params={"scenario": cfg, **params},
        seed=cfg["seed"],
        wall_s=wall,
    )

"""Fig. 12: average and maximum FCT by flow size for TCP, XCP and RCP against PS,
for both readings of the Pareto sizes."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure
from .. import captions
from ..page import Page, parameters, published, quick_or_full, size_grid, style
from ..registry import reproduction
from .scenarios import FIG12_FLOWS, FIG12_SCHEMES, FIG12_SIZES, SOURCE, announced, fig12_scenario

MARKS = ("o-", "s-", "^-", "v--")


#: The sizes (packets, from and below) read as the paper's "flows around 2000 packets" (chosen).
NEAR = (1000, 3000)


def near_text(near: dict, cfg: dict) -> str:
    """The paper's ratios for flows near its size, as measured (``cfg``: a scenario of the reading)."""
    pub, (lo, hi) = published(__file__, "fig12"), NEAR
    tcp, xcp = near["TCP NewReno"], near["XCP"]
    rate, syn = announced(cfg)
    parts = []
    for rcp in ("RCP", "RCP, mode ns2 (the released patch)"):
        r = near[rcp][0]
        what = "the default RCP (mode ps)" if rcp == "RCP" else "RCP in mode ns2"
        parts.append(f"against {what}: TCP {tcp[0] / r:.1f}x, XCP {xcp[0] / r:.1f}x")
    return (
        f"Flows of {lo}-{hi - 1} packets ({tcp[1]:,} of them; the paper, flows around {pub['near_size_pkts']} "
        f"packets: TCP about {pub['tcp_over_rcp']}x and XCP about {pub['xcp_over_rcp']}x RCP), mean FCT "
        + "; ".join(parts)
        + f". About {rate:,.0f} flows arrive per second, so about {syn:,.0f} are between their SYN and their first "
        "data packet at any time; RCP's routers in mode ps count such an announced flow only as far as "
        "announcements outnumber departures within the mean time a flow sends, beyond their noise (counting them all "
        f"would hold R near C/{syn:.0f}), and the released patch's router "
        "(mode ns2) uses the rate equation alone: both are close to PS (see dukkipati2006-rcp-sensitivity)."
    )


def _run_scheme(p: Page, axes, name: str, cfg: dict, mark: str, label: str) -> tuple:
    res = p.run(cfg, f"fig12 {name} ({label})")
    agg = mean_by_size(res.flows)
    done = res.flows[res.flows["completed"]]
    lo, hi = NEAR
    near = done[(done["size_pkts"] >= lo) & (done["size_pkts"] < hi)]
    axes[0].plot(agg["size_pkts"], agg["mean"] / 1e9, mark, ms=3, label=name)
    axes[1].plot(agg["size_pkts"], agg["max"] / 1e9, mark, ms=3, label=name)
    near_mean = (float(near["fct_ns"].mean()) if len(near) else float("nan"), len(near))
    return near_mean, float(agg["size_pkts"].max())


def _params(ran: dict, whose: str, count: int) -> dict:
    tcp, xcp, rcp, _ = (ran[name] for name, _, _ in FIG12_SCHEMES)
    g = tcp["traffic"][0]
    params = captions.single_link(tcp)
    params.update(
        {
            "flow sizes": f"{captions.sizes(g)} ({whose})",
            "flows per scheme": count,
            "buffer": f"{tcp['network']['buffer_pkts']:,} pkts (effectively infinite, as run-rcp.pl)",
            "TCP": f"{captions.tcp(tcp)} over {tcp['network']['queue']}",
            "XCP": f"xcp hosts and routers ({captions.table(xcp, 'network.xcp', ('alpha', 'beta', 'gamma'))})",
            "RCP": f"rcp hosts and routers ({captions.table(rcp, 'network.rcp', ('alpha', 'beta'))}), fctlab's "
            "default mode ps and the released patch's mode ns2 (both tables)",
            "seed": tcp["seed"],
        }
    )
    return params


def reading(p: Page, count: int, mean_pkts: float, shape: float, whose: str) -> tuple:
    """One reading of the Pareto sizes: every scheme run and drawn; its figure and scenarios."""
    label = f"{whose}: mean {captions.num(mean_pkts)}, shape {captions.num(shape)}"
    fig, axes = p.subplots(1, 2, figsize=(11, 4.3))
    ran, near, top = {}, {}, 10
    for (name, scheme, queue), mark in zip(FIG12_SCHEMES, MARKS):
        ran[name] = cfg = fig12_scenario(scheme, queue, mean_pkts, shape, count)
        near[name], biggest = _run_scheme(p, axes, name, cfg, mark, label)
        top = max(top, biggest)
    tcp = ran["TCP NewReno"]
    rtt_ns = 2 * tcp["network"]["bottleneck_delay_ms"] * 1e6
    L = size_grid(top)
    ps = (
        ideal.ps_fct_ns(
            L * captions.packet_bytes(tcp),
            captions.value(tcp, "network.bottleneck_bps"),
            tcp["traffic"][0]["load"],
            rtt_ns,
        )
        / 1e9
    )
    axes[0].plot(L, ps, "k-", lw=1, label="PS, 1.5 RTT + L/(C(1-rho))")
    axes[1].plot(L, ps, "k-", lw=1, label="PS average")
    style(axes[0], "flow size (packets)", "average FCT (s)", log="xy", title=label)
    style(axes[1], "flow size (packets)", "maximum FCT (s)", log="xy", title=label)
    png = p.save(fig, f"-shape{shape}")
    scaled = (
        f"full: {count:,} flows per scheme"
        if p.full
        else f"quick: {count:,} flows per scheme (full: {FIG12_FLOWS['full']:,}); the largest sizes are rare and "
        "their points noisy"
    )
    caption = (
        f"{SOURCE}, Fig. 12 ({label}). Left: average FCT vs flow size; right: maximum FCT vs flow size, for TCP, XCP "
        f"and RCP against processor sharing. {near_text(near, ran['RCP'])} Scale: {scaled}. "
        + parameters(_params(ran, whose, count))
    )
    return Figure(png, caption), {f"{name}, {label}": cfg for name, cfg in ran.items()}


@reproduction("dukkipati2006-fig12", title="RCP, XCP and TCP against processor sharing (2006, Fig. 12)")
def fig12(out: Path, scale: str) -> list:
    """Fig. 12: average and maximum FCT vs flow size for TCP, XCP and RCP against
    PS, C = 2.4 Gb/s, RTT 0.1 s, load 0.9, Pareto sizes; both Pareto readings."""
    p = Page("dukkipati2006-fig12", out, scale)
    count = FIG12_FLOWS[quick_or_full(scale)]
    figures, params = [], {}
    for mean_pkts, shape, whose in FIG12_SIZES:
        fig, ran = reading(p, count, mean_pkts, shape, whose)
        figures.append(fig)
        params.update(ran)
    paper, scripts = ([captions.num(x) for x in r[:2]] for r in FIG12_SIZES)
    return p.record(
        source=f"{SOURCE}, Fig. 12",
        figures=figures,
        params=params,
        seed=next(iter(params.values()))["seed"],
        notes=f"The paper's caption gives Pareto mean {paper[0]} packets and shape {paper[1]}; the "
        f"released ns-2 scripts use mean {scripts[0]} and shape {scripts[1]} (see the course "
        "reproduction). Both are drawn.",
    )

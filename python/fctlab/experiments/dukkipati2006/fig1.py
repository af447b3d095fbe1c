"""Fig. 1: TCP's and XCP's average FCT by size and flows in progress, against PS."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure
from .. import captions
from ..page import Page, parameters, size_grid, style
from ..registry import reproduction
from .scenarios import FULL_FLOWS, SOURCE, fig1_run, fig1_xcp_run


def fig1_params(cfg: dict, res) -> dict:
    """The parameters of a Fig. 1 workload run, for its caption, read off its scenario."""
    g = cfg["traffic"][0]
    params = captions.single_link(cfg, load="offered load")
    params.update(
        {
            "arrivals": g["arrivals"].capitalize(),
            "flows": g["count"],
            "buffer": f"{captions.num(cfg['network']['buffer_bdp'])} BDP = {res.meta['stats']['buffer_pkts']} pkts "
            "(not stated in the paper)",
            "TCP": captions.tcp(cfg),
            "seed": cfg["seed"],
        }
    )
    return params


def scaled(scale: str, count: int) -> str:
    if scale == "full":
        return f"full: {count:,} flows"
    return (
        f"quick: {count:,} flows instead of the full run's {FULL_FLOWS:,} (same link, load and sizes); "
        "averages of the largest, rarest sizes are noisy"
    )


def _active(res):
    s = res.series
    return s[s["metric"] == "active_flows"]


def _steady(a) -> float:
    """The mean over the middle 80% of the run."""
    t = a["t_ns"]
    return float(a[(t > 0.1 * t.max()) & (t < 0.9 * t.max())]["value"].mean())


def _draw(p: Page, cfg: dict, res, xres) -> str:
    c, rho = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    pkt, iw = captions.packet_bytes(cfg), cfg["transport"]["init_cwnd_pkts"]
    tcp = f"TCP {captions.scheme(cfg)}"
    fig, (ax1, ax2) = p.subplots(2, 1, figsize=(7, 7.5))
    agg, xagg = mean_by_size(res.flows), mean_by_size(xres.flows)
    ax1.plot(agg["size_pkts"], agg["mean"] / 1e9, "o-", ms=3, label=f"{tcp}, IW {captions.num(iw)} (fctlab)")
    ax1.plot(xagg["size_pkts"], xagg["mean"] / 1e9, "s-", ms=3, label="XCP (fctlab)")
    L = size_grid(max(agg["size_pkts"].max(), 10))
    for w, ls, what in ((1, "--", "IW 1 (the paper's formula)"), (iw, ":", f"IW {captions.num(iw)}")):
        ss = ideal.slow_start_fct_ns(L, c, rtt_ns, pkt_bytes=pkt, init_cwnd_pkts=w)
        ax1.plot(L, ss / 1e9, ls, label=f"slow-start bound, {what}")
    ax1.plot(L, ideal.ps_fct_ns(L * pkt, c, rho, rtt_ns) / 1e9, "-", label="PS, 1.5 RTT + L/(C(1-rho))")
    style(ax1, "flow size (packets)", "average FCT (s)", log="xy")
    ax2.plot(_active(res)["t_ns"] / 1e9, _active(res)["value"], lw=0.6, label=f"{tcp} (fctlab)")
    ax2.plot(_active(xres)["t_ns"] / 1e9, _active(xres)["value"], lw=0.6, label="XCP (fctlab)")
    ax2.axhline(rho / (1 - rho), color="C2", label=f"PS mean, rho/(1-rho) = {rho / (1 - rho):.0f}")
    style(ax2, "time (s)", "active flows")
    return p.save(fig)


def _slowdown(res) -> float:
    f = res.flows[res.flows["completed"]]
    return float((f["fct_ns"] / f["ps_fct_ns"]).mean())


@reproduction("dukkipati2006-fig1", title="FCT of TCP and XCP vs processor sharing (2006, Fig. 1)")
def fig1(out: Path, scale: str) -> list:
    """Fig. 1: TCP's average FCT vs flow size and active flows vs time, with PS and
    the slow-start bound. Poisson arrivals, Pareto sizes (mean 30 pkts, shape 1.4),
    1000-byte packets, C = 2.4 Gb/s, RTT = 100 ms, offered load 0.9."""
    p = Page("dukkipati2006-fig1", out, scale)
    cfg, res, wall = fig1_run(scale)
    xcfg, xres, xwall = fig1_xcp_run(scale)
    png = _draw(p, cfg, res, xres)
    rho, iw = cfg["traffic"][0]["load"], captions.num(cfg["transport"]["init_cwnd_pkts"])
    params = fig1_params(cfg, res)
    params["XCP"] = (
        f"xcp hosts and routers ({captions.table(xcfg, 'network.xcp', ('alpha', 'beta', 'gamma'))}), same "
        "workload, seed and buffer"
    )
    done, xdone = (int(r.flows["completed"].sum()) for r in (res, xres))
    caption = (
        f"{SOURCE}, Fig. 1 (TCP and XCP curves). Top: average FCT vs flow size, with the slow-start bound (the "
        f"paper's IW-1 formula and the IW-{iw} one the run uses) and the analytic PS FCT. Bottom: active flows vs "
        f"time. {done:,} of {len(res.flows):,} TCP flows and {xdone:,} of {len(xres.flows):,} XCP flows completed. "
        f"Mean FCT over PS FCT of the same flows: TCP {_slowdown(res):.1f}x, XCP {_slowdown(xres):.1f}x; flows in "
        f"progress (middle 80% of the run): TCP {_steady(_active(res)):.0f}, XCP {_steady(_active(xres)):.0f}, "
        f"PS {rho / (1 - rho):.0f}. As in the paper, XCP's flows take longer than TCP's: a new XCP flow starts at "
        "the initial window and gains its share only through the router's spare bandwidth and shuffling, so short "
        f"flows finish before reaching it. Scale: {scaled(scale, cfg['traffic'][0]['count'])}. {parameters(params)}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. 1",
        figures=[Figure(png, caption)],
        params={"scenario": cfg, "scenario (XCP)": xcfg, **params},
        seed=cfg["seed"],
        wall_s=wall + xwall,
    )

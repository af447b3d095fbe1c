"""RCP's mean FCT over PS by flow size for alpha x beta, modes ps and ns2, on the Fig. 12 workload."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...plots import mean_by_size
from ...report import Figure, Table
from .. import captions
from ..page import Page, parameters, quick_or_full, style
from ..registry import reproduction
from .scenarios import (
    RCP_MODES,
    SENS_ALPHAS,
    SENS_BETAS,
    SENS_BINS,
    SENS_FLOWS,
    SOURCE,
    announced,
    rcp_sensitivity_scenario,
)


def _ps_formula(cfg: dict, sizes_pkts):
    """The analytic PS FCT (1.5 RTT + L/(C(1 - rho))) of flows of these sizes in ``cfg``'s workload."""
    c, rho = cfg["network"]["bottleneck_bps"], cfg["traffic"][0]["load"]
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    return ideal.ps_fct_ns(sizes_pkts * captions.packet_bytes(cfg), c, rho, rtt_ns)


def ratio_by_bins(flows, cfg: dict, bins=SENS_BINS) -> list:
    """Mean FCT over mean analytic PS FCT of the completed flows in each size range of `bins`."""
    f = flows[flows["completed"]]
    L = f["size_pkts"].to_numpy()
    ps = _ps_formula(cfg, L)
    fct = f["fct_ns"].to_numpy(dtype=float)
    out = []
    for lo, hi in zip(bins[:-1], bins[1:]):
        m = (lo <= L) & (hi > L)
        out.append(float(fct[m].mean() / ps[m].mean()) if m.any() else None)
    return out


def _cell(p: Page, ax, k: int, cfg: dict, label: str) -> list:
    res = p.run(cfg, f"sensitivity {label}")
    f = res.flows[res.flows["completed"]]
    f = f.assign(ps_formula=_ps_formula(cfg, f["size_pkts"].to_numpy()))
    agg = mean_by_size(f, bins_per_decade=4)
    aps = mean_by_size(f, value="ps_formula", bins_per_decade=4)
    rcp = cfg["network"]["rcp"]
    ax.plot(
        agg["size_pkts"],
        agg["mean"] / aps["mean"],
        "o-s^v<>"[k % 6] + "-",
        ms=3,
        lw=0.9,
        label=f"alpha {rcp['alpha']:g}, beta {rcp['beta']:g}",
    )
    return [
        *ratio_by_bins(res.flows, cfg),
        float((f["fct_ns"] / f["ps_fct_ns"]).mean()),
        f"{len(f):,} / {len(res.flows):,}",
    ]


def _params(cfg: dict, count: int) -> dict:
    g = cfg["traffic"][0]
    return {
        "workload": f"Fig. 12's: C = {captions.rate(cfg['network']['bottleneck_bps'])}, RTT = "
        f"{2 * cfg['network']['bottleneck_delay_ms']:g} ms, load {g['load']:g}, {captions.sizes(g)} (the paper's "
        f"reading), {count:,} flows per run, buffer {cfg['network']['buffer_pkts']:,} pkts",
        "alpha": ", ".join(f"{a:g}" for a in SENS_ALPHAS),
        "beta": ", ".join(f"{b:g}" for b in SENS_BETAS),
        "RCP": "other router and host parameters at their defaults; mode set in both tables",
        "packet": captions.packet(cfg),
        "seed": cfg["seed"],
    }


def _caption(rows: list, cfg: dict, scale: str, count: int) -> str:
    params, (rate, syn) = _params(cfg, count), announced(cfg)
    by = {(r[0], r[1], r[2]): r for r in rows}
    best = {m: min((r for r in rows if r[0] == m), key=lambda r: abs(r[7] - 1)) for m in RCP_MODES}
    spread = {m: max(r[5] for r in rows if r[0] == m) / min(r[5] for r in rows if r[0] == m) for m in RCP_MODES}
    paper = {m: by[(m, 0.1, 1.0)] for m in RCP_MODES}
    return (
        f"{SOURCE}, Fig. 12 workload: RCP's mean FCT over the analytic PS FCT by flow size for alpha x beta, in "
        "fctlab's mode ps (left) and the released patch's mode ns2 (right). With the paper's alpha 0.1, beta 1, "
        f"flows of 100-999 packets take {paper['ps'][5]:.2f}x PS in mode ps and {paper['ns2'][5]:.2f}x in mode "
        f"ns2; over all flows the mean of FCT / PS is {paper['ps'][7]:.2f} (ps) and {paper['ns2'][7]:.2f} (ns2); "
        f"the cell closest to PS over all flows is alpha {best['ps'][1]:g}, beta {best['ps'][2]:g} in mode ps and "
        f"alpha {best['ns2'][1]:g}, beta {best['ns2'][2]:g} in mode ns2. For 100-999 packets the largest over the "
        f"smallest cell is {spread['ps']:.3f} in mode ps (alpha and beta hardly matter: on this workload the "
        "rate stamped is mostly the floor floor_fact x C/N, N the flows sending plus the announced flows expected "
        f"to join them, not the rate equation's R) and {spread['ns2']:.3f} in mode ns2, where a larger alpha "
        "brings the largest flows below PS's mean (R above the fair share while the link has spare capacity). "
        f"About {rate:,.0f} flows arrive per second and each spends a round trip between its SYN and its first "
        f"data packet, so about {syn:,.0f} are announced and send nothing yet at any time. Mode ps counts them only "
        "as far as the announcements within the mean time a flow sends here (Little's law) outnumber the "
        f"departures within it by more than their noise; counting every announced flow held R near C/{syn:.0f}, the "
        "link partly idle, and flows of 100-999 packets took about 8x PS, the flows under way growing in number "
        "(as under the equal-share server of Fig. 4). "
        f"Scale: {quick_or_full(scale)} ({count:,} flows per run; full: {SENS_FLOWS['full']:,}). {parameters(params)}"
    )


@reproduction("dukkipati2006-rcp-sensitivity", title="RCP's sensitivity to alpha and beta (2006, Fig. 12 workload)")
def rcp_sensitivity(out: Path, scale: str) -> list:
    """RCP's mean FCT over PS by flow size for alpha x beta, modes ps and ns2, on the Fig. 12 workload."""
    p = Page("dukkipati2006-rcp-sensitivity", out, scale)
    count = SENS_FLOWS[quick_or_full(scale)]
    fig, axes = p.subplots(1, len(RCP_MODES), figsize=(11, 4.2), sharey=True, squeeze=False)
    rows, ran = [], {}
    for j, mode in enumerate(RCP_MODES):
        ax = axes[0, j]
        for k, (alpha, beta) in enumerate((a, b) for a in SENS_ALPHAS for b in SENS_BETAS):
            cfg = rcp_sensitivity_scenario(mode, alpha, beta, count)
            ran[f"mode {mode}, alpha {alpha:g}, beta {beta:g}"] = cfg
            rows.append([mode, alpha, beta, *_cell(p, ax, k, cfg, f"{mode} {alpha:g}/{beta:g}")])
        ax.axhline(1, color="k", lw=0.8)
        style(ax, "flow size (packets)", "mean FCT / PS FCT (analytic)", title=f"mode {mode}", log="xy")
    png = p.save(fig)
    bins = [f"{lo}-{hi - 1}" if hi < 10**9 else f">= {lo}" for lo, hi in zip(SENS_BINS[:-1], SENS_BINS[1:])]
    table = Table(
        title="Mean FCT / mean PS FCT by flow size (packets), and the mean of each flow's FCT / its PS FCT",
        columns=["mode", "alpha", "beta", *bins, "mean of FCT / PS (all flows)", "completed / flows"],
        rows=rows,
        key_columns=3,
    )
    caption = _caption(rows, next(iter(ran.values())), scale, count)
    return p.record(
        source=f"{SOURCE}, Fig. 12 and sec. IV", figures=[Figure(png, caption)], tables=[table], params=ran, seed=1
    )

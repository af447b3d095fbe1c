"""Fig. 3: flows in TCP slow start accumulate: 12 in the system instead of PS's 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ... import ideal
from ...report import Figure
from .. import captions
from ..page import Page, parameters, quick_or_full, style
from ..registry import reproduction
from .scenarios import SOURCE, fig3_scenario


def _params(cfg: dict, first: list, rtts: int) -> dict:
    c_bps, pkt = cfg["network"]["bottleneck_bps"], captions.packet_bytes(cfg)
    rtt_s = 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3
    return {
        "C": f"{captions.num(c_bps * rtt_s / 8 / pkt)} packets per RTT ({captions.rate(c_bps)} with {pkt} B packets)",
        "RTT": f"{captions.num(rtt_s * 1e3)} ms",
        "arrivals": f"{len(first)} flows at the start of every RTT",
        "flow size": f"{first[0]['size_pkts']} packets",
        "TCP": captions.tcp(cfg, min_rto=False),
        "buffer": f"{cfg['network']['buffer_pkts']:,} pkts",
        "RTTs simulated": rtts,
    }


@reproduction("dukkipati2006-fig3", title="Flows accumulate in TCP slow start (2006, Fig. 3)")
def fig3(out: Path, scale: str) -> list:
    """Fig. 3: flows in TCP slow start accumulate: 12 in the system instead of PS's 2."""
    p = Page("dukkipati2006-fig3", out, scale)
    rtts = 400 if scale == "full" else 100
    cfg = fig3_scenario(rtts)
    rtt_s = 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3
    res = p.run(cfg)
    s = res.series
    act = s[s["metric"] == "active_flows"]
    first = [f for f in cfg["flows"] if f["start_s"] == 0]
    iw = cfg["transport"]["init_cwnd_pkts"]
    model = ideal.rounds_slow_start([f["size_pkts"] for f in first], rtts, init_cwnd_pkts=iw)
    fig, ax = p.subplots(figsize=(7, 3.8))
    ax.plot(act["t_ns"] / 1e9 / rtt_s, act["value"], lw=0.8, label=f"TCP slow start, IW {captions.num(iw)} (fctlab)")
    ax.step(
        np.arange(rtts),
        model.flows,
        where="post",
        color="C1",
        ls="--",
        label="round-by-round model (fctlab.ideal.rounds_slow_start)",
    )
    ax.axhline(len(first), color="k", label=f"PS: {len(first)}")
    style(ax, "time (RTTs)", "flows in the system")
    png = p.save(fig)
    t = act["t_ns"]
    steady = act[(t > 20 * rtt_s * 1e9) & (t < (rtts - 1) * rtt_s * 1e9)]["value"]
    rounds = int(model.durations.max())
    caption = (
        f"{SOURCE}, Fig. 3: how flows in TCP slow start accumulate. Flows in the system over time: in the "
        f"steady state the count steps between {steady.min():.0f} and {steady.max():.0f} (mean {steady.mean():.1f}): "
        f"{len(first)} flows arrive at the start of every RTT and the {len(first)} that arrived {rounds} RTTs "
        f"earlier deliver their last packet within it, so {int(model.flows[-1])} remain at the end of each RTT as "
        f"in the paper (PS: {len(first)}). The round-by-round model (every flow lasts {rounds} rounds) settles at "
        f"{int(model.flows[-1])} flows. Scale: {quick_or_full(scale)} ({rtts} RTTs). "
        + parameters(_params(cfg, first, rtts))
    )
    return p.record(
        source=f"{SOURCE}, Fig. 3",
        figures=[Figure(png, caption)],
        params={"scenario": cfg, **_params(cfg, first, rtts)},
        seed=cfg["seed"],
    )

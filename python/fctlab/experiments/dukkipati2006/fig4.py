"""Fig. 4: an equal-share (XCP-like) server lets flows of mixed sizes accumulate to 100."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ... import ideal
from ...report import Figure
from .. import captions
from ..page import Page, parameters, quick_or_full, style
from ..registry import reproduction
from .scenarios import FIG4_SIZES, SOURCE, fig4_scenario

MODEL_ROUNDS = 8000


def _per_rtt_utilisation(ser, horizon: float, rtt_ns: float):
    util = ser[(ser["metric"] == "utilization") & (ser["element"] == "bottleneck") & (ser["t_ns"] <= horizon)]
    return util.groupby(((util["t_ns"] - 1) // rtt_ns).astype(int))["value"].mean()


def _draw(p: Page, model, act, per_rtt, rtt_ns: float) -> str:
    fig, (a1, a2) = p.subplots(2, 1, figsize=(7, 5.5), sharex=True)
    rounds = np.arange(MODEL_ROUNDS)
    a1.step(rounds, model.flows, where="post", color="C1", label="equal-share server, round model")
    a1.plot(act["t_ns"] / rtt_ns, act["value"], lw=0.8, color="C0", label="XCP, packet level (fctlab)")
    a1.axhline(2, color="k", lw=0.8, label="PS: 2")
    a1.set_xscale("symlog", linthresh=10)
    style(a1, None, "flows in the system", xlim=(0, MODEL_ROUNDS))
    a2.step(rounds, model.utilization, where="post", color="C1", label="round model")
    a2.step(
        per_rtt.index.to_numpy(),
        per_rtt.to_numpy(),
        where="post",
        lw=0.8,
        color="C0",
        label="XCP, packet level (mean per RTT)",
    )
    style(a2, "time (RTTs)", "link utilisation", ylim=(0, 1.1))
    return p.save(fig)


def _params(cfg: dict, rtts: int, capacity: float) -> dict:
    c, pkt = cfg["network"]["bottleneck_bps"], captions.packet_bytes(cfg)
    first = [f["size_pkts"] for f in cfg["flows"] if f["start_s"] == 0]
    return {
        "C": f"{captions.num(capacity)} packets per RTT ({captions.rate(c)} with {pkt} B packets)",
        "RTT": f"{captions.num(2 * cfg['network']['bottleneck_delay_ms'])} ms",
        "arrivals": " and ".join(f"a {n}-packet" for n in first) + " flow at the start of every RTT",
        "model": f"{MODEL_ROUNDS} rounds, exact fractions",
        "packet level": f"XCP (router defaults), initial window {captions.num(cfg['transport']['init_cwnd_pkts'])}, "
        f"no handshake, {rtts} RTTs, buffer {cfg['network']['buffer_pkts']:,} pkts",
    }


@reproduction("dukkipati2006-fig4", title="Flows accumulate under equal sharing (2006, Fig. 4)")
def fig4(out: Path, scale: str) -> list:
    """Fig. 4: an equal-share (XCP-like) server lets flows of mixed sizes accumulate to 100."""
    p = Page("dukkipati2006-fig4", out, scale)
    rtts = 400 if scale == "full" else 100
    cfg = fig4_scenario(rtts)
    rtt_s = 2 * cfg["network"]["bottleneck_delay_ms"] / 1e3
    rtt_ns = rtt_s * 1e9
    capacity = cfg["network"]["bottleneck_bps"] * rtt_s / 8 / captions.packet_bytes(cfg)
    model = ideal.rounds_equal_share(FIG4_SIZES, MODEL_ROUNDS, round(capacity))
    reached = model.flows >= round(capacity)
    first100 = int(np.argmax(reached)) if reached.any() else None
    res = p.run(cfg)
    ser = res.series
    horizon = rtts * rtt_s * 1e9  # arrivals stop here; the drain after it is not drawn
    act = ser[(ser["metric"] == "active_flows") & (ser["t_ns"] <= horizon)]
    per_rtt = _per_rtt_utilisation(ser, horizon, rtt_ns)
    png = _draw(p, model, act, per_rtt, rtt_ns)
    late = act[act["t_ns"] > (rtts - 10) * rtt_s * 1e9]["value"]
    late_util = per_rtt[per_rtt.index >= rtts // 2].mean()
    top = int(model.flows[first100]) if first100 is not None else "-"
    caption = (
        f"{SOURCE}, Fig. 4: flows accumulate under an equal-share server. Top: flows in the system; bottom: "
        f"utilisation. Round model (the paper's thought experiment): N[0] = {model.flows[0]}, N[1] = "
        f"{model.flows[1]} flows offered {capacity / model.flows[1]:.2f} packets each, and the count grows until it "
        f"first reaches {top} flows at round {first100}, where it stays (every flow gets 1 packet per round; "
        f"{top / 2:.0f} times processor sharing's 2, as the paper says). The model's approach is slow: a share the "
        "1-packet flow cannot use is lost, so the link runs below capacity and the backlog grows by a fraction of a "
        f"flow per round. At the packet level XCP does not follow the model exactly: it holds {late.mean():.0f} flows "
        f"over the last 10 of {rtts} RTTs of arrivals (the model: {int(model.flows[rtts - 1])}) at a mean "
        f"utilisation of {late_util:.2f} over the second half; its feedback is per packet and its window updates lag "
        f"a round trip, so flows accumulate faster than in the model. Scale: {quick_or_full(scale)}. "
        + parameters(_params(cfg, rtts, capacity))
    )
    return p.record(
        source=f"{SOURCE}, Fig. 4",
        figures=[Figure(png, caption)],
        params={"scenario": cfg, **_params(cfg, rtts, capacity)},
        seed=cfg["seed"],
    )

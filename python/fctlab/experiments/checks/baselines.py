"""Simulated TCP against the fluid PS and SRPT of the very same flows (the
2006 paper's Fig. 1 workload): mean and 99th-percentile slowdown by size."""

from __future__ import annotations

import time
from pathlib import Path

import fctlab

from ... import ideal
from ...plots import log_binned_slowdown
from ...report import Figure
from .. import captions
from ..dukkipati2006.fig1 import fig1_params, scaled
from ..dukkipati2006.scenarios import SOURCE, fig1_run
from ..page import Page, parameters, style
from ..registry import reproduction


def srpt_fct_ns(cfg: dict, flows):
    """Each flow's FCT under fluid SRPT on the single bottleneck, over every flow
    of the run (bytes on the wire), plus the fixed terms of the PS column: the
    one-way propagation and the handshake RTT."""
    header = fctlab.describe(cfg)["header_bytes"]
    wire = (flows["size_bytes"] + header * flows["size_pkts"]).to_numpy(dtype=float)
    finish = ideal.fluid_srpt(flows["start_ns"].to_numpy(), wire, cfg["network"]["bottleneck_bps"])
    rtt_ns = 2 * cfg["network"]["bottleneck_delay_ms"] * 1e6
    return finish - flows["start_ns"].to_numpy() + (rtt_ns / 2 + rtt_ns)


@reproduction("baselines-tcp-ps-srpt", title="TCP vs fluid PS and SRPT of the same flows")
def baselines(out: Path, scale: str) -> list:
    """Simulated TCP against the fluid PS and SRPT of the very same flows (the
    Fig. 1 workload): mean and 99th-percentile slowdown (FCT / ideal_ns) by size."""
    cfg, res, wall = fig1_run(scale)
    p = Page("baselines-tcp-ps-srpt", out, scale)
    f = res.flows[res.flows["completed"]].copy()
    f["srpt_fct_ns"] = srpt_fct_ns(cfg, res.flows)[f.index]
    ideal_ns = f["ideal_ns"].astype(float)
    table = {
        f"TCP {captions.scheme(cfg)} (packets)": f["fct_ns"].astype(float) / ideal_ns,
        "PS (fluid, same flows)": f["ps_fct_ns"].astype(float) / ideal_ns,
        "SRPT (fluid, same flows)": f["srpt_fct_ns"].astype(float) / ideal_ns,
    }
    fig, (ax1, ax2) = p.subplots(1, 2, figsize=(10, 4.2))
    sizes = f["size_pkts"].astype(float).to_numpy()
    for (label, sd), mark in zip(table.items(), ("o-", "s-", "^-")):
        agg = log_binned_slowdown(sizes, sd.to_numpy())
        ax1.plot(agg["size_pkts"], agg["mean"], mark, ms=3, label=label)
        ax2.plot(agg["size_pkts"], agg["p99"], mark, ms=3, label=label)
    for ax, what in ((ax1, "mean"), (ax2, "99th-percentile")):
        style(ax, "flow size (packets)", f"{what} slowdown (FCT / ideal)", log="xy")
    png = p.save(fig)
    caption = (
        f"Simulated TCP against ideal processor sharing and SRPT of the same {len(f):,} completed flows of "
        f"{SOURCE} Fig. 1's workload. Slowdown = FCT / ideal_ns, where ideal_ns is the flow alone on the empty "
        "link at line rate (propagation plus serialisation). PS and SRPT are flow-level (fluid) runs over the "
        "run's own arrivals and sizes (bytes on the wire), plus the one-way propagation and the handshake RTT. "
        f"Scale: {scaled(scale, cfg['traffic'][0]['count'])}. {parameters(fig1_params(cfg, res))}"
    )
    return p.record(
        source=f"{SOURCE}, Fig. 1 workload; PS and SRPT baselines",
        figures=[Figure(png, caption)],
        params={"scenario": cfg, **fig1_params(cfg, res)},
        seed=cfg["seed"],
        wall_s=wall + time.monotonic() - p.t0,
    )

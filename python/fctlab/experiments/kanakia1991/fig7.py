"""Figure 7, drawn on the ``kanakia1991`` page (alias ``kanakia1991-fig7``):
connection 1's sending rate over time in experiment 1."""

from __future__ import annotations

from ...report import Figure
from ..page import Page, style
from .network import SCHEMES, SOURCE, run
from .scenarios import table41_scenario

#: Figure 7's five schemes (its experiment is not named: fctlab draws experiment 1's).
FIG7_SCHEMES = ("hbh", "pp", "e2e-ef", "tcp (tahoe)", "decbit")
FIG7_INTERVAL_MS = 10.0
#: The first seconds drawn.
SHOWN_S = 3


def fig7(p: Page) -> tuple:
    """Connection 1's sending rate over time in experiment 1 (the per-flow
    series send_rate_bps: wire bytes per interval, retransmissions included)."""
    fig, ax = p.subplots(figsize=(7, 3.6))
    rates = {}
    for name, tp, net in SCHEMES:
        if name not in FIG7_SCHEMES:
            continue
        sc = table41_scenario(tp, net)
        sc["metrics"] = {"series": True, "ps_fct": False, "cwnd_flows": [0], "interval_ms": FIG7_INTERVAL_MS}
        s = run(sc).series
        s = s[(s.metric == "send_rate_bps") & (s.element.astype(str) == "flow0")]
        rates[name] = s
        ax.plot(s.t_ns / 1e9, s.value / 1e6, label=name, lw=1)
    style(ax, "time (s)", "connection 1 sending rate (Mb/s)", xlim=(0, SHOWN_S))
    png = p.save(fig, name="kanakia1991-fig7.png")
    caption = (
        f"{SOURCE}, Figure 7: the sending rate of connection 1 for the five schemes, in experiment 1 (the text does "
        "not say which experiment: chosen), fctlab's per-flow series send_rate_bps (bytes put on the wire per "
        f"{FIG7_INTERVAL_MS:g} ms, retransmissions included); the first {SHOWN_S} s. The figure itself is not in the "
        "text, so there is nothing to set beside it."
    )
    return Figure(png, caption), rates

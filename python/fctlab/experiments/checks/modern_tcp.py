"""CUBIC, DCTCP, Vegas and BBR against their closed forms: a table of each
check with its worst error, and a figure per scheme (its window or estimate
over time beside the closed form)."""

from __future__ import annotations

import numpy as np

from ...report import Figure, Table
from ..page import Page, style
from ..registry import reproduction
from .modern_closed import bbr_check, cubic_check, dctcp_check, vegas_check

#: Simulated seconds per check: quick, full.
STOP_S = {
    "cubic": (25.0, 25.0),
    "dctcp": (1.0, 5.0),
    "vegas": (20.0, 60.0),
    "bbr": (3.0, 30.0),
}

SOURCES = (
    "RFC 9438 sec. 4.2 (CUBIC); RFC 8257 sec. 3.3 (DCTCP); Brakmo & Peterson, IEEE JSAC 13(8), 1995 (Vegas); "
    "Linux net/ipv4/tcp_bbr.c and Cardwell et al., ACM Queue 14(5), 2016 (BBR)"
)


def _stop(key: str, full: bool) -> float:
    return STOP_S[key][1 if full else 0]


def _error(c) -> str:
    if c.unit == "relative":
        return f"{c.worst:.2%}"
    return f"{c.worst:g} {c.unit}"


def _plot(p: Page, checks: list, name: str, ylabel: str, caption: str, *, log: str = "") -> Figure:
    fig, ax = p.subplots(figsize=(7, 3.8))
    for c in checks:
        for label, (t, v) in c.curves.items():
            dashed = label in ("closed form", "bottleneck rate") or label.startswith("F,")
            ax.plot(t, v, "--" if dashed else "-", lw=1.4 if dashed else 1.0, label=label)
    style(ax, "time (s)", ylabel, log=log, loc="best")
    return Figure(p.save(fig, f"-{name}"), caption)


def _figures(p: Page, cubic, dctcp, vegas, bbr) -> list:
    figs = [
        _plot(
            p,
            [cubic],
            "cubic",
            "cwnd (packets)",
            "CUBIC's window after one congestion event (solid) beside W(t) = C (t - K)^3 + W_max (dashed), "
            f"C = 0.4, beta = 0.7, W_max the window at the epoch's start over beta ({cubic.predicted}); 100 "
            "Mb/s, 100 ms RTT, ECN through a queue marking above 200 packets (an echo is the event, as a loss "
            "without retransmissions: NewReno's recovery of a burst of losses at this window ends in a "
            "timeout), initial ssthresh 400, HyStart++ off. Up to the next event; worst error "
            f"{_error(cubic)} of W_max.",
        ),
        _plot(
            p,
            [dctcp],
            "dctcp",
            "alpha",
            "DCTCP's alpha of two flows on 1 Gb/s through a queue marking above K = 20 packets (solid), beside "
            f"the fraction of each flow's packets marked over the run ({dctcp.predicted}; dashed): the fixed "
            f"point of alpha <- (1 - g) alpha + g F, g = 1/16. Time averages after 0.2 s: {dctcp.measured}; "
            f"worst error {_error(dctcp)}.",
        ),
    ]
    fig, ax = p.subplots(figsize=(7, 3.8))
    for label, (t, v) in vegas.curves.items():
        ax.plot(t, v, lw=1.0, label=label)
    ax.axhspan(2, 5, color="0.85", label="alpha..beta + 1")
    style(ax, "time (s)", "bottleneck queue per flow (packets)", loc="best")
    figs.append(
        Figure(
            p.save(fig, "-vegas"),
            "Vegas's bottleneck queue per flow for 1, 2 and 4 flows on 100 Mb/s with a 20 ms RTT and a "
            "1000-packet buffer, beside 2 to 5 packets per flow (shaded): Linux's Vegas holds its window while "
            "its truncated diff, floor(Q RTT / baseRTT) for Q packets queued, is within alpha..beta = 2..4. "
            f"Mean over the second half, per flow: {vegas.measured}.",
        )
    )
    figs.append(
        _plot(
            p,
            [bbr[0]],
            "bbr",
            "bandwidth estimate (segments/s)",
            "BBR's bandwidth estimate (the windowed maximum of its delivery-rate samples) on an empty "
            f"100 Mb/s path of 1040-byte packets, beside the bottleneck rate {bbr[0].predicted} (dashed). "
            f"After 0.5 s: {bbr[0].measured}. Its minimum RTT: {bbr[1].measured} against "
            f"{bbr[1].predicted} (the handshake's RTT). STARTUP ended in {bbr[2].measured}; the rule on "
            f"the sampled estimates gives {bbr[2].predicted}.",
        )
    )
    return figs


@reproduction("modern-tcp", title="CUBIC, DCTCP, Vegas and BBR against their closed forms")
def modern_tcp(out, scale: str) -> list:
    p = Page("modern-tcp", out, scale)
    cubic = cubic_check(stop_s=_stop("cubic", p.full))
    dctcp = dctcp_check(stop_s=_stop("dctcp", p.full))
    vegas = vegas_check(stop_s=_stop("vegas", p.full))
    bbr = bbr_check(stop_s=_stop("bbr", p.full))
    checks = [cubic, dctcp, vegas, *bbr]
    table = Table(
        title="Closed-form checks",
        columns=["scheme", "check", "closed form", "fctlab", "worst error"],
        rows=[[c.scheme, c.what, c.predicted, c.measured, _error(c)] for c in checks],
        caption="Each scheme's closed form against its run; the worst error is relative unless a unit is given.",
    )
    worst = {c.scheme: c.worst for c in checks if np.isfinite(c.worst)}
    return p.record(
        source=SOURCES,
        figures=_figures(p, cubic, dctcp, vegas, bbr),
        tables=[table],
        params={"stop_s": {k: _stop(k, p.full) for k in STOP_S}, "mss_bytes": 1000, "header_bytes": 40},
        seed=1,
        notes="Worst errors: " + ", ".join(f"{k} {v:.3g}" for k, v in worst.items()),
    )

"""The RTT-fairness experiment of Gavaletz & Kaur 2010 (Fig. 4: ten transfers
with minimum RTTs of 50 to 500 ms sharing one 100 Mb/s bottleneck) repeated
for the schemes researchers compare against today: CUBIC, BBR and Vegas,
beside the source's NewReno, with the source's table of max/min throughput
ratios and Jain's index."""

from __future__ import annotations

import numpy as np

import fctlab

from ... import fairness
from ...report import Figure, Table
from ..gavaletz2010.fairness_runs import COLUMNS, _row, _spurious, first_loss_s
from ..gavaletz2010.scenarios import (
    FIG4_BUFFER_BDP,
    FIG4_C_BPS,
    FIG4_FROM_S,
    FIG4_RTTS_MS,
    FIG4_STOP_S,
    fig4_scenario,
    run,
)
from ..page import Page, parameters, style
from ..registry import reproduction

#: The schemes of the page, each with its transport table.
SCHEMES = (
    ("NewReno", {"scheme": "tcp-newreno"}),
    ("CUBIC", {"scheme": "tcp-cubic"}),
    ("BBR", {"scheme": "tcp-bbr"}),
    ("Vegas", {"scheme": "tcp-vegas"}),
)


def available() -> tuple:
    """The page's schemes this build registers."""
    known = {s["name"] for s in fctlab.catalog()["schemes"]}
    return tuple((n, t) for n, t in SCHEMES if t["scheme"] in known)


def _rates(res, cfg: dict) -> np.ndarray:
    """Each transfer's mean throughput (Mb/s) from FIG4_FROM_S to the end, by flow id."""
    r = fairness.flow_rates(res, FIG4_FROM_S, cfg["stop_s"])
    return np.array([r.get(i, np.nan) for i in range(len(FIG4_RTTS_MS))]) / 1e6


def _draw(p: Page, runs: dict) -> str:
    fig, axes = p.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, bdp in zip(axes, FIG4_BUFFER_BDP):
        for (name, b), (cfg, res) in runs.items():
            if b == bdp and "linux" not in name:
                ax.plot(FIG4_RTTS_MS, _rates(res, cfg), "o-", ms=4, label=name)
        ax.axhline(FIG4_C_BPS / 1e6 / len(FIG4_RTTS_MS), color="grey", lw=0.8, ls="--", label="fair share")
        style(ax, "transfer's minimum RTT (ms)", "mean throughput (Mb/s)", title=f"buffer {bdp:g} BDP", log="y")
    return p.save(fig)


def _table(runs: dict) -> Table:
    return Table(
        title="Max/min throughput ratio and Jain's index across the ten transfers, per scheme",
        columns=COLUMNS,
        rows=[_row(name, bdp, cfg, res) for (name, bdp), (cfg, res) in runs.items()],
        key_columns=2,
        caption="Columns as on the gavaletz2010-fig4 page: each transfer's mean throughput over the window, then "
        f"the ratio of the largest to the smallest and Jain's index; every window starts at {FIG4_FROM_S:g} s. "
        "'linux preset' rows: the same scheme with transport.preset = \"linux\" (Linux's RTO estimator, F-RTO, "
        "PRR, RACK-TLP, which acts only with SACK, here BBR, and delayed ACKs).",
    )


@reproduction("rtt-fairness-modern", title="RTT fairness of CUBIC, BBR and Vegas: the 2010 ten-transfer experiment")
def rtt_fairness_modern(out, scale: str) -> list:
    p = Page("rtt-fairness-modern", out, scale)
    stop = FIG4_STOP_S["full" if p.full else "quick"]
    schemes = available()
    runs = {}
    for bdp in FIG4_BUFFER_BDP:
        for name, tr in schemes:
            cfg = fig4_scenario(tr, bdp, stop)
            runs[(name, bdp)] = (cfg, run(cfg))
    # Varied once: Linux's timers and recovery in place of RFC 6298's.
    for name, tr in schemes:
        cfg = fig4_scenario({**tr, "preset": "linux"}, FIG4_BUFFER_BDP[0], stop)
        runs[(f"{name}, linux preset", FIG4_BUFFER_BDP[0])] = (cfg, run(cfg))
    png = _draw(p, runs)
    whole = {n: fairness.window(r, FIG4_FROM_S, c["stop_s"]) for (n, b), (c, r) in runs.items() if b == 1.0}
    loss = {n: first_loss_s(r, c) for (n, b), (c, r) in runs.items() if b == 1.0}
    missing = [n for n, t in SCHEMES if (n, t) not in schemes]
    caption = (
        "Gavaletz & Kaur 2010's Fig. 4 set-up (ten long transfers from t = 0 with minimum RTTs "
        f"{FIG4_RTTS_MS[0]:g}, {FIG4_RTTS_MS[1]:g}, ..., {FIG4_RTTS_MS[-1]:g} ms, a {FIG4_C_BPS / 1e6:g} Mb/s "
        "bottleneck, the source's sync-drop queue, the buffer in BDPs of the mean minimum RTT) with each scheme in "
        "turn: each transfer's mean throughput over the whole run against its RTT. Whole-run Jain's index at 1 "
        "BDP: "
        + ", ".join(
            f"{n} {w['jain']:.3f} (max/min {w['max_min']:.1f}, first loss {loss[n]:.1f} s)" for n, w in whole.items()
        )
        + ". NewReno's throughput falls with the RTT (its window grows one packet per RTT); CUBIC's window "
        "grows with time since the last loss, not with RTTs, and BBR's with its bandwidth estimate, so both "
        "should narrow the gap; Vegas holds alpha..beta packets per flow in the queue whatever its RTT. BBR v1 "
        "ignores loss and keeps about two of its estimated bandwidth-delay products in flight per flow, so ten "
        "flows overfill the buffer and drop heavily (Hock, Bless & Zitterbart, ICNP 2017, report the same): "
        + ", ".join(f"{b:g} BDP {int(r.flows['drops'].sum()):,} drops" for (n, b), (c, r) in runs.items() if n == "BBR")
        + ". "
        + f"Retransmissions beyond the drops: {_spurious(runs)}. They follow RFC 6298 timeouts that fire without "
        "a loss (on this constant-delay path RTTVAR shrinks towards zero, then a queue that builds within one "
        "round trip delays the ACKs past the timer; see the Linux TCP page of the docs), each followed by "
        "go-back-N; with the linux preset (RTTVAR floored at 200 ms, F-RTO, and for BBR, the one scheme here "
        "with SACK, RACK-TLP, which finds lost retransmissions without waiting for the timer): "
        + ", ".join(
            f"{n} {int(r.flows['retransmits'].sum())} retransmissions for {int(r.flows['drops'].sum())} drops"
            for (n, b), (c, r) in runs.items()
            if "linux" in n
        )
        + ". "
        + (f"Not in this build: {', '.join(missing)}. " if missing else "")
        + f"Chosen as on the gavaletz2010-fig4 page (the source does not state them): initial window 10, "
        f"ssthresh 100 packets, 1000-B packets, buffer 1 BDP with 0.25 BDP varied; RFC 6298 timers with the "
        f"linux preset varied. {stop:g} s simulated. " + parameters({"transport": {n: t for n, t in schemes}})
    )
    return p.record(
        source="Gavaletz & Kaur 2010, Fig. 4 and section IV, repeated for CUBIC (RFC 9438), BBR (Linux tcp_bbr.c) "
        "and Vegas (Linux tcp_vegas.c)",
        figures=[Figure(png, caption)],
        tables=[_table(runs)],
        params={"rtts_ms": list(FIG4_RTTS_MS), "buffer_bdp": list(FIG4_BUFFER_BDP), "stop_s": stop},
        seed=1,
    )

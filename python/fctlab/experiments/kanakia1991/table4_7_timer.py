"""Table 4.7 varied: whether Tahoe's retransmission timer explains its times.

4.3BSD ran its TCP timers from a 500 ms clock (``tcp_slowtimo``) with a
minimum of two ticks; fctlab's timer is RFC 6298's on a 1 ns clock with a
200 ms minimum. Connection 1 runs under Tahoe with each timer, at the loads
where fctlab's Tahoe is slowest and fastest, and the table says what changes.
"""

from __future__ import annotations

import numpy as np

from ...report import Table
from .network import SCHEMES, run
from .scenarios import table47_scenario

#: The timers run, and the loads.
TIMERS = (
    ("fctlab (RFC 6298, 1 ns clock, 200 ms minimum)", {}),
    ("RFC 6298 with a 1 s minimum", {"min_rto_ms": 1000.0}),
    ("500 ms ticks, 200 ms minimum", {"rto_tick_ms": 500.0}),
    ("4.3BSD: 500 ms ticks, 1 s (2-tick) minimum", {"rto_tick_ms": 500.0, "min_rto_ms": 1000.0}),
)
LOADS = (0.2, 0.9)
COLUMNS = ("time (ms)", "drops", "retransmits")


def _cells(tp: dict, net: dict, load: float, seeds: list) -> list:
    """Connection 1's mean transfer time, drops and retransmissions over the seeds."""
    vals = []
    for s in seeds:
        f = run(table47_scenario(tp, net, load, s)).flows
        m = f[f.flow_id == 0].iloc[0]
        t = float(m.acked_ns - m.start_ns) / 1e6 if m.completed else float("nan")
        vals.append((t, float(m.drops), float(m.retransmits)))
    return [float(v) for v in np.mean(vals, axis=0)]


def _caption(rows: list) -> str:
    by = {r[0]: r[1:] for r in rows}
    base, one_s, ticks, bsd = (by[t[0]] for t in TIMERS)
    k = len(COLUMNS)
    if one_s == base and bsd == base:
        verdict = (
            "the same to the nanosecond: no retransmission timeout decides them, so the timer is not why fctlab's "
            "Tahoe is slower than the paper's"
        )
    else:
        verdict = f"{one_s[0]:,.0f} and {one_s[k]:,.0f} ms, and {bsd[0]:,.0f} and {bsd[k]:,.0f} ms"
    return (
        f"Tahoe's time at load {LOADS[0]:g} ({base[0]:,.0f} ms) exceeds that at {LOADS[1]:g} ({base[k]:,.0f} ms) "
        f"with connection 1 losing {base[1]:,.0f} packets against {base[k + 1]:,.0f} (mean over seeds), each loss "
        f"sending it back to the lost packet with a window of one ({base[2]:,.0f} and {base[k + 2]:,.0f} "
        "retransmissions). With a 1 s minimum RTO, and with 4.3BSD's 500 ms ticks and two-tick minimum, the results "
        f"are {verdict}. Ticks with a 200 ms minimum give {ticks[0]:,.0f} and {ticks[k]:,.0f} ms: a one-tick timer "
        "fires at the next tick, as little as a moment after it is set."
    )


def tahoe_timer_table(seeds: list) -> Table:
    """Connection 1 under Tahoe with each timer, at the two loads."""
    name, tp, net = next(s for s in SCHEMES if s[0] == "tcp (tahoe)")
    rows = []
    for label, extra in TIMERS:
        cells = [v for x in LOADS for v in _cells({**tp, **extra}, net, x, seeds)]
        rows.append([label, *cells])
    return Table(
        title="Varied: Tahoe's retransmission timer (connection 1, mean over seeds)",
        columns=["timer", *(f"{x:g}: {c}" for x in LOADS for c in COLUMNS)],
        rows=rows,
        caption=_caption(rows),
    )

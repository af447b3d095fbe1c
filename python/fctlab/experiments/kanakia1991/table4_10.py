"""Table 4.10: the torture test for rate-based schemes."""

from __future__ import annotations

from pathlib import Path

from ..page import Page
from ..registry import reproduction
from .network import PKT_BYTES, SLOW_BPS, measure, run
from .scenarios import (
    T410_BUFFER,
    T410_CORE_MS,
    T410_EDGE_MS,
    T410_FAR_MS,
    T410_OFF_MS,
    T410_ON_MS,
    T410_ONOFF_LOAD,
    T410_ONOFF_STARTS_MS,
    T410_PKTS,
    table410_rtts_ms,
    table410_scenario,
)
from .tables import free_rate_finish_s, published_rows, ratios, simple_table, title

#: Varied once: a buffer of 20 packets (one BDP at connection 1's 0.2 ms is under one packet).
ALT_BUFFER = 20
RATE_BASED = ("hbh", "pp", "e2e-ef")


def onoff_share() -> float:
    """The share of the line the on-off sources take on average."""
    duty = T410_ON_MS / (T410_ON_MS + T410_OFF_MS)
    return len(T410_ONOFF_STARTS_MS) * T410_ONOFF_LOAD * duty


def table410_optimal_ms() -> list:
    """Both connections share what the on-off sources leave equally (each
    on-off source, at a quarter of the line, is never above its fair share),
    so both files are done when 8000 packets have been served; plus each RTT."""
    period = (T410_ON_MS + T410_OFF_MS) / 1e3
    taken = []
    for s in T410_ONOFF_STARTS_MS:
        for k in range(2000):
            a = s / 1e3 + k * period
            taken.append((a, a + T410_ON_MS / 1e3, T410_ONOFF_LOAD * SLOW_BPS))
    t = free_rate_finish_s(2 * T410_PKTS * PKT_BYTES * 8, SLOW_BPS, taken) * 1e3
    r1, r2 = table410_rtts_ms()
    return [t + r1, t + r2]


def table410_row(tp: dict, net: dict, buffer_pkts: int = T410_BUFFER) -> list:
    times, _, _, drops = measure(run(table410_scenario(tp, net, buffer_pkts)), [0, 1], None)
    return [*times, drops]


def _params() -> dict:
    far_rtt = table410_rtts_ms()[1]
    return {
        "network": f"connection 1's host, the on-off hosts and the sinks {T410_EDGE_MS:g} ms from the switches, "
        f"connection 2's host {T410_FAR_MS:g} ms, 100 Mb/s; S1-S2 40 Mb/s, {T410_CORE_MS:g} ms (Figure 6 is not in "
        "the text)",
        "connections": f"1 and 2: {T410_PKTS} packets (2 MB, reconstructed) at 0",
        "on-off": f"two sources of {PKT_BYTES} B packets at {T410_ONOFF_LOAD:g} of the line for {T410_ON_MS:g} ms, "
        f"silent {T410_OFF_MS:g} ms, from {T410_ONOFF_STARTS_MS[0]:g} and {T410_ONOFF_STARTS_MS[1]:g} ms",
        "buffer": f"{T410_BUFFER} packets per port (one BDP at {far_rtt:g} ms)",
        "start": "no handshake; initial window 1 packet",
    }


def _notes(rows: list) -> str:
    diff = [r - 1 for c in (1, 2) for r in ratios(rows, RATE_BASED, c, "table4_10")]
    pp2, opt2 = published_rows("table4_10")["pp"][1], table410_optimal_ms()[1]
    rtt1 = table410_rtts_ms()[0]
    return (
        f"Where fctlab differs: the rate-based schemes ({', '.join(RATE_BASED)}) come within {min(diff):+.0%} to "
        f"{max(diff):+.0%} of the paper; pp's published connection 2 ({pp2:g} ms) is the fluid optimum with 2 MB "
        f"files ({opt2:.0f} ms), which is what fixes the reconstructed size. Under FCFS, connection 1 ({rtt1:g} ms "
        "RTT) finishes well before the fair-share optimal, at connection 2's expense."
    )


WHAT = "Torture test: two connections with 0.2 and 20.2 ms round trips beside two on-off sources"


@reproduction("kanakia1991-table4-10", title=title(WHAT, "4.10"), aliases=("kanakia1991-table4.10",))
def table410(out: Path, scale: str) -> list:
    """Table 4.10: the torture test for rate-based schemes."""
    return simple_table(
        Page("kanakia1991-table4-10", out, scale),
        "4.10",
        WHAT,
        ["conn. 1 (ms)", "conn. 2 (ms)", "packets dropped"],
        [*table410_optimal_ms(), 0],
        published_rows("table4_10"),
        table410_row,
        table410_scenario,
        _params(),
        varied=(
            f"buffer {ALT_BUFFER} packets (one BDP at connection 1's {table410_rtts_ms()[0]:g} ms is under one packet)",
            lambda tp, net: table410_row(tp, net, ALT_BUFFER)[:2],
            table410_optimal_ms(),
        ),
        optimal_note="The optimal: both connections share what the on-off sources leave (they take "
        f"{onoff_share():.2%} of the line on average), plus each RTT. ",
        notes=_notes,
    )

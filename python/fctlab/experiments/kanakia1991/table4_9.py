"""Table 4.9: a low bandwidth-delay network."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ..page import Page
from ..registry import reproduction
from .network import PKT_BYTES, PROBE_BYTES, extra_hops, measure, path_idle_rtt_ms, run
from .scenarios import (
    T41_CROSS,
    T41_CROSS_GAP_S,
    T41_CROSS_START_S,
    T49_BPS,
    T49_BUFFER,
    T49_CORE_MS,
    T49_CROSS_PKTS,
    T49_MAIN_PKTS,
    T49_PROBE_MS,
    T49_PROBE_PATH,
    table49_rtt_ms,
    table49_scenario,
)
from .tables import published_rows, simple_table, title


def table49_optimal_ms(gap_s: float | None = None) -> float:
    gap = table49_rtt_ms() / 1e3 if gap_s is None else gap_s
    starts = [0] + [int((T41_CROSS_START_S + i * gap) * 1e9) for i in range(T41_CROSS)]
    sizes = [T49_MAIN_PKTS * PKT_BYTES] + [T49_CROSS_PKTS * PKT_BYTES] * T41_CROSS
    rtts = [int(table49_rtt_ms() * 1e6)] * len(starts)
    return float(ideal.optimal_transfer_ns(T49_BPS, starts, sizes, rtts)[0]) / 1e6


def table49_row(tp: dict, net: dict, gap_s: float | None = None) -> list:
    (t,), mean, std, drops = measure(
        run(table49_scenario(tp, net, gap_s)), [0], path_idle_rtt_ms(T49_PROBE_PATH, extra_hops(net))
    )
    return [t, mean, std, drops]


def published_ms() -> dict:
    """The paper's rows in ms. It heads the columns "Transfer time (seconds)" and
    "Delay (s)"; 1447 can only be ms (2 MB at 1.5 Mb/s would take 10.7 s), 0.04 s
    of delay (40 ms) fits 20 buffers of 2.67 ms each: the delays are taken as
    seconds and shown in ms."""
    return {
        k: [t, *(d * 1e3 if d is not None else None for d in delays)]
        for k, (t, *delays) in published_rows("table4_9").items()
    }


PARAMS = {
    "network": f"experiment 1's with a {T49_BPS / 1e6:g} Mb/s, {T49_CORE_MS:g} ms bottleneck (RTT "
    f"{table49_rtt_ms():g} ms) and {T49_BUFFER} buffers per port",
    "connections": f"connection 1: {T49_MAIN_PKTS} packets at 0; ten cross connections of {T49_CROSS_PKTS} packets "
    f"from 100 ms, one every {table49_rtt_ms():g} ms (sizes and spacing reconstructed: the files scaled by 1.5/40)",
    "probe": f"{PROBE_BYTES} B every {T49_PROBE_MS:g} ms",
    "start": "no handshake; initial window 1 packet",
}
WHAT = "Low bandwidth-delay network: connection 1's transfer time and the probe's delay"


def _notes(rows: list) -> str:
    pub = published_ms()
    pp = next(r for r in rows if r[0] == "pp")
    return (
        f"Where fctlab differs: with {T49_BUFFER} buffers the rate-based sources overshoot when the cross connections "
        f"arrive one RTT apart and lose packets (pp {pp[1] / pub['pp'][0]:.2f} times the paper's time, {pp[4]:,} "
        "packets dropped; each loss sends it back to the first missing packet at its rate); FCFS schemes can beat the "
        "fair-share optimal here because connection 1 takes more than its share of the line before the short cross "
        "connections arrive."
    )


@reproduction("kanakia1991-table4-9", title=title(WHAT, "4.9"), aliases=("kanakia1991-table4.9",))
def table49(out: Path, scale: str) -> list:
    """Table 4.9: a low bandwidth-delay network."""
    pub = published_ms()
    return simple_table(
        Page("kanakia1991-table4-9", out, scale),
        "4.9",
        WHAT,
        ["transfer time conn. 1 (ms)", "delay mean (ms)", "delay std (ms)", "packets dropped"],
        [table49_optimal_ms(), 0.0, 0.0, 0],
        pub,
        table49_row,
        table49_scenario,
        PARAMS,
        varied=(
            f"cross connections {T41_CROSS_GAP_S * 1e3:g} ms apart (experiment 1's spacing in ms rather than in RTTs)",
            lambda tp, net: table49_row(tp, net, T41_CROSS_GAP_S)[:1],
            [table49_optimal_ms(T41_CROSS_GAP_S)],
        ),
        optimal_note=f"The optimal is every file at its start in the buffer, fair sharing of {T49_BPS / 1e6:g} Mb/s, "
        f"plus {table49_rtt_ms():g} ms. The paper's columns say seconds: its {pub['pp'][0]:g} is read as ms, its "
        f"delays {pub['pp'][1] / 1e3:g} s as {pub['pp'][1]:g} ms. ",
        notes=_notes,
    )

"""Table 4.4: fairness between connections whose round trips differ by about 2x."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...report import Table
from ..page import Page
from ..registry import reproduction
from .network import ACCESS_MS, CORE_MS, HEADER_BYTES, PKT_BYTES, SCHEMES, SLOW_BPS, SOURCE, rtt_ms, run
from .scenarios import (
    T41_CROSS,
    T41_CROSS_GAP_S,
    T41_CROSS_PKTS,
    T41_CROSS_START_S,
    T41_MAIN_PKTS,
    T44_SLOW_ACCESS_MS,
    table44_scenario,
)
from .tables import caption, pad, percent, published_rows, ratios, span, title

COLUMNS = ["scheme", "conn. 1 (ms)", "conn. 2 (ms)", "packets dropped"]


def table44_optimal_ms() -> list:
    starts = [0, 0] + [int((T41_CROSS_START_S + i * T41_CROSS_GAP_S) * 1e9) for i in range(T41_CROSS)]
    sizes = [T41_MAIN_PKTS * PKT_BYTES] * 2 + [T41_CROSS_PKTS * PKT_BYTES] * T41_CROSS
    rtts = [int(rtt_ms() * 1e6), int(2 * (T44_SLOW_ACCESS_MS + CORE_MS + ACCESS_MS) * 1e6)] + [
        int(rtt_ms() * 1e6)
    ] * T41_CROSS
    opt = ideal.optimal_transfer_ns(SLOW_BPS, starts, sizes, rtts)
    return [float(opt[0]) / 1e6, float(opt[1]) / 1e6]


def table44_times_ms(cfg: dict) -> tuple:
    """Both long connections' transfer times (ms) and the packets dropped."""
    f = run(cfg).flows
    t = [float(f.acked_ns.iloc[i] - f.start_ns.iloc[i]) / 1e6 if f.completed.iloc[i] else float("nan") for i in (0, 1)]
    return t, int(f.drops.sum())


def _params() -> dict:
    slow_rtt = 2 * (T44_SLOW_ACCESS_MS + CORE_MS + ACCESS_MS)
    return {
        "network": f"connection 2 on a {T44_SLOW_ACCESS_MS:g} ms access line (round trip {slow_rtt:g} ms, which the "
        f"published optimal {published_rows('table4_4')['optimal'][1]:g} ms implies), every other host on "
        f"{ACCESS_MS:g} ms lines ({rtt_ms():g} ms); 100 Mb/s "
        f"access, 40 Mb/s, {CORE_MS:g} ms core (Figure 3 is not in the text)",
        "connections": f"connections 1 and 2: {T41_MAIN_PKTS} packets (2 MB) at 0; {T41_CROSS} cross connections of "
        f"{T41_CROSS_PKTS} packets from {T41_CROSS_START_S * 1e3:g} ms, one every {T41_CROSS_GAP_S * 1e3:g} ms, all "
        "with the scheme under test",
        "packets": f"{PKT_BYTES} B data, {HEADER_BYTES} B ACKs, one ACK per packet; buffer one bandwidth-delay "
        "product at the mean RTT",
        "start": "no handshake; initial window 1 packet",
    }


def _notes(rows: list) -> str:
    decbit = [abs(r - 1) for r in ratios(rows, ("decbit",), 1, "table4_4") + ratios(rows, ("decbit",), 2, "table4_4")]
    rate_based = ratios(rows, ("pp", "e2e-ef"), 1, "table4_4") + ratios(rows, ("pp", "e2e-ef"), 2, "table4_4")
    return (
        "The optimal column assumes fair sharing, so a connection that takes more than its share can beat it "
        "(connection 1 of a scheme that starves connection 2). DECbit's rows come within "
        f"{percent(decbit[0])} (connection 1) and {percent(decbit[1])} (connection 2) of the paper's. fctlab's "
        "packet-pair and "
        "e2e-ef (readings with a chosen set point, gain and loss handling, see Table 4.1) lose packets here and come "
        f"within {span(rate_based)} times the paper's times; each loss sends the source back to the first missing "
        "packet at its rate (before, a long-RTT source repaired its losses one per RTT with its rate frozen at the "
        "floor: e2e-ef's connection 2 took 17 times the paper's time)."
    )


WHAT = "Fairness between round trips of 44 and 82 ms"


@reproduction("kanakia1991-table4-4", title=title(WHAT, "4.4"), aliases=("kanakia1991-table4.4",))
def table44(out: Path, scale: str) -> list:
    """Table 4.4: fairness between connections whose round trips differ by about 2x."""
    p = Page("kanakia1991-table4-4", out, scale)
    published = published_rows("table4_4")
    rows = [["optimal", *table44_optimal_ms(), 0]]
    pub = [["optimal", *pad(published["optimal"], 2), None]]
    cfgs = {}
    for name, tp, net in SCHEMES:
        cfgs[name] = table44_scenario(tp, net)
        t, drops = table44_times_ms(cfgs[name])
        rows.append([name, *t, drops])
        pub.append([name, *pad(published.get(name, ()), 2), None])
    cap = caption(
        "4.4",
        "transfer times of two connections with different round trips",
        _params(),
        "Optimal: every file in the buffer at its start, fair sharing, plus each connection's RTT "
        "(fctlab.ideal.optimal_transfer_ns). Deterministic: one run per scheme. ",
    )
    table = Table(
        title="Table 4.4",
        columns=COLUMNS,
        rows=rows,
        published=pub,
        key_columns=1,
        published_source="Table 4.4",
        caption=cap,
    )
    return p.record(source=f"{SOURCE}, Table 4.4", tables=[table], params=cfgs, seed=1, notes=_notes(rows))

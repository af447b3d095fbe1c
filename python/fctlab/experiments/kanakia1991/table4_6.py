"""Table 4.6: two-way traffic; and packet-pair's and e2e-ef's rates with and
without the reverse traffic, and under DKS fair queueing."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...report import Table
from ..page import Page
from ..registry import reproduction
from .network import (
    HEADER_BYTES,
    PKT_BYTES,
    PROBE_BYTES,
    PROBE_INTERVAL_MS,
    SCHEMES,
    SLOW_BPS,
    extra_hops,
    measure,
    path_idle_rtt_ms,
    rtt_ms,
    run,
)
from .scenarios import (
    T41_CROSS,
    T41_CROSS_GAP_S,
    T41_CROSS_PKTS,
    T41_CROSS_START_S,
    T41_MAIN_PKTS,
    T46_PROBE_PATH,
    table46_scenario,
)
from .table4_1 import table41_optimal_ms
from .table4_6_notes import table46_notes
from .tables import published_rows, simple_table, title

#: The rate table's runs: (fq discipline, reverse traffic).
RATE_RUNS = (("drr", True), ("drr", False), ("dks", True))
RATE_COLUMNS = [
    "scheme",
    "traffic",
    "fq discipline",
    "largest rate set (Mb/s)",
    "time above 40 Mb/s (ms)",
    "conn. 1 packets dropped",
    "conn. 1 time (ms)",
    "reverse conn. 1 time (ms)",
]
SAMPLE_MS = 10.0


def table46_optimal_ms() -> float:
    """Connection 1's optimal time: the data of its direction and the ACKs of the
    other (40 B per packet, given as flows) shared fairly at 40 Mb/s, plus the RTT."""
    starts = [0] + [int((T41_CROSS_START_S + i * T41_CROSS_GAP_S) * 1e9) for i in range(T41_CROSS)]
    pkts = [T41_MAIN_PKTS] + [T41_CROSS_PKTS] * T41_CROSS
    sizes = [p * PKT_BYTES for p in pkts] + [p * HEADER_BYTES for p in pkts]
    rtts = [int(rtt_ms() * 1e6)] * (2 * len(pkts))
    return float(ideal.optimal_transfer_ns(SLOW_BPS, starts + starts, sizes, rtts)[0]) / 1e6


def table46_row(tp: dict, net: dict, reverse: bool = True) -> list:
    ids = [0, 1 + T41_CROSS] if reverse else [0]
    times, mean, std, drops = measure(
        run(table46_scenario(tp, net, reverse)), ids, path_idle_rtt_ms(T46_PROBE_PATH, extra_hops(net))
    )
    return [*times, mean, std, drops]


def table46_rates(tp: dict, net: dict, reverse: bool = True) -> list:
    """Connection 1's sending rate as its source sets it (the per-flow series:
    ``cwnd_pkts`` is rate x srtt for packet-pair and e2e-ef, so rate =
    cwnd_pkts / rtt_ms), sampled every 10 ms: the largest (Mb/s, 500-byte
    packets), the time it spent above the 40 Mb/s line (ms), its packets
    dropped and its transfer time (ms)."""
    sc = table46_scenario(tp, net, reverse)
    sc["metrics"] = {"series": True, "interval_ms": SAMPLE_MS, "links": ["core"], "cwnd_flows": [0], "ps_fct": False}
    res = run(sc)
    s = res.series
    w = s[s.element == "flow0"].pivot_table(index="t_ns", columns="metric", values="value")
    rate = (w.cwnd_pkts / (w.rtt_ms / 1e3) * PKT_BYTES * 8 / 1e6).dropna()
    f = res.flows.set_index("flow_id").loc[0]
    t = float(f.acked_ns - f.start_ns) / 1e6 if f.completed else float("nan")
    return [float(rate.max()), float((rate > SLOW_BPS / 1e6).sum() * SAMPLE_MS), int(f.drops), t]


def table46_rate_table() -> Table:
    """Packet-pair's and e2e-ef's rates with and without the reverse traffic."""
    rows = []
    for name, tp, net in SCHEMES:
        if name not in ("pp", "e2e-ef"):
            continue
        for disc, reverse in RATE_RUNS:
            net2 = {**net, "fq": {**net["fq"], "discipline": disc}}
            rates = table46_rates(tp, net2, reverse)
            back = table46_row(tp, net2)[1:2] if reverse else [None]
            rows.append([name, "both ways" if reverse else "forward only", disc, *rates, *back])
    return Table(
        title="Table 4.6: connection 1's rate as its source sets it, with and without the reverse traffic, and under "
        "DKS fair queueing",
        columns=RATE_COLUMNS,
        rows=rows,
        key_columns=3,
        caption=f"From the run's per-flow series (metrics.cwnd_flows = [0], every {SAMPLE_MS:g} ms; rate = cwnd_pkts "
        f"/ rtt_ms, in {PKT_BYTES} B packets). Packet-pair's rate is its estimate of the bottleneck share mu plus "
        f"(B - n_b)/RTT; a rate above the {SLOW_BPS / 1e6:g} Mb/s line means mu was measured from ACKs that left a "
        "reverse port closer together than the forward bottleneck sent their data. e2e-ef's mu is stamped by the "
        "routers and does not depend on the ACKs' spacing. Varied once: the switches' fair queueing (fq discipline) "
        '"dks", Demers, Keshav & Shenker\'s finish numbers instead of DRR (the table above uses DRR).',
    )


PARAMS = {
    "network": "hosts a0..a10 and a probe host on 100 Mb/s, 1 ms lines into S1, S1-S2 40 Mb/s, 20 ms, hosts b0..b10 "
    "and the probe's sink on 100 Mb/s, 1 ms lines out of S2 (Figure 5 is not in the text)",
    "connections": f"a0->b0 and b0->a0: {T41_MAIN_PKTS} packets at 0; a_i->b_i and b_i->a_i (i = 1..10): "
    f"{T41_CROSS_PKTS} packets from 100 ms, one pair every 44 ms: experiment 1 mirrored",
    "probe": f"a {PROBE_BYTES} B packet every {PROBE_INTERVAL_MS:g} ms in the forward direction",
    "buffer": "440 packets per switch port",
    "start": "no handshake; initial window 1 packet",
}
WHAT = "Two-way traffic: the forward and reverse connection 1's transfer times and the probe's delay"


@reproduction("kanakia1991-table4-6", title=title(WHAT, "4.6"), aliases=("kanakia1991-table4.6",))
def table46(out: Path, scale: str) -> list:
    """Table 4.6: two-way traffic."""
    opt = table46_optimal_ms()
    pkts = T41_MAIN_PKTS + T41_CROSS * T41_CROSS_PKTS
    busy_s = pkts * (PKT_BYTES + HEADER_BYTES) * 8 / SLOW_BPS
    p = Page("kanakia1991-table4-6", out, scale)
    rep = simple_table(
        p,
        "4.6",
        WHAT,
        ["conn. 1 (ms)", "conn. 2 = reverse conn. 1 (ms)", "delay mean (ms)", "delay std (ms)", "packets dropped"],
        [opt, opt, 0.0, 0.0, 0],
        published_rows("table4_6"),
        table46_row,
        table46_scenario,
        PARAMS,
        varied=(
            "no reverse traffic (experiment 1 on this network): what the ACKs queueing behind data cost",
            lambda tp, net: table46_row(tp, net, reverse=False)[:1],
            [table41_optimal_ms()],
        ),
        optimal_note=f"The optimal counts the reverse connections' ACKs ({HEADER_BYTES} B each) on each line: "
        f"{pkts:,} x {PKT_BYTES + HEADER_BYTES} B at {SLOW_BPS / 1e6:g} Mb/s is {busy_s:.3f} s, plus {rtt_ms():g} ms: "
        f"{opt:.0f} ms (the paper's: {published_rows('table4_6')['optimal'][0]:g} ms).",
    )[0]
    rates = table46_rate_table()
    rep.tables.append(rates)
    rep.notes = table46_notes(rep.tables[0].rows, rates.rows)
    rep.wall_s = p.wall()
    return [rep]

"""Table 4.1: slow changes in cross traffic (a new connection every RTT); the
connection-1-and-probe table that Tables 4.2 and 4.8 share."""

from __future__ import annotations

from pathlib import Path

from ... import ideal
from ...report import Table
from .. import captions
from ..page import Page, parameters
from ..registry import reproduction
from .network import (
    FAST_BPS,
    HEADER_BYTES,
    PKT_BYTES,
    PROBE_BYTES,
    PROBE_INTERVAL_MS,
    SCHEMES,
    SLOW_BPS,
    SOURCE,
    extra_hops,
    rtt_ms,
    run,
)
from .scenarios import T41_CROSS, T41_CROSS_GAP_S, T41_CROSS_PKTS, T41_CROSS_START_S, T41_MAIN_PKTS, table41_scenario
from .tables import pad, published_rows, title

COLUMNS = ["scheme", "transfer time conn. 1 (ms)", "delay mean (ms)", "delay std (ms)", "packets dropped"]


def idle_probe_rtt_ms(hops: int = 0) -> float:
    """A probe's round trip on the empty network: propagation plus the 500-byte
    probe and the 40-byte answer serialised on 100, 40 and 100 Mb/s lines (and
    ``hops`` more 100 Mb/s lines in the extra-hop variant)."""
    ser = lambda b: b * 8 / FAST_BPS * (2 + hops) + b * 8 / SLOW_BPS  # noqa: E731
    return rtt_ms() + (ser(PROBE_BYTES) + ser(HEADER_BYTES)) * 1e3


def table41_optimal_ms(gap_s: float = T41_CROSS_GAP_S) -> float:
    """Connection 1's optimal transfer time: every file in the bottleneck buffer
    at its start, served fairly at 40 Mb/s (fctlab.ideal), plus the RTT."""
    starts = [0] + [int((T41_CROSS_START_S + i * gap_s) * 1e9) for i in range(T41_CROSS)]
    sizes = [T41_MAIN_PKTS * PKT_BYTES] + [T41_CROSS_PKTS * PKT_BYTES] * T41_CROSS
    rtts = [int(rtt_ms() * 1e6)] * len(starts)
    return float(ideal.optimal_transfer_ns(SLOW_BPS, starts, sizes, rtts)[0]) / 1e6


def table41_row(tp: dict, net: dict, gap_s: float = T41_CROSS_GAP_S, buffer_pkts: int | None = None) -> list:
    """Connection 1's transfer time (ms), then the probe's single packet delay
    beyond the empty network's (mean, standard deviation, ms) while connection
    1 runs, and the packets dropped."""
    res = run(table41_scenario(tp, net, gap_s, buffer_pkts))
    f = res.flows
    main = f[f.flow_id == 0].iloc[0]
    t = float(main.acked_ns - main.start_ns) / 1e6 if main.completed else float("nan")
    p = res.probes
    p = p[(p.sent_ns <= main.acked_ns) & p.rtt_ns.notna()] if main.completed else p[p.rtt_ns.notna()]
    d = p.rtt_ns.astype("float64").to_numpy() / 1e6 - idle_probe_rtt_ms(extra_hops(net))
    return [
        t,
        float(d.mean()) if len(d) else float("nan"),
        float(d.std()) if len(d) else float("nan"),
        int(f.drops.sum()),
    ]


def _params(gap_s: float, buffer_pkts: int | None) -> dict:
    buffer = "one bandwidth-delay product (440 packets)" if buffer_pkts is None else f"{buffer_pkts} packets"
    return {
        "network": "every connection and the probe on its own 100 Mb/s, 1 ms access line into S1, the 40 Mb/s, 20 ms "
        "line S1-S2, and its own 100 Mb/s, 1 ms line out: round trip 44 ms (Figure 1 is not in the text; chosen)",
        "packets": f"{PKT_BYTES} B data, {HEADER_BYTES} B ACKs, one ACK per packet; buffer {buffer} per port",
        "connections": f"connection 1: {T41_MAIN_PKTS} packets (2 MB) at 0; {T41_CROSS} cross connections of "
        f"{T41_CROSS_PKTS} packets (500 KB) from {T41_CROSS_START_S * 1e3:g} ms, one every {gap_s * 1e3:g} ms, all "
        "with the scheme under test",
        "probe": f"a {PROBE_BYTES} B packet every {PROBE_INTERVAL_MS:g} ms from its own host, answered at once; delay "
        f"= sending to the answer's return minus the empty network's {idle_probe_rtt_ms():.3f} ms (the paper's "
        "optimal delay is 0), over the probes sent while connection 1 runs",
        "start": "no handshake; initial window 1 packet",
    }


def _notes(cfgs: dict) -> str:
    pp = cfgs["pp"]
    b = captions.num(captions.value(pp, "transport.packet_pair.setpoint_pkts"))
    gain = captions.num(captions.value(pp, "transport.packet_pair.increase_gain"))
    conversations = T41_CROSS + 1
    return (
        f"Where fctlab differs: packet-pair and e2e-ef are fctlab's readings (the set point B = {b} packets and the "
        f"increase gain {gain} are chosen, mu is the smallest estimate of the last RTT): each new source starts at two "
        f"packets per RTT and closes {gain} of the gap to its target per RTT, and while a new connection's first "
        "pairs cross a bottleneck where the others are not yet backlogged they see more than their share, so the "
        "sources overshoot together and the shared buffer overflows (the 'packets dropped' column); the paper's "
        "version lost fewer. The TCP variants and DECbit share one FCFS buffer of one BDP; DECbit loses nothing but "
        f"grows by one packet per two RTTs. hbh (fctlab's reading, on the extra-hop variant) keeps about B = {b} "
        "packets of each conversation at each switch and loses nothing with 440 buffers; with 44 (Table 4.8) the "
        f"{conversations} conversations' {conversations * float(b):g} exceed the shared buffer and it loses packets, "
        "so its time there exceeds its Table 4.1 time."
    )


def probe_table(p: Page, number: str, what: str, gap_s: float, buffer_pkts: int | None = None) -> list:
    """Experiment 1's table (4.1; 4.2 and 4.8 are variants of it): connection
    1's transfer time and the probe's delay, one row per scheme beside the paper's."""
    published = published_rows(f"table{number.replace('.', '_')}")
    rows = [["optimal", table41_optimal_ms(gap_s), 0.0, 0.0, 0]]
    pub = [["optimal", *pad(published.get("optimal", ()), 3), None]]
    cfgs = {}
    for name, tp, net in SCHEMES:
        cfgs[name] = table41_scenario(tp, net, gap_s, buffer_pkts)
        rows.append([name] + table41_row(tp, net, gap_s, buffer_pkts))
        pub.append([name, *pad(published.get(name, ()), 3), None])
    cap = (
        f"{SOURCE}, Table {number}: {what}. Each cell fctlab | paper | difference. The optimal time is connection 1's "
        "under fair sharing of the 40 Mb/s line with every file in the buffer at its start, plus the RTT "
        "(fctlab.ideal.optimal_transfer_ns). Deterministic: one run per scheme. "
        + parameters(_params(gap_s, buffer_pkts))
    )
    table = Table(
        title=f"Table {number}",
        columns=COLUMNS,
        rows=rows,
        published=pub,
        key_columns=1,
        published_source=f"Table {number}",
        caption=cap,
    )
    return p.record(source=f"{SOURCE}, Table {number}", tables=[table], params=cfgs, seed=1, notes=_notes(cfgs))


WHAT = "Slow changes in cross traffic: connection 1's transfer time and the probe's delay"


@reproduction("kanakia1991-table4-1", title=title(WHAT, "4.1"), aliases=("kanakia1991-table4.1",))
def table41(out: Path, scale: str) -> list:
    """Table 4.1: slow changes in cross traffic (a new connection every RTT)."""
    return probe_table(Page("kanakia1991-table4-1", out, scale), "4.1", WHAT, T41_CROSS_GAP_S)

"""The ten experiments for any registered scheme (``fctlab suite1991``): one
cell per quantity, beside the optimal and, for the paper's own schemes, the
published value."""

from __future__ import annotations

import fctlab

from .network import HBH_EXTRA_HOPS, PKT_BYTES, run
from .scenarios import T41_CROSS_GAP_S, T42_CROSS_GAP_S, T47_LOADS, T48_BUFFER_PKTS, TABLE43_SIZES
from .table4_1 import table41_optimal_ms, table41_row
from .table4_3 import table43_optimal_ms, table43_times_ms
from .table4_4 import table44_optimal_ms, table44_scenario
from .table4_5 import table45_optimal_ms, table45_row
from .table4_6 import table46_optimal_ms, table46_row
from .table4_7 import seeds, table47_cells, table47_optimal_ms
from .table4_9 import published_ms, table49_optimal_ms, table49_row
from .table4_10 import table410_optimal_ms, table410_row
from .tables import pad, published_rows

#: The paper's row for a registered scheme (over its usual queue), if it has one.
PAPER_ROW = {
    "tcp-tahoe": "tcp (tahoe)",
    "tcp-reno": "tcp (reno)",
    "tri-s": "tri-s",
    "dual": "dual",
    "decbit": "decbit",
    "packet-pair": "pp",
    "e2e-ef": "e2e-ef",
    "hbh": "hbh",
}


def scheme_setup(scheme: str, queue: str | None = None) -> tuple:
    """The [transport] and [network] keys that run ``scheme`` in the suite: its
    router half if it names one (fctlab list), else ``queue`` (default
    DropTail); fair queueing with a quantum of one packet; hbh over its own
    ports gets the paper's extra-hop variant."""
    cat = {s["name"]: s for s in fctlab.catalog()["schemes"]}
    if scheme not in cat:
        raise ValueError(f"unknown scheme {scheme!r}; registered: {', '.join(cat)}")
    q = queue or cat[scheme].get("queue") or "droptail"
    net = {"queue": q}
    if q in ("fq", "fq-ef"):
        net["fq"] = {"quantum_bytes": PKT_BYTES}
    if q == "red":
        net["red"] = {"mean_pktsize": PKT_BYTES}
    if scheme == "hbh" and q == "hbh":
        net["extra_hops"] = HBH_EXTRA_HOPS
    return {"scheme": scheme}, net


class _Cells(list):
    """The suite's cells, with the paper's values of one row (or none)."""

    def __init__(self, row: str | None):
        super().__init__()
        self.row = row

    def published(self, rows: dict, n: int = 4) -> list:
        return pad(rows.get(self.row, ()), n) if self.row else [None] * n

    def add(self, exp: str, quantity: str, value, optimal, published) -> None:
        self.append(
            {"experiment": exp, "quantity": quantity, "fctlab": value, "optimal": optimal, "published": published}
        )

    def delays(self, number: str, t, mean, std, drops, optimal, p) -> None:
        self.add(number, "transfer time conn. 1 (ms)", t, optimal, p[0])
        self.add(number, "probe delay mean (ms)", mean, 0.0, p[1])
        self.add(number, "probe delay std (ms)", std, 0.0, p[2])
        self.add(number, "packets dropped", float(drops), 0.0, None)


def _first_four(c: _Cells, tp: dict, net: dict) -> None:
    for number, gap in (("4.1", T41_CROSS_GAP_S), ("4.2", T42_CROSS_GAP_S)):
        pub = c.published(published_rows(f"table{number.replace('.', '_')}"))
        c.delays(number, *table41_row(tp, net, gap, None), table41_optimal_ms(gap), pub)
    p43 = c.published(published_rows("table4_3"), 3)
    for pkts, t, opt, p in zip(TABLE43_SIZES, table43_times_ms(tp, net), table43_optimal_ms(), p43):
        c.add("4.3", f"transfer time, {pkts} pkts (ms)", t, opt, p)
    f = run(table44_scenario(tp, net)).flows
    for i, opt, p in zip((0, 1), table44_optimal_ms(), c.published(published_rows("table4_4"), 2)):
        t = float(f.acked_ns.iloc[i] - f.start_ns.iloc[i]) / 1e6 if f.completed.iloc[i] else float("nan")
        c.add("4.4", f"transfer time conn. {i + 1} (ms)", t, opt, p)


def _the_rest(c: _Cells, tp: dict, net: dict, scale: str) -> None:
    c.delays("4.5", *table45_row(tp, net), table45_optimal_ms(), c.published(published_rows("table4_5")))
    t1, t2, mean, std, drops = table46_row(tp, net)
    p = c.published(published_rows("table4_6"))
    c.add("4.6", "transfer time conn. 1 (ms)", t1, table46_optimal_ms(), p[0])
    c.add("4.6", "transfer time conn. 2 (reverse) (ms)", t2, table46_optimal_ms(), p[1])
    c.add("4.6", "probe delay mean (ms)", mean, 0.0, p[2])
    c.add("4.6", "probe delay std (ms)", std, 0.0, p[3])
    c.add("4.6", "packets dropped", float(drops), 0.0, None)
    pa, pb = c.published(published_rows("table4_7a"), 5), published_rows("table4_7b").get(c.row) if c.row else None
    for i, load in enumerate(T47_LOADS):
        m, _, dm, _ = table47_cells(tp, net, load, seeds(scale))
        c.add("4.7a", f"transfer time at load {load:g} (ms)", m, table47_optimal_ms(load), pa[i])
        c.add("4.7b", f"probe delay mean at load {load:g} (ms)", dm, 0.0, pb[i][0] if pb else None)
    p48 = c.published(published_rows("table4_8"))
    c.delays("4.8", *table41_row(tp, net, T41_CROSS_GAP_S, T48_BUFFER_PKTS), table41_optimal_ms(), p48)
    c.delays("4.9", *table49_row(tp, net), table49_optimal_ms(), c.published(published_ms()))
    t1, t2, drops = table410_row(tp, net)
    p = c.published(published_rows("table4_10"), 2)
    for i, (t, opt) in enumerate(zip((t1, t2), table410_optimal_ms())):
        c.add("4.10", f"transfer time conn. {i + 1} (ms)", t, opt, p[i])
    c.add("4.10", "packets dropped", float(drops), 0.0, None)


def suite(scheme: str, queue: str | None = None, scale: str = "quick") -> list:
    """The ten experiments for one registered scheme: one dict per cell
    (experiment, quantity, fctlab, optimal, published or None)."""
    tp, net = scheme_setup(scheme, queue)
    usual = queue is None or queue == scheme_setup(scheme)[1]["queue"]
    cells = _Cells(PAPER_ROW.get(scheme) if usual else None)
    _first_four(cells, tp, net)
    _the_rest(cells, tp, net, scale)
    return list(cells)

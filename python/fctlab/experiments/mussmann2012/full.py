"""Mussmann 2012 Fig. 5.2 at scale: run configurations of the figure with
a given number of flows (chunks through a results store, resumable), print the
wall time, CPU time and peak memory of each, the time 10^8 flows would take at
that speed, and the share of the TCP-to-RCP gap each change closes.

    python -m fctlab.experiments.mussmann2012.full --flows 1e7 --configs TCP --store store-fig52
    python -m fctlab.experiments.mussmann2012.full --flows 1e7 --store store-fig52   # all five, then the gap table

The chunks of a configuration are runs of their own seeds (20 chunks for 10^8
flows, so a chunk holds 5 x 10^6 counted flows; fewer flows keep that chunk
size); a killed run continues where it stopped when started again with the
same arguments. Memory and CPU are sampled from /proc for this process and every process it
starts (the workers run one chunk at a time; the parent merges the tables).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .fig5_2 import fig52_stats
from .fig5_2_text import at, gap_closed, thesis_fq_share
from .scenarios import FIG52_BUFFER_BDP, FIG52_GAP_SIZES, FIG52_RCP_ALT, FIG52_SCALE, PROTOCOLS

FULL_FLOWS = 100_000_000
CHUNK_FLOWS = 5_000_000


class Monitor:
    """Samples this process and all its descendants (the sweep's workers are
    children of a fork server) from /proc every ``every`` seconds: the largest
    peak resident set of any one process (VmHWM), the largest sum of resident
    sets at one moment, and the CPU time of all of them."""

    def __init__(self, every: float = 0.5):
        import os
        import threading

        self.every, self.tick = every, os.sysconf("SC_CLK_TCK")
        self.cpu: dict = {}
        self.hwm_kib = 0
        self.sum_kib = 0
        self._stop = threading.Event()
        self._th = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self):
        self._th.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._th.join()
        self.sample()

    def _loop(self):
        while not self._stop.wait(self.every):
            self.sample()

    def sample(self):
        import os

        procs = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        st = f.read().rsplit(")", 1)[1].split()
                    procs[int(d)] = (int(st[1]), int(st[11]) + int(st[12]))
                except (OSError, IndexError, ValueError):
                    pass
        mine, frontier = {os.getpid()}, [os.getpid()]
        while frontier:
            parent = frontier.pop()
            for pid, (ppid, _) in procs.items():
                if ppid == parent and pid not in mine:
                    mine.add(pid)
                    frontier.append(pid)
        total = 0
        for pid in mine:
            self.cpu[pid] = procs[pid][1] if pid in procs else self.cpu.get(pid, 0)
            try:
                with open(f"/proc/{pid}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            self.hwm_kib = max(self.hwm_kib, int(line.split()[1]))
                        elif line.startswith("VmRSS:"):
                            total += int(line.split()[1])
            except OSError:
                pass
        self.sum_kib = max(self.sum_kib, total)

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu.values()) / self.tick


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m fctlab.experiments.mussmann2012.full", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--flows", type=float, default=1e7, help="counted flows per configuration (default 1e7; the thesis: 1e8)"
    )
    ap.add_argument(
        "--configs",
        default="all",
        help="comma-separated: TCP, 'TCP IW10', RED, FQ, RCP, 'RCP alpha 0.1' (default all: the first five)",
    )
    ap.add_argument(
        "--store", default="store-mussmann2012-fig5-2", help="results store (chunks land here; rerun to resume)"
    )
    ap.add_argument("--workers", type=int, default=None, help="parallel chunk runs (default: every core)")
    ap.add_argument("--buffer-bdp", type=float, default=FIG52_BUFFER_BDP)
    ap.add_argument("--json", action="store_true", help="one JSON line per configuration instead of text")
    return ap


def _one(a, name: str, tp: dict, net: dict, flows: int, chunks: int) -> tuple:
    """Run one configuration (or read its stored chunks); its statistics and the row printed for it."""
    sc = FIG52_SCALE["full"]
    t0 = time.perf_counter()
    with Monitor() as mon:
        cpu0 = mon.cpu_s
        stats, _ = fig52_stats(
            name,
            tp,
            net,
            flows,
            chunks,
            sc["warm_s"],
            sc["cool_s"],
            buffer_bdp=a.buffer_bdp,
            store=a.store,
            workers=a.workers,
            progress=not a.json,
        )
    wall = time.perf_counter() - t0
    row = {
        "config": name,
        "flows_counted": int(stats["flows_completed"].sum()),
        "flows_started": int(stats["flows_started"].sum()),
        "chunks": chunks,
        "wall_s": round(wall, 1),
        "cpu_s": round(mon.cpu_s - cpu0, 1),
        "peak_rss_mib_one_process": round(mon.hwm_kib / 1024, 1),
        "peak_rss_mib_all": round(mon.sum_kib / 1024, 1),
    }
    # At this speed, 10^8 flows on the workers used (chunks in parallel).
    row["extrapolated_1e8_wall_s"] = round(wall * FULL_FLOWS / flows, 0)
    row["extrapolated_1e8_cpu_s"] = round(row["cpu_s"] * FULL_FLOWS / flows, 0)
    return stats, row


def _report(name: str, row: dict, chunks: int) -> str:
    if row["cpu_s"] <= 5:
        return f"{name}: already stored ({row['flows_counted']:,} flows counted)"
    return (
        f"{name}: {row['flows_counted']:,} flows counted in {chunks} chunk(s): wall {row['wall_s']:.0f} s, CPU "
        f"{row['cpu_s']:.0f} s, peak RSS {row['peak_rss_mib_one_process']:.0f} MiB in one process, "
        f"{row['peak_rss_mib_all']:.0f} MiB all processes together; 10^8 flows: about "
        f"{row['extrapolated_1e8_cpu_s'] / 60:.0f} CPU-minutes (wall {row['extrapolated_1e8_wall_s'] / 60:.0f} min "
        "as run here; CPU / workers with idle cores)"
    )


def _gap_table(stats: dict) -> None:
    """Print the share of the TCP-to-RCP gap each configuration closes."""
    thesis = thesis_fq_share()
    others = [n for n in stats if n not in ("TCP", "RCP")]
    print("\nshare of the TCP-to-RCP gap closed, (TCP - X) / (TCP - RCP), %:")
    print(
        f"{'':8}{'size':>6}{'flows':>10}{'TCP ms':>9}{'RCP ms':>9}"
        + "".join(f"{n:>10}" for n in others)
        + f"{'thesis FQ':>11}"
    )
    for col, what in (("p50_fct_ns", "median"), ("p99_fct_ns", "p99")):
        for size in FIG52_GAP_SIZES:
            v = {n: at(t, size, col, 1) for n, t in stats.items()}
            n_tcp = int(stats["TCP"].loc[stats["TCP"]["size_pkts"] == size, "flows_completed"].sum())
            line = f"{what:8}{size:>6}{n_tcp:>10,}{v['TCP'] / 1e6:>9.1f}{v['RCP'] / 1e6:>9.1f}"
            line += "".join(f"{100 * gap_closed(v['TCP'], v['RCP'], v[n]):>9.0f}%" for n in others)
            print(line + f"{100 * thesis[what][size]:>10.0f}%")


def main(argv=None) -> int:
    ap = _parser()
    a = ap.parse_args(argv)
    flows = int(a.flows)
    chunks = max(1, round(flows / CHUNK_FLOWS))
    known = list(PROTOCOLS) + [FIG52_RCP_ALT]
    asked = [c.strip() for c in a.configs.split(",")]
    want = [p for p in known if (a.configs == "all" and p in PROTOCOLS) or p[0] in asked]
    if not want:
        ap.error(f"--configs: none of {a.configs!r} is one of {', '.join(p[0] for p in known)}")
    stats = {}
    for name, tp, net in want:
        stats[name], row = _one(a, name, tp, net, flows, chunks)
        print(json.dumps(row) if a.json else _report(name, row, chunks), flush=True)
    if {"TCP", "RCP"} <= set(stats):
        _gap_table(stats)
    return 0


if __name__ == "__main__":
    sys.exit(main())

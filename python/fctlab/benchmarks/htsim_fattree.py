"""fctlab beside htsim on a k = 8 fat-tree: the same web-search flows in
both, the mean FCT per size bin of each and the speed of each.

htsim (csg-htsim, Broadcom and UCL, BSD-2-Clause) is built from its own
sources, outside this package (`fctlab.benchmarks.htsim`); its driver
``htsim_fattree`` builds htsim's ``FatTreeTopology`` (three tiers, its
numbering and its path order: csg-htsim ``sim/datacenter/fat_tree_topology.cpp``)
with a plain FIFO ``Queue`` on every port and runs htsim's ``TcpSrc`` /
``TcpSink`` (``sim/tcp.cpp``) over it, one flow per line of a flow list.

The flow list is drawn here, by the law of the driver's own generator: Poisson
arrivals at load ``rho`` of every host link (headers counted), one merged
stream of rate ``hosts x lambda`` whose flows pick their source uniformly,
web-search sizes (Alizadeh et al., DCTCP, SIGCOMM 2010, as HPCC tabulates
them: fctlab's built-in ``websearch`` table, piecewise linear, inverted with
``u`` uniform in [0, 100) as HPCC's ``traffic_gen/custom_rand.py`` does), each
rounded up to whole payloads, and a destination uniform over the hosts under
other edge switches. The only random source is ``random.Random(seed)``, every
draw made by hand, in the order inter-arrival, source, size, destination, so
the list is the same on every Python 3.

fctlab replays the file (``arrivals = "file"``) on its own fat-tree built to
the same numbering, with htsim's hash (``ecmp_hash = "flow-index"``:
splitmix64 of the flow's line mod the number of paths), ACKs on the data's
mirror path, and htsim's TCP as far as fctlab's options reach: NewReno, an
ACK per data packet, 40-B ACKs, IW 2 after a handshake (htsim's SYN is 1 B,
fctlab's ``header_bytes``), initial RTO 1 s, an RTO floor of 250 ms checked
on a 10 ms clock, no SACK, ports deep enough that nothing drops. Both sides
count unique data packets delivered over the wall time of the event loop
alone; the runs alternate (fctlab, htsim, fctlab, ...) so a change in the
machine's load touches both.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from . import htsim
from .runner import run_child

DRIVER = "htsim_fattree"

#: Size bins (packets, upper edges inclusive) of the comparison: decades.
BIN_EDGES = (10, 100, 1000, 10_000, math.inf)


@dataclass(frozen=True)
class Fabric:
    """The fat-tree, its traffic and its TCP, as both simulators run them."""

    k: int = 8
    host_bps: float = 10e9
    fabric_bps: float = 10e9
    link_delay_us: float = 1.0
    #: Per switch port; deep enough that nothing drops (checked on both sides).
    buffer_pkts: int = 100_000
    payload: int = 1000
    header: int = 40
    iw: int = 2
    load: float = 0.5

    @property
    def hosts(self) -> int:
        return self.k**3 // 4


FABRIC = Fabric()


def websearch_cdf() -> list:
    """fctlab's built-in web-search table as (bytes, cumulative percent)."""
    import fctlab

    law = next(d for d in fctlab.catalog()["distributions"] if d["name"] == "websearch")
    return [(float(x), round(p * 100.0, 9)) for x, p in law["cdf"]]


def bytes_at_percent(cdf: list, y: float) -> float:
    """The CDF inverted at ``y`` percent, linear between rows (HPCC's
    ``custom_rand.getValueFromPercentile``)."""
    for (x0, y0), (x1, y1) in zip(cdf, cdf[1:]):
        if y <= y1:
            return x0 + (x1 - x0) / (y1 - y0) * (y - y0)
    return cdf[-1][0]


def prob_above(cdf: list, x: float) -> float:
    """P(bytes > x) under the piecewise-linear CDF."""
    if x < cdf[0][0]:
        return 1.0
    for (x0, y0), (x1, y1) in zip(cdf, cdf[1:]):
        if x <= x1:
            return 1.0 - (y0 + (y1 - y0) * (x - x0) / (x1 - x0)) / 100.0
    return 0.0


def mean_pkts(cdf: list, payload: int) -> float:
    """E[max(1, ceil(bytes / payload))] = 1 + sum_{j >= 1} P(bytes > j payload)."""
    top = int(cdf[-1][0] // payload) + 1
    return 1.0 + sum(prob_above(cdf, j * payload) for j in range(1, top + 1))


def rate_per_host(fabric: Fabric = FABRIC, cdf: list | None = None) -> float:
    """Flows a host starts per second for load ``fabric.load`` of its link:
    rho C / (8 E[size_pkts] (payload + header))."""
    cdf = cdf or websearch_cdf()
    return fabric.load * fabric.host_bps / (8.0 * mean_pkts(cdf, fabric.payload) * (fabric.payload + fabric.header))


def websearch_flows(packets: float, fabric: Fabric = FABRIC, seed: int = 1) -> list:
    """Flows ``(start_s, size_pkts, src, dst)`` in start order until they hold
    ``packets`` packets (the flow that reaches it kept)."""
    cdf = websearch_cdf()
    rng = random.Random(seed)
    hosts, half = fabric.hosts, fabric.k // 2
    total = hosts * rate_per_host(fabric, cdf)
    flows, pkts, t = [], 0, 0.0
    while pkts < packets:
        t += -math.log(1.0 - rng.random()) / total
        src = min(int(rng.random() * hosts), hosts - 1)
        size = max(1, math.ceil(bytes_at_percent(cdf, rng.random() * 100.0) / fabric.payload))
        # Uniform over the hosts under other edge switches: skip src's rack.
        j = min(int(rng.random() * (hosts - half)), hosts - half - 1)
        rack0 = (src // half) * half
        flows.append((t, size, src, j if j < rack0 else j + half))
        pkts += size
    return flows


def jittered(flows: list, max_ns: float, seed: int) -> list:
    """The same flows, each start moved later by a uniform 0 .. ``max_ns`` ns
    (``random.Random(seed)``), held at or after the previous start so every
    flow keeps its line (and so its ECMP path)."""
    rng = random.Random(seed)
    out, last = [], 0.0
    for t, n, s, d in flows:
        last = max(last, round(t + rng.random() * max_ns * 1e-9, 9))
        out.append((last, n, s, d))
    return out


def write_flows(path: Path, flows: list) -> None:
    """htsim's flow list: ``start_s size_pkts src dst`` per line (start to the ns)."""
    Path(path).write_text("".join(f"{t:.9f} {n} {s} {d}\n" for t, n, s, d in flows))


def fctlab_cfg(fabric: Fabric, flows_path: Path, seed: int = 1, *, handshake: bool = True) -> dict:
    """fctlab's scenario of the same fat-tree, routing and TCP, replaying ``flows_path``."""
    return {
        "seed": seed,
        "network": {
            "topology": "fat-tree",
            "routing": "ecmp",
            "ecmp_hash": "flow-index",
            "ack_path": "mirror",
            "buffer_pkts": fabric.buffer_pkts,
            "fat-tree": {
                "k": fabric.k,
                "host_bps": fabric.host_bps,
                "fabric_bps": fabric.fabric_bps,
                "link_delay_us": fabric.link_delay_us,
            },
        },
        "transport": {
            "scheme": "tcp-newreno",
            "mss_bytes": fabric.payload,
            "header_bytes": fabric.header,
            "init_cwnd_pkts": fabric.iw,
            "handshake": handshake,
            "initial_rto_ms": 1000.0,
            "min_rto_ms": 250.0,
            "rto_tick_ms": 10.0,
        },
        "traffic": [{"arrivals": "file", "flows_file": str(flows_path)}],
        "metrics": {"series": False, "ps_fct": False},
    }


def driver_args(fabric: Fabric, flows_path: Path, fct_path: Path) -> list:
    """``htsim_fattree``'s arguments."""
    f = fabric
    return [
        str(flows_path),
        str(fct_path),
        str(f.k),
        f"{f.host_bps:g}",
        f"{f.fabric_bps:g}",
        f"{f.link_delay_us:g}",
        str(f.buffer_pkts),
        str(f.payload),
        str(f.header),
        str(f.iw),
    ]


def read_htsim_fcts(path: Path) -> dict:
    """htsim's per-flow file (``flow_id start_s fct_s size_pkts src dst path``)
    as arrays; FCTs in ns (NaN for a flow not completed)."""
    cols = np.loadtxt(path, ndmin=2, dtype="float64")
    order = np.argsort(cols[:, 0], kind="stable")
    cols = cols[order]
    return {
        "flow_id": cols[:, 0].astype("int64"),
        "fct_ns": cols[:, 2] * 1e9,
        "size_pkts": cols[:, 3].astype("int64"),
        "path": cols[:, 6].astype("int64"),
    }


def read_fctlab_fcts(path: Path) -> dict:
    """The flows a `run_child` with ``flows_out`` wrote, in flow-id order."""
    with np.load(path) as z:
        order = np.argsort(z["flow_id"], kind="stable")
        return {k: z[k][order] for k in ("flow_id", "fct_ns", "size_pkts", "path")}


def bins(sizes, fct_a, fct_b, edges=BIN_EDGES) -> list:
    """Per size bin (packets, upper edges inclusive): flows, mean FCT of each
    side (ns) and their ratio a / b."""
    sizes = np.asarray(sizes)
    rows, lo = [], 0
    for hi in edges:
        sel = (sizes > lo) & (sizes <= hi)
        if sel.any():
            a, b = float(np.mean(fct_a[sel])), float(np.mean(fct_b[sel]))
            label = f"{lo + 1}-{hi:g}" if math.isfinite(hi) else f"> {lo}"
            rows.append({"bin": label, "flows": int(sel.sum()), "fctlab_ns": a, "htsim_ns": b, "ratio": a / b})
        lo = hi
    return rows


def _same_flows(f: dict, h: dict, n: int) -> None:
    """Both sides ran the list's flows, in order, on the same ECMP paths."""
    if len(f["flow_id"]) != n or len(h["flow_id"]) != n or not np.array_equal(f["size_pkts"], h["size_pkts"]):
        raise RuntimeError("fctlab and htsim did not run the same flows")
    if not np.array_equal(f["path"].astype("int64"), h["path"]):
        raise RuntimeError("fctlab's ECMP paths differ from htsim's")


def _side(runs: list, unique_key: str, wall_key: str, done_key: str, drops_key: str) -> dict:
    rates = [r[unique_key] / r[wall_key] for r in runs]
    return {
        "unique_delivered": runs[0][unique_key],
        "flows_completed": runs[0][done_key],
        "drops": runs[0][drops_key],
        "events": runs[0]["events"],
        "wall_s": [r[wall_key] for r in runs],
        "rates": rates,
        "cpu_rates": [r[unique_key] / max(r["cpu_s"], 1e-9) for r in runs],
        "identical": len({(r[unique_key], r["events"]) for r in runs}) == 1,
    }


def race(
    exe: Path,
    packets: float,
    repeat: int,
    work_dir: Path,
    *,
    seed: int = 1,
    fabric: Fabric = FABRIC,
    handshake: bool = True,
    flows: list | None = None,
    progress: Callable[[str], None] = print,
) -> dict:
    """``repeat`` runs of each, alternating, on the same flow list of about
    ``packets`` packets (or on ``flows``): both sides' counts, rates and
    per-flow FCTs, the mean FCT per size bin and the ratio of the medians of
    the rates."""
    work_dir = Path(work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    flows = flows if flows is not None else websearch_flows(packets, fabric, seed)
    flows_path = work_dir / "fattree-flows.htsim"
    write_flows(flows_path, flows)
    cfg = fctlab_cfg(fabric, flows_path, seed, handshake=handshake)
    args = driver_args(fabric, flows_path, work_dir / "fattree-htsim-fct.txt")
    fr, hr = [], []
    for i in range(repeat):
        fr.append(run_child(cfg, flows_out=str(work_dir / "fattree-fctlab-flows.npz") if i == 0 else None))
        hr.append(htsim.run_htsim(exe, args))
        progress(
            f"run {i + 1}/{repeat}: fctlab {fr[-1]['unique_delivered'] / fr[-1]['wall_s'] / 1e6:.2f} M/s, "
            f"htsim {hr[-1]['data_unique_delivered'] / hr[-1]['run_wall_s'] / 1e6:.2f} M/s"
        )
    f = read_fctlab_fcts(work_dir / "fattree-fctlab-flows.npz")
    h = read_htsim_fcts(work_dir / "fattree-htsim-fct.txt")
    _same_flows(f, h, len(flows))
    side_f = _side(fr, "unique_delivered", "wall_s", "flows_completed", "drops")
    side_h = _side(hr, "data_unique_delivered", "run_wall_s", "flows_done_rx", "all_drops")
    return {
        "packets": float(packets),
        "seed": seed,
        "fabric": asdict(fabric),
        "handshake": handshake,
        "flows": len(flows),
        "sum_pkts": sum(n for _t, n, _s, _d in flows),
        "last_start_s": flows[-1][0],
        "fctlab": side_f,
        "htsim": side_h,
        "ratio": statistics.median(side_f["rates"]) / statistics.median(side_h["rates"]),
        "cpu_ratio": statistics.median(side_f["cpu_rates"]) / statistics.median(side_h["cpu_rates"]),
        "bins": bins(f["size_pkts"], f["fct_ns"], h["fct_ns"]),
        "fct": {"size_pkts": f["size_pkts"], "fctlab_ns": f["fct_ns"], "htsim_ns": h["fct_ns"]},
    }


def variant(fabric: Fabric = FABRIC, **changes) -> Fabric:
    """``fabric`` with some of its fields changed."""
    return replace(fabric, **changes)


def find(directory: str | None = None) -> Path:
    """The ``htsim_fattree`` executable (see `fctlab.benchmarks.htsim.find`)."""
    return htsim.find(directory, driver=DRIVER)

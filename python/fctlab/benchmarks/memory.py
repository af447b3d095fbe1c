"""Memory against the number of flows (``fctlab bench --memory --out DIR``).

The reference scenario (`fctlab.bench.reference_scenario`) at 10^5 and
10^6 flows (and 10^7 with ``--full``), each run in a process of its own, with
metrics that stream: no flows table (``metrics.flows = false``), FCT
statistics per flow size instead (``metrics.size_stats = true``), no ``ps_fct``
column (the fluid model needs every flow's arrival and size), no series. The
same at 10^5 and 10^6 flows with the flows table, and a 100-flow run (the
interpreter, numpy, pandas and the extension alone), are measured beside them.
If memory is bounded by the flows in progress, the streaming runs' peak
resident memory stays flat as the flow count grows tenfold.

Fat-trees too (`fattree_memory`): the bench's ``fattree`` shape (web-search
flows at load 0.5 per host, ECMP) with its flows table and without the
fluid-PS column, at k = 8 with 10^4 flows (quick), and at k = 32 (8,192 hosts,
24,576 links) with 10^4, 10^5 and 10^6 flows (``--full``; 10^6 web-search
flows are 1.7 x 10^9 data packets, hours of simulation).
"""

from __future__ import annotations

import copy
import json

from ..bench import MEAN_PKTS, reference_scenario
from .runner import run_child

FLOWS = {"quick": (100_000, 1_000_000), "full": (100_000, 1_000_000, 10_000_000)}
#: (k, flows) of the fat-tree runs per scale.
FATTREE = {"quick": ((8, 10_000),), "full": ((32, 10_000), (32, 100_000), (32, 1_000_000))}
WITH_TABLE = (100_000, 1_000_000)


def streaming_scenario(flows: int, seed: int = 1, *, table: bool = False) -> dict:
    cfg = copy.deepcopy(reference_scenario(flows * (MEAN_PKTS + 0.5), seed))
    cfg["traffic"][0]["count"] = int(flows)
    cfg["metrics"] = {"series": False, "ps_fct": False, "flows": bool(table), "size_stats": not table}
    return cfg


def fattree_scenario(k: int, flows: int, seed: int = 1) -> dict:
    """The bench's fat-tree shape at ``k`` with ``flows`` web-search flows, its flows table, no PS column."""
    from .shapes import WEBSEARCH_MEAN_PKTS
    from .shapes import fattree_scenario as shape

    cfg = shape(flows * WEBSEARCH_MEAN_PKTS, k, seed)
    cfg["traffic"][0]["count"] = int(flows)
    cfg["metrics"] = {"series": False, "ps_fct": False}
    return cfg


def fattree_memory(scale: str, base_mb: float, progress=print) -> list:
    """Peak memory of the fat-tree runs of ``scale`` (`FATTREE`)."""
    rows = []
    for k, n in FATTREE[scale]:
        r = run_child(fattree_scenario(k, n))
        row = {"k": k, "hosts": k**3 // 4, "flows": n, "peak_rss_mb": r["peak_rss_mb"]}
        row.update({key: r[key] for key in ("unique_delivered", "flows_completed", "sim_s", "wall_s")})
        rows.append(row)
        progress(
            f"  fat-tree k = {k} ({k**3 // 4:,} hosts), {n:>9,} web-search flows with the flows table: peak "
            f"{row['peak_rss_mb']:.0f} MB ({row['peak_rss_mb'] - base_mb:+.0f} MB over the 100-flow run; "
            f"{row['unique_delivered']:,} packets, {row['wall_s']:.1f} s wall)"
        )
    return rows


def measure(scale: str = "quick", progress=print) -> dict:
    base = run_child(streaming_scenario(100))
    progress(f"  100 flows (the process alone): peak {base['peak_rss_mb']:.0f} MB")
    out = {"baseline_mb": base["peak_rss_mb"], "streaming": [], "table": []}
    for kind, sizes in (("streaming", FLOWS[scale]), ("table", WITH_TABLE)):
        for n in sizes:
            r = run_child(streaming_scenario(n, table=kind == "table"))
            p = {
                "flows": n,
                "peak_rss_mb": r["peak_rss_mb"],
                "above_baseline_mb": r["peak_rss_mb"] - base["peak_rss_mb"],
                "unique_delivered": r["unique_delivered"],
                "flows_completed": r["flows_completed"],
                "sim_s": r["sim_s"],
                "wall_s": r["wall_s"],
            }
            out[kind].append(p)
            what = "size statistics, no flows table" if kind == "streaming" else "with the flows table"
            progress(
                f"  {n:>10,} flows, {what}: peak {p['peak_rss_mb']:.0f} MB ({p['above_baseline_mb']:+.0f} MB over the "
                f"100-flow run; {p['unique_delivered']:,} packets, {p['sim_s']:.0f} simulated s, "
                f"{p['wall_s']:.1f} s wall)"
            )
    out["fattree"] = fattree_memory(scale, base["peak_rss_mb"], progress)
    return out


def main(args, out) -> int:
    scale = "full" if getattr(args, "full", False) else "quick"
    print(f"memory ({scale}): the reference scenario at {', '.join(f'{n:,}' for n in FLOWS[scale])} flows", flush=True)
    res = measure(scale, progress=lambda m: print(m, flush=True))
    (out / "memory.json").write_text(json.dumps(res, indent=1))
    print(f"wrote {out / 'memory.json'}")
    return 0

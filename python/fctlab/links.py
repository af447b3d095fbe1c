"""Load on each link of a run, and on each tier of a fabric.

Every run's ``meta["stats"]["links"]`` holds, per link, the time it spent
serialising packets (``busy_ns``) and the packets it sent; a link's
utilisation is its busy time over the run's simulated length
(``stats["end_ns"]``), headers and retransmissions included.

On the built-in fabrics (``topology = "fat-tree"`` or ``"leaf-spine"``) the
engine also reports each tier, the links joining the same two layers in the
same direction (``host-edge``, ``edge-agg``, ``agg-core``, ``core-agg``,
``agg-edge``, ``edge-host``; a leaf-spine's ``host-leaf``, ``leaf-spine``,
``spine-leaf``, ``leaf-host``), in ``stats["tiers"]``: its links' mean and
largest utilisation and its ECMP imbalance, the busiest link's load over the
mean load of the tier (1: every link carried the same; 1 too when the tier
carried nothing). The imbalance of the tiers between switches measures how
evenly the routing spread the traffic over the equal-cost links; that of the
host tiers only reflects the traffic matrix, since a host has one link.
"""

from __future__ import annotations

import pandas as pd

#: Columns of `link_utilization`.
LINK_COLUMNS = ("link", "busy_ns", "utilization", "pkts_sent", "retx_pkts_sent")
#: Columns of `ecmp_imbalance`.
TIER_COLUMNS = ("tier", "links", "mean_utilization", "max_utilization", "imbalance")


def _stats(result) -> dict:
    meta = result if isinstance(result, dict) else result.meta
    return meta.get("stats", meta)


def link_utilization(result) -> pd.DataFrame:
    """One row per link of the run (a `fctlab.Result`, or its ``meta``):
    ``link``, ``busy_ns``, ``utilization`` (busy time over the run's length),
    ``pkts_sent`` and ``retx_pkts_sent``, in the engine's link order."""
    st = _stats(result)
    span = max(int(st["end_ns"]), 1)
    rows = [
        (name, int(v["busy_ns"]), v["busy_ns"] / span, int(v["pkts_sent"]), int(v["retx_pkts_sent"]))
        for name, v in st["links"].items()
    ]
    return pd.DataFrame(rows, columns=list(LINK_COLUMNS))


def ecmp_imbalance(result) -> pd.DataFrame:
    """One row per tier of a fabric, up the tree then down: ``tier``,
    ``links``, ``mean_utilization``, ``max_utilization`` and ``imbalance``
    (the busiest link's load over the tier's mean load). Empty for a run on
    any other topology."""
    tiers = _stats(result).get("tiers") or {}
    rows = [
        (name, int(t["links"]), t["mean_utilization"], t["max_utilization"], t["imbalance"])
        for name, t in tiers.items()
    ]
    return pd.DataFrame(rows, columns=list(TIER_COLUMNS))

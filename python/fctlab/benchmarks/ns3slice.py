"""fctlab beside ns-3 on the same flows over the same simulated interval.

Both simulators replay the reference scenario's own flow list (its seed-1
draw: the flows fctlab's generator creates before the slice's end) on the same
dumbbell for the same simulated seconds, and both count the same thing: unique
application data packets delivered in order by the slice's end (fctlab: the
``delivered_pkts`` column summed over every flow, completed or not; ns-3: bytes
read by the receiving applications / MSS), divided by the wall time of the
simulation loop alone (fctlab's engine, ns-3's ``Simulator::Run``).

TCP is set the way ns-3 3.44 survives losses in: NewReno with
``TcpClassicRecovery``, no SACK, no timestamps, and RFC 3042 limited transmit
on: with limited transmit off, ns-3 3.44 dies with SIGTRAP (exit status
133) within the 16-s slice, whose first losses come at 14.9 s. fctlab runs
the ``ns3`` preset (``transport.preset = "ns3"``: ns-3's TCP model options,
limited transmit included), which the ``crossval-ns3`` reproduction compares
with ns-3 flow for flow.
"""

from __future__ import annotations

import copy
import statistics
from typing import Callable

from ..bench import reference_scenario
from .runner import run_child


def slice_scenario(seconds: float, packets: float = 1e7, seed: int = 1) -> dict:
    """The reference scenario stopped after ``seconds`` simulated seconds, with
    ns-3's TCP model options. ``packets`` only sets the generator's flow count,
    which must outlast the slice (the draws do not depend on it)."""
    cfg = copy.deepcopy(reference_scenario(packets, seed))
    cfg["stop_s"] = float(seconds)
    cfg["transport"]["preset"] = "ns3"
    return cfg


def flow_list(cfg: dict) -> list:
    """The flows (start_s, sender, pkts) fctlab creates in ``cfg`` before its
    stop time, in start order: the list handed to ns-3."""
    import fctlab

    res = fctlab.run(cfg, warn=False)
    f = res.flows
    f = f[f["start_ns"] < int(round(cfg["stop_s"] * 1e9))].sort_values(["start_ns", "flow_id"])
    return [(int(t) / 1e9, int(s), int(n)) for t, s, n in zip(f["start_ns"], f["sender"], f["size_pkts"])]


def ns3_params(cfg: dict) -> dict:
    """The ns-3 peer's parameters for a scenario of the reference's shape."""
    from ..ns3peer import scenario_params

    p = scenario_params(cfg)
    p["sim_seconds"] = float(cfg["stop_s"])
    p["limited_transmit"] = True
    return p


def run_slice(
    seconds: float, repeat: int = 5, *, ns3_repeat: int = 1, progress: Callable[[str], None] | None = None
) -> dict:
    """fctlab ``repeat`` times and ns-3 ``ns3_repeat`` times on the slice; both
    sides' counts, wall times and rates, and the ratio of medians.

    Raises `fctlab.ns3peer.PeerUnavailable` when ns-3 cannot run here."""
    from .. import ns3peer

    say = progress or (lambda _m: None)
    cfg = slice_scenario(seconds)
    flows = flow_list(cfg)
    if not flows:
        raise ValueError(f"no flow starts within the first {seconds:g} s")
    fr = [run_child(cfg) for _ in range(repeat)]
    say(
        f"fctlab: {len(flows):,} flows, {fr[0]['unique_delivered']:,} unique packets delivered by {seconds:g} s; "
        "running ns-3..."
    )
    nr = [ns3peer.run_ns3_flows(ns3_params(cfg), flows, progress=say) for _ in range(ns3_repeat)]
    f_rates = [r["unique_delivered"] / r["wall_s"] for r in fr]
    n_rates = [r["data_pkts_delivered"] / r["wall_s"] for r in nr]
    # CPU time (fctlab: the whole run call, set-up and tables included; ns-3:
    # Simulator::Run): less sensitive than wall time to other load on the machine.
    f_cpu = [r["unique_delivered"] / max(r["cpu_s"], 1e-9) for r in fr]
    n_cpu = [r["data_pkts_delivered"] / max(r["cpu_s"], 1e-9) for r in nr]
    n = nr[0]
    return {
        "seconds": float(seconds),
        "flows": len(flows),
        "fctlab": {
            "unique_delivered": fr[0]["unique_delivered"],
            "data_delivered": fr[0]["data_delivered"],
            "drops": fr[0]["drops"],
            "flows_completed": fr[0]["flows_completed"],
            "wall_s": [r["wall_s"] for r in fr],
            "rates": f_rates,
            "cpu_rates": f_cpu,
            "events": fr[0]["events"],
            "identical": len({(r["unique_delivered"], r["events"]) for r in fr}) == 1,
        },
        "ns3": {
            "unique_delivered": n["data_pkts_delivered"],
            "drops": n["bottleneck_drops"] + n["other_drops"],
            "flows_completed": n["flows_completed"],
            "wall_s": [r["wall_s"] for r in nr],
            "rates": n_rates,
            "cpu_rates": n_cpu,
            "events": n["events"],
            "version": n.get("ns3_version", "?"),
            "identical": len({r["data_pkts_delivered"] for r in nr}) == 1,
        },
        "ratio": statistics.median(f_rates) / statistics.median(n_rates),
        "cpu_ratio": statistics.median(f_cpu) / statistics.median(n_cpu),
    }

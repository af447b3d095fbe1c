"""crossval-ns3's scheme dimension: CUBIC, DCTCP, BBR and Vegas on the
cross-validation dumbbell (`.crossval`), the same flow lists in fctlab and in
ns-3 3.44 (TcpCubic, TcpDctcp over a marking RedQueueDisc, TcpBbr, TcpVegas),
with the same per-bin verdicts as NewReno's cells.

What both run besides NewReno's set-up (handshake, an ACK per segment, no
SACK but for BBR, no timestamps, min RTO 200 ms, classic recovery):

* CUBIC without slow-start exit heuristics: ns-3's TcpCubic has Linux's 2008
  HyStart (ACK trains and delay), fctlab's RFC 9406 HyStart++; both are off,
  so that the cubic law (C 0.4, beta 0.7, fast convergence, the Reno-friendly
  region) is what is compared.
* DCTCP over DCTCP's switch at the bottleneck, marking an ECN-capable arrival
  that finds more than ``K_PKTS`` packets waiting. ns-3: RedQueueDisc with
  QW 1 (the instantaneous queue), MinTh K - 0.5 and MaxTh K packets, not
  gentle, UseEcn on, UseHardDrop off, so every arrival that finds K or more
  packets in the queue disc is marked (a forced mark), over the one-packet
  device queue; with that packet the arrival finds K + 1 or more waiting,
  which is fctlab's ``ecn-threshold`` "more than K". TcpDctcp sends its
  data segments and SYNs ECT (so does fctlab's tcp-dctcp) but not its pure
  ACKs, which RED drops where it would mark (a forced mark it cannot make);
  the preset's ``ecn-threshold`` does the same (``not_ect = "drop"``), the
  defaults' queues them as the DCTCP paper's switch does. The preset also
  holds the window in the CWR state after a reduction (``ecn_cwr_hold``).
* BBR v1 (ns-3's TcpBbr, a port of Linux's tcp_bbr.c, pacing on, with SACK
  in both: fctlab's tcp-bbr runs on its SACK scoreboard) and Vegas
  (TcpVegas, alpha 2, beta 4, gamma 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ... import ns3peer
from .crossval import BDP_PKTS, PKT_BYTES, RED_DEVICE_PKTS, flow_list, jittered, run_fctlab, run_ns3, transport

#: DCTCP's marking threshold at the bottleneck, packets (chosen: the DCTCP
#: paper's K at 1 Gb/s; its guideline C x RTT / 7 is 69 packets here).
K_PKTS = 20


@dataclass(frozen=True)
class Scheme:
    """One scheme as each simulator runs it."""

    label: str
    ns3: str
    fctlab: dict = field(default_factory=dict)
    marking: bool = False


SCHEMES = {
    "cubic": Scheme("CUBIC", "cubic", {"scheme": "tcp-cubic", "cubic": {"hystart": False}}),
    "dctcp": Scheme("DCTCP", "dctcp", {"scheme": "tcp-dctcp"}, marking=True),
    "bbr": Scheme("BBR", "bbr", {"scheme": "tcp-bbr"}),
    "vegas": Scheme("Vegas", "vegas", {"scheme": "tcp-vegas"}),
}

#: The scheme cells per scale: (scheme, buffer packets, load, IW), and the
#: flows and runs per cell. IW 10 (Linux's and ns-3's default) in every cell.
SCHEME_GRID = {
    "quick": {"cells": tuple((s, 50, 0.8, 10) for s in SCHEMES), "flows": 150, "ensemble": 3},
    "full": {
        "cells": tuple((s, buf, 0.8, 10) for s in SCHEMES for buf in (50, BDP_PKTS)),
        "flows": 3000,
        "ensemble": 3,
    },
}


def marking_red(buffer_pkts: int) -> dict:
    """ns-3's RedQueueDisc as DCTCP's switch (see the module): K - 0.5 and K,
    QW 1, not gentle, ECN marks instead of drops, a limit of ``buffer_pkts``."""
    return {
        "min_th": K_PKTS - 0.5,
        "max_th": float(K_PKTS),
        "max_p": 1.0,
        "q_weight": 1.0,
        "gentle": False,
        "wait": False,
        "mean_pktsize": PKT_BYTES,
        "limit_pkts": int(buffer_pkts),
        "ecn": True,
    }


def fctlab_network(s: Scheme, ns3_model: bool) -> dict | None:
    """fctlab's queue for scheme ``s``: ``ecn-threshold`` for a marking scheme
    (None: the crossval's DropTail). With ``ns3_model`` the buffer gains the
    device queue's packet below ns-3's queue disc (set by the caller)."""
    if not s.marking:
        return None
    table = {"k_pkts": K_PKTS}
    if ns3_model:  # ns-3's RED drops what it cannot mark (its pure ACKs)
        table["not_ect"] = "drop"
    return {"queue": "ecn-threshold", "ecn-threshold": table}


def cell_name(key: str, buf: int, load: float, iw: int) -> str:
    return f"{SCHEMES[key].label}, buf {buf}, load {load:g}, IW {iw}"


def run_scheme_fctlab(key: str, flows: list, buf: int, iw: int, preset: str | None) -> dict:
    """fctlab on one scheme cell: with its defaults (``preset`` None) or a preset."""
    s = SCHEMES[key]
    ns3_model = preset == "ns3"
    net = fctlab_network(s, ns3_model)
    # Under ns-3's marking queue disc one more packet waits in the device queue.
    b = buf + RED_DEVICE_PKTS if (net and ns3_model) else buf
    return run_fctlab(flows, b, transport(iw, preset, **s.fctlab), network=net)


def run_scheme_ns3(key: str, flows: list, buf: int, iw: int) -> dict:
    """ns-3 on one scheme cell (raises when ns-3 cannot run)."""
    s = SCHEMES[key]
    red = marking_red(buf) if s.marking else None
    return run_ns3(flows, buf, iw, red=red, scheme=s.ns3)


def scheme_cells(g: dict):
    """(name, key, buffer, load, IW) for each scheme cell of the grid."""
    for key, buf, load, iw in g["cells"]:
        yield cell_name(key, buf, load, iw), key, buf, load, iw


def run_scheme_cell(g: dict, cell: tuple, ns3_reason: str | None) -> tuple:
    """One scheme cell: fctlab's defaults, the ns3 preset on the cell's flows and
    jittered copies, and ns-3 unless ``ns3_reason``. Returns (sizes, default,
    ensemble, ns-3 result or None, reason ns-3 does not run or None, why this
    cell's ns-3 run failed or None: a failed run, an assertion in ns-3 say,
    leaves the other cells to run)."""
    _name, key, buf, load, iw = cell
    flows = flow_list(load, g["flows"], 1)
    sizes = np.array([n for _, _, n in flows])
    dflt = run_scheme_fctlab(key, flows, buf, iw, None)
    ens = [run_scheme_fctlab(key, flows, buf, iw, "ns3")]
    ens += [run_scheme_fctlab(key, jittered(flows, k), buf, iw, "ns3") for k in range(1, g["ensemble"])]
    ref = failed = None
    if ns3_reason is None:
        try:
            ref = run_scheme_ns3(key, flows, buf, iw)
        except ns3peer.PeerUnavailable as exc:
            failed = str(exc)
    return sizes, dflt, ens, ref, ns3_reason, failed


def caption(g: dict) -> str:
    """The scheme cells' set-up, for the page's parameters."""
    cells = "; ".join(cell_name(*c) for c in g["cells"])
    return (
        f"{cells}; {g['flows']} flows per cell, the ns3 preset run {g['ensemble']} times (chosen). CUBIC: C 0.4, "
        "beta 0.7, fast convergence, Reno-friendly region, HyStart off in both (ns-3's TcpCubic HyStart is Linux's "
        "2008 one, fctlab's RFC 9406 HyStart++). DCTCP: g 1/16, the bottleneck marks an ECN-capable arrival that "
        f"finds more than K = {K_PKTS} packets waiting (chosen; C x RTT / 7 = {BDP_PKTS / 7:.0f}): fctlab "
        'ecn-threshold, with the ns3 preset not_ect = "drop" (pure ACKs, not ECT, dropped above K as '
        "ns-3's RED does); ns-3 RedQueueDisc QW 1, MinTh K - 0.5, MaxTh K, not gentle, UseEcn, no hard drop, over "
        "the one-packet device queue (the preset's buffer one packet more, as for RED). BBR: v1 with pacing (ns-3 "
        "TcpBbr). Vegas: alpha 2, beta 4, gamma 1 (ns-3 TcpVegas). Every cell: NewReno's segments, ACKs, handshake "
        "and classic recovery otherwise"
    )

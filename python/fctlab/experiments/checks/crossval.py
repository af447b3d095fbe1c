"""Cross-validation against ns-3: the set-up both simulators run (the dumbbell,
the flow lists, TCP and RED), and the runs of each, fctlab here and ns-3
through `fctlab.ns3peer` (its results cached).

Both simulators run TCP NewReno without SACK or timestamps, a three-way
handshake before data, an ACK per segment and a 200 ms minimum RTO, over the
same dumbbell: ``SENDERS`` hosts on 1 Gb/s links (no delay) into router R0,
the 100 Mb/s bottleneck R0-R1 carrying the whole base RTT (40 ms), R1 to as
many receivers; every router port is DropTail of the cell's buffer. Packets
carry 1000 payload bytes and 42 header bytes (ns-3's 20 B TCP, 20 B IPv4 and
2 B PPP headers). Flow lists are drawn here (`flow_list`) and handed to
both, so the comparison is flow for flow.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

import numpy as np

import fctlab

SOURCE = "ns-3 3.44 (TcpNewReno, TcpClassicRecovery, no SACK, no timestamps)"

C_BPS = 100e6
ACCESS_BPS = 1e9
RTT_MS = 40.0
MSS_BYTES, HEADER_BYTES = 1000, 42
PKT_BYTES = MSS_BYTES + HEADER_BYTES
SENDERS = 20
#: The bandwidth-delay product in packets of 1042 B (480).
BDP_PKTS = math.ceil(C_BPS * RTT_MS / 1e3 / 8 / PKT_BYTES)
#: Size bins (packets, inclusive) and the share of flows drawn in each; sizes are
#: log-uniform within a bin, so that every bin, the long flows too, gets enough
#: flows for a 99th percentile.
BINS = ((1, 10), (11, 100), (101, 1000), (1001, 3000))
BIN_SHARE = (0.4, 0.3, 0.2, 0.1)
BIN_NAMES = ("1-10", "11-100", "101-1000", ">1000")
#: Seconds the simulators run after the last arrival, so every flow completes.
DRAIN_S = 30.0

#: RED on the bottleneck port, the same in both simulators (chosen): thresholds
#: 20 and 60 packets, max_p 0.1, q_weight 0.002, gentle, wait, mean packet
#: 1042 B (the wire's), a limit of 120 packets (0.25 BDP).
RED = {
    "min_th": 20,
    "max_th": 60,
    "max_p": 0.1,
    "q_weight": 0.002,
    "gentle": True,
    "wait": True,
    "mean_pktsize": PKT_BYTES,
    "limit_pkts": 120,
}
#: Packets waiting below RED in ns-3: the bottleneck's device queue under the
#: queue disc (the ns-3 peer makes it 1 packet, the fewest ns-3 allows).
RED_DEVICE_PKTS = 1

GRID = {
    "quick": {"buffers": (50,), "loads": (0.8,), "iws": (2,), "flows": 150, "ensemble": 3, "red": ((0.8, 2, {}),)},
    "full": {
        "buffers": (20, 50, 120, BDP_PKTS),
        "loads": (0.5, 0.7, 0.8, 0.9),
        "iws": (1, 2, 10),
        "flows": 3000,
        "ensemble": 5,
        # RED cells: (load, IW, changes to RED); the last varies q_weight once.
        "red": tuple((load, iw, {}) for load in (0.7, 0.8, 0.9) for iw in (2, 10)) + ((0.8, 2, {"q_weight": 0.02}),),
    },
}
#: Goals: |mean ratio - 1| <= 0.10 and |p99 ratio - 1| <= 0.20 in every bin.
GOAL_MEAN, GOAL_P99 = 0.10, 0.20


def mean_size_pkts() -> float:
    """The size law's mean, exactly (each bin's discrete log-uniform law)."""
    m = 0.0
    for (a, b), share in zip(BINS, BIN_SHARE):
        k = np.arange(a, b + 1, dtype=float)
        p = (np.log(k + 1) - np.log(k)) / (math.log(b + 1) - math.log(a))
        m += share * float(np.sum(k * p))
    return m


def flow_list(load: float, n_flows: int, seed: int) -> list:
    """``n_flows`` flows as (start_s, sender, pkts): Poisson arrivals at offered
    load ``load`` of the bottleneck (payload plus headers), senders uniform, sizes
    from the binned log-uniform law."""
    rng = np.random.default_rng(seed)
    lam = load * C_BPS / (8.0 * PKT_BYTES * mean_size_pkts())
    starts = np.cumsum(rng.exponential(1.0 / lam, n_flows))
    bins = rng.choice(len(BINS), size=n_flows, p=BIN_SHARE)
    u = rng.random(n_flows)
    lo = np.array([math.log(BINS[b][0]) for b in bins])
    hi = np.array([math.log(BINS[b][1] + 1) for b in bins])
    sizes = np.floor(np.exp(lo + u * (hi - lo))).astype(int)
    sizes = np.minimum(sizes, [BINS[b][1] for b in bins])
    senders = rng.integers(0, SENDERS, n_flows)
    return [(float(t), int(s), int(n)) for t, s, n in zip(starts, senders, sizes)]


def transport(iw: int, preset: str | None = None, **extra) -> dict:
    t = {
        "scheme": "tcp-newreno",
        "mss_bytes": MSS_BYTES,
        "header_bytes": HEADER_BYTES,
        "init_cwnd_pkts": iw,
        "handshake": True,
        "delayed_ack": False,
        "min_rto_ms": 200.0,
    }
    if preset:
        t["preset"] = preset
    t.update(extra)
    return t


def red_table(red: dict, ns3_model: bool) -> dict:
    """fctlab's ``[network.red]`` for the crossval's RED parameters ``red``:
    ns-2 ``red.cc`` semantics, or with ``ns3_model`` ns-3's RedQueueDisc as the
    ns-3 peer runs it (a one-packet device queue below RED, the count left
    running by forced and overflow drops)."""
    t = {k: red[k] for k in ("min_th", "max_th", "max_p", "q_weight", "gentle", "wait", "mean_pktsize")}
    if ns3_model:
        t.update(device_queue_pkts=RED_DEVICE_PKTS, forced_drop_count="keep")
    return t


def red_scenario(flows: list, tp: dict, red: dict, seed: int = 1) -> dict:
    """`scenario` with RED (parameters ``red``, `RED`'s keys) at
    every router port. With the ns3 preset RED runs as ns-3's (`red_table`)
    and the buffer is RED's limit plus the device queue's packet, as in ns-3;
    otherwise it is RED's limit."""
    ns3_model = tp.get("preset") == "ns3"
    cfg = scenario(flows, red["limit_pkts"] + (RED_DEVICE_PKTS if ns3_model else 0), tp, seed)
    del cfg["network"]["droptail"]
    cfg["network"].update(queue="red", red=red_table(red, ns3_model))
    return cfg


def scenario(flows: list, buffer_pkts: int, tp: dict, seed: int = 1, full_wake: str | None = None) -> dict:
    """The fctlab scenario replaying ``flows`` on the cross-validation dumbbell.
    ``full_wake``: the DropTail option (default: "deferred", ns-3's device
    queue, when ``tp`` uses the ns3 preset, else fctlab's default)."""
    if full_wake is None:
        full_wake = "deferred" if tp.get("preset") == "ns3" else "immediate"
    return {
        "seed": seed,
        "stop_s": flows[-1][0] + DRAIN_S,
        "network": {
            "topology": "dumbbell",
            "senders": SENDERS,
            "bottleneck_bps": C_BPS,
            "access_bps": ACCESS_BPS,
            "bottleneck_delay_ms": RTT_MS / 2,
            "access_delay_ms": 0.0,
            "buffer_pkts": int(buffer_pkts),
            "droptail": {"full_wake": full_wake},
        },
        "transport": tp,
        "flows": [{"sender": s, "start_s": t, "size_pkts": n} for t, s, n in flows],
        "metrics": {"series": False, "ps_fct": False},
    }


def run_fctlab(
    flows: list,
    buffer_pkts: int,
    tp: dict,
    full_wake: str | None = None,
    red: dict | None = None,
    network: dict | None = None,
) -> dict:
    """Per-flow FCT (s, NaN where incomplete), sizes and the bottleneck's drops.
    ``red``: RED's parameters (`red_scenario`; ``buffer_pkts`` is then unused);
    ``network``: keys replacing the scenario's (another queue, say)."""
    cfg = red_scenario(flows, tp, red) if red else scenario(flows, buffer_pkts, tp, full_wake=full_wake)
    if network:
        cfg["network"].pop("droptail", None)
        cfg["network"].update(network)
    res = fctlab.run(cfg, warn=False)
    f = res.flows.sort_values("flow_id")
    fct = np.where(f["completed"].to_numpy(), f["fct_ns"].to_numpy() / 1e9, np.nan)
    return {
        "fct": fct,
        "drops": int(f["drops"].sum()),
        "retransmits": int(f["retransmits"].sum()),
        "sent": int(f["size_pkts"].sum() + f["retransmits"].sum()),
    }


def ns3_params(buffer_pkts: int, iw: int, flows: list, limited_transmit: bool = True) -> dict:
    return {
        "senders": SENDERS,
        "bottleneck_bps": C_BPS,
        "rtt_ms": RTT_MS,
        "mss_bytes": MSS_BYTES,
        "header_bytes": HEADER_BYTES,
        "init_cwnd_pkts": iw,
        "access_bps": ACCESS_BPS,
        "buffer_pkts": int(buffer_pkts),
        "limited_transmit": limited_transmit,
        "sim_seconds": flows[-1][0] + DRAIN_S,
    }


#: Bump when the ns-3 peer's model of the crossval path changes (``ns3peer/_worker.py``,
#: ``flowapp.h``): cached ns-3 results of an older model are then not reused.
PEER_MODEL = 1


def ns3_cache_path(params: dict, flows: list) -> Path:
    """Where `run_ns3` keeps the result of ``params`` and ``flows``: a file
    named by the SHA-256 of both, the ns-3 release and `PEER_MODEL`, under
    ``$FCTLAB_CACHE/crossval-ns3`` (default ``~/.cache/fctlab``)."""
    from ... import ns3peer

    key = json.dumps(
        {
            "ns3": ns3peer.NS3_REQUIREMENT,
            "model": PEER_MODEL,
            "params": params,
            "flows": [[float(t), int(s), int(n)] for t, s, n in flows],
        },
        sort_keys=True,
    )
    return ns3peer.cache_dir() / "crossval-ns3" / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")


def ns3_run_params(
    flows: list,
    buffer_pkts: int,
    iw: int,
    limited_transmit: bool = True,
    red: dict | None = None,
    scheme: str = "newreno",
) -> dict:
    """`run_ns3`'s parameters for the ns-3 peer: `ns3_params`, and
    for a RED cell ``params["red"]`` with every other router port holding RED's
    limit plus the device queue's packet; ``scheme`` other than NewReno as
    ``params["scheme"]`` (so NewReno's cached results keep their names)."""
    if red:
        params = ns3_params(red["limit_pkts"] + RED_DEVICE_PKTS, iw, flows, limited_transmit)
        params["red"] = dict(red)
    else:
        params = ns3_params(buffer_pkts, iw, flows, limited_transmit)
    if scheme != "newreno":
        params["scheme"] = scheme
    if scheme == "bbr":
        params["sack"] = True  # fctlab's tcp-bbr runs on its SACK scoreboard, as Linux's does
    return params


def run_ns3(
    flows: list,
    buffer_pkts: int,
    iw: int,
    limited_transmit: bool = True,
    *,
    cache: bool = True,
    red: dict | None = None,
    scheme: str = "newreno",
) -> dict:
    """The same under ns-3 (raises ns3peer.PeerUnavailable when ns-3 cannot run).

    ``red``: RED's parameters (`RED`'s keys): ns-3's RedQueueDisc on the
    bottleneck port over a one-packet device queue; every other router port
    keeps a DropTail device queue of RED's limit plus that packet
    (``buffer_pkts`` is then unused). ``scheme``: the ns-3 peer's congestion
    control (`fctlab.ns3peer.NS3_SCHEMES`).

    ns-3 takes one to five minutes per 3000-flow cell, so results are kept in
    `ns3_cache_path` (``cache=False``, or ``FCTLAB_NS3_CACHE=0``, runs
    ns-3 again); a full grid interrupted part way resumes where it stopped."""
    from ... import ns3peer

    params = ns3_run_params(flows, buffer_pkts, iw, limited_transmit, red, scheme)
    path = ns3_cache_path(params, flows)
    cache = cache and os.environ.get("FCTLAB_NS3_CACHE", "1") != "0"
    if cache and path.exists():
        try:
            r = json.loads(path.read_text())
            r["fct"] = np.array(r["fct"], dtype=float)
            r["fct"][r["fct"] < 0] = np.nan
            return r
        except (ValueError, KeyError, TypeError):
            pass  # a torn or foreign file: run again
    raw = ns3peer.run_ns3_flows(params, flows, progress=lambda _m: None)
    fct = np.array(raw["flow_fct_s"], dtype=float)
    fct[fct < 0] = np.nan
    retx = int(sum(raw["flow_data_segments_sent"])) - int(sum(n for _, _, n in flows))
    r = {
        "fct": fct,
        "drops": int(raw["bottleneck_drops"]),
        "other_drops": int(raw["other_drops"]),
        "wall_s": raw["wall_s"],
        "forward_pkts": int(raw["bottleneck_pkts"]),
        "retransmits": retx,
        "syn_drops": int(raw["bottleneck_syn_drops"]),
        "control_drop_sizes": raw["bottleneck_control_drop_sizes"],
    }
    if "bottleneck_red" in raw:
        r["red_drops"] = raw["bottleneck_red"]
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({**r, "fct": np.nan_to_num(fct, nan=-1.0).tolist()}))
        os.replace(tmp, path)
    return r


def grid_cells(g: dict):
    """The grid's cells as (name, buffer, load, IW, RED parameters or None):
    the DropTail cells, then the RED cells."""
    for buf in g["buffers"]:
        for load in g["loads"]:
            for iw in g["iws"]:
                yield f"buf {buf}, load {load:g}, IW {iw}", buf, load, iw, None
    for load, iw, changes in g.get("red", ()):
        red = {**RED, **changes}
        what = "".join(f" {k} {v:g}" for k, v in changes.items())
        yield f"RED{what}, load {load:g}, IW {iw}", red["limit_pkts"], load, iw, red


def jittered(flows: list, k: int) -> list:
    """``flows`` with each start moved later by a uniform 0-100 us (seed
    ``k``; a bottleneck packet takes 83 us): the same workload, another
    realisation of its packet-level dynamics (a flow never passes the one
    before it, so flow i is the same flow in every copy). A shift of at most 1 us leaves
    a light cell's flows unchanged, since no two packets then swap places."""
    rng = np.random.default_rng(1_000_003 + k)
    out, last = [], -math.inf
    for (t, s, n), d in zip(flows, rng.uniform(0.0, 1e-4, len(flows))):
        last = max(t + float(d), last)  # flows keep their order (and index)
        out.append((last, s, n))
    return out

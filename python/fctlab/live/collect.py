"""A live run's result: the processes' outputs gathered into the same
``flows``/``series``/``meta`` tables a simulated run has."""

from __future__ import annotations

import json
import platform
import sys
import time

import numpy as np
import pandas as pd

from .netns import LiveError
from .plan import Plan, scheme


def outputs(procs, info: dict) -> dict:
    """Each process's output; a process that left none (killed, crashed) is noted
    in ``info`` with the last line of its log, and its flows have no record."""
    outs, lost = {}, {}
    for name, p in procs.items():
        f = procs.tmp / f"{name}.out.json"
        if f.exists():
            outs[name] = json.loads(f.read_text())
        else:
            log = (procs.tmp / f"{name}.log").read_text().strip().splitlines()
            lost[name] = log[-1] if log else f"no output (exit status {p.returncode})"
    if lost:
        info["processes_without_result"] = lost
        if len(lost) == len(procs):
            raise LiveError(f"no live process left a result: {next(iter(lost.values()))}")
    return outs


def _by_flow(outs: dict, info: dict) -> tuple:
    """The senders' and receivers' records by flow; the refusals and send failures noted in ``info``."""
    sent, got, refused = {}, {}, {}
    for o in outs.values():
        for fl in o.get("flows", []):
            (sent if fl["role"] == "send" else got)[int(fl["flow"])] = fl
        for k, v in o.get("refused", {}).get("counts", {}).items():
            refused[k] = refused.get(k, 0) + v
    info["refused"] = refused
    info["send_failures"] = sum(o.get("send_failures", 0) for o in outs.values())
    return sent, got


def flow_columns(plan: Plan, outs: dict, info: dict) -> dict:
    """The flows table's columns: the simulated run's flows with the live times,
    retransmissions and drops."""
    sched = plan.sched
    sent, got = _by_flow(outs, info)
    drops = {int(k): v for k, v in outs.get("link", {}).get("drops", {}).items()}
    ids = sched["flow_id"].to_numpy()

    def g(d, k, key):
        return d.get(int(k), {}).get(key) if d.get(int(k), {}).get(key) is not None else -1

    finish = np.array([g(got, k, "finish_ns") for k in ids], dtype=np.int64)
    acked = [g(sent, k, "acked_ns") if finish[n] >= 0 else -1 for n, k in enumerate(ids)]
    status = {}
    for n, k in enumerate(ids):
        if finish[n] >= 0:
            s = (got.get(int(k)) or {}).get("status", "no-data")
        else:
            s = (sent.get(int(k)) or {}).get("status", "not-started")
        status[s] = status.get(s, 0) + 1
    info["flow_status"] = status
    return {
        "flow_id": ids,
        "sender": sched["sender"].to_numpy(),
        "size_bytes": sched["size_bytes"].fillna(-1).to_numpy(np.int64),
        "size_pkts": sched["size_pkts"].fillna(-1).to_numpy(np.int64),
        "start_ns": sched["start_ns"].to_numpy(np.int64),
        "finish_ns": finish,
        "acked_ns": np.array(acked, dtype=np.int64),
        "retransmits": np.array([max(0, g(sent, k, "retransmits")) for k in ids], dtype=np.int64),
        "drops": np.array([drops.get(int(k), 0) for k in ids], dtype=np.int64),
        "marks": np.zeros(len(ids), dtype=np.int64),
        "ideal_ns": sched["ideal_ns"].fillna(-1).to_numpy(np.int64),
        "alone_ns": sched["alone_ns"].fillna(-1).to_numpy(np.int64),
        "ps_fct_ns": sched["ps_fct_ns"].fillna(-1).to_numpy(np.int64),
        "transport": np.zeros(len(ids), dtype=np.int32),
        "schemes": [scheme(plan.cfg)],
    }


def _sampled_rows(plan: Plan, sampler, tcstats: str, info: dict) -> list:
    """The kernel bottleneck's queue and utilisation from the tc samples."""
    rows, prev = [], None
    for t, qlen, nbytes in sampler.rows:
        rows.append((t, "queue_pkts", "bottleneck", float(qlen)))
        if prev is not None and t > prev[0]:
            util = min(1.0, (nbytes - prev[1]) * 8e9 / (plan.lay.c * (t - prev[0])))
            rows.append((t, "utilization", "bottleneck", util))
        prev = (t, nbytes)
    try:
        q = [x for x in json.loads(tcstats or "[]") if x.get("root")]
        if q:
            info["bottleneck_qdisc"] = {k: q[0].get(k) for k in ("packets", "bytes", "drops", "overlimits")}
    except json.JSONDecodeError:
        pass
    return rows


def series(plan: Plan, outs: dict, cols: dict, sampler, tcstats: str, info: dict) -> pd.DataFrame:
    """The bottleneck's queue and utilisation (from the link emulator or tc), and the active flows."""
    rows = []
    rtr = outs.get("link", {})
    if plan.router == "user":
        for t, qp, u in zip(rtr.get("t_ns", []), rtr.get("queue_pkts", []), rtr.get("utilization", [])):
            rows += [(t, "queue_pkts", "bottleneck", float(qp)), (t, "utilization", "bottleneck", float(u))]
    keys = ("frames", "dropped", "max_late_us", "mean_late_us", "rate_bps", "limit_pkts", "send_failures")
    info["link_stats"] = {k: rtr.get(k) for k in keys}
    if sampler is not None:
        rows += _sampled_rows(plan, sampler, tcstats, info)
    finish = cols["finish_ns"]
    st, fin = cols["start_ns"], np.where(finish >= 0, finish, np.iinfo(np.int64).max)
    for t in sorted({r[0] for r in rows}):
        rows.append((t, "active_flows", "network", float(((st <= t) & (fin > t)).sum())))
    out = (
        pd.DataFrame(rows, columns=["t_ns", "metric", "element", "value"])
        .sort_values(["t_ns", "metric"], kind="stable")
        .reset_index(drop=True)
    )
    out["t_ns"] = out["t_ns"].astype("int64")
    return out


def meta(plan: Plan, flows, finish, info: dict, t_wall: float, interrupted: bool) -> dict:
    from .. import __version__

    return {
        "fctlab_version": __version__,
        "mode": "live",
        "config": plan.cfg,
        "seed": int(plan.cfg.get("seed", 0)),
        "wall_s": time.time() - t_wall,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "flows_total": int(len(flows)),
        "flows_completed": int(flows["completed"].sum()),
        "live": info,
        "stats": {"interrupted": interrupted, "end_ns": int(finish.max()) if len(finish) else 0},
    }

"""A live run's processes: the link emulator and one agent per host, started
together at a common epoch, then waited for (and the kernel's bottleneck
qdisc sampled meanwhile, when the bottleneck is tc)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .netns import sh
from .plan import HOST_PORT, Plan
from .topology import Topology

AGENT = str(Path(__file__).with_name("agent.py"))


class Sampler(threading.Thread):
    """Samples the kernel bottleneck qdisc (packets queued, bytes sent) with tc."""

    def __init__(self, ns: str, dev: str, epoch_ns: int, every_ns: int):
        super().__init__(daemon=True)
        self.ns, self.dev, self.epoch, self.every = ns, dev, epoch_ns, every_ns
        self.rows: list[tuple[int, int, int]] = []
        self.stop = threading.Event()

    def read(self) -> tuple[int, int] | None:
        try:
            q = json.loads(sh(["tc", "-n", self.ns, "-s", "-j", "qdisc", "show", "dev", self.dev], check=False) or "[]")
        except json.JSONDecodeError:
            return None
        root = [x for x in q if x.get("root")]
        leaf = [x for x in q if x.get("kind") == "pfifo"]
        if not root:
            return None
        return int((leaf or root)[0].get("qlen", 0)), int(root[0].get("bytes", 0))

    def run(self):
        t = self.every
        while not self.stop.is_set():
            wait = (self.epoch + t - time.monotonic_ns()) / 1e9
            if wait > 0 and self.stop.wait(wait):
                break
            r = self.read()
            if r is not None:
                self.rows.append((time.monotonic_ns() - self.epoch, r[0], r[1]))
            t += self.every


@dataclass
class Clock:
    """When the flows may start (``epoch``, monotonic ns) and by when the run
    ends (``deadline``, ns after the epoch)."""

    epoch: int
    last_start: int
    deadline: int
    peer_timeout: float  # ns


def clock(plan: Plan, t: Topology, timeout_s: float, lead_s: float) -> Clock:
    nproc = len(t.senders) + len(t.receivers) + 1
    epoch = time.monotonic_ns() + int((0.5 + 0.05 * nproc + lead_s) * 1e9)
    last_start = int(plan.sched["start_ns"].max()) if len(plan.sched) else 0
    deadline = last_start + int(timeout_s * 1e9)
    if plan.cfg.get("stop_s") is not None:
        deadline = min(deadline, int(float(plan.cfg["stop_s"]) * 1e9))
    return Clock(epoch, last_start, deadline, min(10e9, timeout_s * 1e9))


def flows_per_host(plan: Plan) -> tuple:
    """The flows each sending host sends and each receiving host receives."""
    lay = plan.lay
    sends: dict[int, list] = {h: [] for h in range(lay.n_send)}
    recvs: dict[int, list] = {j: [] for j in range(lay.n_recv)}
    for f in plan.sched.itertuples(index=False):
        i, flow = int(f.sender), int(f.flow_id)
        h, j = lay.send_host[i], lay.recv_host[i]
        base = {
            "flow": flow,
            "start_ns": int(f.start_ns),
            "size_bytes": int(f.size_bytes),
            "size_pkts": int(f.size_pkts),
        }
        if plan.stack == "kernel":
            sends[h].append({**base, "dst_ip": f"10.2.{j}.1", "dst_port": HOST_PORT})
            recvs[j].append(base)
        else:
            sends[h].append({**base, "peer": f"10.2.{j}.1:{HOST_PORT}"})
            recvs[j].append({**base, "peer": f"10.1.{h}.1:{HOST_PORT}"})
    return sends, recvs


class Processes(dict):
    """The run's processes by name, each an agent in its namespace writing
    ``<name>.out.json`` (and its log) into ``tmp``."""

    def __init__(self, tmp: Path):
        super().__init__()
        self.tmp = tmp

    def launch(self, name: str, ns: str, c: dict) -> None:
        p = self.tmp / f"{name}.json"
        p.write_text(json.dumps(c))
        log = open(self.tmp / f"{name}.log", "w")  # noqa: SIM115 (held by the child until it ends)
        self[name] = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, AGENT, str(p), str(self.tmp / f"{name}.out.json")],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _launch_hosts(procs: Processes, plan: Plan, t: Topology, common: dict, c: Clock) -> None:
    sends, recvs = flows_per_host(plan)
    if plan.stack == "kernel":
        hosts = {
            **common,
            "mode": "tcp",
            "cc": plan.cc,
            "port": HOST_PORT,
            "peer_timeout_s": c.peer_timeout / 1e9,
            "deadline_s": max(1.0, (c.deadline - c.last_start) / 1e9),
        }
    else:
        hosts = {
            **common,
            "mode": "host",
            "scenario": dict(plan.cfg),
            "bind": f"0.0.0.0:{HOST_PORT}",
            "peer_timeout_ns": int(c.peer_timeout),
        }
    for j, d in enumerate(t.receivers):
        procs.launch(f"d{j}", d, {**hosts, "recv": recvs[j]})
    for h, s in enumerate(t.senders):
        procs.launch(f"s{h}", s, {**hosts, "send": sends[h]})


def start(procs: Processes, plan: Plan, t: Topology, c: Clock, stop_file: str) -> None:
    """Start the link emulator and every host's agent."""
    common = {"epoch_ns": c.epoch, "stop_file": stop_file, "deadline_ns": c.deadline}
    interval = float(plan.cfg.get("metrics", {}).get("interval_ms", 10.0))
    link = {
        **common,
        "mode": "link",
        "scenario": dict(plan.cfg),
        "pairs": [{"a": "a0", "b": "b0", "fwd": t.fwd, "rev": t.rev}],
        "sample_ns": int(interval * 1e6),
        "fctlab_port": HOST_PORT,
        "tcp_port_base": 10000,
    }
    procs.launch("link", t.em, link)
    _launch_hosts(procs, plan, t, common, c)


def probe_info(plan: Plan, t: Topology, c: Clock) -> dict:
    """What a ``probe`` callback is told: namespaces, addresses and the epoch."""
    return {
        "senders": t.senders,
        "receivers": t.receivers,
        "r0": t.r0,
        "r1": t.r1,
        "link": t.em,
        "epoch_ns": c.epoch,
        "sender_ip": [f"10.1.{h}.1" for h in range(plan.lay.n_send)],
        "receiver_ip": [f"10.2.{j}.1" for j in range(plan.lay.n_recv)],
        "port": HOST_PORT,
    }


def wait(procs: Processes, plan: Plan, c: Clock, stop_file: str) -> None:
    """Wait for the senders to finish (or the deadline), then tell everyone to stop."""
    wall_deadline = time.monotonic() + (c.epoch - time.monotonic_ns()) / 1e9 + c.deadline / 1e9 + 10
    senders = [f"s{h}" for h in range(plan.lay.n_send)]
    while any(procs[s].poll() is None for s in senders) and time.monotonic() < wall_deadline:
        time.sleep(0.05)
    Path(stop_file).touch()
    end = time.monotonic() + 5
    while any(p.poll() is None for p in procs.values()) and time.monotonic() < end:
        time.sleep(0.05)

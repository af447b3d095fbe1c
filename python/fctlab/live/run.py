"""``fctlab live``: a scenario's flows as real traffic through an emulated network.

One network namespace per host and per router, joined by veth pairs, plus one
for the link emulator; segmentation offloads off.
The flows are the simulated run's own (same seed, same arrivals and sizes),
sent either by fctlab's transports over UDP (`agent` mode ``host``) or by
the kernel's TCP, through a link emulator (``fctlab_live::link``) that applies
the delays and, on the bottleneck, the scenario's queue discipline at its rate.
The result has the same ``flows``/``series``/``meta.json`` as a simulated run.

A run is planned and checked (`.plan`), its network built
(`.topology`), its processes started and waited for (`.launch`) and
their outputs gathered (`.collect`); the network is torn down however
the run ends.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import tempfile
import threading
import time
from pathlib import Path

from . import collect, launch, topology
from .netns import Net, sh
from .plan import KERNEL_CC, MAX_FLOWS, MAX_HOSTS, Layout, Plan, check, make_plan, require_root

__all__ = ["KERNEL_CC", "MAX_FLOWS", "MAX_HOSTS", "Layout", "check", "require_root", "run"]


def _cleanup_on_signals(net: Net):
    """Tear down on exit, Ctrl-C and SIGTERM; returns a function restoring the handlers."""
    atexit.register(net.teardown)
    old = {}
    if threading.current_thread() is threading.main_thread():

        def handler(sig, frame):
            raise KeyboardInterrupt(f"signal {sig}")

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            old[s] = signal.signal(s, handler)

    def restore():
        for s, h in old.items():
            signal.signal(s, h)
        atexit.unregister(net.teardown)

    return restore


def _info(plan: Plan) -> dict:
    info = {
        "stack": plan.stack,
        "bottleneck": plan.bottleneck,
        "swept_namespaces": plan.swept,
        "mtu": plan.mtu,
        "buffer_pkts": plan.buffer_pkts,
    }
    if plan.stack == "kernel":
        info.update({"cc": plan.cc, "sack": bool(plan.sack)})
    return info


def _live(net: Net, procs: launch.Processes, plan: Plan, info: dict, timeout_s: float, probe, lead_s: float):
    """Build the network, start every process, wait for the run to end; the tc
    sampler (or None) and the kernel bottleneck's final statistics."""
    t = topology.build(net, plan, info)
    c = launch.clock(plan, t, timeout_s, lead_s)
    stop_file = str(procs.tmp / "stop")
    launch.start(procs, plan, t, c, stop_file)
    if probe is not None:
        probe(launch.probe_info(plan, t, c))
    sampler = None
    if plan.router == "kernel":
        every = int(max(100.0, float(plan.cfg.get("metrics", {}).get("interval_ms", 10.0))) * 1e6)
        sampler = launch.Sampler(t.r0, "core", c.epoch, every)
        sampler.start()
    launch.wait(procs, plan, c, stop_file)
    if sampler:
        sampler.stop.set()
        sampler.join()
    kernel = plan.router == "kernel"
    tcstats = sh(["tc", "-n", t.r0, "-s", "-j", "qdisc", "show", "dev", "core"], check=False) if kernel else ""
    return sampler, tcstats


def run(
    config,
    *,
    stack: str = "fctlab",
    cc: str | None = None,
    sack: bool | None = None,
    bottleneck: str = "fctlab",
    timeout_s: float = 30.0,
    sim=None,
    quiet: bool = True,
    probe=None,
    lead_s: float = 0.0,
):
    """Run ``config``'s flows live; returns a `fctlab.Result`.

    ``stack``: ``"fctlab"`` (the scenario's scheme over UDP) or ``"kernel"``
    (Linux TCP; ``cc`` one of ``reno`` (default), ``cubic``, ``bbr``, ``dctcp``, ``vegas``
    (loaded with modprobe when the kernel lacks it); ``sack`` default
    on for ``tcp-sack`` only). ``bottleneck``: ``"fctlab"`` (default: the
    scenario's queue discipline, the simulator's own code, in the link emulator)
    or ``"tc"`` (the kernel's tbf rate limiter with a pfifo buffer at r0;
    droptail only). ``timeout_s``: flows still running this long after the last
    start are cut. ``probe``: called with a dict of namespaces and addresses
    once every process is started, ``lead_s`` seconds before the first flow may
    start (tests measure the emulated links with it, or send forged datagrams).
    """
    from ..result import Result, _flows_frame

    plan = make_plan(config, stack, cc, sack, bottleneck, sim)
    t_wall = time.time()
    net = Net()
    restore = _cleanup_on_signals(net)
    procs = launch.Processes(Path(tempfile.mkdtemp(prefix="fctlab-live-")))
    interrupted = False
    info = _info(plan)
    try:
        sampler, tcstats = _live(net, procs, plan, info, timeout_s, probe, lead_s)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        for p in procs.values():
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
        net.teardown()
        restore()
    outs = collect.outputs(procs, info)
    cols = collect.flow_columns(plan, outs, info)
    flows = _flows_frame(cols)
    series = collect.series(plan, outs, cols, sampler, tcstats, info)
    meta = collect.meta(plan, flows, cols["finish_ns"], info, t_wall, interrupted)
    return Result(flows=flows, series=series, meta=meta)

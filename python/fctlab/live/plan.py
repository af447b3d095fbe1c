"""What a live run will do, checked before anything is set up: the scenario's
hosts and delays (`Layout`), what live mode refuses (`check`),
and the flows to replay (the simulated run's own), gathered in a `Plan`."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..config import ConfigError, load_config
from . import netns
from .netns import LiveError

HOST_PORT = 6000
MAX_HOSTS = 250
MAX_FLOWS = 5000
#: The kernel congestion controls live mode runs (reno and cubic are built in;
#: the others are modules, loaded with modprobe when missing).
KERNEL_CC = ("reno", "cubic", "bbr", "dctcp", "vegas")
AVAILABLE_CC = "/proc/sys/net/ipv4/tcp_available_congestion_control"


def available_cc() -> list:
    """The congestion controls this kernel has loaded (empty when unreadable)."""
    try:
        with open(AVAILABLE_CC) as fh:
            return fh.read().split()
    except OSError:
        return []


def require_cc(cc: str) -> None:
    """Make sure the kernel has ``cc``, loading ``tcp_<cc>`` with modprobe if it
    must; LiveError with the reason otherwise."""
    import shutil
    import subprocess

    have = available_cc()
    if not have or cc in have:
        return  # loaded, or the list cannot be read: the socket option decides
    tried = "modprobe not found"
    if shutil.which("modprobe"):
        r = subprocess.run(["modprobe", f"tcp_{cc}"], capture_output=True, text=True)
        if cc in available_cc():
            return
        said = [ln.strip() for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
        tried = f"modprobe tcp_{cc}: {said[-1] if said else f'exit {r.returncode}'}"
    raise LiveError(f"this kernel has no {cc} congestion control (it has: {' '.join(have)}; {tried})")


class Layout:
    """Which host each sender sends from and which it sends to, with the delays."""

    def __init__(self, cfg: dict):
        n = cfg.get("network", {})
        topo = n.get("topology", "single-link")
        if topo not in ("dumbbell", "half-dumbbell", "single-link"):
            raise ConfigError(
                "live mode runs the dumbbell, half-dumbbell and single-link topologies", "network.topology"
            )
        k = int(n.get("senders", 1))
        if "bottleneck_bps" not in n:
            raise ConfigError("required key is missing", "network.bottleneck_bps")
        self.c = float(n["bottleneck_bps"])
        self.bneck_ms = float(n.get("bottleneck_delay_ms", 0.0))
        self.recv_ms = float(n.get("receiver_delay_ms", 0.0))
        acc = n.get("access_delay_ms", 0.0)
        acc = [float(a) for a in acc] if isinstance(acc, list) else [float(acc)] * k
        self.access_bps = float(n.get("access_bps", min(10 * self.c, 1e12)))
        self.topology = topo
        if topo == "single-link":
            self.send_host, self.recv_host = [0] * k, [0] * k
            self.access_ms, self.access_bps, self.recv_ms = [0.0], None, 0.0
        else:
            self.send_host = list(range(k))
            self.recv_host = list(range(k)) if topo == "dumbbell" else [0] * k
            self.access_ms = acc
        if max(self.send_host) >= MAX_HOSTS or max(self.recv_host) >= MAX_HOSTS:
            raise ConfigError(f"live mode runs at most {MAX_HOSTS} senders", "network.senders")
        self.n_send = max(self.send_host) + 1
        self.n_recv = max(self.recv_host) + 1


def queue(cfg: dict) -> str:
    return cfg.get("network", {}).get("queue", "droptail")


def scheme(cfg: dict) -> str:
    return cfg.get("transport", {}).get("scheme", "tcp-newreno")


def _check_flows(cfg: dict) -> None:
    for i, t in enumerate(cfg.get("traffic", [])):
        if t.get("arrivals", "poisson") != "poisson":
            raise ConfigError(
                "live mode replays the simulated run's flows: poisson arrivals only (closed-loop and long-lived "
                "flows depend on the run)",
                f"traffic[{i}].arrivals",
            )
    for i, f in enumerate(cfg.get("flows", [])):
        if f.get("long_lived"):
            raise ConfigError("live mode runs finite flows only", f"flows[{i}].long_lived")


def _check_transport(cfg: dict) -> None:
    # One transport setting for every flow: the hosts build endpoints from [transport].
    if cfg.get("transport", {}).get("per_sender"):
        raise ConfigError(
            "live mode runs one transport setting for every flow; per-sender settings are a simulator feature",
            "transport.per_sender",
        )
    for section in ("flows", "traffic"):
        for i, e in enumerate(cfg.get(section, [])):
            if "transport" in e:
                raise ConfigError(
                    "live mode runs one transport setting for every flow; per-entry settings are a simulator feature",
                    f"{section}[{i}].transport",
                )


def check(cfg: dict, stack: str, router: str, cc: str | None) -> None:
    """Refuse what live mode cannot run, naming the key (ConfigError)."""
    if cfg.get("losses"):
        raise ConfigError("forced losses are a simulator feature; live mode refuses them", "losses")
    _check_flows(cfg)
    _check_transport(cfg)
    if stack == "kernel":
        if not scheme(cfg).startswith("tcp-"):
            raise ConfigError("the kernel's TCP stands in for the tcp-* schemes only", "transport.scheme")
        if cc is not None and cc not in KERNEL_CC:
            raise ConfigError(f"must be one of {', '.join(KERNEL_CC)}", "live.cc")
    if router == "kernel" and queue(cfg) != "droptail":
        raise ConfigError(
            "the tc bottleneck (tbf + pfifo) is droptail; other queues run in the link emulator (bottleneck = fctlab)",
            "network.queue",
        )


def require_root() -> None:
    if os.geteuid() != 0:
        raise LiveError("live mode needs root (network namespaces, veth pairs, raw sockets)")


@dataclass
class Plan:
    """A checked live run: the scenario, how it runs, and the flows it replays."""

    cfg: dict
    stack: str  # "fctlab" or "kernel"
    cc: str  # the kernel's congestion control (kernel stack)
    sack: bool  # the kernel's SACK (kernel stack)
    bottleneck: str  # "fctlab" (the link emulator) or "tc"
    lay: Layout
    sched: object  # the simulated run's flows table: the flows to replay
    mtu: int
    buffer_pkts: int
    swept: list  # namespaces of dead runs removed first

    @property
    def router(self) -> str:
        """Where the bottleneck's queue runs: "kernel" (tc) or "user" (the link emulator)."""
        return "kernel" if self.bottleneck == "tc" else "user"

    @property
    def transport(self) -> dict:
        return self.cfg.get("transport", {})


def _mtu(cfg: dict) -> int:
    tr = cfg.get("transport", {})
    mtu = int(tr.get("mss_bytes", 1000)) + int(tr.get("header_bytes", 40))
    if not 576 <= mtu <= 65535:
        raise ConfigError(
            f"live mode needs mss_bytes + header_bytes (the MTU) in 576..65535, got {mtu}", "transport.mss_bytes"
        )
    return mtu


def make_plan(config, stack: str, cc: str | None, sack: bool | None, bottleneck: str, sim=None) -> Plan:
    """Check ``config`` for live mode and the machine for root, sweep dead runs'
    namespaces, and simulate the scenario (unless ``sim`` is its result) for the
    flows to replay."""
    import fctlab

    cfg = load_config(config)
    if stack not in ("fctlab", "kernel"):
        raise ConfigError("must be fctlab or kernel", "live.stack")
    if bottleneck not in ("fctlab", "tc"):
        raise ConfigError("must be fctlab or tc", "live.bottleneck")
    check(cfg, stack, "kernel" if bottleneck == "tc" else "user", cc)
    lay = Layout(cfg)
    require_root()
    if stack == "kernel":
        require_cc(cc or "reno")
    swept = netns.sweep()
    if sim is None:
        sim = fctlab.run(cfg, warn=False)
    sched = sim.flows
    if len(sched) > MAX_FLOWS:
        raise ConfigError(f"live mode runs at most {MAX_FLOWS} flows, the scenario makes {len(sched)}", "traffic")
    mtu = _mtu(cfg)
    buffer_pkts = int(fctlab.describe(cfg)["buffer_pkts"])
    sack = scheme(cfg) == "tcp-sack" if sack is None else sack
    return Plan(cfg, stack, cc or "reno", sack, bottleneck, lay, sched, mtu, buffer_pkts, swept)

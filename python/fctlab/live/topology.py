"""A live run's network: one namespace per host and router and one for the link
emulator, joined by veth pairs, with addresses, routes, the kernel's settings
and (with ``bottleneck = "tc"``) the bottleneck as the kernel's qdiscs.

Hosts and routers route in the kernel; the bottleneck r0 -> r1 runs through
the link emulator's namespace ("link"), which bridges its two halves and
applies every delay, the rate and the queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import netns
from .netns import Net, sh
from .plan import Plan

#: The kernel TCP's settings on every host (the kernel stack): the model's TCP, not Linux's extras.
KERNEL_TCP = (
    "net.ipv4.tcp_timestamps=0",
    "net.ipv4.tcp_dsack=0",
    "net.ipv4.tcp_no_metrics_save=1",
    "net.ipv4.tcp_early_retrans=0",
    "net.ipv4.tcp_recovery=0",
    "net.ipv4.tcp_frto=0",
    "net.ipv4.tcp_slow_start_after_idle=0",
    "net.ipv4.tcp_rmem=4096 4194304 33554432",
    "net.ipv4.tcp_wmem=4096 4194304 33554432",
)


@dataclass
class Topology:
    """The namespaces of a live run and the link emulator's two directions."""

    r0: str
    r1: str
    em: str
    senders: list = field(default_factory=list)
    receivers: list = field(default_factory=list)
    fwd: dict = field(default_factory=dict)
    rev: dict = field(default_factory=dict)
    batch: dict = field(default_factory=dict)  # namespace -> `ip -batch` lines
    devs: dict = field(default_factory=dict)  # namespace -> its devices


def _direction(rate_bps, scenario_queue: bool, bneck_ms: float) -> dict:
    return {
        "rate_bps": rate_bps,
        "scenario_queue": scenario_queue,
        "pre_ns": {},
        "post_ns": {},
        "post_src_ns": {},
        "post_base_ns": int(bneck_ms * 1e6),
    }


def _core(net: Net, plan: Plan) -> Topology:
    r0, r1, em = net.add("r0"), net.add("r1"), net.add("link")
    net.veth(r0, "core", em, "a0", plan.mtu)
    net.veth(em, "b0", r1, "core", plan.mtu)
    kernel = plan.router == "kernel"
    t = Topology(r0, r1, em)
    t.fwd = _direction(None if kernel else plan.lay.c, not kernel, plan.lay.bneck_ms)
    t.rev = _direction(plan.lay.c, False, plan.lay.bneck_ms)
    t.batch = {
        r0: ["addr add 10.0.0.1/30 dev core", "link set core up"],
        r1: ["addr add 10.0.0.2/30 dev core", "link set core up"],
        em: ["link set a0 up", "link set b0 up"],
    }
    t.devs = {r0: ["core"], r1: ["core"], em: ["a0", "b0"]}
    return t


def _senders(net: Net, plan: Plan, t: Topology) -> None:
    for h in range(plan.lay.n_send):
        s = net.add(f"s{h}")
        t.senders.append(s)
        net.veth(s, "eth0", t.r0, f"s{h}", plan.mtu)
        route = f"route replace default via 10.1.{h}.254 dev eth0"
        if plan.stack == "kernel":
            route += f" initcwnd {max(1, int(round(float(plan.transport.get('init_cwnd_pkts', 2)))))}"
        t.batch[s] = [f"addr add 10.1.{h}.1/24 dev eth0", "link set eth0 up", route]
        t.batch[t.r0] += [f"addr add 10.1.{h}.254/24 dev s{h}", f"link set s{h} up"]
        t.devs[s] = ["eth0"]
        t.devs[t.r0].append(f"s{h}")
        acc = int(plan.lay.access_ms[h] * 1e6)
        # The access delay comes before the bottleneck's queue (after it
        # when the queue is the kernel's, which sits before the emulator).
        (t.fwd["pre_ns"] if plan.router != "kernel" else t.fwd["post_src_ns"])[f"10.1.{h}.1"] = acc
        t.rev["post_ns"][f"10.1.{h}.1"] = acc


def _receivers(net: Net, plan: Plan, t: Topology) -> None:
    for j in range(plan.lay.n_recv):
        d = net.add(f"d{j}")
        t.receivers.append(d)
        net.veth(d, "eth0", t.r1, f"d{j}", plan.mtu)
        route = f"route replace default via 10.2.{j}.254 dev eth0"
        if plan.stack == "kernel":
            route += " initrwnd 10000" + ("" if plan.transport.get("delayed_ack", False) else " quickack 1")
        t.batch[d] = [f"addr add 10.2.{j}.1/24 dev eth0", "link set eth0 up", route]
        t.batch[t.r1] += [f"addr add 10.2.{j}.254/24 dev d{j}", f"link set d{j} up"]
        t.devs[d] = ["eth0"]
        t.devs[t.r1].append(f"d{j}")
        t.fwd["post_ns"][f"10.2.{j}.1"] = int(plan.lay.recv_ms * 1e6)
        t.rev["pre_ns"][f"10.2.{j}.1"] = int(plan.lay.recv_ms * 1e6)


def _kernel_bottleneck(plan: Plan, t: Topology) -> None:
    """The bottleneck's rate and buffer as the kernel's qdiscs at r0."""
    burst = plan.mtu + 64
    sh(
        ["tc", "-n", t.r0, "-batch", "-"],
        input=f"qdisc replace dev core root handle 1: tbf rate {int(plan.lay.c)}bit burst {burst} limit {burst * 4}\n"
        f"qdisc replace dev core parent 1:1 handle 10: pfifo limit {plan.buffer_pkts}\n",
    )


def _sysctls(plan: Plan, t: Topology) -> None:
    sysctl = {t.r0: ["net.ipv4.ip_forward=1"], t.r1: ["net.ipv4.ip_forward=1"]}
    if plan.stack == "kernel":
        tcp = list(KERNEL_TCP)
        tcp.insert(1, f"net.ipv4.tcp_sack={int(bool(plan.sack))}")
        tcp.insert(4, f"net.ipv4.tcp_ecn={1 if plan.transport.get('ecn') else 0}")
        for ns in t.senders + t.receivers:
            sysctl[ns] = tcp
    for ns, kv in sysctl.items():
        sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *kv])


def build(net: Net, plan: Plan, info: dict) -> Topology:
    """Make the run's namespaces, links, addresses, routes and settings; note in
    ``info`` how many namespaces and which offloads stayed on."""
    t = _core(net, plan)
    _senders(net, plan, t)
    _receivers(net, plan, t)
    t.batch[t.r0].append("route add 10.2.0.0/16 via 10.0.0.2")
    t.batch[t.r1].append("route add 10.1.0.0/16 via 10.0.0.1")
    for ns, lines in t.batch.items():
        sh(["ip", "-n", ns, "-batch", "-"], input="\n".join(lines) + "\n")
    if plan.router == "kernel":
        _kernel_bottleneck(plan, t)
    _sysctls(plan, t)
    offl = {}
    for ns, ds in t.devs.items():
        offl.update({f"{ns}/{k}": v for k, v in netns.offloads_off(ns, ds).items()})
    info["offloads_on"] = sorted(k for k, v in offl.items() if v)
    info["namespaces"] = len(net.made)
    return t

"""``fctlab live``: a scenario's flows as real traffic through an emulated network.

One network namespace per host and per router, joined by veth pairs, plus one
for the link emulator; segmentation offloads off.
The flows are the simulated run's own (same seed, same arrivals and sizes),
sent either by fctlab's transports over UDP (:mod:`agent` mode ``host``) or by
the kernel's TCP, through a link emulator (``fctlab_live::link``) that applies
the delays and, on the bottleneck, the scenario's queue discipline at its rate. The result has the same ``flows``/``series``/``meta.json``
as a simulated run.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..config import ConfigError, load_config
from . import netns
from .netns import LiveError, Net, sh

AGENT = str(Path(__file__).with_name("agent.py"))
HOST_PORT = 6000
MAX_HOSTS = 250
MAX_FLOWS = 5000
KERNEL_CC = ("reno", "cubic")


def _delay_us(ms: float) -> int:
    return int(round(ms * 1000))


def _netem(dev: str, delay_ms: float, rate_bps: float | None) -> str | None:
    if delay_ms <= 0 and not rate_bps:
        return None
    cmd = f"qdisc replace dev {dev} root netem limit 1000000"
    if delay_ms > 0:
        cmd += f" delay {_delay_us(delay_ms)}us"
    if rate_bps:
        cmd += f" rate {int(rate_bps)}bit"
    return cmd


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


def _queue(cfg: dict) -> str:
    return cfg.get("network", {}).get("queue", "droptail")


def _scheme(cfg: dict) -> str:
    return cfg.get("transport", {}).get("scheme", "tcp-newreno")


def check(cfg: dict, stack: str, router: str, cc: str | None) -> None:
    """Refuse what live mode cannot run, naming the key (ConfigError)."""
    if cfg.get("losses"):
        raise ConfigError("forced losses are a simulator feature; live mode refuses them", "losses")
    for i, t in enumerate(cfg.get("traffic", [])):
        if t.get("arrivals", "poisson") != "poisson":
            raise ConfigError(
                "live mode replays the simulated run's flows: poisson arrivals only (closed-loop and long-lived flows depend on the run)",
                f"traffic[{i}].arrivals",
            )
    for i, f in enumerate(cfg.get("flows", [])):
        if f.get("long_lived"):
            raise ConfigError("live mode runs finite flows only", f"flows[{i}].long_lived")
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
    if stack == "kernel":
        if not _scheme(cfg).startswith("tcp-"):
            raise ConfigError("the kernel's TCP stands in for the tcp-* schemes only", "transport.scheme")
        if cc is not None and cc not in KERNEL_CC:
            raise ConfigError(f"must be one of {', '.join(KERNEL_CC)}", "live.cc")
    if router == "kernel" and _queue(cfg) != "droptail":
        raise ConfigError(
            "the tc bottleneck (tbf + pfifo) is droptail; other queues run in the link emulator (bottleneck = fctlab)",
            "network.queue",
        )


class _Sampler(threading.Thread):
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


def require_root() -> None:
    if os.geteuid() != 0:
        raise LiveError("live mode needs root (network namespaces, veth pairs, raw sockets)")


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
    """Run ``config``'s flows live; returns a :class:`fctlab.Result`.

    ``stack``: ``"fctlab"`` (the scenario's scheme over UDP) or ``"kernel"``
    (Linux TCP; ``cc`` ``reno`` or ``cubic``, default ``reno``; ``sack`` default
    on for ``tcp-sack`` only).     ``bottleneck``: ``"fctlab"`` (default: the scenario's queue discipline, the
    simulator's own code, in the link emulator) or ``"tc"`` (the kernel's tbf
    rate limiter with a pfifo buffer at r0; droptail only).
    ``timeout_s``: flows still running this long after the last start are cut.
    ``probe``: called with a dict of namespaces and addresses once every
    process is started, ``lead_s`` seconds before the first flow may start
    (tests measure the emulated links with it, or send forged datagrams).
    """
    import fctlab

    from ..result import Result, _flows_frame

    cfg = load_config(config)
    if stack not in ("fctlab", "kernel"):
        raise ConfigError("must be fctlab or kernel", "live.stack")
    if bottleneck not in ("fctlab", "tc"):
        raise ConfigError("must be fctlab or tc", "live.bottleneck")
    router = "kernel" if bottleneck == "tc" else "user"
    check(cfg, stack, router, cc)
    lay = Layout(cfg)
    require_root()
    gone = netns.sweep()
    if sim is None:
        sim = fctlab.run(cfg, warn=False)
    sched = sim.flows
    if len(sched) > MAX_FLOWS:
        raise ConfigError(f"live mode runs at most {MAX_FLOWS} flows, the scenario makes {len(sched)}", "traffic")
    tr = cfg.get("transport", {})
    mss, hdr = int(tr.get("mss_bytes", 1000)), int(tr.get("header_bytes", 40))
    mtu = mss + hdr
    if not 576 <= mtu <= 65535:
        raise ConfigError(
            f"live mode needs mss_bytes + header_bytes (the MTU) in 576..65535, got {mtu}", "transport.mss_bytes"
        )
    desc = fctlab.describe(cfg)
    buffer_pkts = int(desc["buffer_pkts"])
    if cc is None:
        cc = "reno"
    if sack is None:
        sack = _scheme(cfg) == "tcp-sack"
    scenario = dict(cfg)
    t_wall = time.time()
    net = Net()
    restore = _cleanup_on_signals(net)
    tmp = Path(tempfile.mkdtemp(prefix="fctlab-live-"))
    procs: dict[str, subprocess.Popen] = {}
    interrupted = False
    info: dict = {
        "stack": stack,
        "bottleneck": bottleneck,
        "swept_namespaces": gone,
        "mtu": mtu,
        "buffer_pkts": buffer_pkts,
    }
    if stack == "kernel":
        info.update({"cc": cc, "sack": bool(sack)})
    try:
        # --- the network ------------------------------------------------
        # Hosts and routers route in the kernel; the bottleneck r0 -> r1 runs
        # through the link emulator's namespace ("link"), which bridges its two
        # halves and applies every delay, the rate and the queue.
        r0, r1, em = net.add("r0"), net.add("r1"), net.add("link")
        net.veth(r0, "core", em, "a0", mtu)
        net.veth(em, "b0", r1, "core", mtu)
        batch = {
            r0: ["addr add 10.0.0.1/30 dev core", "link set core up"],
            r1: ["addr add 10.0.0.2/30 dev core", "link set core up"],
            em: ["link set a0 up", "link set b0 up"],
        }
        devs: dict[str, list[str]] = {r0: ["core"], r1: ["core"], em: ["a0", "b0"]}
        hosts_s, hosts_d = [], []
        fwd = {
            "rate_bps": None if router == "kernel" else lay.c,
            "scenario_queue": router != "kernel",
            "pre_ns": {},
            "post_ns": {},
            "post_src_ns": {},
            "post_base_ns": int(lay.bneck_ms * 1e6),
        }
        rev = {
            "rate_bps": lay.c,
            "scenario_queue": False,
            "pre_ns": {},
            "post_ns": {},
            "post_src_ns": {},
            "post_base_ns": int(lay.bneck_ms * 1e6),
        }
        for h in range(lay.n_send):
            s = net.add(f"s{h}")
            hosts_s.append(s)
            net.veth(s, "eth0", r0, f"s{h}", mtu)
            route = f"route replace default via 10.1.{h}.254 dev eth0"
            if stack == "kernel":
                route += f" initcwnd {max(1, int(round(float(tr.get('init_cwnd_pkts', 2)))))}"
            batch[s] = [f"addr add 10.1.{h}.1/24 dev eth0", "link set eth0 up", route]
            batch[r0] += [f"addr add 10.1.{h}.254/24 dev s{h}", f"link set s{h} up"]
            devs[s] = ["eth0"]
            devs[r0].append(f"s{h}")
            acc = int(lay.access_ms[h] * 1e6)
            # The access delay comes before the bottleneck's queue (after it
            # when the queue is the kernel's, which sits before the emulator).
            (fwd["pre_ns"] if router != "kernel" else fwd["post_src_ns"])[f"10.1.{h}.1"] = acc
            rev["post_ns"][f"10.1.{h}.1"] = acc
        for j in range(lay.n_recv):
            d = net.add(f"d{j}")
            hosts_d.append(d)
            net.veth(d, "eth0", r1, f"d{j}", mtu)
            route = f"route replace default via 10.2.{j}.254 dev eth0"
            if stack == "kernel":
                route += " initrwnd 10000" + ("" if tr.get("delayed_ack", False) else " quickack 1")
            batch[d] = [f"addr add 10.2.{j}.1/24 dev eth0", "link set eth0 up", route]
            batch[r1] += [f"addr add 10.2.{j}.254/24 dev d{j}", f"link set d{j} up"]
            devs[d] = ["eth0"]
            devs[r1].append(f"d{j}")
            fwd["post_ns"][f"10.2.{j}.1"] = int(lay.recv_ms * 1e6)
            rev["pre_ns"][f"10.2.{j}.1"] = int(lay.recv_ms * 1e6)
        batch[r0].append("route add 10.2.0.0/16 via 10.0.0.2")
        batch[r1].append("route add 10.1.0.0/16 via 10.0.0.1")
        for ns, lines in batch.items():
            sh(["ip", "-n", ns, "-batch", "-"], input="\n".join(lines) + "\n")
        if router == "kernel":
            # The bottleneck's rate and buffer as the kernel's qdiscs at r0.
            burst = mtu + 64
            sh(
                ["tc", "-n", r0, "-batch", "-"],
                input=f"qdisc replace dev core root handle 1: tbf rate {int(lay.c)}bit burst {burst} limit {burst * 4}\n"
                f"qdisc replace dev core parent 1:1 handle 10: pfifo limit {buffer_pkts}\n",
            )
        sysctl = {r0: ["net.ipv4.ip_forward=1"], r1: ["net.ipv4.ip_forward=1"]}
        if stack == "kernel":
            tcp = [
                "net.ipv4.tcp_timestamps=0",
                f"net.ipv4.tcp_sack={int(bool(sack))}",
                "net.ipv4.tcp_dsack=0",
                "net.ipv4.tcp_no_metrics_save=1",
                f"net.ipv4.tcp_ecn={1 if tr.get('ecn') else 0}",
                "net.ipv4.tcp_early_retrans=0",
                "net.ipv4.tcp_recovery=0",
                "net.ipv4.tcp_frto=0",
                "net.ipv4.tcp_slow_start_after_idle=0",
                "net.ipv4.tcp_rmem=4096 4194304 33554432",
                "net.ipv4.tcp_wmem=4096 4194304 33554432",
            ]
            for ns in hosts_s + hosts_d:
                sysctl[ns] = tcp
        for ns, kv in sysctl.items():
            sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *kv])
        offl = {}
        for ns, ds in devs.items():
            offl.update({f"{ns}/{k}": v for k, v in netns.offloads_off(ns, ds).items()})
        info["offloads_on"] = sorted(k for k, v in offl.items() if v)
        info["namespaces"] = len(net.made)
        # --- the processes ----------------------------------------------
        nproc = len(hosts_s) + len(hosts_d) + 1
        epoch = time.monotonic_ns() + int((0.5 + 0.05 * nproc + lead_s) * 1e9)
        last_start = int(sched["start_ns"].max()) if len(sched) else 0
        deadline = last_start + int(timeout_s * 1e9)
        if cfg.get("stop_s") is not None:
            deadline = min(deadline, int(float(cfg["stop_s"]) * 1e9))
        stop_file = str(tmp / "stop")
        peer_timeout = min(10e9, timeout_s * 1e9)
        sends: dict[int, list] = {h: [] for h in range(lay.n_send)}
        recvs: dict[int, list] = {j: [] for j in range(lay.n_recv)}
        for f in sched.itertuples(index=False):
            i, flow = int(f.sender), int(f.flow_id)
            h, j = lay.send_host[i], lay.recv_host[i]
            base = {
                "flow": flow,
                "start_ns": int(f.start_ns),
                "size_bytes": int(f.size_bytes),
                "size_pkts": int(f.size_pkts),
            }
            if stack == "kernel":
                sends[h].append({**base, "dst_ip": f"10.2.{j}.1", "dst_port": HOST_PORT})
                recvs[j].append(base)
            else:
                sends[h].append({**base, "peer": f"10.2.{j}.1:{HOST_PORT}"})
                recvs[j].append({**base, "peer": f"10.1.{h}.1:{HOST_PORT}"})

        def launch(name: str, ns: str, c: dict):
            p = tmp / f"{name}.json"
            p.write_text(json.dumps(c))
            log = open(tmp / f"{name}.log", "w")  # noqa: SIM115 (held by the child until it ends)
            procs[name] = subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, AGENT, str(p), str(tmp / f"{name}.out.json")],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

        common = {"epoch_ns": epoch, "stop_file": stop_file, "deadline_ns": deadline}
        interval = float(cfg.get("metrics", {}).get("interval_ms", 10.0))
        launch(
            "link",
            em,
            {
                **common,
                "mode": "link",
                "scenario": scenario,
                "pairs": [{"a": "a0", "b": "b0", "fwd": fwd, "rev": rev}],
                "sample_ns": int(interval * 1e6),
                "fctlab_port": HOST_PORT,
                "tcp_port_base": 10000,
            },
        )
        if stack == "kernel":
            tcommon = {
                **common,
                "mode": "tcp",
                "cc": cc,
                "port": HOST_PORT,
                "peer_timeout_s": peer_timeout / 1e9,
                "deadline_s": max(1.0, (deadline - last_start) / 1e9),
            }
            for j, d in enumerate(hosts_d):
                launch(f"d{j}", d, {**tcommon, "recv": recvs[j]})
            for h, s in enumerate(hosts_s):
                launch(f"s{h}", s, {**tcommon, "send": sends[h]})
        else:
            hcommon = {
                **common,
                "mode": "host",
                "scenario": scenario,
                "bind": f"0.0.0.0:{HOST_PORT}",
                "peer_timeout_ns": int(peer_timeout),
            }
            for j, d in enumerate(hosts_d):
                launch(f"d{j}", d, {**hcommon, "recv": recvs[j]})
            for h, s in enumerate(hosts_s):
                launch(f"s{h}", s, {**hcommon, "send": sends[h]})
        sampler = None
        if probe is not None:
            probe(
                {
                    "senders": hosts_s,
                    "receivers": hosts_d,
                    "r0": r0,
                    "r1": r1,
                    "link": em,
                    "epoch_ns": epoch,
                    "sender_ip": [f"10.1.{h}.1" for h in range(lay.n_send)],
                    "receiver_ip": [f"10.2.{j}.1" for j in range(lay.n_recv)],
                    "port": HOST_PORT,
                }
            )
        if router == "kernel":
            every = int(max(100.0, float(cfg.get("metrics", {}).get("interval_ms", 10.0))) * 1e6)
            sampler = _Sampler(r0, "core", epoch, every)
            sampler.start()
        # --- wait -------------------------------------------------------
        wall_deadline = time.monotonic() + (epoch - time.monotonic_ns()) / 1e9 + deadline / 1e9 + 10
        senders = [f"s{h}" for h in range(lay.n_send)]
        while any(procs[s].poll() is None for s in senders) and time.monotonic() < wall_deadline:
            time.sleep(0.05)
        Path(stop_file).touch()
        end = time.monotonic() + 5
        while any(p.poll() is None for p in procs.values()) and time.monotonic() < end:
            time.sleep(0.05)
        if sampler:
            sampler.stop.set()
            sampler.join()
        tcstats = (
            sh(["tc", "-n", r0, "-s", "-j", "qdisc", "show", "dev", "core"], check=False) if router == "kernel" else ""
        )
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
    # --- the tables ---------------------------------------------------------
    outs = {}
    lost = {}
    for name, p in procs.items():
        f = tmp / f"{name}.out.json"
        if f.exists():
            outs[name] = json.loads(f.read_text())
        else:
            log = (tmp / f"{name}.log").read_text().strip().splitlines()
            lost[name] = log[-1] if log else f"no output (exit status {p.returncode})"
    if lost:
        # A process that vanished (killed, crashed): its flows have no record.
        info["processes_without_result"] = lost
        if len(lost) == len(procs):
            raise LiveError(f"no live process left a result: {next(iter(lost.values()))}")
    sent, got = {}, {}
    refused: dict = {}
    for o in outs.values():
        for fl in o.get("flows", []):
            (sent if fl["role"] == "send" else got)[int(fl["flow"])] = fl
        for k, v in o.get("refused", {}).get("counts", {}).items():
            refused[k] = refused.get(k, 0) + v
    info["refused"] = refused
    info["send_failures"] = sum(o.get("send_failures", 0) for o in outs.values())
    rtr = outs.get("link", {})
    drops = {int(k): v for k, v in rtr.get("drops", {}).items()}
    ids = sched["flow_id"].to_numpy()

    def g(d, k, key):
        return d.get(int(k), {}).get(key) if d.get(int(k), {}).get(key) is not None else -1

    finish = np.array([g(got, k, "finish_ns") for k in ids], dtype=np.int64)
    cols = {
        "flow_id": ids,
        "sender": sched["sender"].to_numpy(),
        "size_bytes": sched["size_bytes"].fillna(-1).to_numpy(np.int64),
        "size_pkts": sched["size_pkts"].fillna(-1).to_numpy(np.int64),
        "start_ns": sched["start_ns"].to_numpy(np.int64),
        "finish_ns": finish,
        "acked_ns": np.array(
            [g(sent, k, "acked_ns") if finish[n] >= 0 else -1 for n, k in enumerate(ids)], dtype=np.int64
        ),
        "retransmits": np.array([max(0, g(sent, k, "retransmits")) for k in ids], dtype=np.int64),
        "drops": np.array([drops.get(int(k), 0) for k in ids], dtype=np.int64),
        "marks": np.zeros(len(ids), dtype=np.int64),
        "ideal_ns": sched["ideal_ns"].fillna(-1).to_numpy(np.int64),
        "ps_fct_ns": sched["ps_fct_ns"].fillna(-1).to_numpy(np.int64),
        "transport": np.zeros(len(ids), dtype=np.int32),
        "schemes": [_scheme(cfg)],
    }
    flows = _flows_frame(cols)
    status = {}
    for k in ids:
        s = (
            (got.get(int(k)) or {}).get("status", "no-data")
            if finish[list(ids).index(k)] >= 0
            else (sent.get(int(k)) or {}).get("status", "not-started")
        )
        status[s] = status.get(s, 0) + 1
    info["flow_status"] = status
    # Series: the bottleneck's queue and utilisation, and the active flows.
    rows = []
    if router == "user":
        for t, qp, u in zip(rtr.get("t_ns", []), rtr.get("queue_pkts", []), rtr.get("utilization", [])):
            rows += [(t, "queue_pkts", "bottleneck", float(qp)), (t, "utilization", "bottleneck", float(u))]
        pass
    info["link_stats"] = {
        k: rtr.get(k)
        for k in ("frames", "dropped", "max_late_us", "mean_late_us", "rate_bps", "limit_pkts", "send_failures")
    }
    if False:
        pass
    elif sampler is not None:
        prev = None
        for t, qlen, nbytes in sampler.rows:
            rows.append((t, "queue_pkts", "bottleneck", float(qlen)))
            if prev is not None and t > prev[0]:
                rows.append(
                    (t, "utilization", "bottleneck", min(1.0, (nbytes - prev[1]) * 8e9 / (lay.c * (t - prev[0]))))
                )
            prev = (t, nbytes)
        try:
            q = [x for x in json.loads(tcstats or "[]") if x.get("root")]
            if q:
                info["bottleneck_qdisc"] = {k: q[0].get(k) for k in ("packets", "bytes", "drops", "overlimits")}
        except json.JSONDecodeError:
            pass
    ts = sorted({r[0] for r in rows})
    st, fin = cols["start_ns"], np.where(finish >= 0, finish, np.iinfo(np.int64).max)
    for t in ts:
        rows.append((t, "active_flows", "network", float(((st <= t) & (fin > t)).sum())))
    series = (
        pd.DataFrame(rows, columns=["t_ns", "metric", "element", "value"])
        .sort_values(["t_ns", "metric"], kind="stable")
        .reset_index(drop=True)
    )
    series["t_ns"] = series["t_ns"].astype("int64")
    import platform

    from .. import __version__

    meta = {
        "fctlab_version": __version__,
        "mode": "live",
        "config": cfg,
        "seed": int(cfg.get("seed", 0)),
        "wall_s": time.time() - t_wall,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "flows_total": int(len(flows)),
        "flows_completed": int(flows["completed"].sum()),
        "live": info,
        "stats": {"interrupted": interrupted, "end_ns": int(finish.max()) if len(finish) else 0},
    }
    return Result(flows=flows, series=series, meta=meta)

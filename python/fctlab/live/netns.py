"""Network namespaces, veth pairs and tc for live runs: build, sweep, tear down.

Every object a run creates is a network namespace named ``fctl<pid>x<role>``
(its veths live and die inside them), so a run's leftovers are found by name:
`sweep` removes those of processes that no longer exist, which every run
does first (after ``kill -9`` nothing else could clean up), and
`Net.teardown` removes a run's own on exit, Ctrl-C, SIGTERM or an error.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import re
import socket
import struct
import subprocess
import threading
from dataclasses import dataclass, field

PREFIX = "fctl"
_NAME = re.compile(rf"^{PREFIX}(\d+)x([a-z0-9]+)$")
CLONE_NEWNET = 0x40000000


class LiveError(RuntimeError):
    """Live mode cannot run here (one line for the CLI)."""


def sh(args: list[str], input: str | None = None, check: bool = True) -> str:
    r = subprocess.run(args, input=input, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise LiveError(f"{' '.join(args[:6])}: {(r.stderr or r.stdout).strip().splitlines()[-1:] or ['failed']}")
    return r.stdout


def namespaces() -> list[str]:
    out = sh(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def ours(owner: int | None = None) -> list[str]:
    """Namespaces of live runs (of the run of process ``owner``, if given)."""
    names = []
    for n in namespaces():
        m = _NAME.match(n)
        if m and (owner is None or int(m.group(1)) == owner):
            names.append(n)
    return names


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def delete(ns: str) -> None:
    """Kill every process in ``ns``, then delete it (its veths go with it)."""
    for _ in range(50):
        pids = [int(p) for p in sh(["ip", "netns", "pids", ns], check=False).split()]
        if not pids:
            break
        for p in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, 9)
        threading.Event().wait(0.02)
    sh(["ip", "netns", "del", ns], check=False)


def sweep() -> list[str]:
    """Delete the namespaces left by live runs whose process is gone."""
    gone = []
    for n in ours():
        m = _NAME.match(n)
        if m and not _alive(int(m.group(1))):
            delete(n)
            gone.append(n)
    return gone


# ethtool ioctls (linux/ethtool.h): set TSO, GSO, GRO off; get them to check.
SIOCETHTOOL = 0x8946
# TX checksum offload too: a frame the link emulator reads from one veth and
# writes to another must carry its real checksum.
ETHTOOL = {"tso": (0x1E, 0x1F), "gso": (0x23, 0x24), "gro": (0x2B, 0x2C), "tx-csum": (0x16, 0x17)}


def _ethtool(sock: socket.socket, dev: str, cmd: int, value: int = 0) -> int:
    buf = ctypes.create_string_buffer(struct.pack("II", cmd, value))
    ifr = struct.pack("16sP", dev.encode(), ctypes.addressof(buf)) + b"\0" * 16
    fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifr)
    return struct.unpack("II", buf.raw[:8])[1]


def in_netns(ns: str, fn):
    """Run ``fn()`` in a thread that has entered namespace ``ns``."""
    libc = ctypes.CDLL(None, use_errno=True)
    box: dict = {}

    def body():
        try:
            fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns")
            finally:
                os.close(fd)
            box["value"] = fn()
        except BaseException as e:  # handed to the caller
            box["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def offloads_off(ns: str, devs: list[str]) -> dict:
    """Turn TSO, GSO and GRO off on ``devs`` in ``ns``; return what they read back."""

    def body():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            got = {}
            for d in devs:
                for name, (get, set_) in ETHTOOL.items():
                    with contextlib.suppress(OSError):
                        _ethtool(s, d, set_, 0)
                    got[f"{d}.{name}"] = _ethtool(s, d, get)
            return got
        finally:
            s.close()

    return in_netns(ns, body)


@dataclass
class Net:
    """One run's namespaces. ``ns(role)`` names them; ``teardown`` removes all."""

    owner: int = field(default_factory=os.getpid)
    made: list[str] = field(default_factory=list)

    def ns(self, role: str) -> str:
        return f"{PREFIX}{self.owner}x{role}"

    def add(self, role: str) -> str:
        n = self.ns(role)
        sh(["ip", "netns", "add", n])
        self.made.append(n)
        sh(
            [
                "ip",
                "netns",
                "exec",
                n,
                "sysctl",
                "-q",
                "-w",
                "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1",
            ]
        )
        sh(["ip", "-n", n, "link", "set", "lo", "up"])
        return n

    def veth(self, a: str, a_dev: str, b: str, b_dev: str, mtu: int) -> None:
        sh(
            [
                "ip",
                "link",
                "add",
                "name",
                a_dev,
                "netns",
                a,
                "mtu",
                str(mtu),
                "type",
                "veth",
                "peer",
                "name",
                b_dev,
                "netns",
                b,
                "mtu",
                str(mtu),
            ]
        )

    def teardown(self) -> None:
        for n in reversed(self.made):
            delete(n)
        for n in ours(self.owner):
            delete(n)
        self.made.clear()

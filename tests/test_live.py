"""Live mode: real traffic through network namespaces and the link emulator.

Tests that need root (namespaces, raw sockets) are skipped with the reason
without it. They are short (a few seconds each) and leave nothing behind.
"""

import os
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib

import fctlab
import numpy as np
import pandas as pd
import pytest
from fctlab.live import netns
from fctlab.live.compare import by_size

ROOT_REASON = "live mode needs root (network namespaces, veth pairs, raw sockets)"
needs_root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None, reason=ROOT_REASON)


def scenario(flows, c=10e6, bneck_ms=10.0, access_ms=5.0, buffer=100, senders=1, **transport):
    return {
        "seed": 1,
        "network": {
            "topology": "dumbbell",
            "senders": senders,
            "bottleneck_bps": c,
            "bottleneck_delay_ms": bneck_ms,
            "access_delay_ms": access_ms,
            "buffer_pkts": buffer,
        },
        "transport": transport,
        "flows": flows,
    }


def ns_exec(ns, code, timeout=20):
    return subprocess.run(
        ["ip", "netns", "exec", ns, sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
    )


def ours_left(pid):
    return netns.ours(pid)


def still_running(pids, wait_s=5.0):
    """The processes of ``pids`` still running (not gone, not zombies) after up to ``wait_s``."""
    end = time.monotonic() + wait_s
    while True:
        alive = []
        for p in pids:
            try:
                with open(f"/proc/{p}/stat") as fh:
                    if fh.read().rsplit(")", 1)[1].split()[0] != "Z":
                        alive.append(p)
            except OSError:
                pass
        if not alive or time.monotonic() > end:
            return alive
        time.sleep(0.1)


# --- without root -------------------------------------------------------------


def test_without_root_one_line_and_exit_2(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text("[network]\nbottleneck_bps = 10e6\n[[flows]]\nsize_pkts = 3\n")
    os.chmod(tmp_path, 0o755)
    os.chmod(p, 0o644)
    cmd = [fctlab_cli, "live", str(p), "--out", str(tmp_path / "o")]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv is needed to drop root for this test")
        # Drop root but keep the right to read and search every directory, so
        # that the venv's fctlab runs wherever the repository lives (under a
        # home or a temporary directory other users cannot enter). Live mode
        # asks for root itself (euid 0), which this user is not.
        keep = ["--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *keep, *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs root" in lines[0], r.stderr


def test_refusals_name_the_key():
    from fctlab.live.run import check

    cfg = scenario([{"sender": 0, "size_pkts": 3}])
    cfg["traffic"] = [{"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": 3}, "count": 2}]
    with pytest.raises(fctlab.ConfigError) as e:
        check(cfg, "fctlab", "user", None)
    assert e.value.field == "traffic[0].arrivals"
    cfg = scenario([{"sender": 0, "size_pkts": 3}], scheme="rcp")
    cfg["network"]["queue"] = "rcp"
    with pytest.raises(fctlab.ConfigError) as e:
        check(cfg, "kernel", "user", None)
    assert e.value.field == "transport.scheme"
    with pytest.raises(fctlab.ConfigError) as e:
        check(scenario([{"sender": 0, "size_pkts": 3}]), "kernel", "user", "westwood")
    assert e.value.field == "live.cc"


def test_a_congestion_control_the_kernel_lacks_is_refused_with_the_reason(tmp_path, monkeypatch):
    from fctlab.live import LiveError, plan

    have = tmp_path / "tcp_available_congestion_control"
    have.write_text("reno cubic\n")
    monkeypatch.setattr(plan, "AVAILABLE_CC", str(have))
    monkeypatch.setattr(shutil, "which", lambda _name: None)  # no modprobe here
    plan.require_cc("cubic")  # loaded: nothing to do
    with pytest.raises(LiveError) as e:
        plan.require_cc("dctcp")
    msg = str(e.value)
    assert "no dctcp congestion control" in msg and "it has: reno cubic" in msg and "modprobe not found" in msg
    assert "\n" not in msg
    # Where the kernel's list cannot be read, the socket option decides.
    monkeypatch.setattr(plan, "AVAILABLE_CC", str(tmp_path / "missing"))
    plan.require_cc("dctcp")


def test_compare_bins_by_hand():
    # Two hand-made runs: medians per power-of-two bin computed directly.
    a = pd.DataFrame(
        {"size_pkts": [1, 1, 3, 3, 3, 9], "fct_ns": [10e6, 20e6, 30e6, 50e6, 40e6, 90e6], "completed": [True] * 6}
    )
    b = pd.DataFrame(
        {"size_pkts": [1, 2, 3, 9], "fct_ns": [11e6, 13e6, 44e6, 80e6], "completed": [True, True, True, False]}
    )
    t = by_size(a, b).set_index("size_pkts")
    assert list(t.index) == ["1", "2-3", "8-15"]
    assert t.loc["1", "median_ms_a"] == 15.0 and t.loc["1", "median_ms_b"] == 11.0
    assert t.loc["2-3", "median_ms_a"] == 40.0 and t.loc["2-3", "median_ms_b"] == 28.5
    assert t.loc["8-15", "flows_b"] == 0 and np.isnan(t.loc["8-15", "ratio_b_a"])
    assert t.loc["2-3", "ratio_b_a"] == pytest.approx(28.5 / 40.0)


def test_compare_cli_writes_table_and_figure(fctlab_cli, tmp_path, small):
    a, b = tmp_path / "a", tmp_path / "b"
    fctlab.run(small).write(a)
    small["seed"] = 4
    fctlab.run(small).write(b)
    r = subprocess.run(
        [fctlab_cli, "compare", str(a), str(b), "--out", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path / "c" / "compare.csv")
    fa = pd.read_parquet(a / "flows.parquet")
    done = fa[fa["completed"]]
    for _, row in t.iterrows():
        lo, hi = row["size_lo_pkts"], row["size_hi_pkts"]
        sel = done[(done["size_pkts"] >= lo) & (done["size_pkts"] < hi)]["fct_ns"].to_numpy(float) / 1e6
        assert hi == 2 * lo and row["a flows"] == len(sel)
        if len(sel):
            assert row["a median ms"] == pytest.approx(np.median(sel))
            assert row["a p90 ms"] == pytest.approx(np.quantile(sel, 0.9))
    assert t["a flows"].sum() == len(done)
    assert (tmp_path / "c" / "compare.png").stat().st_size > 1000
    r = subprocess.run([fctlab_cli, "compare", str(a), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no fctlab store or run" in r.stderr


def test_live_refusal_reasons():
    from fctlab import _core

    # A datagram built here from the documented layout (CRC-32 from zlib).
    def dgram(version=1, kind=2, rate=-1.0, crc_ok=True):
        head = (
            b"FL"
            + bytes([version, kind, 0, 0, 0, 0])
            + struct.pack("<IIQQ", 0, 1040, 5, 7)
            + struct.pack("<3d", rate, 0.0, 0.0)
        )
        crc = zlib.crc32(head) ^ (0 if crc_ok else 1)
        return head + struct.pack("<I", crc) + bytes(952)

    assert _core.live_refusal(dgram()) is None
    assert _core.live_refusal(dgram()[:30]) == "truncated"
    assert _core.live_refusal(dgram(version=2)) == "version"
    assert _core.live_refusal(dgram(crc_ok=False)) == "checksum"
    assert _core.live_refusal(dgram(rate=float("nan"))) == "field"
    assert _core.live_refusal(dgram(kind=9)) == "kind"


# --- with root ------------------------------------------------------------------


@needs_root
@pytest.mark.parametrize("stack", ["fctlab", "kernel"])
def test_one_flow_on_an_idle_path_matches_the_simulator(stack):
    cfg = scenario([{"sender": 0, "start_s": 0.0, "size_pkts": 30}])
    sim = fctlab.run(cfg)
    live = fctlab.live.run(cfg, stack=stack, timeout_s=10)
    s, lv = sim.flows.iloc[0], live.flows.iloc[0]
    assert bool(lv["completed"]), live.meta["live"]
    assert live.meta["live"]["offloads_on"] == []
    # Same flow, same ideal; FCT within 10% of the simulated one.
    assert lv["size_pkts"] == s["size_pkts"] and lv["ideal_ns"] == s["ideal_ns"]
    assert abs(lv["fct_ns"] - s["fct_ns"]) < 0.10 * s["fct_ns"], (lv["fct_ns"], s["fct_ns"])
    assert lv["fct_ns"] >= lv["ideal_ns"]
    assert lv["retransmits"] == 0 and lv["drops"] == 0


@needs_root
def test_emulated_rate_and_delay_measured():
    # RTT = 2 x (access 5 + bottleneck 10 + receiver 3) ms = 36 ms; rate 20 Mb/s.
    cfg = scenario([{"sender": 0, "start_s": 0.0, "size_pkts": 2}], c=20e6, buffer=400)
    cfg["network"]["receiver_delay_ms"] = 3.0
    got = {}

    def probe(net):
        s, d, dip = net["senders"][0], net["receivers"][0], net["receiver_ip"][0]
        server = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                d,
                sys.executable,
                "-c",
                """
import socket, struct, time
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(('0.0.0.0', 5001)); t.listen(16)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('0.0.0.0', 5002)); u.settimeout(3)
u.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS: the kernel's arrival time of each datagram
times = []
try:
    while len(times) < 300:
        _, anc, _, _ = u.recvmsg(2048, 64)
        sec, nsec = struct.unpack("qq", anc[0][2][:16])
        times.append(sec * 10**9 + nsec)
except OSError:
    pass
print(len(times), times[0] if times else 0, times[-1] if times else 0, flush=True)
""",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(0.4)
        r = ns_exec(
            s,
            f"""
import socket, time
rtts = []
for _ in range(5):
    c = socket.socket(); t0 = time.monotonic_ns(); c.connect(('{dip}', 5001))
    rtts.append(time.monotonic_ns() - t0); c.close(); time.sleep(0.02)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(300):
    u.sendto(bytes(1012), ('{dip}', 5002))
print(min(rtts), flush=True)
""",
        )
        got["rtt_ns"] = int(r.stdout.split()[0])
        n, t0, t1 = map(int, server.communicate(timeout=20)[0].split())
        got["n"], got["span_ns"] = n, t1 - t0

    live = fctlab.live.run(cfg, stack="fctlab", timeout_s=5, probe=probe, lead_s=3.0)
    assert live.flows["completed"].all()
    # Delay: a SYN and its SYN-ACK (60 and 60 bytes at most on the wire, 24 us each at 20 Mb/s).
    assert 36e6 <= got["rtt_ns"] <= 36e6 + 1.5e6, got
    # Rate: 300 back-to-back datagrams of 1040 bytes leave the queue at C.
    assert got["n"] == 300, got
    rate = (got["n"] - 1) * 1040 * 8 / (got["span_ns"] / 1e9)
    assert rate == pytest.approx(20e6, rel=0.03), rate


@needs_root
def test_forged_datagrams_are_dropped_and_counted():
    cfg = scenario([{"sender": 0, "start_s": 0.0, "size_pkts": 20}])

    def probe(net):
        s, dip = net["senders"][0], net["receiver_ip"][0]
        r = ns_exec(
            s,
            f"""
import socket, struct, zlib
def d(version=1, kind=2, rate=-1.0, flow=0, crc_ok=True, n=None):
    h = b"FL" + bytes([version, kind, 0, 0, 0, 0]) + struct.pack("<IIQQ", flow, 1040, 5, 7)
    h += struct.pack("<3d", rate, 0.0, 0.0)
    b = h + struct.pack("<I", zlib.crc32(h) ^ (0 if crc_ok else 1)) + bytes(952)
    return b[:n] if n else b
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('0.0.0.0', 6001))
for b in [d(n=30), d(version=9), d(crc_ok=False), d(rate=float('inf')), d(kind=7), d(flow=4242)]:
    u.sendto(b, ('{dip}', {net["port"]}))
""",
        )
        assert r.returncode == 0, r.stderr

    live = fctlab.live.run(cfg, stack="fctlab", timeout_s=5, probe=probe, lead_s=1.0)
    ref = live.meta["live"]["refused"]
    assert ref == {"truncated": 1, "version": 1, "checksum": 1, "field": 1, "kind": 1, "unknown_flow": 1}, ref
    assert live.flows["completed"].all()


@needs_root
def test_a_vanished_peer_ends_the_flow_with_a_status():
    cfg = scenario([{"sender": 0, "start_s": 0.3, "size_pkts": 2000}])

    def probe(net):
        for p in subprocess.run(
            ["ip", "netns", "pids", net["receivers"][0]], capture_output=True, text=True
        ).stdout.split():
            os.kill(int(p), signal.SIGKILL)

    t0 = time.monotonic()
    live = fctlab.live.run(cfg, stack="fctlab", timeout_s=2, probe=probe, lead_s=0.2)
    assert time.monotonic() - t0 < 20
    assert not live.flows["completed"].any()
    assert live.meta["live"]["flow_status"] == {"peer-timeout": 1}, live.meta["live"]


LONG = """
seed = 1
[network]
topology = "dumbbell"
senders = 2
bottleneck_bps = 10e6
bottleneck_delay_ms = 10.0
buffer_pkts = 50
[[flows]]
sender = 0
size_pkts = 20000
[[flows]]
sender = 1
size_pkts = 20000
"""


def _start_and_wait_for_namespaces(cli, tmp_path):
    p = tmp_path / "long.toml"
    p.write_text(LONG)
    proc = subprocess.Popen(
        [cli, "live", str(p), "--out", str(tmp_path / "o"), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    end = time.monotonic() + 30
    while time.monotonic() < end:
        names = ours_left(proc.pid)
        pids = [
            x
            for n in names
            for x in subprocess.run(["ip", "netns", "pids", n], capture_output=True, text=True).stdout.split()
        ]
        if len(names) >= 7 and len(pids) >= 5:  # every namespace and process up
            return proc, pids
        time.sleep(0.1)
    proc.kill()
    pytest.fail("live run did not set up its namespaces within 30 s")


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_leaves_nothing(fctlab_cli, tmp_path, sig):
    proc, pids = _start_and_wait_for_namespaces(fctlab_cli, tmp_path)
    time.sleep(0.5)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    assert ours_left(proc.pid) == []
    assert still_running(pids) == []


@needs_root
def test_killed_run_is_swept_by_the_next(fctlab_cli, tmp_path):
    proc, pids = _start_and_wait_for_namespaces(fctlab_cli, tmp_path)
    proc.kill()  # SIGKILL: no clean-up can run
    proc.wait(timeout=10)
    assert len(ours_left(proc.pid)) >= 7
    left = set(ours_left(proc.pid))
    swept = netns.sweep()
    assert set(swept) >= left
    assert ours_left(proc.pid) == []
    assert still_running(pids) == []

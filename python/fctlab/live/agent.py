"""A live run's process inside one namespace: ``python agent.py CFG.json OUT.json``.

Run as a script (not ``-m fctlab...``) so that it loads only the engine's
extension module, not pandas and the rest of the package: a run starts one
per host and router. Modes (``cfg["mode"]``):

- ``host``, ``router``: fctlab's transports or router port over UDP (the engine's
  ``live_host`` / ``live_router``);
- ``tcp``: the kernel's TCP; senders open one connection per flow at its
  start time from source port ``10000 + flow``, write its bytes, half-close and
  wait for the receiver to close; receivers read each flow to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import importlib.machinery
import importlib.util
import json
import os
import socket
import struct
import sys
import time

TCP_CONGESTION = getattr(socket, "TCP_CONGESTION", 13)
TCP_INFO = getattr(socket, "TCP_INFO", 11)
PORT_BASE = 10000


def load_core():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sorted(glob.glob(os.path.join(here, "_core*.so")) + glob.glob(os.path.join(here, "_core*.pyd")))
    if not paths:
        raise SystemExit("fctlab live agent: the engine's extension module is not built")
    loader = importlib.machinery.ExtensionFileLoader("fctlab._core", paths[0])
    spec = importlib.util.spec_from_file_location("fctlab._core", paths[0], loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def now_ns(epoch: int) -> int:
    return time.monotonic_ns() - epoch


async def tcp_send(cfg: dict, f: dict, out: dict) -> None:
    epoch = cfg["epoch_ns"]
    loop = asyncio.get_running_loop()
    delay = (f["start_ns"] - now_ns(epoch)) / 1e9
    if delay > 0:
        await asyncio.sleep(delay)
    rec = {
        "flow": f["flow"],
        "role": "send",
        "start_ns": None,
        "finish_ns": None,
        "acked_ns": None,
        "retransmits": 0,
        "status": "error",
    }
    out[f["flow"]] = rec
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cfg["cc"].encode())
        s.bind((cfg.get("bind_ip", "0.0.0.0"), PORT_BASE + f["flow"]))
        s.setblocking(False)
        rec["start_ns"] = f["start_ns"]
        rec["connect_ns"] = now_ns(epoch)
        await asyncio.wait_for(loop.sock_connect(s, (f["dst_ip"], f["dst_port"])), cfg["peer_timeout_s"])
        await asyncio.wait_for(loop.sock_sendall(s, b"\0" * f["size_bytes"]), cfg["deadline_s"])
        s.shutdown(socket.SHUT_WR)
        while True:
            b = await asyncio.wait_for(loop.sock_recv(s, 4096), cfg["deadline_s"])
            if not b:
                break
        rec["acked_ns"] = now_ns(epoch)
        rec["status"] = "done"
    except asyncio.TimeoutError:
        rec["status"] = "peer-timeout"
    except OSError as e:
        rec["status"] = f"error: {e}"
    finally:
        try:
            info = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 104)
            rec["retransmits"] = struct.unpack_from("I", info, 100)[0]  # tcpi_total_retrans
        except OSError:
            pass
        s.close()


async def tcp_recv_one(cfg: dict, conn: socket.socket, peer, sizes: dict, out: dict) -> None:
    loop = asyncio.get_running_loop()
    flow = peer[1] - PORT_BASE
    size = sizes.get(flow)
    rec = {
        "flow": flow,
        "role": "recv",
        "start_ns": None,
        "finish_ns": None,
        "acked_ns": None,
        "retransmits": 0,
        "status": "stopped",
    }
    if size is None:
        conn.close()
        return
    out[flow] = rec
    got = 0
    try:
        while True:
            b = await asyncio.wait_for(loop.sock_recv(conn, 1 << 20), cfg["peer_timeout_s"])
            if not b:
                break
            got += len(b)
            if got >= size and rec["finish_ns"] is None:
                rec["finish_ns"] = now_ns(cfg["epoch_ns"])
                rec["status"] = "done"
    except asyncio.TimeoutError:
        rec["status"] = "peer-timeout"
    except OSError as e:
        rec["status"] = f"error: {e}"
    finally:
        conn.close()


async def tcp_main(cfg: dict) -> dict:
    loop = asyncio.get_running_loop()
    out: dict = {}
    tasks = []
    srv = None
    if cfg.get("recv"):
        sizes = {f["flow"]: f["size_bytes"] for f in cfg["recv"]}
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted sockets inherit the listener's congestion control: DCTCP's
        # receiver echoes CE per packet (tcp_dctcp.c dctcp_ece_ack_update).
        srv.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cfg["cc"].encode())
        srv.bind(("0.0.0.0", cfg["port"]))
        srv.listen(4096)
        srv.setblocking(False)

        async def accept():
            while True:
                conn, peer = await loop.sock_accept(srv)
                conn.setblocking(False)
                tasks.append(asyncio.ensure_future(tcp_recv_one(cfg, conn, peer, sizes, out)))

        tasks.append(asyncio.ensure_future(accept()))
    while now_ns(cfg["epoch_ns"]) < 0:
        await asyncio.sleep(min(0.05, -now_ns(cfg["epoch_ns"]) / 1e9))
    senders = [asyncio.ensure_future(tcp_send(cfg, f, out)) for f in cfg.get("send", [])]
    deadline = cfg["deadline_ns"]
    if senders:
        await asyncio.wait(senders, timeout=max(0.0, (deadline - now_ns(cfg["epoch_ns"])) / 1e9))
    else:
        while now_ns(cfg["epoch_ns"]) < deadline and not os.path.exists(cfg["stop_file"]):
            await asyncio.sleep(0.02)
    for t in tasks:
        t.cancel()
    if srv is not None:
        srv.close()
    for f in cfg.get("recv", []):
        out.setdefault(
            f["flow"],
            {
                "flow": f["flow"],
                "role": "recv",
                "start_ns": None,
                "finish_ns": None,
                "acked_ns": None,
                "retransmits": 0,
                "status": "no-data",
            },
        )
    return {"flows": list(out.values())}


def main(argv: list[str]) -> int:
    cfg_path, out_path = argv[1], argv[2]
    with open(cfg_path) as fh:
        cfg = json.load(fh)
    mode = cfg.pop("mode")
    if mode == "tcp":
        # as the engine's endpoints do (fctlab_live::tune_process)
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
        res = asyncio.run(tcp_main(cfg))
        text = json.dumps(res)
    else:
        core = load_core()
        text = (core.live_host if mode == "host" else core.live_link)(json.dumps(cfg))
    tmp = out_path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""fctlab beside htsim on the bench's own dumbbell flows.

htsim is the packet-level simulator of UCL and Broadcom (csg-htsim,
BSD-2-Clause), the one the NDP, EQDS and Ultra Ethernet papers use. It is a
peer to measure against, as ns-3 is, and no part of fctlab: its driver
``htsim_dumbbell`` is built from its own sources, outside this package, and
found at run time (as is its fat-tree driver ``htsim_fattree``, raced in
`fctlab.benchmarks.htsim_fattree`):

1. ``--htsim DIR`` (``fctlab bench``) or the environment variable
   ``FCTLAB_HTSIM``: a directory holding ``htsim_dumbbell``;
2. otherwise ``$FCTLAB_CACHE/htsim`` (default ``~/.cache/fctlab/htsim``),
   where ``fctlab bench --build-htsim`` builds it with the sources' own
   ``build.sh`` (g++ and make, about a minute on two cores). The sources are
   ``$FCTLAB_HTSIM_SRC`` (a checkout of github.com/Broadcom/csg-htsim with its
   fat-tree and dumbbell drivers), else a peers checkout beside the clone.

The driver builds the reference dumbbell of `fctlab.bench.reference_scenario`
in htsim (one queue and one pipe per link: 10 senders, 10 Gb/s access links, a
1 Gb/s bottleneck with 50 ms each way, the same buffer in packets, 1000-B
payloads with 40-B headers, an ACK per packet crossing the network, htsim's
NewReno with an initial window of 2 packets) and replays the flows fctlab
draws for that scenario, every one of them, to completion. Both sides count
the same thing: unique data packets delivered (the flows' sizes summed),
divided by the wall time of the event loop alone (fctlab's engine, htsim's
``doNextEvent`` loop). The runs alternate, fctlab then htsim, so that a change
in the machine's load touches both.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Callable

from ..bench import reference_scenario
from .runner import run_child

DRIVER = "htsim_dumbbell"


class PeerUnavailable(Exception):
    """htsim is not built here (the message says how to build it)."""


def cache_dir() -> Path:
    """Where ``--build-htsim`` puts htsim: ``$FCTLAB_CACHE/htsim``."""
    return Path(os.environ.get("FCTLAB_CACHE") or "~/.cache/fctlab").expanduser() / "htsim"


def source_dir() -> Path:
    """htsim's sources (Broadcom csg-htsim) with their ``build.sh``:
    ``$FCTLAB_HTSIM_SRC``, else a peers checkout beside the clone."""
    env = os.environ.get("FCTLAB_HTSIM_SRC")
    if env:
        return Path(env).expanduser()
    repo = Path(__file__).resolve().parents[3]
    return repo.parent / "shared" / "peers" / "htsim"


def find(directory: str | None = None, driver: str = DRIVER) -> Path:
    """The ``driver`` executable (``htsim_dumbbell``, or ``htsim_fattree``:
    `fctlab.benchmarks.htsim_fattree`): in ``directory``, ``$FCTLAB_HTSIM`` or
    the cache. Raises `PeerUnavailable` saying what is missing."""
    where = directory or os.environ.get("FCTLAB_HTSIM")
    d = Path(where).expanduser() if where else cache_dir()
    exe = d / driver
    if exe.is_file() and os.access(exe, os.X_OK):
        return exe
    how = "fctlab bench --build-htsim builds it there" if not where else "build it with htsim's build.sh DIR"
    raise PeerUnavailable(f"no {driver} in {d} ({how})")


def build(progress: Callable[[str], None] = print, driver: str = DRIVER) -> Path:
    """Build htsim and its two drivers into the cache with the sources'
    ``build.sh``; return ``driver``'s path."""
    src = source_dir()
    script = src / "build.sh"
    if not script.is_file():
        raise PeerUnavailable(f"no htsim sources at {src} (set FCTLAB_HTSIM_SRC to a directory with build.sh)")
    for tool in ("g++", "make"):
        if shutil.which(tool) is None:
            raise PeerUnavailable(f"building htsim needs {tool}, which is not installed")
    out = cache_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    progress(f"building htsim from {src} into {out} (about a minute)...")
    log = out.parent / "htsim-build.log"
    with open(log, "w") as fh:
        done = subprocess.run(["bash", str(script), str(out)], stdout=fh, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = (log.read_text().strip().splitlines() or ["no output"])[-1]
        raise PeerUnavailable(f"htsim's build failed ({tail}); see {log}")
    return find(str(out), driver)


def flow_list(cfg: dict) -> list:
    """The flows fctlab draws for ``cfg`` as (start_s, size_pkts, sender), in
    start order: the list handed to htsim."""
    import fctlab

    f = fctlab.run(cfg, warn=False).flows.sort_values(["start_ns", "flow_id"], kind="stable")
    return [(int(t) / 1e9, int(n), int(s)) for t, n, s in zip(f["start_ns"], f["size_pkts"], f["sender"])]


def driver_args(cfg: dict, flows_path: Path) -> list:
    """``htsim_dumbbell``'s arguments for a scenario of the reference's shape."""
    import fctlab

    n, t = cfg["network"], cfg["transport"]
    buffer_pkts = fctlab.describe(cfg)["buffer_pkts"]
    return [
        str(flows_path),
        f"{n['bottleneck_bps']:g}",
        f"{n['access_bps']:g}",
        f"{n['bottleneck_delay_ms']:g}",
        str(int(buffer_pkts)),
        str(t["mss_bytes"]),
        str(t["header_bytes"]),
        str(t["init_cwnd_pkts"]),
        str(n["senders"]),
    ]


def run_htsim(exe: Path, args: list) -> dict:
    """One htsim run: its JSON line, plus ``cpu_s``, the process's CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([str(exe), *args], capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"htsim failed (exit {out.returncode}): {tail}")
    r = json.loads(lines[-1])
    r["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return r


def race(exe: Path, packets: float, repeat: int, work_dir: Path, progress: Callable[[str], None] = print) -> dict:
    """``repeat`` runs of each, alternating, on the reference scenario sized to
    ``packets``; both sides' counts and rates and the ratio of the medians."""
    cfg = reference_scenario(packets)
    flows = flow_list(cfg)
    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / "bench-flows.htsim"
    path.write_text("".join(f"{t:.9f} {n} {s}\n" for t, n, s in flows))
    args = driver_args(cfg, path)
    fr, hr = [], []
    for i in range(repeat):
        fr.append(run_child(cfg))
        hr.append(run_htsim(exe, args))
        progress(
            f"run {i + 1}/{repeat}: fctlab {fr[-1]['unique_delivered'] / fr[-1]['wall_s'] / 1e6:.2f} M/s, "
            f"htsim {hr[-1]['unique_per_wall_s'] / 1e6:.2f} M/s"
        )
    f_rates = [r["unique_delivered"] / r["wall_s"] for r in fr]
    h_rates = [r["data_unique_delivered"] / r["run_wall_s"] for r in hr]
    # CPU time of each whole process (fctlab's includes Python, set-up and the
    # result tables; htsim's reading its flow list): less disturbed by other
    # load on the machine than wall time.
    f_cpu = [r["unique_delivered"] / max(r["cpu_s"], 1e-9) for r in fr]
    h_cpu = [r["data_unique_delivered"] / max(r["cpu_s"], 1e-9) for r in hr]
    return {
        "packets": float(packets),
        "flows": len(flows),
        "sum_pkts": sum(n for _t, n, _s in flows),
        "fctlab": {
            "unique_delivered": fr[0]["unique_delivered"],
            "flows_completed": fr[0]["flows_completed"],
            "drops": fr[0]["drops"],
            "events": fr[0]["events"],
            "wall_s": [r["wall_s"] for r in fr],
            "rates": f_rates,
            "cpu_rates": f_cpu,
            "identical": len({(r["unique_delivered"], r["events"]) for r in fr}) == 1,
        },
        "htsim": {
            "unique_delivered": hr[0]["data_unique_delivered"],
            "flows_completed": hr[0]["flows_done_rx"],
            "drops": hr[0]["all_drops"],
            "events": hr[0]["events"],
            "wall_s": [r["run_wall_s"] for r in hr],
            "rates": h_rates,
            "cpu_rates": h_cpu,
            "identical": len({(r["data_unique_delivered"], r["events"]) for r in hr}) == 1,
        },
        "ratio": statistics.median(f_rates) / statistics.median(h_rates),
        "cpu_ratio": statistics.median(f_cpu) / statistics.median(h_cpu),
    }

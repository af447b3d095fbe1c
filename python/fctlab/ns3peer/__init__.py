"""ns-3 as a peer simulator for ``fctlab bench``.

ns-3 comes from PyPI (the ``ns3`` wheel, whose Python bindings are cppyy) and is
installed on first use into a private virtual environment, so that fctlab's own
environment is not touched and ns-3's memory is measured in a process of its own:

* `ensure_ns3` installs it (once) and returns that environment's python;
* `run_ns3_bench` runs the benchmark scenario under ns-3 in a subprocess
  and returns its counters, wall time and peak memory.

The benchmark scenario is fctlab's own (`fctlab.bench.reference_scenario`);
`scenario_params` reads the peer's parameters off it.

The scenario itself (topology, TCP settings, workload) is built in
``_worker.py``, which runs inside the ns-3 environment; the per-packet and
per-flow work is C++ (``flowapp.h``, compiled at run time by cppyy), Python only
sets the simulation up.

Environment variables:

``FCTLAB_CACHE``
    Cache directory (default ``~/.cache/fctlab``); ns-3 goes to ``$FCTLAB_CACHE/ns3-venv``.
``FCTLAB_NS3_PYTHON``
    Python interpreter used to create that environment (default: the one running fctlab).
``FCTLAB_NS3_TIMEOUT``
    Seconds one ns-3 run (import, set-up and simulation) may take (default 7200).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Callable

from ..bench import reference_scenario

__all__ = [
    "PeerUnavailable",
    "NS3_REQUIREMENT",
    "NS3_SCHEMES",
    "ensure_ns3",
    "run_ns3_bench",
    "run_ns3_flows",
    "cache_dir",
    "scenario_params",
    "reference_params",
]

#: The PyPI release known to work (3.44.post0: the newest when this was written).
NS3_REQUIREMENT = "ns3==3.44.post0"

_HERE = pathlib.Path(__file__).resolve().parent
_WORKER = _HERE / "_worker.py"
_MARKER = ".fctlab-ns3-ready"


def _run_timeout_s() -> float:
    """How long one ns-3 run may take in all: ``$FCTLAB_NS3_TIMEOUT`` seconds, default 2 h."""
    try:
        return max(1.0, float(os.environ.get("FCTLAB_NS3_TIMEOUT") or 7200))
    except ValueError:
        return 7200.0


class PeerUnavailable(RuntimeError):
    """ns-3 cannot be installed or run here; ``str(exc)`` is a one-line reason."""

    def __init__(self, reason: str):
        super().__init__(" ".join(str(reason).split()))
        self.reason = str(self)


def cache_dir() -> pathlib.Path:
    """fctlab's cache directory: ``$FCTLAB_CACHE`` or ``~/.cache/fctlab``."""
    return pathlib.Path(os.environ.get("FCTLAB_CACHE") or "~/.cache/fctlab").expanduser()


def _venv_python(venv: pathlib.Path) -> pathlib.Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def _last_line(text: str, default: str) -> str:
    """The last informative line of a tool's output, for a one-line error message."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in reversed(lines):
        low = line.lower()
        if "error" in low or "fatal" in low or "failed" in low or "no matching" in low:
            return line[:300]
    return lines[-1][:300] if lines else default


@contextlib.contextmanager
def _install_lock(path: pathlib.Path):
    """Serialise concurrent first-time installs (two ``fctlab bench`` at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        try:
            import fcntl
        except ImportError:  # not POSIX: no locking
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _run_logged(cmd: list, log, what: str, timeout: float) -> None:
    """Run one install step, appending its output to ``log``; raise PeerUnavailable on failure."""
    log.write(f"\n$ {' '.join(map(str, cmd))}\n")
    log.flush()
    try:
        proc = subprocess.run(
            [str(c) for c in cmd],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise PeerUnavailable(f"{what} timed out after {timeout:.0f} s (see {log.name})") from None
    except OSError as exc:
        raise PeerUnavailable(f"{what} could not start: {exc}") from None
    log.write(proc.stdout)
    log.flush()
    if proc.returncode != 0:
        raise PeerUnavailable(f"{what} failed: {_last_line(proc.stdout, 'no output')} (see {log.name})")


def installed() -> bool:
    """Whether ns-3 is already installed (by `ensure_ns3`); installs nothing."""
    venv = cache_dir() / "ns3-venv"
    return (venv / _MARKER).is_file() and _venv_python(venv).exists()


def ensure_ns3(progress: Callable[[str], None] | None = print) -> pathlib.Path:
    """Install ns-3 from PyPI into ``$FCTLAB_CACHE/ns3-venv`` on first use; return its python.

    Later calls return at once (a marker file records a finished, checked install).
    The first takes two to four minutes (one if pip's wheel cache already holds
    cppyy): pip builds cppyy from source, which needs a C++ compiler, and
    downloads a 69 MB wheel (450 MB installed). The install is
    checked by importing ``ns`` in the new environment. Output goes to
    ``$FCTLAB_CACHE/ns3-install.log``.

    Raises `PeerUnavailable` with a one-line reason when there is no C++
    compiler, no ``venv`` module, or pip or the check fails (e.g. no network).
    """
    say = progress or (lambda _msg: None)
    cache = cache_dir()
    venv = cache / "ns3-venv"
    python = _venv_python(venv)
    marker = venv / _MARKER
    if marker.is_file() and python.exists():
        return python

    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PeerUnavailable(f"cannot create the cache directory {cache}: {exc}") from None
    with _install_lock(cache / "ns3-install.lock"):
        if marker.is_file() and python.exists():  # another process finished it meanwhile
            return python
        if not (shutil.which("g++") or shutil.which("c++") or os.environ.get("CXX")):
            raise PeerUnavailable("no C++ compiler found (ns-3's cppyy bindings need g++ to build and run)")
        base = os.environ.get("FCTLAB_NS3_PYTHON") or sys.executable
        if venv.exists():
            shutil.rmtree(venv, ignore_errors=True)  # a half-finished earlier attempt
        log_path = cache / "ns3-install.log"
        t0 = time.monotonic()
        say(f"ns-3: installing {NS3_REQUIREMENT} into {venv} (first use only; 2-4 minutes)")
        try:
            with open(log_path, "w") as log:
                _run_logged([base, "-m", "venv", venv], log, "creating the ns-3 virtual environment", 600)
                _run_logged(
                    [python, "-m", "pip", "install", "--disable-pip-version-check", NS3_REQUIREMENT],
                    log,
                    f"pip install {NS3_REQUIREMENT}",
                    3600,
                )
                say("ns-3: checking the install (importing ns takes about 10 s)")
                _run_logged(
                    [python, "-c", "from ns import ns; ns.Simulator.Now()"],
                    log,
                    "importing ns-3 in the new environment",
                    900,
                )
        except PeerUnavailable:
            shutil.rmtree(venv, ignore_errors=True)
            raise
        marker.write_text(NS3_REQUIREMENT + "\n")
        say(f"ns-3: installed in {time.monotonic() - t0:.0f} s")
    return python


def _to_stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _tail(text: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return " | ".join(lines[-n:])


#: What ns-3 prints when it stops itself (NS_ASSERT_MSG, NS_ABORT_MSG, NS_FATAL_ERROR).
_NS3_STOPS = ("assert failed", "aborted.", "msg=", "NS_FATAL", "terminate called")


def _why_stopped(text: str) -> str:
    """ns-3's own message when it stopped on an assertion or a fatal error
    (the first such line and the one after it), else the output's last lines."""
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if any(k in ln for k in _NS3_STOPS):
            return " | ".join(lines[i : i + 2])[:400]
    return _tail(text)


#: The congestion controls the peer runs (``_worker.SCHEMES``: ns-3's TcpNewReno,
#: TcpCubic, TcpDctcp, TcpBbr, TcpVegas).
NS3_SCHEMES = ("newreno", "cubic", "dctcp", "bbr", "vegas")

#: The peer's parameters and their types (see `run_ns3_bench`).
PARAM_TYPES = {
    "senders": int,
    "bottleneck_bps": float,
    "rtt_ms": float,
    "load": float,
    "mean_pkts": float,
    "shape": float,
    "mss_bytes": int,
    "header_bytes": int,
    "init_cwnd_pkts": int,
    "buffer_bdp": float,
    "access_bps": float,
    "seed": int,
}


def scenario_params(cfg: dict) -> dict:
    """An fctlab scenario of the benchmark's shape (a dumbbell, one Poisson
    generator of Pareto sizes, the buffer in BDPs) as `run_ns3_bench`'s
    parameters. The peer puts the whole base RTT on the bottleneck."""
    n, t, g = cfg["network"], cfg["transport"], cfg["traffic"][0]
    return {
        "senders": n["senders"],
        "bottleneck_bps": n["bottleneck_bps"],
        "rtt_ms": 2 * (n["bottleneck_delay_ms"] + n.get("access_delay_ms", 0.0) + n.get("receiver_delay_ms", 0.0)),
        "load": g["load"],
        "mean_pkts": g["sizes"]["mean_pkts"],
        "shape": g["sizes"]["shape"],
        "mss_bytes": t["mss_bytes"],
        "header_bytes": t["header_bytes"],
        "init_cwnd_pkts": t["init_cwnd_pkts"],
        "buffer_bdp": n["buffer_bdp"],
        "access_bps": n["access_bps"],
        "seed": cfg["seed"],
    }


def reference_params() -> dict:
    """The peer's default parameters: fctlab's benchmark scenario's."""
    return scenario_params(reference_scenario(1))


def run_ns3_bench(
    *,
    sim_seconds: float = 5.0,
    progress: Callable[[str], None] | None = None,
    **overrides,
) -> dict:
    """Run fctlab's benchmark scenario under ns-3 and return its counters.

    The parameters are `reference_params` (fctlab's benchmark scenario),
    with any of them overridden by keyword: ``senders``, ``bottleneck_bps``,
    ``rtt_ms``, ``load``, ``mean_pkts``, ``shape``, ``mss_bytes``,
    ``header_bytes``, ``init_cwnd_pkts``, ``buffer_bdp``, ``access_bps``, ``seed``.

    The scenario is a dumbbell: ``senders`` hosts, each with an ``access_bps``
    point-to-point link (no delay) to router R0; the bottleneck R0-R1 at
    ``bottleneck_bps`` with one-way delay ``rtt_ms / 2`` (so the base RTT is
    ``rtt_ms``); R1 links to as many receivers. Every device queue is DropTail
    of ``buffer_bdp`` x BDP packets (BDP in packets of ``mss_bytes + header_bytes``),
    with no queue disc. TCP is classic NewReno (see ``_worker.configure_tcp``).
    ``header_bytes`` enters the arrival rate and the BDP only: ns-3's segments
    carry 40 bytes of TCP/IP header (no options) plus 2 bytes of PPP framing.
    Flows arrive as a Poisson process at offered load ``load``, with Pareto sizes
    (``mean_pkts``, ``shape``), from a uniformly chosen sender to its paired
    receiver, until ``sim_seconds``, when the simulation stops.

    ns-3 runs in a subprocess of the environment made by `ensure_ns3`
    (installed on first use), so its memory is its own. The same parameters and
    seed give the same counts (only the times vary).

    Returns a dict with (besides a few extras):

    ``wall_s``
        wall time of ``Simulator::Run`` alone (not the import, 9-20 s, nor set-up);
        ``cpu_s`` is the process's CPU time over the same span (less sensitive to
        other load on the machine);
    ``sim_seconds``, ``events`` (``Simulator::GetEventCount``);
    ``data_pkts_delivered``
        data segments read by the receiving applications (bytes / mss; every
        flow is a whole number of segments);
    ``bottleneck_pkts``
        packets that started transmission R0->R1 (``bottleneck_pkts_direction``
        says so; ``bottleneck_pkts_reverse`` counts R1->R0, the ACKs);
    ``flows_started``, ``flows_completed`` (all bytes read by the receiver);
    ``peak_rss_mb``
        the subprocess's peak resident memory (``getrusage`` maxrss), which
        includes about 0.7 GB of cppyy's compiler, headers and ns-3 libraries
        (``peak_rss_before_run_mb`` is the same before ``Simulator::Run``);
    ``ns3_version``; and ``import_s``, ``setup_s``, ``bottleneck_bytes``,
    ``bottleneck_drops`` (drops at R0, where the bottleneck queue is),
    ``other_drops``, ``flows_offered``, ``flows_failed`` (handshake gave up),
    ``sockets_open_at_end``, ``fct_mean_ms``, ``fct_median_ms``, ``fct_p99_ms``
    (completed flows, from arrival to the last byte read: this includes the
    1-RTT TCP handshake), ``buffer_pkts``, ``queue_discs_installed`` (0),
    ``arrival_rate_per_s``, ``params``.

    ``progress`` receives install messages (default: printed to stderr).

    Raises `PeerUnavailable` (one-line reason) if ns-3 cannot be
    installed, imported or run; ``ValueError`` for invalid parameters.
    """
    unknown = sorted(set(overrides) - set(PARAM_TYPES))
    if unknown:
        raise TypeError(f"run_ns3_bench() got an unexpected keyword argument {unknown[0]!r}")
    params = {k: PARAM_TYPES[k](v) for k, v in {**reference_params(), **overrides}.items()}
    params["sim_seconds"] = float(sim_seconds)
    _validate(params)
    return _run_worker(params, progress)


def run_ns3_flows(params: dict, flows, *, progress: Callable[[str], None] | None = None) -> dict:
    """Replay an explicit flow list under ns-3 on the benchmark's dumbbell.

    ``params`` holds the keys `run_ns3_bench` takes (all of them: no
    defaults are filled in) plus ``sim_seconds`` and, optionally,
    ``buffer_pkts`` (every router port's device queue, in packets, instead of
    ``buffer_bdp``), ``limited_transmit`` (RFC 3042, ns-3's
    ``TcpSocketBase::LimitedTransmit``; default off) and ``scheme`` (one of
    `NS3_SCHEMES`, default ``"newreno"``: ns-3's TcpNewReno, TcpCubic without
    HyStart, TcpDctcp, TcpBbr or TcpVegas, with the same segments, ACKs and
    classic recovery) and ``sack`` (SACK on; default off). ``flows`` is a sequence of
    (start_s, sender, pkts) in non-decreasing start time. The result is
    `run_ns3_bench`'s, plus ``flow_fct_s``: each flow's completion time
    in seconds (from its start to the last byte read by the receiver,
    handshake included), -1 where the flow did not complete by ``sim_seconds``;
    and ``flow_data_segments_sent``: the data segments each flow's sender
    transmitted, retransmissions included. ``params["trace_flow"]`` (a flow's
    index) adds ``trace``: that flow's sender as rows (time s, what, value),
    what 0 = data segment sent (sequence number in segments from 0), 1 = ACK
    received (cumulative, segments), 2 = cwnd and 3 = ssthresh (segments),
    4 = ns-3's congestion state (0 open, 1 disorder, 2 CWR, 3 recovery, 4 loss),
    5 = RTO (s), 6 = SYN sent. ``params["queue_sample_ms"]`` adds
    ``bottleneck_queue_histogram``: the bottleneck's device queue (packets
    waiting, the one on the wire not counted; with RED, the queue disc's and
    the device queue's packets together) sampled every that many ms until
    ``params["queue_sample_until_s"]`` (default ``sim_seconds``), entry n the
    samples that found n packets. Every result also has
    ``bottleneck_syn_drops`` (SYNs among the bottleneck's drops) and
    ``bottleneck_control_drop_sizes`` (drops without payload, counted by their
    size with the IPv4 header: 40 a pure ACK, 44 a SYN with its window-scale option).

    ``params["red"]`` (a dict of `RED_KEYS`, all required) puts ns-3's
    ``RedQueueDisc`` (``src/traffic-control/model/red-queue-disc.cc``, a port of
    ns-2 ``queue/red.cc``) on the bottleneck port (R0 towards R1) only, with
    every attribute set: ``MinTh``/``MaxTh`` = ``min_th``/``max_th`` packets,
    ``LInterm`` = 1/``max_p``, ``QW`` = ``q_weight``, ``Gentle``, ``Wait``,
    ``MeanPktSize`` = ``IdlePktSize`` = ``mean_pktsize`` bytes, ``MaxSize`` =
    ``limit_pkts`` packets, ``LinkBandwidth`` = ``bottleneck_bps``, ``LinkDelay`` =
    ``rtt_ms``/2, no adaptive variant, ``Ns1Compat`` false, hard drops; with
    ``ecn`` true, ECN-capable packets are marked instead (``UseEcn`` on,
    ``UseHardDrop`` off).
    Under the queue disc the port's device queue holds 1 packet (the fewest ns-3
    allows; it is flow-controlled: stopped when full, woken after a departure
    by an event of the same time), so up to ``limit_pkts`` + 1 packets wait
    there besides the one on the wire, and RED's average counts only those in
    the queue disc. Every other port keeps its DropTail device queue. RED's
    drops count among ``bottleneck_drops`` (its Drop trace) and the result gains
    ``bottleneck_red``: ``early_drops``, ``forced_drops`` (average at or above
    2 ``max_th``, or ``max_th`` without gentle), ``overflow_drops`` (the full queue
    disc), ``limit_pkts`` and ``device_queue_pkts``.
    """
    p = {k: PARAM_TYPES[k](params[k]) for k in PARAM_TYPES if k in params}
    missing = sorted(set(PARAM_TYPES) - set(p) - {"load", "mean_pkts", "shape", "seed", "buffer_bdp"})
    if missing:
        raise TypeError(f"run_ns3_flows() needs params[{missing[0]!r}]")
    p.setdefault("load", 0.5)
    p.setdefault("mean_pkts", 1.0)
    p.setdefault("shape", 2.0)
    p.setdefault("seed", 1)
    p.setdefault("buffer_bdp", 1.0)
    p["sim_seconds"] = float(params["sim_seconds"])
    if params.get("buffer_pkts") is not None:
        p["buffer_pkts"] = int(params["buffer_pkts"])
    p["limited_transmit"] = bool(params.get("limited_transmit", False))
    if params.get("trace_flow") is not None:
        p["trace_flow"] = int(params["trace_flow"])
    if params.get("queue_sample_ms") is not None:
        p["queue_sample_ms"] = float(params["queue_sample_ms"])
        if not p["queue_sample_ms"] > 0:
            raise ValueError("queue_sample_ms must be > 0")
        if params.get("queue_sample_until_s") is not None:
            p["queue_sample_until_s"] = float(params["queue_sample_until_s"])
    if params.get("red") is not None:
        p["red"] = red_params(params["red"])
    scheme = params.get("scheme", "newreno")
    if scheme not in NS3_SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(NS3_SCHEMES)}, got {scheme!r}")
    if scheme != "newreno":
        p["scheme"] = scheme
    if params.get("sack"):
        p["sack"] = True
    p["flows"] = [[float(t), int(i), int(n)] for t, i, n in flows]
    _validate(p)
    starts = [f[0] for f in p["flows"]]
    if any(b < a for a, b in zip(starts, starts[1:])):
        raise ValueError("flows must be in non-decreasing start time")
    if any(not 0 <= f[1] < p["senders"] or f[2] < 1 for f in p["flows"]):
        raise ValueError("each flow needs 0 <= sender < senders and at least 1 packet")
    result = _run_worker(p, progress)
    result.pop("params", None)
    result["params"] = {k: v for k, v in p.items() if k != "flows"}
    return result


#: The keys of ``run_ns3_flows``'s ``params["red"]`` (all required), and the optional one:
#: ``ecn`` (default false) marks ECN-capable packets instead of dropping them.
RED_KEYS = ("min_th", "max_th", "max_p", "q_weight", "gentle", "wait", "mean_pktsize", "limit_pkts")
RED_OPTIONAL = ("ecn",)


def red_params(red) -> dict:
    """Check ``params["red"]`` and return it normalised; ``ValueError`` naming the key otherwise."""
    if not isinstance(red, dict):
        raise ValueError(f"red must be a dict of {', '.join(RED_KEYS)}, got {type(red).__name__}")
    unknown = sorted(set(red) - set(RED_KEYS) - set(RED_OPTIONAL))
    if unknown:
        allowed = ", ".join(RED_KEYS + RED_OPTIONAL)
        raise ValueError(f"red.{unknown[0]} is not a RED parameter (allowed: {allowed})")
    missing = [k for k in RED_KEYS if k not in red]
    if missing:
        raise ValueError(f"red.{missing[0]} is required (the peer sets every RED parameter explicitly)")

    def number(key):
        v = red[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"red.{key} must be a finite number, got {v!r}")
        return float(v)

    def integer(key, lo, hi):
        v = red[key]
        if isinstance(v, bool) or not isinstance(v, int) and not (isinstance(v, float) and v.is_integer()):
            raise ValueError(f"red.{key} must be a whole number, got {v!r}")
        if not lo <= int(v) <= hi:
            raise ValueError(f"red.{key} must be in [{lo}, {hi}], got {v!r}")
        return int(v)

    out = {k: number(k) for k in ("min_th", "max_th", "max_p", "q_weight")}
    if not out["min_th"] > 0:
        raise ValueError(f"red.min_th must be > 0 packets, got {red['min_th']!r}")
    if not out["max_th"] > out["min_th"]:
        raise ValueError(f"red.max_th must be above min_th ({red['min_th']!r}), got {red['max_th']!r}")
    if not 0 < out["max_p"] <= 1:
        raise ValueError(f"red.max_p must be in (0, 1], got {red['max_p']!r}")
    if not 0 < out["q_weight"] <= 1:
        raise ValueError(f"red.q_weight must be in (0, 1], got {red['q_weight']!r}")
    for key in ("gentle", "wait", "ecn"):
        if key == "ecn" and key not in red:
            continue
        if not isinstance(red[key], bool):
            raise ValueError(f"red.{key} must be true or false, got {red[key]!r}")
        out[key] = red[key]
    out["mean_pktsize"] = integer("mean_pktsize", 1, 65_535)
    out["limit_pkts"] = integer("limit_pkts", 1, 10_000_000)
    return out


def _run_worker(params: dict, progress) -> dict:
    """Run the worker on ``params`` in the ns-3 environment; return its result dict."""
    python = ensure_ns3(progress=progress if progress is not None else _to_stderr)
    fd, out_path = tempfile.mkstemp(prefix="fctlab-ns3-", suffix=".json")
    os.close(fd)
    fd, in_path = tempfile.mkstemp(prefix="fctlab-ns3-params-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(params, fh)
    timeout = _run_timeout_s()
    try:
        try:
            proc = subprocess.run(
                [str(python), str(_WORKER), "@" + in_path, out_path],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=_worker_env(),
            )
        except subprocess.TimeoutExpired:
            raise PeerUnavailable(
                f"ns-3 run did not finish within {timeout:.0f} s (set FCTLAB_NS3_TIMEOUT to allow more)"
            ) from None
        except OSError as exc:
            raise PeerUnavailable(f"cannot start the ns-3 python {python}: {exc}") from None
        try:
            with open(out_path) as fh:
                result = json.load(fh)
        except (OSError, ValueError):
            why = f"exit code {proc.returncode}"
            if proc.returncode < 0:
                why = f"killed by signal {-proc.returncode}"
            raise PeerUnavailable(
                f"ns-3 run ended without a result ({why}): "
                f"{_why_stopped(proc.stderr) or _tail(proc.stdout) or 'no output'}"
            ) from None
    finally:
        for path in (out_path, in_path):
            with contextlib.suppress(OSError):
                os.unlink(path)
    if "error" in result:
        what = {"import": "importing ns-3 failed", "setup": "ns-3 set-up failed", "run": "ns-3 run failed"}.get(
            result.get("stage"), "ns-3 failed"
        )
        raise PeerUnavailable(f"{what}: {result['error']}")
    result["params"] = params
    return result


def _validate(p: dict) -> None:
    """Reject parameters ns-3 or the workload cannot take, with a one-line ValueError."""
    positive = [
        "senders",
        "bottleneck_bps",
        "rtt_ms",
        "load",
        "mean_pkts",
        "mss_bytes",
        "init_cwnd_pkts",
        "buffer_bdp",
        "access_bps",
        "sim_seconds",
    ]
    for key in positive:
        if not p[key] > 0:
            raise ValueError(f"{key} must be positive, got {p[key]}")
    if p["header_bytes"] < 0:
        raise ValueError(f"header_bytes must be >= 0, got {p['header_bytes']}")
    if not p["shape"] > 1:
        raise ValueError(f"shape must be > 1 (finite mean), got {p['shape']}")
    if p["senders"] > 100_000:
        raise ValueError(f"senders must be at most 100000, got {p['senders']}")
    if p["mss_bytes"] > 65_000:
        raise ValueError(f"mss_bytes must be at most 65000, got {p['mss_bytes']}")


def _worker_env() -> dict:
    """The worker's environment: no user site-packages, no fctlab paths leaking in."""
    env = dict(os.environ)
    env["PYTHONNOUSERSITE"] = "1"
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    return env

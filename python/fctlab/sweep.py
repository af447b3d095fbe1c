"""Sweeps: one base scenario expanded over named axes, run in parallel into a
results store.

A sweep spec (TOML file, TOML text or dict)::

    name = "iw-vs-load"              # optional; default: the file's name
    base = "scenario.toml"           # a scenario file (relative to the spec) ...
    # [base]                         # ... or the scenario inline, as a table
    seeds = 3                        # a count (base seed, base seed + 1, ...) or a list [1, 2, 3]
    replications = 1                 # optional: split each run into K replications (fctlab.replicate)
    store = "store"                  # optional: where results go (relative to the spec)

    [axes]                           # any config key, dotted; the product of all axes is run
    "transport.init_cwnd_pkts" = [2, 10]
    "traffic[0].load" = [0.5, 0.8]

    [linked.scheme]                  # keys that move together: one axis, the lists zipped
    "transport.scheme" = ["tcp-newreno", "tcp-newreno"]
    "transport.delayed_ack" = [false, true]

A plain scenario file is a sweep of one point (with its own ``seeds`` or
``replications`` if it has them). ``seeds``, ``replications`` and the spec's own
keys are stripped before the engine sees a config.

The points are the product of the axes (in the order given, linked groups after
plain axes, seeds innermost). Every point is validated before any is run; an
error names the point and the key. Each run is stored under a key hashed from
(config, seed, fctlab version) (see :mod:`fctlab.store`); runs already stored are
skipped, so a sweep that was stopped -- even by SIGKILL -- resumes where it was.

    >>> res = fctlab.sweep("examples/sweeps/iw.toml", store="store")
    >>> res.query("SELECT init_cwnd_pkts, avg(fct_ns) FROM flows GROUP BY 1")
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import itertools
import json
import math
import os
import re
import signal
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

import pandas as pd

from .config import ConfigError, load_config, to_json
from .replicate import check_replications, merge, split

SPEC_KEYS = ("name", "base", "axes", "linked", "seeds", "replications", "store", "description")
#: keys a scenario may carry that only the sweep layer understands
SWEEP_ONLY = ("seeds", "replications")


# ------------------------------------------------------------------------ spec


@dataclass
class Run:
    """One engine run of a sweep: a point, or one replication of it."""

    key: str  # store key
    config: dict  # what the engine gets
    point: int
    replication: Optional[int]  # None when the point is not replicated
    replications: int
    group: str  # the point's group key (shared by its replications)
    base_seed: int

    def payload(self) -> dict:
        return {
            "key": self.key,
            "config": self.config,
            "replication": None if self.replication is None else {
                "index": self.replication, "of": self.replications, "group": self.group, "base_seed": self.base_seed,
            },
        }


@dataclass
class Point:
    """One point of a sweep: axis values (``labels``), its config and its runs."""

    index: int
    labels: dict
    config: dict  # engine config of the point (before any split into replications)
    replications: int
    group: str
    runs: list = field(default_factory=list)

    def label(self) -> str:
        return ", ".join(f"{k}={_short(v)}" for k, v in self.labels.items())


def _short(v: Any) -> str:
    s = json.dumps(v, sort_keys=True) if not isinstance(v, str) else v
    return s if len(s) <= 40 else s[:37] + "..."


_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)((?:\[\d+\])*)$")


def parse_path(path: str, field: str) -> list:
    """``traffic[0].sizes.mean_pkts`` -> ``["traffic", 0, "sizes", "mean_pkts"]``."""
    if not isinstance(path, str) or not path:
        raise ConfigError(f"{field}: an axis is a dotted config key such as \"traffic[0].load\"", field)
    out: list = []
    for part in path.split("."):
        m = _TOKEN.match(part)
        if not m:
            raise ConfigError(
                f"{field}: {path!r} is not a config key path (parts are names, optionally indexed: \"traffic[0].load\")",
                field,
            )
        out.append(m.group(1))
        out.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return out


def set_path(cfg: dict, path: str, value: Any, field: str) -> None:
    """Set the dotted key ``path`` in ``cfg`` (creating tables, never list items)."""
    parts = parse_path(path, field)
    node: Any = cfg
    where = ""
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(p, int):
            if not isinstance(node, list):
                raise ConfigError(f"{field}: {where or 'the base'} is not a list, so [{p}] does not apply", field)
            if p >= len(node):
                raise ConfigError(f"{field}: the base has {len(node)} entries in {where}, so [{p}] does not exist", field)
            if last:
                node[p] = copy.deepcopy(value)
                return
            nxt = node[p]
            where = f"{where}[{p}]"
        else:
            if not isinstance(node, dict):
                raise ConfigError(f"{field}: {where} is not a table, so .{p} does not apply", field)
            if last:
                node[p] = copy.deepcopy(value)
                return
            if p not in node:
                nxt_is_list = isinstance(parts[i + 1], int)
                if nxt_is_list:
                    raise ConfigError(f"{field}: the base has no {(where + '.' if where else '') + p} list to index", field)
                node[p] = {}
            nxt = node[p]
            where = f"{where}.{p}" if where else p
        node = nxt


def _group_key(config: dict, replications: int) -> str:
    from . import __version__

    text = to_json({"config": config, "replications": replications, "fctlab_version": __version__})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _is_spec(d: Mapping) -> bool:
    return any(k in d for k in ("base", "axes", "linked"))


def load_spec(spec, *, base_dir: Optional[Path] = None) -> dict:
    """Read a sweep spec (path, TOML text or dict) into a normalised dict:
    ``name``, ``base`` (a config dict), ``axes``, ``linked``, ``seeds`` (list or
    None), ``replications``, ``store`` (or None), ``source`` (the file, if any)."""
    source = None
    if isinstance(spec, (str, os.PathLike)) and not (isinstance(spec, str) and ("\n" in spec or "=" in spec) and not os.path.exists(spec)):
        p = Path(spec)
        if not p.is_file():
            raise ConfigError(f"sweep spec not found: {p}", "")
        source = p
        base_dir = p.parent
    raw = load_config(spec)
    base_dir = Path(base_dir or ".")

    if _is_spec(raw):
        unknown = [k for k in raw if k not in SPEC_KEYS]
        if unknown:
            raise ConfigError(
                f"{unknown[0]}: unknown sweep key `{unknown[0]}`, expected one of {', '.join(SPEC_KEYS)} "
                f"(scenario keys go under [base])", unknown[0])
        b = raw.get("base", {})
        if isinstance(b, str):
            bp = (base_dir / b) if not os.path.isabs(b) else Path(b)
            if not bp.is_file():
                raise ConfigError(f"base: scenario file not found: {bp}", "base")
            base = load_config(bp)
        elif isinstance(b, Mapping):
            base = load_config(b)
        else:
            raise ConfigError(f"base: a scenario table or a path to a scenario file, got {type(b).__name__}", "base")
        top = dict(raw)
    else:
        base = dict(raw)
        top = {k: base.pop(k) for k in ("name", "store", "description") if k in base}
    # seeds / replications may be in the spec or in the base scenario, not both
    for k in SWEEP_ONLY:
        if k in base:
            if k in top:
                raise ConfigError(f"{k}: given both in the sweep spec and in its base scenario; keep one", k)
            top[k] = base.pop(k)

    axes = top.get("axes", {}) if _is_spec(raw) else {}
    if not isinstance(axes, Mapping):
        raise ConfigError("axes: a table of config key = [values]", "axes")
    for k, vals in axes.items():
        if k in SWEEP_ONLY:
            if k == "replications":
                raise ConfigError("axes.replications: replications is not an axis; set replications = K", "axes.replications")
        if not isinstance(vals, list) or not vals:
            raise ConfigError(f"axes.{k}: a non-empty list of values, got {vals!r}", f"axes.{k}")
        if k != "seed":
            parse_path(k, f"axes.{k}")
    linked = top.get("linked", {}) if _is_spec(raw) else {}
    if not isinstance(linked, Mapping):
        raise ConfigError("linked: a table of named groups, each a table of config key = [values]", "linked")
    for g, tbl in linked.items():
        f = f"linked.{g}"
        if not isinstance(tbl, Mapping) or not tbl:
            raise ConfigError(f"{f}: a table of config key = [values] (equal lengths)", f)
        lens = set()
        for k, vals in tbl.items():
            if not isinstance(vals, list) or not vals:
                raise ConfigError(f"{f}.{k}: a non-empty list of values, got {vals!r}", f"{f}.{k}")
            parse_path(k, f"{f}.{k}")
            lens.add(len(vals))
        if len(lens) > 1:
            raise ConfigError(f"{f}: linked lists must have equal lengths, got {sorted(lens)}", f)

    seeds = top.get("seeds")
    if "seed" in axes:
        if seeds is not None:
            raise ConfigError("axes.seed: seeds are given twice (axes.seed and seeds); keep one", "axes.seed")
        seeds = axes["seed"]
        axes = {k: v for k, v in axes.items() if k != "seed"}
    base_seed = base.get("seed", 0)
    if seeds is not None:
        if isinstance(seeds, bool):
            raise ConfigError(f"seeds: a count or a list of seeds, got {seeds!r}", "seeds")
        if isinstance(seeds, int):
            if seeds < 1:
                raise ConfigError(f"seeds: a count must be >= 1, got {seeds}", "seeds")
            if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
                raise ConfigError(f"seed: must be a whole number >= 0, got {base_seed!r}", "seed")
            seeds = [base_seed + i for i in range(seeds)]
        elif isinstance(seeds, list) and seeds:
            for i, s in enumerate(seeds):
                if isinstance(s, bool) or not isinstance(s, int) or s < 0:
                    raise ConfigError(f"seeds[{i}]: a seed is a whole number >= 0, got {s!r}", f"seeds[{i}]")
            if len(set(seeds)) != len(seeds):
                raise ConfigError(f"seeds: repeated seed in {seeds}", "seeds")
        else:
            raise ConfigError(f"seeds: a count or a non-empty list of seeds, got {seeds!r}", "seeds")
    reps = check_replications(top.get("replications", 1))
    name = top.get("name")
    if name is None:
        name = source.stem if source else "sweep-" + hashlib.sha256(to_json(raw).encode()).hexdigest()[:8]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", name):
        raise ConfigError(f"name: letters, digits, '_', '-' and '.' only, got {name!r}", "name")
    store = top.get("store")
    if store is not None:
        if not isinstance(store, str):
            raise ConfigError(f"store: a directory path, got {store!r}", "store")
        store = str(base_dir / store) if not os.path.isabs(store) else store
    return {"_spec": 1, "name": name, "base": base, "axes": dict(axes), "linked": {g: dict(t) for g, t in linked.items()},
            "seeds": seeds, "replications": reps, "store": store, "source": str(source) if source else None,
            "description": top.get("description", "")}


def expand(spec, *, validate: bool = True) -> list:
    """The points of a sweep (list of :class:`Point`), each validated unless
    ``validate=False``. Raises ConfigError naming the point and key."""
    from . import __version__
    from .result import validate as validate_config
    from .store import run_key

    s = spec if isinstance(spec, dict) and spec.get("_spec") == 1 else load_spec(spec)
    dims: list = []  # each: the axis' values, each a list of (dotted key, value, spec field)
    for k, vals in s["axes"].items():
        dims.append([[(k, v, f"axes.{k}")] for v in vals])
    for g, tbl in s["linked"].items():
        keys = list(tbl)
        dims.append([[(k, tbl[k][i], f"linked.{g}.{k}") for k in keys] for i in range(len(tbl[keys[0]]))])
    if s["seeds"] is not None:
        dims.append([[("seed", x, "seeds")] for x in s["seeds"]])
    points = []
    for idx, combo in enumerate(itertools.product(*dims) if dims else [()]):
        cfg = copy.deepcopy(s["base"])
        labels: dict = {}
        for setting in combo:
            for k, v, spec_field in setting:
                labels[k] = v
                if k == "seed":
                    cfg["seed"] = v
                    continue
                try:
                    set_path(cfg, k, v, spec_field)
                except ConfigError as e:
                    raise ConfigError(f"sweep point {idx} ({_labels_str(labels)}): {e}", e.field) from None
        labels.setdefault("seed", cfg.get("seed", 0))
        k = s["replications"]
        pt = Point(index=idx, labels=labels, config=cfg, replications=k, group=_group_key(cfg, k))
        if validate:
            try:
                validate_config(cfg)
            except ConfigError as e:
                raise ConfigError(f"sweep point {idx} ({_labels_str(labels)}): {e}", e.field) from None
        try:
            cfgs = split(cfg, k)
        except ConfigError as e:
            raise ConfigError(f"sweep point {idx} ({_labels_str(labels)}): {e}", e.field) from None
        base_seed = int(cfg.get("seed", 0))
        for r, c in enumerate(cfgs):
            pt.runs.append(Run(key=run_key(c, __version__), config=c, point=idx, replication=r if k > 1 else None,
                               replications=k, group=pt.group, base_seed=base_seed))
        points.append(pt)
    return points


def _labels_str(labels: dict) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in labels.items()) or "base"


# --------------------------------------------------------------------- workers

_PROGRESS_Q = None
_IN_PROCESS = False  # set while the sweep runs in the calling process


def _proc_start(pid: int) -> Optional[str]:
    """The start time of process ``pid`` (Linux /proc), None if it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _alive(pid: int, start: Optional[str]) -> bool:
    if start is not None:
        return _proc_start(pid) == start
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _init_worker(q, sweep_pid: int, sweep_start: Optional[str]) -> None:
    """Pool worker set-up: the progress queue; Ctrl-C is left to the sweep process;
    and a watchdog that ends this worker as soon as the sweep process is gone
    (killed, even by SIGKILL), so no worker outlives it or blocks forever on a
    result nobody will read."""
    global _PROGRESS_Q
    _PROGRESS_Q = q
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while True:
            time.sleep(0.25)
            if not _alive(sweep_pid, sweep_start):
                os._exit(70)

    threading.Thread(target=watch, name="fctlab-sweep-watchdog", daemon=True).start()


def _expected_flows(cfg: dict) -> Optional[int]:
    n = len(cfg.get("flows") or [])
    for t in cfg.get("traffic") or []:
        c = t.get("count") if isinstance(t, dict) else None
        if not isinstance(c, int):
            return None
        n += c
    return n or None


def _run_task(task: dict) -> dict:
    """Run one store entry and return its files' bytes (runs in a worker, local
    or on a Dask cluster: nothing here touches the store)."""
    import fctlab

    cfg = task["config"]
    key = task["key"]
    expected = _expected_flows(cfg)
    q = _PROGRESS_Q
    stop_ns = None
    if isinstance(cfg.get("stop_s"), (int, float)):
        stop_ns = cfg["stop_s"] * 1e9

    def cb(p: dict) -> bool:
        if q is not None:
            frac = None
            if expected:
                frac = p["flows_completed"] / expected
            elif stop_ns:
                frac = p["sim_ns"] / stop_ns
            try:
                q.put_nowait((key, int(p["data_delivered"]), frac))
            except Exception:
                pass
        return True

    res = fctlab.run(cfg, progress=cb, warn=False)
    if res.meta["stats"].get("interrupted"):
        if _IN_PROCESS:
            raise KeyboardInterrupt
        raise RuntimeError(f"run {key} was interrupted ({res.meta['stats'].get('interrupted_by')})")
    res.meta["store"] = {
        "key": key,
        "replication": task.get("replication"),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    with tempfile.TemporaryDirectory(prefix="fctlab-run-") as d:
        res.write(d)
        files = {n: (Path(d) / n).read_bytes() for n in ("flows.parquet", "series.parquet", "meta.json")}
    m = res.meta
    return {
        "key": key,
        "files": files,
        "version": m["fctlab_version"],
        "wall_s": m["wall_s"],
        "data_delivered": int(m["stats"].get("data_delivered", 0)),
        "flows_total": m["flows_total"],
        "flows_completed": m["flows_completed"],
    }


# --------------------------------------------------------------------- progress


def _fmt_dur(s: float) -> str:
    if s is None or not math.isfinite(s):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _fmt_rate(x: float) -> str:
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{x / div:.2f}{unit}"
    return f"{x:.0f}"


class SweepProgress:
    """The sweep's progress line on stderr: runs done/total, simulated (delivered
    data) packets per wall second over all workers, elapsed and time left."""

    def __init__(self, name: str, total: int, stored: int, stream=None, every_s: Optional[float] = None):
        self.name = name
        self.total = total
        self.stored = stored
        self.done = 0
        self.failed = 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = every_s if every_s is not None else (0.5 if self.tty else 10.0)
        self.t0 = time.monotonic()
        self._last = 0.0
        self._pkts_done = 0
        self._live: dict = {}  # key -> (pkts, frac)
        self._drawn = False

    def live(self, key: str, pkts: int, frac: Optional[float]) -> None:
        self._live[key] = (pkts, frac)

    def finished(self, key: str, pkts: int, ok: bool = True) -> None:
        self._live.pop(key, None)
        if ok:
            self.done += 1
            self._pkts_done += pkts
        else:
            self.failed += 1

    def line(self) -> str:
        el = time.monotonic() - self.t0
        todo = self.total - self.stored
        if todo == 0:
            return f"sweep {self.name}: all {self.total} runs already stored; nothing to run"
        pkts = self._pkts_done + sum(p for p, _ in self._live.values())
        work = self.done + self.failed + sum(min(f, 1.0) for _, f in self._live.values() if f is not None)
        left = (todo - work) * el / work if work > 0 else math.inf
        stored = f" ({self.stored} already stored)" if self.stored else ""
        fail = f", {self.failed} FAILED" if self.failed else ""
        run = f" | {len(self._live)} running" if self._live else ""
        return (f"sweep {self.name}: {self.done + self.stored}/{self.total} runs done{stored}{fail}{run}"
                f" | {_fmt_rate(pkts / max(el, 1e-9))} pkts/s | {_fmt_dur(el)} elapsed | ~{_fmt_dur(left)} left")

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.every_s:
            return
        self._last = now
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line())
            self._drawn = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        self.draw(force=True)
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


# ----------------------------------------------------------------------- result


class SweepError(Exception):
    """Some runs of a sweep failed (the others are stored)."""


@dataclass
class SweepResult:
    """What a sweep did: its points, which runs ran now, were already stored or
    failed, and the store holding them."""

    name: str
    spec: dict
    points: list
    store: Any
    ran: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)
    wall_s: float = 0.0

    def runs(self) -> pd.DataFrame:
        """One row per run: point, its labels, replication, seed, store key, status."""
        rows = []
        ran, skipped = set(self.ran), set(self.skipped)
        for p in self.points:
            for r in p.runs:
                row = {"point": p.index, **{k: v for k, v in p.labels.items()}, "replication": r.replication,
                       "run_seed": r.config.get("seed", 0), "run_key": r.key,
                       "status": "failed" if r.key in self.failed else "ran" if r.key in ran else "stored" if r.key in skipped else "?"}
                rows.append(row)
        return pd.DataFrame(rows)

    def result(self, point: int, replication: int = 0):
        """The stored :class:`fctlab.Result` of a point (or of one of its replications)."""
        return self.store.get(self.points[point].runs[replication].key)

    def replicated(self, point: int):
        """The point's replications merged (:class:`fctlab.replicate.Replicated`)."""
        p = self.points[point]
        return merge([self.store.get(r.key) for r in p.runs], [r.key for r in p.runs])

    def flows(self) -> pd.DataFrame:
        """Every flow of every point, with ``point``, ``replication`` and label columns."""
        frames = []
        for p in self.points:
            for i, r in enumerate(p.runs):
                f = self.store.get(r.key).flows
                f.insert(0, "replication", i)
                f.insert(0, "point", p.index)
                for k, v in reversed(list(p.labels.items())):
                    f.insert(2, k, [v] * len(f) if not isinstance(v, (list, dict)) else json.dumps(v))
                frames.append(f)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def summary(self, **kw) -> pd.DataFrame:
        """Per point: :func:`fctlab.replicate.overall` (mean and percentile FCT,
        with confidence intervals where the point has replications)."""
        rows = []
        for p in self.points:
            s = self.replicated(p.index).overall(**kw)
            s.insert(0, "point", p.index)
            for k, v in reversed(list(p.labels.items())):
                s.insert(1, k, _short(v) if isinstance(v, (list, dict)) else v)
            rows.append(s)
        return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()

    def query(self, sql: str) -> pd.DataFrame:
        return self.store.query(sql)


# ---------------------------------------------------------------------- running


def _local_workers(workers: Optional[int]) -> int:
    if workers:
        return max(1, int(workers))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


def _mp_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["fctlab", "fctlab.sweep"])
        return ctx
    return mp.get_context("spawn")


def _execute_local(tasks: list, nworkers: int, on_done, on_live, on_fail) -> None:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    if nworkers == 1 or len(tasks) == 1:
        global _PROGRESS_Q, _IN_PROCESS
        import queue as _queue

        q: Any = _queue.SimpleQueue()
        _PROGRESS_Q, _IN_PROCESS = q, True
        try:
            for t in tasks:
                stop = threading.Event()

                def pump():
                    while not stop.wait(0.5):
                        _drain(q, on_live)

                th = threading.Thread(target=pump, daemon=True)
                th.start()
                try:
                    out = _run_task(t)
                except Exception as e:  # noqa: BLE001 - reported per run
                    out, err = None, e
                else:
                    err = None
                finally:
                    stop.set()
                    th.join()
                _drain(q, on_live)
                if err is not None:
                    on_fail(t, err)
                else:
                    on_done(t, out)
        finally:
            _PROGRESS_Q, _IN_PROCESS = None, False
        return

    ctx = _mp_context()
    q = ctx.Queue()
    main = sys.modules.get("__main__")
    main_file = getattr(main, "__file__", None)
    # Workers re-import the parent's __main__ by path; a script read from stdin
    # ("<stdin>") has none, so leave it out (the workers need only fctlab).
    hide_main = isinstance(main_file, str) and getattr(getattr(main, "__spec__", None), "name", None) is None \
        and not os.path.isfile(main_file)
    ex = ProcessPoolExecutor(max_workers=min(nworkers, len(tasks)), mp_context=ctx,
                             initializer=_init_worker, initargs=(q, os.getpid(), _proc_start(os.getpid())))
    futs = {}
    try:
        if hide_main:
            del main.__file__
        try:
            futs = {ex.submit(_run_task, t): t for t in tasks}
        finally:
            if hide_main:
                main.__file__ = main_file
        pending = set(futs)
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            _drain(q, on_live)
            for f in done:
                t = futs[f]
                try:
                    out = f.result()
                except BrokenProcessPool:
                    raise SweepError("a worker process died (out of memory? killed?); finished runs are stored, "
                                     "run the sweep again to resume") from None
                except Exception as e:  # noqa: BLE001
                    on_fail(t, e)
                    continue
                on_done(t, out)
        ex.shutdown(wait=True)
    except BaseException:
        for f in futs:
            f.cancel()
        procs = list(getattr(ex, "_processes", {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.kill()
            except Exception:  # noqa: BLE001
                pass
        raise
    finally:
        try:
            q.close()
            q.join_thread()
        except Exception:  # noqa: BLE001
            pass


def _drain(q, on_live) -> None:
    import queue as _queue

    while True:
        try:
            key, pkts, frac = q.get_nowait()
        except (_queue.Empty, OSError, EOFError, ValueError):
            return
        on_live(key, pkts, frac)


def _dask_client(scheduler):
    """(client, owned): a ``distributed.Client`` for an address, or the one given."""
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("a Dask cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    try:
        return Client(scheduler, timeout="30s"), True
    except (OSError, TimeoutError, ValueError) as e:
        raise SweepError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None


def _execute_dask(tasks: list, client, on_done, on_fail) -> None:
    from distributed import as_completed

    futs = []
    try:
        futs = [client.submit(_run_task, t, pure=False, retries=1) for t in tasks]
        by_key = {f.key: t for f, t in zip(futs, tasks)}
        for f in as_completed(futs):
            t = by_key[f.key]
            try:
                out = f.result()
            except Exception as e:  # noqa: BLE001
                on_fail(t, e)
            else:
                on_done(t, out)
            f.release()
    except BaseException:
        try:
            client.cancel(futs)
        except Exception:  # noqa: BLE001
            pass
        raise


def run_sweep(spec, *, store=None, scheduler=None, workers: Optional[int] = None, progress: bool = True,
              name: Optional[str] = None, dry_run: bool = False) -> SweepResult:
    """Run a sweep (see the module doc) and return a :class:`SweepResult`.

    - ``spec``: a spec or scenario (path, TOML text or dict).
    - ``store``: the results directory (default: the spec's ``store``, else ``./store``).
    - ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a
      ``distributed.Client``; without it, a local process pool of ``workers``
      processes (default: every core).
    - ``progress``: a progress line on stderr.
    - ``dry_run``: expand and validate only; nothing runs.

    Raises ConfigError (naming point and key) before running anything if a point
    is invalid, and :class:`SweepError` at the end if some runs failed.
    """
    from . import __version__
    from .store import Store

    s = load_spec(spec)
    if name:
        s["name"] = name
    points = expand(s)
    st = Store(store or s["store"] or "store", create=not dry_run)
    runs: dict = {}
    for p in points:
        for r in p.runs:
            runs.setdefault(r.key, r)
    res = SweepResult(name=s["name"], spec=s, points=points, store=st)
    todo, skipped, damaged = [], [], []
    for key, r in runs.items():
        why = st.verify(key)
        if why is None:
            skipped.append(key)
        else:
            if why != "missing":
                damaged.append(key)
            todo.append(r)
    res.skipped = skipped
    if dry_run:
        return res
    for key in damaged:  # moved aside (kept for inspection) and run again
        st.quarantine(key)
    st.clean_tmp()
    record = {
        "name": s["name"], "fctlab_version": __version__, "source": s["source"], "description": s["description"],
        "base": s["base"], "axes": s["axes"], "linked": s["linked"], "seeds": s["seeds"],
        "replications": s["replications"],
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "points": [{"index": p.index, "labels": p.labels, "group": p.group, "replications": p.replications,
                    "run_keys": [r.key for r in p.runs]} for p in points],
    }
    st.write_sweep(s["name"], record)

    client, own_client = _dask_client(scheduler) if scheduler is not None and todo else (None, False)
    bar = SweepProgress(s["name"], total=len(runs), stored=len(skipped)) if progress else None
    t0 = time.monotonic()
    failures: dict = {}

    def on_live(key, pkts, frac):
        if bar:
            bar.live(key, pkts, frac)
            bar.draw()

    def on_done(task: dict, out: dict):
        if out["version"] != __version__:
            on_fail(task, RuntimeError(f"the worker runs fctlab {out['version']}, this sweep {__version__}"))
            return
        st.put(out["key"], out["files"])
        res.ran.append(out["key"])
        if bar:
            bar.finished(out["key"], out["data_delivered"])
            bar.draw()

    def on_fail(task: dict, e: BaseException):
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        failures[task["key"]] = f"{type(e).__name__}: {msg}"
        if bar:
            bar.finished(task["key"], 0, ok=False)
            bar.draw(force=True)

    payloads = [r.payload() for r in todo]
    try:
        if payloads:
            if client is not None:
                _execute_dask(payloads, client, on_done, on_fail)
            else:
                _execute_local(payloads, _local_workers(workers), on_done, on_live, on_fail)
    finally:
        if bar:
            bar.close()
        if own_client:
            client.close()
    res.wall_s = time.monotonic() - t0
    res.failed = failures
    record["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    record["wall_s"] = res.wall_s
    record["scheduler"] = None if scheduler is None else scheduler if isinstance(scheduler, str) else "dask.distributed.Client"
    record["failed"] = failures
    st.write_sweep(s["name"], record)
    if failures:
        where = {r.key: (p.index, p.label()) for p in points for r in p.runs}
        k, msg = next(iter(failures.items()))
        raise SweepError(f"{len(failures)} of {len(runs)} runs failed; first: point {where[k][0]} ({where[k][1]}): {msg}")
    return res


sweep = run_sweep


class _CallableModule(types.ModuleType):
    """``fctlab.sweep(spec, ...)`` calls :func:`run_sweep`; the module's other
    names stay reachable (``fctlab.sweep.expand``, ``fctlab.sweep.load_spec``)."""

    def __call__(self, *args, **kwargs):
        return run_sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

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
(config, seed, fctlab version) (see `fctlab.store`); runs already stored are
skipped, so a sweep that was stopped -- even by SIGKILL -- resumes where it was.

    >>> res = fctlab.sweep("examples/sweeps/iw.toml", store="store")
    >>> res.query("SELECT init_cwnd_pkts, avg(fct_ns) FROM flows GROUP BY 1")

`fctlab.sweep.spec` reads and expands specs, `fctlab.sweep.execute`
runs them (a local process pool or a Dask cluster) and
`fctlab.sweep.progress` draws the progress line; replications are split
and merged by `fctlab.replicate`.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
import time
import types
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..replicate import Replicated, check_replications, merge
from .execute import SweepError, TaskError, _dask_client, _execute_dask, _execute_local, _local_workers
from .progress import SweepProgress
from .spec import SPEC_KEYS, SWEEP_ONLY, Point, Run, _short, expand, load_spec, parse_path, set_path

__all__ = [
    "run_sweep",
    "sweep",
    "replicate",
    "SweepResult",
    "SweepError",
    "SweepProgress",
    "load_spec",
    "expand",
    "parse_path",
    "set_path",
    "Point",
    "Run",
    "SPEC_KEYS",
    "SWEEP_ONLY",
]


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
                row = {
                    "point": p.index,
                    **{k: v for k, v in p.labels.items()},
                    "replication": r.replication,
                    "run_seed": r.config.get("seed", 0),
                    "run_key": r.key,
                    "status": "failed"
                    if r.key in self.failed
                    else "ran"
                    if r.key in ran
                    else "stored"
                    if r.key in skipped
                    else "?",
                }
                rows.append(row)
        return pd.DataFrame(rows)

    def result(self, point: int, replication: int = 0):
        """The stored `fctlab.Result` of a point (or of one of its replications)."""
        return self.store.get(self.points[point].runs[replication].key)

    def replicated(self, point: int):
        """The point's replications merged (`fctlab.replicate.Replicated`)."""
        p = self.points[point]
        return merge([self.store.get(r.key) for r in p.runs], [r.key for r in p.runs])

    def stored(self, point: int) -> bool:
        """Every run of the point is in the store (none failed)."""
        return all(self.store.has(r.key) for r in self.points[point].runs)

    def flows(self) -> pd.DataFrame:
        """Every flow of every point whose runs are stored, with ``point``,
        ``replication`` and label columns."""
        frames = []
        for p in (p for p in self.points if self.stored(p.index)):
            for i, r in enumerate(p.runs):
                f = self.store.get(r.key).flows
                f.insert(0, "replication", i)
                f.insert(0, "point", p.index)
                for k, v in reversed(list(p.labels.items())):
                    f.insert(2, k, [v] * len(f) if not isinstance(v, (list, dict)) else json.dumps(v))
                frames.append(f)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def summary(self, **kw) -> pd.DataFrame:
        """Per point whose runs are stored: `fctlab.replicate.overall`
        (mean and percentile FCT, with confidence intervals where the point has
        replications)."""
        rows = []
        for p in (p for p in self.points if self.stored(p.index)):
            s = self.replicated(p.index).overall(**kw)
            s.insert(0, "point", p.index)
            for k, v in reversed(list(p.labels.items())):
                s.insert(1, k, _short(v) if isinstance(v, (list, dict)) else v)
            rows.append(s)
        return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()

    def query(self, sql: str) -> pd.DataFrame:
        return self.store.query(sql)

    def failure_line(self) -> str:
        """One line: how many runs failed, and the first one's point and error."""
        where = {r.key: (p.index, p.label()) for p in self.points for r in p.runs}
        k, msg = next(iter(self.failed.items()))
        total = len({r.key for p in self.points for r in p.runs})
        return f"{len(self.failed)} of {total} runs failed; first: point {where[k][0]} ({where[k][1]}): {msg}"


def run_sweep(
    spec,
    *,
    store=None,
    scheduler=None,
    workers: int | None = None,
    progress: bool = True,
    name: str | None = None,
    dry_run: bool = False,
    raise_failures: bool = True,
) -> SweepResult:
    """Run a sweep (see the module doc) and return a `SweepResult`.

    - ``spec``: a spec or scenario (path, TOML text or dict).
    - ``store``: the results directory (default: the spec's ``store``, else ``./store``).
    - ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a
      ``distributed.Client``; without it, a local process pool of ``workers``
      processes (default: every core).
    - ``progress``: a progress line on stderr.
    - ``dry_run``: expand and validate only; nothing runs.
    - ``raise_failures``: raise `SweepError` at the end if some runs
      failed (else they are in ``result.failed``).

    Raises ConfigError (naming point and key) before running anything if a point
    is invalid. A run that fails (an engine error, a worker's exception) is
    recorded and the other runs go on; see ``raise_failures``.
    """
    from ..store import Store

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
    todo, damaged = [], []
    for key, r in runs.items():
        why = st.verify(key)
        if why is None:
            res.skipped.append(key)
        else:
            damaged += [key] if why != "missing" else []
            todo.append(r)
    if dry_run:
        return res
    for key in damaged:  # moved aside (kept for inspection) and run again
        st.quarantine(key)
    st.clean_tmp()
    record = _record(s, points)
    st.write_sweep(s["name"], record)
    _execute(res, todo, len(runs), scheduler, workers, progress)
    _finish_record(record, res, scheduler)
    st.write_sweep(s["name"], record)
    if res.failed and raise_failures:
        raise SweepError(res.failure_line())
    return res


def _record(s: dict, points: list) -> dict:
    """The sweep's record in the store (``sweeps/<name>.json``)."""
    from .. import __version__

    return {
        "name": s["name"],
        "fctlab_version": __version__,
        "source": s["source"],
        "description": s["description"],
        "base": s["base"],
        "axes": s["axes"],
        "linked": s["linked"],
        # the record is written with sorted keys: the axes' order as given
        "axis_order": list(s["axes"]) + [k for t in s["linked"].values() for k in t],
        "seeds": s["seeds"],
        "replications": s["replications"],
        "started": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "points": [
            {
                "index": p.index,
                "labels": p.labels,
                "group": p.group,
                "replications": p.replications,
                "run_keys": [r.key for r in p.runs],
            }
            for p in points
        ],
    }


def _finish_record(record: dict, res: SweepResult, scheduler) -> None:
    record["finished"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    record["wall_s"] = res.wall_s
    record["scheduler"] = (
        None if scheduler is None else scheduler if isinstance(scheduler, str) else "dask.distributed.Client"
    )
    record["failed"] = res.failed


class _Callbacks:
    """What the executors call: a run's live progress, its files, its failure."""

    def __init__(self, res: SweepResult, bar: SweepProgress | None):
        self.res, self.bar = res, bar

    def on_live(self, key, pkts, frac) -> None:
        if self.bar:
            self.bar.live(key, pkts, frac)
            self.bar.draw()

    def on_done(self, task: dict, out: dict) -> None:
        from .. import __version__

        if out["version"] != __version__:
            self.on_fail(task, RuntimeError(f"the worker runs fctlab {out['version']}, this sweep {__version__}"))
            return
        self.res.store.put(out["key"], out["files"])
        self.res.ran.append(out["key"])
        if self.bar:
            self.bar.finished(out["key"], out["data_delivered"])
            self.bar.draw()

    def on_fail(self, task: dict, e: BaseException) -> None:
        text = str(e).strip()
        msg = text.splitlines()[0] if text else type(e).__name__
        self.res.failed[task["key"]] = msg if isinstance(e, TaskError) else f"{type(e).__name__}: {msg}"
        if self.bar:
            self.bar.finished(task["key"], 0, ok=False)
            self.bar.draw(force=True)


def _execute(res: SweepResult, todo: list, total: int, scheduler, workers, progress: bool) -> None:
    """Run the runs ``todo`` locally or on Dask, storing each as it finishes."""
    client, own_client = _dask_client(scheduler) if scheduler is not None and todo else (None, False)
    bar = SweepProgress(res.name, total=total, stored=len(res.skipped)) if progress else None
    cb = _Callbacks(res, bar)
    t0 = time.monotonic()
    payloads = [r.payload() for r in todo]
    try:
        if payloads and client is not None:
            _execute_dask(payloads, client, cb.on_done, cb.on_fail)
        elif payloads:
            _execute_local(payloads, _local_workers(workers), cb.on_done, cb.on_live, cb.on_fail)
    finally:
        if bar:
            bar.close()
        if own_client:
            client.close()
        res.wall_s = time.monotonic() - t0


sweep = run_sweep


def replicate(
    config,
    replications: int | None = None,
    *,
    store=None,
    scheduler=None,
    workers: int | None = None,
    progress: bool = True,
) -> Replicated:
    """Run ``config`` as ``replications`` independent replications (default: its
    own ``replications`` key) in parallel, locally or on a Dask cluster, and merge
    them (`fctlab.replicate.Replicated`). Called as ``fctlab.replicate(config, K)``.

    With ``store`` (a path) finished replications are kept there and reused;
    without, they go to a temporary store deleted once they are merged in memory.
    Equivalent to a sweep with no axes (`run_sweep`).
    """
    from ..config import load_config

    cfg = load_config(config)
    if replications is not None:
        cfg.pop("replications", None)
        cfg["replications"] = check_replications(replications)
    if store is None:  # a private store, gone once the results are in memory
        import tempfile

        with tempfile.TemporaryDirectory(prefix="fctlab-replicate-") as d:
            return run_sweep(
                {"base": cfg}, store=d, scheduler=scheduler, workers=workers, progress=progress
            ).replicated(0)
    return run_sweep({"base": cfg}, store=store, scheduler=scheduler, workers=workers, progress=progress).replicated(0)


class _CallableModule(types.ModuleType):
    """``fctlab.sweep(spec, ...)`` calls `run_sweep`; the module's other
    names stay reachable (``fctlab.sweep.expand``, ``fctlab.sweep.load_spec``)."""

    def __call__(self, *args, **kwargs):
        return run_sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

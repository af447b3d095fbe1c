"""A results store: every finished run on disk, keyed by what produced it, and a
DuckDB catalog to query across runs.

Layout of a store directory::

    STORE/
      runs/ab/<key>/        one finished run (the key is 32 hex digits, ab its first two)
        flows.parquet       exactly as ``fctlab run --out`` writes them
        series.parquet
        prefixes.parquet    only for runs with measuring flows
        size_stats.parquet  only for runs that asked for metrics.size_stats
        probes.parquet      only for runs with probe sources
        meta.json           config, seed, fctlab version, wall time, ... (+ "store" block)
        manifest.json       size and SHA-256 of the files above; written last
      sweeps/<name>.json    the points of each sweep run into this store
      tmp/                  runs being written (never read)
      corrupt/              results that failed verification, moved aside and rerun

The key of a run is the SHA-256 of ``{"config": ..., "seed": ..., "fctlab_version": ...}``
in canonical JSON (`run_key`), so the same scenario and seed under the same
fctlab version always land in the same place, and a sweep can skip what is there.

A run is written into ``tmp/`` (the files, then the manifest, each fsync'd),
then moved into ``runs/`` with one ``rename``: a directory under ``runs/`` is either
complete or absent, whatever moment the writer is killed at. On every read the
manifest is checked against the files (size and SHA-256), and only the files
it lists are read; a result that fails is left out and named
(`Store.damaged`), and is moved to ``corrupt/`` by the next sweep, which
runs it again.

A run directory written by ``fctlab run --out DIR`` has the same layout as
one run of a store; `open` accepts it too, as a store of that one run.

    >>> st = fctlab.store.open("store")
    >>> st.query("SELECT scheme, avg(fct_ns) FROM flows GROUP BY 1")
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..config import to_json
from ..rundir import FILES, MANIFEST, OPTIONAL_FILES, RunDirError, fsync_dir, is_run_dir, read_manifest, verify
from .columns import _defaults as _defaults  # noqa: F401 - used by the tests
from .columns import _typed as _typed  # noqa: F401
from .columns import column_name, config_columns, flatten, runs_frame

FORMAT = 1

__all__ = [
    "Store",
    "StoreError",
    "open",
    "run_key",
    "flatten",
    "column_name",
    "config_columns",
    "FILES",
    "OPTIONAL_FILES",
    "MANIFEST",
]


class StoreError(Exception):
    """A store that cannot be used (not a directory, a bad query, ...)."""


def run_key(config: Mapping[str, Any], version: str | None = None) -> str:
    """The store key of a run: 32 hex digits of SHA-256 over the canonical JSON of
    (engine config, seed, fctlab version). ``config`` is what the engine is given
    (no sweep-level keys such as ``replications``)."""
    if version is None:
        from .. import __version__ as version  # type: ignore[no-redef]
    seed = int(config.get("seed", 0))
    text = to_json({"config": dict(config), "seed": seed, "fctlab_version": version})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _fsync_write(path: Path, data: bytes) -> None:
    with path.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


class Store:
    """A results directory. Create with `open`."""

    def __init__(self, path: os.PathLike | str, *, create: bool = True):
        self.path = Path(path).resolve()
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"store: {self.path} exists and is not a directory")
        self._con = None
        self._ok_cache: dict = {}
        if create:
            for d in ("runs", "tmp", "sweeps"):
                (self.path / d).mkdir(parents=True, exist_ok=True)

    def __repr__(self) -> str:
        return f"fctlab.store.Store({str(self.path)!r})"

    def __iter__(self):
        return iter(self.keys())

    # -- locations
    def run_dir(self, key: str) -> Path:
        return self.path / "runs" / key[:2] / key

    def keys(self) -> list:
        """Keys of every run directory present (verified or not), sorted."""
        runs = self.path / "runs"
        if not runs.is_dir():
            return []
        return sorted(p.name for sub in runs.iterdir() if sub.is_dir() for p in sub.iterdir() if p.is_dir())

    # -- integrity
    def _manifest(self, key: str) -> dict | str:
        """The manifest of run ``key``, or why there is none to trust."""
        try:
            man = read_manifest(self.run_dir(key))
        except RunDirError as e:
            return str(e).split(": ", 1)[-1]
        if man is None:
            return "no manifest (half-written)"
        if man.get("key") != key:
            return "manifest does not describe this run"
        return man

    def verify(self, key: str) -> str | None:
        """None if the stored run ``key`` is complete and intact, else why not
        (``"missing"``, or what failed: manifest, size, checksum, key)."""
        d = self.run_dir(key)
        if not d.is_dir():
            return "missing"
        man = self._manifest(key)
        if isinstance(man, str):
            return man
        why = verify(d, man, hashes=False)
        if why:
            return why
        names = list(FILES) + [n for n in OPTIONAL_FILES if n in man["files"]]
        sig = tuple((n, (d / n).stat().st_size, (d / n).stat().st_mtime_ns, (d / n).stat().st_ino) for n in names)
        if self._ok_cache.get(key, (None,))[0] == sig:
            return None
        why = verify(d, man)
        if why is None:
            self._ok_cache[key] = (sig, tuple(names))
        return why

    def has(self, key: str) -> bool:
        """True if run ``key`` is stored and intact."""
        return self.verify(key) is None

    def files(self, key: str) -> tuple:
        """The files of intact run ``key`` that its manifest lists."""
        if self.verify(key) is not None:
            return ()
        return self._ok_cache[key][1]

    def damaged(self) -> dict:
        """key -> why, for every run present that fails verification (left out
        of `runs`, `query` and reports)."""
        out = {}
        for k in self.keys():
            why = self.verify(k)
            if why is not None and why != "missing":
                out[k] = why
        return out

    def quarantine(self, key: str) -> Path | None:
        """Move a damaged run out of ``runs/`` into ``corrupt/`` (kept for inspection)."""
        d = self.run_dir(key)
        if not d.exists():
            return None
        dest = self.path / "corrupt" / f"{key}.{int(time.time())}.{uuid.uuid4().hex[:6]}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(d, dest)
        except FileNotFoundError:
            return None
        self._ok_cache.pop(key, None)
        self._con = None
        return dest

    # -- writing
    def put(self, key: str, files: Mapping[str, bytes]) -> Path:
        """Store one run atomically from its file contents (``flows.parquet``,
        ``series.parquet``, ``meta.json``, and ``prefixes.parquet``,
        ``size_stats.parquet`` and ``probes.parquet`` if given). If an intact
        copy is already there (a concurrent writer), it is kept and this one
        dropped; a damaged one is moved to ``corrupt/`` first. Returns the
        run's directory."""
        missing = [n for n in FILES if n not in files]
        if missing:
            raise StoreError(f"store.put: missing {', '.join(missing)}")
        tmp_root = self.path / "tmp"
        tmp_root.mkdir(parents=True, exist_ok=True)
        tmp = tmp_root / f"{key}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            man = {"format": FORMAT, "key": key, "files": {}}
            for name in list(FILES) + [n for n in OPTIONAL_FILES if n in files]:
                data = files[name]
                _fsync_write(tmp / name, data)
                man["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            _fsync_write(tmp / MANIFEST, (json.dumps(man, indent=1, sort_keys=True) + "\n").encode())
            fsync_dir(tmp)
            return self._move_in(tmp, key)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

    def _move_in(self, tmp: Path, key: str) -> Path:
        dest = self.run_dir(key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            try:
                os.rename(tmp, dest)  # atomic; fails if dest exists and is not empty
                fsync_dir(dest.parent)
                self._con = None
                return dest
            except OSError:
                if not dest.exists():
                    continue
                if self.has(key):
                    return dest
                self.quarantine(key)
        raise StoreError(f"store: could not move run {key} into place")

    def clean_tmp(self, older_than_s: float = 3600.0) -> int:
        """Remove leftovers of writers killed mid-write (older than ``older_than_s``)."""
        n = 0
        now = time.time()
        for p in (self.path / "tmp").glob("*"):
            try:
                if now - p.stat().st_mtime > older_than_s:
                    shutil.rmtree(p, ignore_errors=True)
                    n += 1
            except FileNotFoundError:
                pass
        return n

    # -- reading
    def get(self, key: str):
        """The stored run as a `fctlab.Result`; raises StoreError if it is
        missing or fails verification (a damaged result is never read)."""
        from ..result import Result

        why = self.verify(key)
        if why:
            raise StoreError(f"store: run {key} {'is missing' if why == 'missing' else 'is damaged: ' + why}")
        return Result.read(self.run_dir(key), check=False)

    def meta(self, key: str) -> dict:
        why = self.verify(key)
        if why:
            raise StoreError(f"store: run {key}: {why}")
        return json.loads((self.run_dir(key) / "meta.json").read_text())

    def runs(self, *, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """One row per intact run: key, seed, version, wall time, counts, whether
        it was interrupted, the replication it belongs to, and every config key
        as a column (dotted keys with ``.``/``[i]`` turned into ``_``, e.g.
        ``transport_scheme``, ``traffic_0_load``; absent keys hold the catalog
        default)."""
        return self._runs_frame(self._intact(keys))

    def _intact(self, keys: Iterable[str] | None = None) -> list:
        return [k for k in (self.keys() if keys is None else keys) if self.verify(k) is None]

    def _runs_frame(self, keys: list) -> pd.DataFrame:
        metas = [(k, json.loads((self.run_dir(k) / "meta.json").read_text()), str(self.run_dir(k))) for k in keys]
        return runs_frame(metas)

    # -- SQL
    def connect(self):
        """A DuckDB connection holding the catalog (see `query`)."""
        if self._con is None:
            from .catalog import build

            keys = self._intact()
            self._con = build(self, keys, self._runs_frame(keys))
        return self._con

    def query(self, sql: str, params: list | None = None) -> pd.DataFrame:
        """Run SQL over the catalog and return a DataFrame. Tables and views:

        - ``runs``: one row per intact run (see `runs`); ``run_key`` identifies it.
        - ``flows``: every flow record of every run, with the run's columns beside
          it (``run_key``, ``seed``, ``replication``, config keys, ...). Each
          config key appears as ``section_key`` (``transport_scheme``,
          ``traffic_0_load``) and, where its last part is unique among the
          store's config keys and clashes with no flow column, by that last part
          alone (``scheme``, ``load``, ``init_cwnd_pkts``).
        - ``series``: the time series of every run, with the same run columns.
        - ``prefixes``: the prefix times of the measuring flows of every run
          (``flow_id``, ``k``, ``fct_ns``), with the same run columns.
        - ``size_stats``: the per-size FCT statistics of every run that kept
          them, with the same run columns (quantile columns of all runs).
        - ``probes``: the probe packets of every run with probe sources.
        - ``sweep_points``: (sweep, point, replication, run_key) for every sweep.

        Fairness (`fctlab.fairness`): aggregate macros ``jain_index(x)``
        and ``max_min_ratio(x)``; table macros ``flow_rates(metric, t0_ns,
        t1_ns)`` (run_key, element, rate: each flow's mean per-flow series over
        t0 < t <= t1) and ``fairness(metric, t0_ns, t1_ns)`` (run_key, flows,
        jain, max_min), e.g. ``SELECT * FROM fairness('throughput_bps', 0, 10e9)``.

        Slowdown (`fctlab.slowdown`): ``SELECT * FROM slowdown_by_size()``
        (run_key, bin, flows, mean, p50, p95, p99 of ``fabric_slowdown`` in
        pFabric's size bins).

        The query reads the store and nothing else: only the files the runs'
        manifests list, through Arrow; DuckDB's own file access is off (no
        ``read_csv('...')``, ``COPY ... TO``, ``ATTACH`` or extensions). Damaged
        runs are left out (`damaged` names them).
        """
        try:
            import duckdb
        except ImportError:
            raise StoreError("query needs the duckdb package: pip install duckdb") from None

        con = self.connect()
        try:
            return con.execute(sql, params or []).df()
        except duckdb.Error as e:
            msg = str(e).strip().splitlines()
            raise StoreError(f"query: {msg[0] if msg else e}") from None

    def sweeps(self) -> dict:
        """name -> the sweep record written by `fctlab.sweep`."""
        out = {}
        for p in sorted((self.path / "sweeps").glob("*.json")):
            try:
                out[p.stem] = json.loads(p.read_text())
            except (OSError, ValueError):
                continue
        return out

    def write_sweep(self, name: str, record: dict) -> Path:
        p = self.path / "sweeps" / f"{name}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
        os.replace(tmp, p)
        return p


class RunDirStore(Store):
    """A run directory (``fctlab run --out DIR``) seen as a store of that one
    run, read-only: ``query``, ``report`` and ``compare`` take it as they take
    a store."""

    def __init__(self, path: os.PathLike | str):
        super().__init__(path, create=False)
        try:
            man = read_manifest(self.path)
        except RunDirError as e:
            raise StoreError(str(e)) from None
        if man is not None and isinstance(man.get("key"), str):
            self._key = man["key"]
        else:  # written before run directories had manifests
            m = json.loads((self.path / "meta.json").read_text())
            self._key = run_key(m.get("config", {}), m.get("fctlab_version"))

    def __repr__(self) -> str:
        return f"fctlab.store.RunDirStore({str(self.path)!r})"

    def run_dir(self, key: str) -> Path:
        return self.path if key == self._key else self.path / "runs" / key[:2] / key

    def keys(self) -> list:
        return [self._key]

    def verify(self, key: str) -> str | None:
        if key == self._key and read_manifest(self.path) is None:
            missing = [n for n in FILES if not (self.path / n).is_file()]
            names = (*FILES, *[n for n in OPTIONAL_FILES if (self.path / n).is_file()])
            self._ok_cache[key] = (None, names)
            return f"{missing[0]} missing" if missing else None
        return super().verify(key)

    def put(self, key: str, files: Mapping[str, bytes]) -> Path:
        raise StoreError(f"{self.path} is a run directory, not a store: sweep into a store directory instead")

    def quarantine(self, key: str) -> Path | None:
        return None

    def sweeps(self) -> dict:
        return {}


def open(path: os.PathLike | str = "store", *, create: bool = False) -> Store:  # noqa: A001 - mirrors io.open
    """Open the results store at ``path`` (``create=True`` makes it if absent),
    or the run directory at ``path`` as a store of that one run."""
    p = Path(path)
    if not create and not (p / "runs").is_dir():
        if is_run_dir(p):
            return RunDirStore(p)
        raise StoreError(
            f"no fctlab store or run at {p} (a store has {p / 'runs'}/, a run directory meta.json and "
            "flows.parquet): run a sweep into it, or fctlab run --out into it, first"
        )
    return Store(p, create=create)

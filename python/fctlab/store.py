"""A results store: every finished run on disk, keyed by what produced it, and a
DuckDB catalog to query across runs.

Layout of a store directory::

    STORE/
      runs/ab/<key>/        one finished run (the key is 32 hex digits, ab its first two)
        flows.parquet       exactly as ``fctlab run --out`` writes them
        series.parquet
        prefixes.parquet    only for runs with measuring flows
        size_stats.parquet  only for runs that asked for metrics.size_stats
        meta.json           config, seed, fctlab version, wall time, ... (+ "store" block)
        manifest.json       size and SHA-256 of the files above; written last
      sweeps/<name>.json    the points of each sweep run into this store
      tmp/                  runs being written (never read)
      corrupt/              results that failed verification, moved aside and rerun

The key of a run is the SHA-256 of ``{"config": ..., "seed": ..., "fctlab_version": ...}``
in canonical JSON (:func:`run_key`), so the same scenario and seed under the same
fctlab version always land in the same place, and a sweep can skip what is there.

A run is written into ``tmp/`` (the three files, then the manifest, each fsync'd),
then moved into ``runs/`` with one ``rename``: a directory under ``runs/`` is either
complete or absent, whatever moment the writer is killed at. On every read the
manifest is checked against the files (size and SHA-256); a result that fails is
treated as missing (:meth:`Store.verify` says why) and is moved to ``corrupt/`` by
the next sweep, which runs it again.

    >>> st = fctlab.store.open("store")
    >>> st.query("SELECT scheme, avg(fct_ns) FROM flows GROUP BY 1")
"""

from __future__ import annotations

import builtins
import hashlib
import json
import math
import os
import shutil
import time
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from .config import to_json

FORMAT = 1
FILES = ("flows.parquet", "series.parquet", "meta.json")
#: Files a run has only when it produced those tables; the manifest lists them.
OPTIONAL_FILES = ("prefixes.parquet", "size_stats.parquet")
MANIFEST = "manifest.json"

#: Flow-table columns; config aliases never shadow them.
_FLOW_COLS = {
    "flow_id",
    "sender",
    "size_bytes",
    "size_pkts",
    "start_ns",
    "finish_ns",
    "fct_ns",
    "acked_ns",
    "retransmits",
    "drops",
    "completed",
    "ideal_ns",
}
_SERIES_COLS = {"t_ns", "metric", "element", "value"}
_PREFIX_COLS = {"flow_id", "k", "fct_ns"}
_SIZE_STATS_COLS = {"size_pkts", "flows_started", "flows_completed", "mean_fct_ns", "min_fct_ns", "max_fct_ns"}
#: Columns of the ``runs`` table that come from meta.json rather than the config.
_RUN_COLS = [
    "run_key",
    "seed",
    "fctlab_version",
    "wall_s",
    "flows_total",
    "flows_completed",
    "events_processed",
    "packets_forwarded",
    "data_delivered",
    "end_ns",
    "replication",
    "replications",
    "group_key",
    "base_seed",
    "created",
    "path",
]


def _int(s: pd.Series) -> pd.Series:
    return pd.array(
        [None if v is None or (isinstance(v, float) and math.isnan(v)) else int(v) for v in s], dtype="Int64"
    )


def _float(s: pd.Series) -> pd.Series:
    return pd.to_numeric(s, errors="coerce").astype("float64")


def _str(s: pd.Series) -> pd.Series:
    return s.map(lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else str(v)).astype("string")


_META_TYPES = {
    "run_key": _str,
    "seed": _int,
    "fctlab_version": _str,
    "wall_s": _float,
    "flows_total": _int,
    "flows_completed": _int,
    "events_processed": _int,
    "packets_forwarded": _int,
    "data_delivered": _int,
    "end_ns": _int,
    "replication": _int,
    "replications": _int,
    "group_key": _str,
    "base_seed": _int,
    "created": _str,
    "path": _str,
}


class StoreError(Exception):
    """A store that cannot be used (not a directory, a bad query, ...)."""


# ----------------------------------------------------------------------------- keys


def run_key(config: Mapping[str, Any], version: str | None = None) -> str:
    """The store key of a run: 32 hex digits of SHA-256 over the canonical JSON of
    (engine config, seed, fctlab version). ``config`` is what the engine is given
    (no sweep-level keys such as ``replications``)."""
    if version is None:
        from . import __version__ as version  # type: ignore[no-redef]
    seed = int(config.get("seed", 0))
    text = to_json({"config": dict(config), "seed": seed, "fctlab_version": version})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with builtins.open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fsync_write(path: Path, data: bytes) -> None:
    with builtins.open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- flattening


def flatten(obj: Any, prefix: str = "") -> dict:
    """``{"a": {"b": 1}, "t": [{"x": 2}]}`` -> ``{"a.b": 1, "t[0].x": 2}``.

    Lists of tables are indexed; lists of plain values stay lists (one column).
    """
    out: dict = {}
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and obj and all(isinstance(v, Mapping) for v in obj):
        for i, v in enumerate(obj):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = obj
    return out


def column_name(dotted: str) -> str:
    """``traffic[0].sizes.mean_pkts`` -> ``traffic_0_sizes_mean_pkts``."""
    return dotted.replace("[", "_").replace("]", "").replace(".", "_")


def _defaults() -> dict:
    """Catalog defaults that can stand for an absent key without changing its type:
    plain values and registered names (``tcp-newreno``, ``droptail``), not
    descriptions such as ``10 x bottleneck_bps`` nor values the engine derives
    (``None``)."""
    from .result import catalog

    cat = catalog()
    names = {item["name"] for sec in ("schemes", "queues", "topologies") for item in cat.get(sec, [])}
    out = {"seed": 0}
    for p in cat.get("parameters", []):
        d = p["default"]
        if d is None or (isinstance(d, str) and d not in names):
            continue
        out[p["key"]] = d
    return out


def _resolved(config: Mapping[str, Any]) -> dict:
    """The engine's :func:`fctlab.describe` of ``config`` (empty if the engine refuses it)."""
    from .config import ConfigError
    from .result import describe

    try:
        return describe(config)
    except ConfigError:
        return {}


def config_columns(
    config: Mapping[str, Any],
    defaults: Mapping[str, Any] | None = None,
    resolved: Mapping[str, Any] | None = None,
) -> dict:
    """The flattened config with catalog defaults filled in for absent keys, and
    the buffer as the engine resolved it (``network.buffer_pkts``; ``resolved`` is
    :func:`fctlab.describe` of the config, asked of the engine if not given). Of
    the two buffer keys only the one the engine sized the buffer from takes a
    default."""
    flat = flatten(dict(config))
    eng = _resolved(config) if resolved is None else resolved
    if "buffer_pkts" in eng:
        flat.setdefault("network.buffer_pkts", eng["buffer_pkts"])
    for k, v in (defaults or {}).items():
        if k in flat or (k.startswith("network.buffer_") and k != eng.get("buffer_key")):
            continue
        flat[k] = v
    return flat


# --------------------------------------------------------------------------- store


class Store:
    """A results directory. Create with :func:`open`."""

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

    # -- locations
    def run_dir(self, key: str) -> Path:
        return self.path / "runs" / key[:2] / key

    def keys(self) -> list:
        """Keys of every run directory present (verified or not), sorted."""
        runs = self.path / "runs"
        if not runs.is_dir():
            return []
        return sorted(p.name for sub in runs.iterdir() if sub.is_dir() for p in sub.iterdir() if p.is_dir())

    def __iter__(self):
        """The keys of every run directory present, as :meth:`keys` (``for key in store``)."""
        return iter(self.keys())

    # -- integrity
    def verify(self, key: str) -> str | None:
        """None if the stored run ``key`` is complete and intact, else why not
        (``"missing"``, or what failed: manifest, size, checksum, key)."""
        d = self.run_dir(key)
        if not d.is_dir():
            return "missing"
        try:
            man = json.loads((d / MANIFEST).read_text())
        except FileNotFoundError:
            return "no manifest (half-written)"
        except (OSError, ValueError) as e:
            return f"unreadable manifest: {e}"
        if not isinstance(man, dict) or man.get("key") != key or not isinstance(man.get("files"), dict):
            return "manifest does not describe this run"
        sig = []
        names = list(FILES) + [n for n in OPTIONAL_FILES if n in man["files"]]
        for name in names:
            ent = man["files"].get(name)
            p = d / name
            if not isinstance(ent, dict):
                return f"manifest lacks {name}"
            try:
                st = p.stat()
            except FileNotFoundError:
                return f"{name} missing"
            if st.st_size != ent.get("bytes"):
                return f"{name} has {st.st_size} bytes, manifest says {ent.get('bytes')}"
            sig.append((name, st.st_size, st.st_mtime_ns, st.st_ino))
        sig = tuple(sig)
        if self._ok_cache.get(key) == sig:
            return None
        for name in names:
            if _sha256(d / name) != man["files"][name].get("sha256"):
                return f"{name} fails its SHA-256 check"
        self._ok_cache[key] = sig
        return None

    def has(self, key: str) -> bool:
        """True if run ``key`` is stored and intact."""
        return self.verify(key) is None

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
        ``series.parquet``, ``meta.json``, and ``prefixes.parquet`` and
        ``size_stats.parquet`` if given). If an intact copy is already there (a
        concurrent writer), it is kept and this one dropped; a damaged one is
        moved to ``corrupt/`` first. Returns the run's directory."""
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
            _fsync_dir(tmp)
            dest = self.run_dir(key)
            dest.parent.mkdir(parents=True, exist_ok=True)
            for _ in range(3):
                try:
                    os.rename(tmp, dest)  # atomic; fails if dest exists and is not empty
                    _fsync_dir(dest.parent)
                    self._con = None
                    return dest
                except OSError:
                    if not dest.exists():
                        continue
                    if self.has(key):
                        return dest
                    self.quarantine(key)
            raise StoreError(f"store: could not move run {key} into place")
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

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
        """The stored run as a :class:`fctlab.Result`; raises StoreError if it is
        missing or fails verification (a damaged result is never read)."""
        from .result import Result

        why = self.verify(key)
        if why:
            raise StoreError(f"store: run {key} {'is missing' if why == 'missing' else 'is damaged: ' + why}")
        return Result.read(self.run_dir(key))

    def meta(self, key: str) -> dict:
        why = self.verify(key)
        if why:
            raise StoreError(f"store: run {key}: {why}")
        return json.loads((self.run_dir(key) / "meta.json").read_text())

    def runs(self, *, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """One row per intact run: key, seed, version, wall time, counts, the
        replication it belongs to, and every config key as a column (dotted keys
        with ``.``/``[i]`` turned into ``_``, e.g. ``transport_scheme``,
        ``traffic_0_load``; absent keys hold the catalog default)."""
        return self._runs_frame(self._intact(keys))

    def _intact(self, keys: Iterable[str] | None = None) -> list:
        return [k for k in (self.keys() if keys is None else keys) if self.verify(k) is None]

    def _runs_frame(self, keys: list) -> pd.DataFrame:
        defaults = _defaults()
        rows = []
        for k in keys:
            m = json.loads((self.run_dir(k) / "meta.json").read_text())
            st = m.get("stats", {})
            rep = (m.get("store") or {}).get("replication") or {}
            row = {
                "run_key": k,
                "seed": m.get("seed"),
                "fctlab_version": m.get("fctlab_version"),
                "wall_s": m.get("wall_s"),
                "flows_total": m.get("flows_total"),
                "flows_completed": m.get("flows_completed"),
                "events_processed": m.get("events_processed"),
                "packets_forwarded": m.get("packets_forwarded"),
                "data_delivered": st.get("data_delivered"),
                "end_ns": st.get("end_ns"),
                "replication": rep.get("index"),
                "replications": rep.get("of"),
                "group_key": rep.get("group"),
                "base_seed": rep.get("base_seed"),
                "created": (m.get("store") or {}).get("created"),
                "path": str(self.run_dir(k)),
            }
            cfg = config_columns(m.get("config", {}), defaults)
            for dk, v in cfg.items():
                if dk == "seed":
                    continue
                row["cfg:" + dk] = v
            rows.append(row)
        df = pd.DataFrame(rows, columns=None if rows else _RUN_COLS)
        # typed columns; config keys renamed to column names
        rename = {}
        for c in list(df.columns):
            if c.startswith("cfg:"):
                name = column_name(c[4:])
                if name in df.columns or name in rename.values():
                    name = "cfg_" + name
                rename[c] = name
        df = df.rename(columns=rename)
        for c in df.columns:
            df[c] = _META_TYPES[c](df[c]) if c in _META_TYPES else _typed(df[c])
        df.attrs["config_keys"] = {name: c[4:] for c, name in rename.items()}
        return df

    # -- SQL
    def connect(self):
        """A DuckDB connection holding the catalog (see :meth:`query`)."""
        if self._con is None:
            self._con = _build_catalog(self)
        return self._con

    def query(self, sql: str, params: list | None = None) -> pd.DataFrame:
        """Run SQL over the catalog and return a DataFrame. Tables and views:

        - ``runs``: one row per intact run (see :meth:`runs`); ``run_key`` identifies it.
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
        - ``sweep_points``: (sweep, point, replication, run_key) for every sweep.

        Fairness (:mod:`fctlab.fairness`): aggregate macros ``jain_index(x)``
        and ``max_min_ratio(x)``; table macros ``flow_rates(metric, t0_ns,
        t1_ns)`` (run_key, element, rate: each flow's mean per-flow series over
        t0 < t <= t1) and ``fairness(metric, t0_ns, t1_ns)`` (run_key, flows,
        jain, max_min), e.g. ``SELECT * FROM fairness('throughput_bps', 0, 10e9)``.

        Slowdown (:mod:`fctlab.slowdown`): ``SELECT * FROM slowdown_by_size()``
        (run_key, bin, flows, mean, p50, p95, p99 of ``fabric_slowdown`` in
        pFabric's size bins).
        """
        import duckdb

        con = self.connect()
        try:
            return con.execute(sql, params or []).df()
        except duckdb.Error as e:
            msg = str(e).strip().splitlines()
            raise StoreError(f"query: {msg[0] if msg else e}") from None

    def sweeps(self) -> dict:
        """name -> the sweep record written by :func:`fctlab.sweep`."""
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
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
        os.replace(tmp, p)
        return p


def _typed(s: pd.Series) -> pd.Series:
    """A column DuckDB can hold: numbers, booleans or strings (lists as JSON)."""
    vals = [v for v in s.tolist() if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return s.astype("string")
    if all(isinstance(v, bool) for v in vals):
        return s.astype("boolean")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals) and all(-(2**63) <= v < 2**63 for v in vals):
        return s.astype("Int64")
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return s.astype("float64")
    return s.map(
        lambda v: (
            None
            if v is None or (isinstance(v, float) and math.isnan(v))
            else v
            if isinstance(v, str)
            else json.dumps(v, sort_keys=True)
        )
    ).astype("object")


def _sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _ident(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def _build_catalog(store: Store):
    import duckdb

    keys = store._intact()
    runs = store._runs_frame(keys)
    con = duckdb.connect(":memory:")
    con.register("_runs_df", runs)
    con.execute("CREATE TABLE runs AS SELECT * FROM _runs_df")
    con.unregister("_runs_df")

    # sweep membership
    sp = []
    for name, rec in store.sweeps().items():
        for pt in rec.get("points", []):
            for r, k in enumerate(pt.get("run_keys", [])):
                sp.append(
                    {
                        "sweep": name,
                        "point": pt.get("index"),
                        "replication": r if len(pt.get("run_keys", [])) > 1 else None,
                        "run_key": k,
                        "labels": json.dumps(pt.get("labels", {}), sort_keys=True),
                    }
                )
    spdf = pd.DataFrame(sp, columns=["sweep", "point", "replication", "run_key", "labels"])
    spdf["point"] = spdf["point"].astype("Int64")
    spdf["replication"] = spdf["replication"].astype("Int64")
    spdf["sweep"] = spdf["sweep"].astype("object")
    spdf["run_key"] = spdf["run_key"].astype("object")
    spdf["labels"] = spdf["labels"].astype("object")
    con.register("_sp_df", spdf)
    con.execute("CREATE TABLE sweep_points AS SELECT * FROM _sp_df")
    con.unregister("_sp_df")

    run_cols = [c for c in runs.columns if c != "path"]
    config_keys = runs.attrs.get("config_keys", {})
    # short aliases: the last part of a config key, when unique and clashing with nothing
    last: dict = {}
    for col, dotted in config_keys.items():
        last.setdefault(_leaf(dotted), []).append(col)
    taken = set(run_cols) | _FLOW_COLS | _SERIES_COLS | _PREFIX_COLS | _SIZE_STATS_COLS | {"filename"}
    aliases = {leaf: cols[0] for leaf, cols in last.items() if len(cols) == 1 and leaf not in taken}
    sel_runs = ", ".join(f"r.{_ident(c)}" for c in run_cols)
    sel_alias = "".join(f", r.{_ident(src)} AS {_ident(a)}" for a, src in sorted(aliases.items()))

    for table in ("flows", "series", "prefixes", "size_stats"):
        files = [str(Path(p) / f"{table}.parquet") for p in runs["path"]] if len(runs) else []
        if table in ("prefixes", "size_stats"):
            files = [f for f in files if Path(f).exists()]
        if files:
            lst = "[" + ", ".join(_sql_str(f) for f in files) + "]"
            con.execute(
                f"CREATE VIEW {table} AS SELECT t.* EXCLUDE (filename), {sel_runs}{sel_alias} "
                f"FROM read_parquet({lst}, filename = true, union_by_name = true) t "
                f"JOIN (SELECT *, path || '/{table}.parquet' AS _file FROM runs) r ON t.filename = r._file"
            )
        else:
            empty = _empty_frame(table)
            con.register(f"_{table}_empty", empty)
            con.execute(f"CREATE TABLE _{table}_e AS SELECT * FROM _{table}_empty")
            con.unregister(f"_{table}_empty")
            con.execute(
                f"CREATE VIEW {table} AS SELECT t.*, {sel_runs}{sel_alias} FROM _{table}_e t JOIN runs r ON false"
            )
    from .fairness import SQL_MACROS
    from .slowdown import SQL_MACROS as SLOWDOWN_MACROS

    for m in SQL_MACROS + SLOWDOWN_MACROS:
        con.execute(m)
    return con


def _leaf(dotted: str) -> str:
    """The last part of a dotted key: ``traffic[0].sizes.mean_pkts`` -> ``mean_pkts``."""
    return dotted.rsplit(".", 1)[-1].split("[", 1)[0]


def _empty_frame(table: str) -> pd.DataFrame:
    if table in ("prefixes", "size_stats"):
        from .result import empty_prefixes, empty_size_stats

        return empty_prefixes() if table == "prefixes" else empty_size_stats()
    if table == "flows":
        from .result import FLOW_COLUMNS

        df = pd.DataFrame({c: pd.Series([], dtype="Int64") for c in FLOW_COLUMNS})
        df["completed"] = df["completed"].astype("boolean")
        df["scheme"] = df["scheme"].astype("object")
        return df
    return pd.DataFrame(
        {
            "t_ns": pd.Series([], dtype="Int64"),
            "metric": pd.Series([], dtype="object"),
            "element": pd.Series([], dtype="object"),
            "value": pd.Series([], dtype="float64"),
        }
    )


def open(path: os.PathLike | str = "store", *, create: bool = False) -> Store:  # noqa: A001 - mirrors io.open
    """Open the results store at ``path``; ``create=True`` makes it if absent."""
    p = Path(path)
    if not create and not (p / "runs").is_dir():
        raise StoreError(f"no fctlab store at {p} (expected {p / 'runs'}/; run a sweep into it first)")
    return Store(p, create=create)

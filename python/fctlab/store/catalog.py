"""The DuckDB catalog of a store: the ``runs`` and ``sweep_points`` tables and
the ``flows``, ``series``, ``prefixes``, ``size_stats`` and ``probes`` views.

The views read the runs' Parquet files through Arrow datasets that list
exactly the files each run's manifest names; DuckDB itself is then cut off
from the file system (``enable_external_access = false``, configuration
locked), so a query reads the store and nothing else: no other file, no
``COPY ... TO``, no ``ATTACH``, no extension."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

#: The per-run tables, each a view over the runs' ``<table>.parquet``.
TABLES = ("flows", "series", "prefixes", "size_stats", "probes")
#: Names a config column's short alias may not take (the tables' own columns;
#: a run's ``scheme`` column in ``flows`` and the ``scheme`` alias are the same
#: value wherever a run has one scheme).
_TAKEN = {
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
    "t_ns",
    "metric",
    "element",
    "value",
    "k",
    "flows_started",
    "flows_completed",
    "mean_fct_ns",
    "min_fct_ns",
    "max_fct_ns",
    "seq",
    "sent_ns",
    "one_way_ns",
    "rtt_ns",
    "filename",
}


def _ident(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def _leaf(dotted: str) -> str:
    """The last part of a dotted key: ``traffic[0].sizes.mean_pkts`` -> ``mean_pkts``."""
    return dotted.rsplit(".", 1)[-1].split("[", 1)[0]


def _sweep_points(store) -> pd.DataFrame:
    sp = []
    for name, rec in store.sweeps().items():
        for pt in rec.get("points", []):
            keys = pt.get("run_keys", [])
            for r, k in enumerate(keys):
                sp.append(
                    {
                        "sweep": name,
                        "point": pt.get("index"),
                        "replication": r if len(keys) > 1 else None,
                        "run_key": k,
                        "labels": json.dumps(pt.get("labels", {}), sort_keys=True),
                    }
                )
    df = pd.DataFrame(sp, columns=["sweep", "point", "replication", "run_key", "labels"])
    for c in ("point", "replication"):
        df[c] = df[c].astype("Int64")
    for c in ("sweep", "run_key", "labels"):
        df[c] = df[c].astype("object")
    return df


def _dataset(files: list, keys: list):
    """An Arrow dataset over ``files`` (one per run, ``keys`` parallel) with a
    ``run_key`` column, the files' schemas unified (a column missing from a
    file reads as null)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    schema = pa.unify_schemas([pq.read_schema(f) for f in files], promote_options="permissive")
    schema = schema.append(pa.field("run_key", pa.string()))
    return ds.FileSystemDataset.from_paths(
        [str(Path(f).resolve()) for f in files],
        schema=schema,
        format=ds.ParquetFileFormat(),
        filesystem=pa.fs.LocalFileSystem(),
        partitions=[pc.field("run_key") == k for k in keys],
    )


def _empty_frame(table: str) -> pd.DataFrame:
    from ..result import FLOW_COLUMNS, empty_prefixes, empty_probes, empty_size_stats

    if table in ("prefixes", "size_stats", "probes"):
        return {"prefixes": empty_prefixes, "size_stats": empty_size_stats, "probes": empty_probes}[table]()
    if table == "flows":
        df = pd.DataFrame({c: pd.Series([], dtype="Int64") for c in FLOW_COLUMNS})
        df["completed"] = df["completed"].astype("boolean")
        df["slowdown"] = df["slowdown"].astype("float64")
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


def _aliases(runs: pd.DataFrame) -> dict:
    """Short names of config columns: the last part of a config key, when it
    is unique and clashes with no other column."""
    last: dict = {}
    for col, dotted in runs.attrs.get("config_keys", {}).items():
        last.setdefault(_leaf(dotted), []).append(col)
    taken = set(runs.columns) | _TAKEN
    return {leaf: cols[0] for leaf, cols in last.items() if len(cols) == 1 and leaf not in taken}


def build(store, keys: list, runs: pd.DataFrame):
    """A DuckDB connection over the intact runs ``keys`` of ``store`` (``runs``
    is their table), cut off from the file system."""
    import duckdb

    from ..fairness import SQL_MACROS
    from ..slowdown import SQL_MACROS as SLOWDOWN_MACROS

    con = duckdb.connect(":memory:")
    con.register("_runs_df", runs)
    con.execute("CREATE TABLE runs AS SELECT * FROM _runs_df")
    con.unregister("_runs_df")
    con.register("_sp_df", _sweep_points(store))
    con.execute("CREATE TABLE sweep_points AS SELECT * FROM _sp_df")
    con.unregister("_sp_df")
    run_cols = [c for c in runs.columns if c != "path"]
    sel_runs = ", ".join(f"r.{_ident(c)}" for c in run_cols)
    sel_alias = "".join(f", r.{_ident(src)} AS {_ident(a)}" for a, src in sorted(_aliases(runs).items()))
    for table in TABLES:
        name = f"{table}.parquet"
        have = [(store.run_dir(k) / name, k) for k in keys if name in store.files(k)]
        if have:
            con.register(f"_{table}_ds", _dataset([f for f, _ in have], [k for _, k in have]))
            con.execute(
                f"CREATE VIEW {table} AS SELECT t.* EXCLUDE (run_key), {sel_runs}{sel_alias} "
                f"FROM _{table}_ds t JOIN runs r ON t.run_key = r.run_key"
            )
        else:
            con.register(f"_{table}_empty", _empty_frame(table))
            con.execute(f"CREATE TABLE _{table}_e AS SELECT * FROM _{table}_empty")
            con.unregister(f"_{table}_empty")
            con.execute(
                f"CREATE VIEW {table} AS SELECT t.*, {sel_runs}{sel_alias} FROM _{table}_e t JOIN runs r ON false"
            )
    for m in SQL_MACROS + SLOWDOWN_MACROS:
        con.execute(m)
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con

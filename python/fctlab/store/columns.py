"""The ``runs`` table of a store: one row per run, its meta data and every
config key as a column (flattened, with catalog defaults for absent keys)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

#: Columns of the ``runs`` table that come from meta.json rather than the config.
RUN_COLS = [
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
    "interrupted",
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


def _bool(s: pd.Series) -> pd.Series:
    return s.map(lambda v: None if v is None else bool(v)).astype("boolean")


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
    "interrupted": _bool,
    "replication": _int,
    "replications": _int,
    "group_key": _str,
    "base_seed": _int,
    "created": _str,
    "path": _str,
}


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
    from ..result import catalog

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
    """The engine's `fctlab.describe` of ``config`` (empty if the engine refuses it)."""
    from ..config import ConfigError
    from ..result import describe

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
    `fctlab.describe` of the config, asked of the engine if not given). Of
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


def _row(key: str, m: dict, path: str) -> dict:
    st = m.get("stats", {})
    rep = (m.get("store") or {}).get("replication") or {}
    return {
        "run_key": key,
        "seed": m.get("seed"),
        "fctlab_version": m.get("fctlab_version"),
        "wall_s": m.get("wall_s"),
        "flows_total": m.get("flows_total"),
        "flows_completed": m.get("flows_completed"),
        "events_processed": m.get("events_processed"),
        "packets_forwarded": m.get("packets_forwarded"),
        "data_delivered": st.get("data_delivered"),
        "end_ns": st.get("end_ns"),
        "interrupted": bool(st.get("interrupted", False)),
        "replication": rep.get("index"),
        "replications": rep.get("of"),
        "group_key": rep.get("group"),
        "base_seed": rep.get("base_seed"),
        "created": (m.get("store") or {}).get("created"),
        "path": path,
    }


def runs_frame(metas: list) -> pd.DataFrame:
    """The ``runs`` table from ``(key, meta, path)`` of each run; config keys
    become columns named by `column_name` (``df.attrs["config_keys"]``
    maps each back to its dotted key)."""
    defaults = _defaults()
    rows = []
    for key, m, path in metas:
        row = _row(key, m, path)
        for dk, v in config_columns(m.get("config", {}), defaults).items():
            if dk != "seed":
                row["cfg:" + dk] = v
        rows.append(row)
    df = pd.DataFrame(rows, columns=None if rows else RUN_COLS)
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

"""Sweep specs: loading a spec, dotted config paths, and the expansion of a
sweep into its points and runs, each validated by the engine before any runs.
(The spec format is described in `fctlab.sweep`.)"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import ConfigError, load_config, to_json
from ..replicate import check_replications, split

SPEC_KEYS = ("name", "base", "axes", "linked", "seeds", "replications", "store", "description")
#: The most runs one sweep may have (points x seeds x replications): each is
#: validated before any runs, and recorded in the store.
MAX_RUNS = 100_000
#: keys a scenario may carry that only the sweep layer understands
SWEEP_ONLY = ("seeds", "replications")


@dataclass
class Run:
    """One engine run of a sweep: a point, or one replication of it."""

    key: str  # store key
    config: dict  # what the engine gets
    point: int
    replication: int | None  # None when the point is not replicated
    replications: int
    group: str  # the point's group key (shared by its replications)
    base_seed: int

    def payload(self) -> dict:
        return {
            "key": self.key,
            "config": self.config,
            "replication": None
            if self.replication is None
            else {
                "index": self.replication,
                "of": self.replications,
                "group": self.group,
                "base_seed": self.base_seed,
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
        raise ConfigError(f'{field}: an axis is a dotted config key such as "traffic[0].load"', field)
    out: list = []
    for part in path.split("."):
        m = _TOKEN.match(part)
        if not m:
            raise ConfigError(
                f'{field}: {path!r} is not a config key path (parts are names, optionally indexed: "traffic[0].load")',
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
                raise ConfigError(
                    f"{field}: the base has {len(node)} entries in {where}, so [{p}] does not exist", field
                )
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
                    raise ConfigError(
                        f"{field}: the base has no {(where + '.' if where else '') + p} list to index", field
                    )
                node[p] = {}
            nxt = node[p]
            where = f"{where}.{p}" if where else p
        node = nxt


def _group_key(config: dict, replications: int) -> str:
    from .. import __version__

    text = to_json({"config": config, "replications": replications, "fctlab_version": __version__})
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _is_spec(d: Mapping) -> bool:
    return any(k in d for k in ("base", "axes", "linked"))


def _read(spec, base_dir: Path | None):
    """(raw dict, source file or None, base directory) of a spec given as a
    path, TOML text or dict."""
    source = None
    if isinstance(spec, (str, os.PathLike)) and not (
        isinstance(spec, str) and ("\n" in spec or "=" in spec) and not os.path.exists(spec)
    ):
        p = Path(spec)
        if not p.is_file():
            raise ConfigError(f"sweep spec not found: {p}", "")
        source = p
        base_dir = p.parent
    return load_config(spec), source, Path(base_dir or ".")


def _split(raw: dict, base_dir: Path) -> tuple:
    """(base scenario, the spec's own keys) of a spec or of a plain scenario."""
    if not _is_spec(raw):
        base = dict(raw)
        top = {k: base.pop(k) for k in ("name", "store", "description") if k in base}
    else:
        unknown = [k for k in raw if k not in SPEC_KEYS]
        if unknown:
            raise ConfigError(
                f"{unknown[0]}: unknown sweep key `{unknown[0]}`, expected one of {', '.join(SPEC_KEYS)} "
                f"(scenario keys go under [base])",
                unknown[0],
            )
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
    # seeds / replications may be in the spec or in the base scenario, not both
    for k in SWEEP_ONLY:
        if k in base:
            if k in top:
                raise ConfigError(f"{k}: given both in the sweep spec and in its base scenario; keep one", k)
            top[k] = base.pop(k)
    return base, top


def _check_axes(axes) -> None:
    if not isinstance(axes, Mapping):
        raise ConfigError("axes: a table of config key = [values]", "axes")
    for k, vals in axes.items():
        if k == "replications":
            raise ConfigError(
                "axes.replications: replications is not an axis; set replications = K", "axes.replications"
            )
        if not isinstance(vals, list) or not vals:
            raise ConfigError(f"axes.{k}: a non-empty list of values, got {vals!r}", f"axes.{k}")
        if k != "seed":
            parse_path(k, f"axes.{k}")


def _check_linked(linked) -> None:
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


def _seeds(seeds, base_seed) -> list | None:
    """The list of seeds from ``seeds`` (a count from the base seed, or a list)."""
    if seeds is None:
        return None
    if isinstance(seeds, bool):
        raise ConfigError(f"seeds: a count or a list of seeds, got {seeds!r}", "seeds")
    if isinstance(seeds, int):
        if seeds < 1:
            raise ConfigError(f"seeds: a count must be >= 1, got {seeds}", "seeds")
        if seeds > MAX_RUNS:
            raise ConfigError(f"seeds: at most {MAX_RUNS:,} runs in one sweep, got {seeds:,} seeds", "seeds")
        if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
            raise ConfigError(f"seed: must be a whole number >= 0, got {base_seed!r}", "seed")
        return [base_seed + i for i in range(seeds)]
    if isinstance(seeds, list) and seeds:
        for i, x in enumerate(seeds):
            if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                raise ConfigError(f"seeds[{i}]: a seed is a whole number >= 0, got {x!r}", f"seeds[{i}]")
        if len(set(seeds)) != len(seeds):
            raise ConfigError(f"seeds: repeated seed in {seeds}", "seeds")
        return seeds
    raise ConfigError(f"seeds: a count or a non-empty list of seeds, got {seeds!r}", "seeds")


def _name_and_store(top: dict, raw: dict, source, base_dir: Path) -> tuple:
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
    return name, store


def _check_size(axes: dict, linked: dict, seeds, reps: int) -> None:
    """Refuse a sweep of more than `MAX_RUNS` runs before expanding it."""
    dims = [len(v) for v in axes.values()] + [len(next(iter(t.values()))) for t in linked.values()]
    dims += [len(seeds) if seeds else 1, reps]
    n = math.prod(dims)
    if n > MAX_RUNS:
        shape = " x ".join(str(d) for d in dims if d > 1)
        raise ConfigError(
            f"axes: this sweep has {n:,} runs ({shape}); at most {MAX_RUNS:,} in one sweep: split it into several",
            "axes",
        )


def load_spec(spec, *, base_dir: Path | None = None) -> dict:
    """Read a sweep spec (path, TOML text or dict) into a normalised dict:
    ``name``, ``base`` (a config dict), ``axes``, ``linked``, ``seeds`` (list or
    None), ``replications``, ``store`` (or None), ``source`` (the file, if any).
    A sweep of more than `MAX_RUNS` runs is refused (ConfigError on ``axes``)."""
    raw, source, base_dir = _read(spec, base_dir)
    base, top = _split(raw, base_dir)
    axes = top.get("axes", {}) if _is_spec(raw) else {}
    _check_axes(axes)
    linked = top.get("linked", {}) if _is_spec(raw) else {}
    _check_linked(linked)
    seeds = top.get("seeds")
    if "seed" in axes:
        if seeds is not None:
            raise ConfigError("axes.seed: seeds are given twice (axes.seed and seeds); keep one", "axes.seed")
        seeds = axes["seed"]
        axes = {k: v for k, v in axes.items() if k != "seed"}
    seeds = _seeds(seeds, base.get("seed", 0))
    reps = check_replications(top.get("replications", 1))
    _check_size(axes, linked, seeds, reps)
    name, store = _name_and_store(top, raw, source, base_dir)
    return {
        "_spec": 1,
        "name": name,
        "base": base,
        "axes": dict(axes),
        "linked": {g: dict(t) for g, t in linked.items()},
        "seeds": seeds,
        "replications": reps,
        "store": store,
        "source": str(source) if source else None,
        "description": top.get("description", ""),
    }


def expand(spec, *, validate: bool = True) -> list:
    """The points of a sweep (list of `Point`), each validated unless
    ``validate=False``. Raises ConfigError naming the point and key."""
    from .. import __version__
    from ..result import describe
    from ..store import run_key

    s = spec if isinstance(spec, dict) and spec.get("_spec") == 1 else load_spec(spec)
    dims: list = []  # each: the axis' values, each a list of (dotted key, value, spec field)
    for k, vals in s["axes"].items():
        dims.append([[(k, v, f"axes.{k}")] for v in vals])
    for g, tbl in s["linked"].items():
        keys = list(tbl)
        dims.append([[(k, tbl[k][i], f"linked.{g}.{k}") for k in keys] for i in range(len(tbl[keys[0]]))])
    if s["seeds"] is not None:
        dims.append([[("seed", x, "seeds")] for x in s["seeds"]])
    points, overloaded = [], []
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
                load = describe(cfg).get("offered_load")
            except ConfigError as e:
                raise ConfigError(f"sweep point {idx} ({_labels_str(labels)}): {e}", e.field) from None
            if load is not None and load >= 1:
                overloaded.append((idx, load))
        try:
            cfgs = split(cfg, k)
        except ConfigError as e:
            raise ConfigError(f"sweep point {idx} ({_labels_str(labels)}): {e}", e.field) from None
        base_seed = int(cfg.get("seed", 0))
        for r, c in enumerate(cfgs):
            pt.runs.append(
                Run(
                    key=run_key(c, __version__),
                    config=c,
                    point=idx,
                    replication=r if k > 1 else None,
                    replications=k,
                    group=pt.group,
                    base_seed=base_seed,
                )
            )
        points.append(pt)
    if overloaded:
        _warn_overload(overloaded)
    return points


def _warn_overload(overloaded: list) -> None:
    from .._core import OverloadWarning

    shown = ", ".join(f"{i} ({load:.3g})" for i, load in overloaded[:5]) + (", ..." if len(overloaded) > 5 else "")
    warnings.warn(
        f"traffic: {len(overloaded)} sweep point(s) offer the bottleneck a load >= 1 (queues grow without "
        f"bound, flows may never finish): point {shown}",
        OverloadWarning,
        stacklevel=3,
    )


def _labels_str(labels: dict) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in labels.items()) or "base"

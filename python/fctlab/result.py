"""Running a scenario and the tables it produces."""

from __future__ import annotations

import json
import os
import platform
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from . import _core
from .config import ConfigLike, load_config, to_json
from .rundir import FILES, OPTIONAL_FILES, RunDirError, Writer, read_manifest, verify

FLOW_COLUMNS = [
    "flow_id",
    "sender",
    "size_bytes",
    "size_pkts",
    "start_ns",
    "finish_ns",
    "fct_ns",
    "acked_ns",
    "retransmits",
    "delivered_pkts",
    "drops",
    "marks",
    "completed",
    "ideal_ns",
    "ps_fct_ns",
    "slowdown",
    "alone_ns",
    "fabric_slowdown",
    "scheme",
]


#: Columns of the ``prefixes`` table (measuring flows).
PREFIX_COLUMNS = ["flow_id", "k", "fct_ns"]
#: The fixed columns of the ``size_stats`` table; one ``p<percent>_fct_ns``
#: column per requested quantile follows them. ``sum_fct_ns`` and the sketch
#: (``sketch_bucket``, ``sketch_count``: lists) let tables of several runs be
#: merged exactly (`fctlab.sizestats.merge`).
SIZE_STATS_COLUMNS = [
    "size_pkts",
    "flows_started",
    "flows_completed",
    "mean_fct_ns",
    "min_fct_ns",
    "max_fct_ns",
    "sum_fct_ns",
    "sketch_bucket",
    "sketch_count",
]
#: Columns of the ``probes`` table (``probe`` sources): one row per probe
#: packet that reached its receiver; ``rtt_ns`` (sending to the answer's
#: return, the 1991 benchmark's single packet delay) is null if the answer
#: did not come back.
PROBE_COLUMNS = ["flow_id", "seq", "sent_ns", "one_way_ns", "rtt_ns"]
#: Tables written only when they have rows (``<name>.parquet``).
OPTIONAL_TABLES = tuple(n.removesuffix(".parquet") for n in OPTIONAL_FILES)


class NoCompletedFlowWarning(UserWarning):
    """A run finished without any flow completing."""


#: The engine failed (a bug): the message says what and where (file and line).
EngineError = _core.EngineError
#: The Poisson traffic offers the bottleneck a load of 1 or more (warned by `run`).
OverloadWarning = _core.OverloadWarning
#: The scenario runs, but probably not as meant, e.g. DCTCP on a queue that never marks (warned by `run`).
ConfigWarning = _core.ConfigWarning
#: Stops a run given it (``fctlab.run(cfg, stop=flag)``) when ``flag.set()`` is called.
StopFlag = _core.StopFlag


def empty_prefixes() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype="int64") for c in PREFIX_COLUMNS})


def empty_probes() -> pd.DataFrame:
    df = pd.DataFrame({c: pd.Series([], dtype="int64") for c in PROBE_COLUMNS})
    df["rtt_ns"] = df["rtt_ns"].astype("Int64")
    return df


def empty_size_stats() -> pd.DataFrame:
    df = pd.DataFrame({c: pd.Series([], dtype="int64") for c in SIZE_STATS_COLUMNS})
    df["mean_fct_ns"] = df["mean_fct_ns"].astype("float64")
    for c in ("min_fct_ns", "max_fct_ns"):
        df[c] = df[c].astype("Int64")
    for c in ("sketch_bucket", "sketch_count"):
        df[c] = df[c].astype("object")
    return df


@dataclass
class Result:
    """One run: ``flows`` and ``series`` (pandas DataFrames), ``meta`` (dict),
    and, when the scenario asks for them, ``prefixes`` (the prefix times of
    measuring flows) and ``size_stats`` (streaming FCT statistics per flow
    size); those two are empty DataFrames otherwise."""

    flows: pd.DataFrame
    series: pd.DataFrame
    meta: dict = field(default_factory=dict)
    prefixes: pd.DataFrame = field(default_factory=empty_prefixes)
    size_stats: pd.DataFrame = field(default_factory=empty_size_stats)
    probes: pd.DataFrame = field(default_factory=empty_probes)

    def write(self, out_dir: os.PathLike | str, *, writer: Writer | None = None) -> Path:
        """Write the run into the directory ``out_dir`` (see `fctlab.rundir`):
        ``flows.parquet``, ``series.parquet``, ``meta.json``, the tables of
        ``prefixes``, ``size_stats`` and ``probes`` that have rows,
        ``slowdown.parquet`` (the slowdown per flow-size bin,
        `fctlab.slowdown.slowdown_by_size` with its default bins) when
        some flow has a ``fabric_slowdown``, and ``manifest.json``. The directory is written whole, to a temporary name
        beside it, then renamed: an earlier run there is replaced as a whole,
        a directory holding anything else is refused (``RunDirError``).
        ``writer``: a `fctlab.rundir.Writer` already prepared for
        ``out_dir`` (the CLI prepares it before the run)."""
        from .store import run_key

        w = writer if writer is not None else Writer(out_dir).prepare()
        key = run_key(self.meta.get("config", {}), self.meta.get("fctlab_version"))
        return w.commit(self._write_files, key)

    def _write_files(self, out: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        tables = [("flows", self.flows), ("series", self.series)]
        tables += [(n, getattr(self, n)) for n in OPTIONAL_TABLES if len(getattr(self, n))]
        if "fabric_slowdown" in self.flows and self.flows["fabric_slowdown"].notna().any():
            from .slowdown import slowdown_by_size

            tables.append(("slowdown", slowdown_by_size(self.flows)))
        for name, df in tables:
            pq.write_table(pa.Table.from_pandas(df, preserve_index=False), out / f"{name}.parquet")
        (out / "meta.json").write_text(json.dumps(self.meta, indent=2, sort_keys=True) + "\n")

    @classmethod
    def read(cls, out_dir: os.PathLike | str, *, check: bool = True) -> Result:
        """Read a run directory (written by `write` or ``fctlab run --out``).
        Only the files its manifest lists are read, after checking their sizes
        and SHA-256 (``check=False``: sizes only); raises ``RunDirError`` for a
        damaged run. A directory without a manifest (written by an older
        fctlab) is read as it is."""
        d = Path(out_dir)
        man = read_manifest(d)
        if man is not None:
            why = verify(d, man, hashes=check)
            if why:
                raise RunDirError(f"{d}: damaged run: {why}")
            names = set(man["files"])
        else:
            names = {n for n in (*FILES, *OPTIONAL_FILES) if (d / n).is_file()}
        for n in FILES:
            if n not in names:
                raise RunDirError(f"{d}: not a fctlab run ({n} missing)")

        def table(name, empty):
            return pd.read_parquet(d / f"{name}.parquet") if f"{name}.parquet" in names else empty()

        return cls(
            flows=pd.read_parquet(d / "flows.parquet"),
            series=pd.read_parquet(d / "series.parquet"),
            meta=json.loads((d / "meta.json").read_text()),
            prefixes=table("prefixes", empty_prefixes),
            size_stats=table("size_stats", empty_size_stats),
            probes=table("probes", empty_probes),
        )

    def probe_delays(self) -> pd.DataFrame:
        """Per probe source (``flow_id``): probes received, and the mean and
        standard deviation (population) of the one-way delay and of the
        single packet delay (sending to the answer's return), in ms."""
        p = self.probes
        g = p.groupby("flow_id")
        rtt = p["rtt_ns"].astype("float64") / 1e6
        one = p["one_way_ns"].astype("float64") / 1e6
        return pd.DataFrame(
            {
                "probes": g.size(),
                "one_way_mean_ms": one.groupby(p["flow_id"]).mean(),
                "one_way_std_ms": one.groupby(p["flow_id"]).std(ddof=0),
                "delay_mean_ms": rtt.groupby(p["flow_id"]).mean(),
                "delay_std_ms": rtt.groupby(p["flow_id"]).std(ddof=0),
            }
        ).reset_index()

    @property
    def completed(self) -> pd.DataFrame:
        """The flows that completed."""
        return self.flows[self.flows["completed"]]

    @property
    def interrupted(self) -> bool:
        """The run was stopped early (Ctrl-C, a stop flag, or ``progress``
        returning False): its tables hold what finished until then."""
        return bool(self.meta.get("stats", {}).get("interrupted"))

    def fct_by_size(self, bins_per_decade: int = 8, value: str = "fct_ns") -> pd.DataFrame:
        """Mean and largest FCT (ns) of the completed flows in log-spaced size
        bins (``bins_per_decade`` per factor of ten, from 1 packet): columns
        ``size_pkts`` (the geometric mean size of the bin's flows), ``mean``,
        ``max``, ``n`` (see `fctlab.plots.mean_by_size`). ``value``:
        another flow column, e.g. ``"ps_fct_ns"`` (the same flows' FCT under
        ideal processor sharing)."""
        from .plots import mean_by_size

        return mean_by_size(self.flows, value, bins_per_decade)

    def slowdown_by_size(self, bins="pfabric", *, column: str = "fabric_slowdown", **kw) -> pd.DataFrame:
        """The slowdown per flow-size bin: count, mean, p50, p95 and p99 per bin
        and over all flows (`fctlab.slowdown.slowdown_by_size` on this
        run's flows). ``bins``: ``"pfabric"`` (the default), ``"hpcc"``, a
        number of equal-count bins or a list of byte edges; ``column``:
        ``"fabric_slowdown"`` (to the last ACK, over ``alone_ns``) or
        ``"slowdown"`` (one-way, over ``ideal_ns``)."""
        from .slowdown import slowdown_by_size

        return slowdown_by_size(self.flows, bins, column=column, **kw)

    def headline(self) -> dict:
        """The numbers a notebook shows first: scheme(s), flows completed and
        started, mean, median and 99th-percentile FCT (ms) and mean slowdown
        of the completed flows, simulated and wall time, seed, interrupted."""
        from .summary import headline

        return headline(self)

    def __repr__(self) -> str:
        from .summary import text

        return text(self.headline())

    def _repr_html_(self) -> str:
        from .summary import html_table

        return html_table(self.headline())


def validate(config: ConfigLike) -> dict:
    """Check a scenario without running it; returns it as a dict or raises ConfigError."""
    cfg = load_config(config)
    _core.validate(to_json(cfg))
    return cfg


def describe(config: ConfigLike) -> dict:
    """What the engine resolves from a scenario, without running it (raises
    ConfigError for a refused one):

    - ``buffer_pkts``: the router buffer in packets; ``buffer_key``: the key it
      was sized from (``network.buffer_pkts``, or ``network.buffer_bdp``, given
      or by default);
    - ``flows_expected``: how many flows the run creates unless ``stop_s`` ends it
      first: explicit flows, plus each generator's ``count`` (Poisson: in total;
      closed loop: per sender) or one flow per sender (long-lived); ``None``
      when a generator has no ``count`` (it is bounded by time only);
    - ``flows_long_lived``: how many of them never finish;
    - ``stop_ns``: the run's time limit (``None``: none);
    - ``mss_bytes``, ``header_bytes``: payload and header of a data packet.
    """
    return json.loads(_core.describe(to_json(load_config(config))))


def catalog() -> dict:
    """Every scheme, queue, topology, size distribution and parameter default."""
    return json.loads(_core.catalog())


def _nullable(a: np.ndarray) -> pd.Series:
    s = pd.Series(a, dtype="Int64")
    return s.mask(a < 0)


def _flows_frame(cols: dict) -> pd.DataFrame:
    finish = cols["finish_ns"]
    fct = np.where(finish >= 0, finish - cols["start_ns"], -1)
    # Unique data packets delivered in order (the receiver's RCV.NXT; at the
    # stop time for a flow still running). A source that does not report it
    # (live mode) knows it only for completed flows: all of them.
    delivered = cols.get("delivered_pkts")
    if delivered is None:
        delivered = np.where(finish >= 0, cols["size_pkts"], -1)
    # The fabric papers' slowdown: the time to the sender's ACK of the last
    # byte over the same time alone on the empty network (``alone_ns``; see
    # `fctlab.slowdown`). A source that does not compute it gives none.
    alone = np.asarray(cols.get("alone_ns", np.full(len(finish), -1)), dtype=np.int64)
    acked = np.asarray(cols["acked_ns"], dtype=np.int64)
    sender_fct = np.where(acked >= 0, acked - cols["start_ns"], -1)
    df = pd.DataFrame(
        {
            "flow_id": cols["flow_id"],
            "sender": cols["sender"],
            "size_bytes": _nullable(cols["size_bytes"]),
            "size_pkts": _nullable(cols["size_pkts"]),
            "start_ns": cols["start_ns"],
            "finish_ns": _nullable(finish),
            "fct_ns": _nullable(fct),
            "acked_ns": _nullable(cols["acked_ns"]),
            "retransmits": cols["retransmits"],
            "delivered_pkts": _nullable(np.asarray(delivered, dtype=np.int64)),
            "drops": cols["drops"],
            "marks": cols["marks"],
            "completed": finish >= 0,
            "ideal_ns": _nullable(cols["ideal_ns"]),
            "ps_fct_ns": _nullable(cols["ps_fct_ns"]),
            "slowdown": np.where((finish >= 0) & (cols["ideal_ns"] > 0), fct / np.maximum(cols["ideal_ns"], 1), np.nan),
            "alone_ns": _nullable(alone),
            "fabric_slowdown": np.where((sender_fct >= 0) & (alone > 0), sender_fct / np.maximum(alone, 1), np.nan),
            # Each flow's scheme (several when per-sender, per-entry or per-flow
            # transport settings name others).
            "scheme": np.asarray(cols["schemes"], dtype=object)[np.asarray(cols["transport"], dtype=np.int64)]
            if len(cols["transport"])
            else np.asarray([], dtype=object),
        }
    )
    # Flows between hosts add the destination host and the data path's index
    # among the equal-cost paths (null: none, as for a sprayed flow).
    extra = [c for c in ("dst", "path") if c in cols]
    for c in extra:
        df[c] = _nullable(np.asarray(cols[c], dtype=np.int64))
    return df[FLOW_COLUMNS + extra]


def _series_frame(s: dict) -> pd.DataFrame:
    metric = pd.Categorical.from_codes(s["metric"], categories=s["metric_names"])
    element = pd.Categorical.from_codes(s["element"], categories=s["element_names"])
    return pd.DataFrame(
        {
            "t_ns": s["t_ns"],
            "metric": np.asarray(metric.astype(str)),
            "element": np.asarray(element.astype(str)),
            "value": s["value"],
        }
    )


def _prefixes_frame(p: dict) -> pd.DataFrame:
    return pd.DataFrame({c: np.asarray(p[c], dtype="int64") for c in PREFIX_COLUMNS})


def _probes_frame(p: dict) -> pd.DataFrame:
    df = pd.DataFrame({c: np.asarray(p[c], dtype="int64") for c in PROBE_COLUMNS})
    df["rtt_ns"] = _nullable(p["rtt_ns"])
    return df


def _size_stats_frame(t: dict | None) -> pd.DataFrame:
    if t is None:
        return empty_size_stats()
    cols = {
        "size_pkts": t["size_pkts"],
        "flows_started": t["flows_started"],
        "flows_completed": t["flows_completed"],
        "mean_fct_ns": t["mean_fct_ns"],
        "min_fct_ns": _nullable(t["min_fct_ns"]),
        "max_fct_ns": _nullable(t["max_fct_ns"]),
        "sum_fct_ns": t["sum_fct_ns"],
    }
    sizes = np.asarray(t["size_pkts"], dtype="int64")
    if len(sizes) == 0:  # no flow in the window: the columns, no rows
        df = empty_size_stats()
        for name in t["quantile_columns"]:
            df[name] = pd.Series([], dtype="float64")
        return df
    # The sketch comes flat, ordered by size then bucket: one list per size.
    at = np.searchsorted(np.asarray(t["sketch_size"], dtype="int64"), sizes[1:], side="left")
    cols["sketch_bucket"] = [a.astype("int32") for a in np.split(np.asarray(t["sketch_bucket"], dtype="int32"), at)]
    cols["sketch_count"] = [a.astype("int64") for a in np.split(np.asarray(t["sketch_count"], dtype="int64"), at)]
    for name in t["quantile_columns"]:
        cols[name] = t[name]
    return pd.DataFrame(cols)


def _keeps_flows(cfg: dict) -> bool:
    m = cfg.get("metrics")
    return not (isinstance(m, dict) and m.get("flows") is False)


def run(
    config: ConfigLike,
    *,
    progress: Callable[[dict], Any] | None = None,
    warn: bool = True,
    stop: _core.StopFlag | None = None,
    every_s: float = 1.0,
) -> Result:
    """Run one scenario (a dict, a TOML path or TOML text) and return its `Result`.

    ``progress`` is called about every ``every_s`` seconds of wall time with a
    dict (``sim_ns``, ``stop_ns``, ``events``, ``flows_started``,
    ``flows_completed``, ``flows_expected`` (None when unknown), ``data_delivered``,
    ``wall_s``); returning ``False`` stops the run early, as do Ctrl-C and
    setting ``stop`` (a `fctlab.StopFlag`, e.g. from another thread),
    within about 65,536 events. The result then holds every flow finished so
    far and ``result.interrupted`` is true.

    Raises `fctlab.ConfigError` for a refused scenario and
    `fctlab.EngineError` if the engine fails (a bug). Warns
    `fctlab.OverloadWarning` when the Poisson traffic offers the
    bottleneck a load of 1 or more, `fctlab.ConfigWarning` when the
    scenario probably does not do what it means (DCTCP on a queue that never
    marks), and (``warn=True``)
    `fctlab.NoCompletedFlowWarning` when no flow completed.
    """
    cfg = load_config(config)
    raw = _core.run(to_json(cfg), progress, stop, every_s)
    return _result(cfg, raw, warn)


def _result(cfg: dict, raw: dict, warn: bool) -> Result:
    stats = raw["stats"]
    flows = _flows_frame(raw["flows"])
    series = _series_frame(raw["series"])
    from . import __version__

    meta = {
        "fctlab_version": __version__,
        "config": cfg,
        "seed": int(cfg.get("seed", 0)),
        "build_profile": stats.pop("build_profile"),
        "events_processed": stats["events"],
        "packets_forwarded": stats["packet_hops"],
        "wall_s": stats["wall_s"],
        # Building the engine (ports, routes, sources) before the first event.
        "setup_s": stats["setup_s"],
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        # Without flow records (metrics.flows = false) the engine's counts.
        "flows_total": int(len(flows)) if _keeps_flows(cfg) else int(stats["flows_started"]),
        "flows_completed": int(flows["completed"].sum()) if _keeps_flows(cfg) else int(stats["flows_completed"]),
        "interrupted": bool(stats["interrupted"]),
        "stats": stats,
    }
    if raw["size_stats"] is not None:
        meta["size_stats"] = {
            "alpha": raw["size_stats"]["alpha"],
            "quantile_columns": list(raw["size_stats"]["quantile_columns"]),
        }
    if warn and meta["flows_total"] and meta["flows_completed"] == 0:
        warnings.warn(
            f"no flow completed in this run ({meta['flows_total']} started, simulated until "
            f"{stats['end_ns'] / 1e9:.3f} s): check stop_s, the buffer and the link rates",
            NoCompletedFlowWarning,
            stacklevel=3,
        )
    return Result(
        flows=flows,
        series=series,
        meta=meta,
        prefixes=_prefixes_frame(raw["prefixes"]),
        size_stats=_size_stats_frame(raw["size_stats"]),
        probes=_probes_frame(raw["probes"]),
    )

"""From Python: measuring flows (``res.prefixes``), the mixture and empirical
size laws, ``utilization_pkts`` and streaming per-size statistics
(``res.size_stats``): their tables, files, store views, and checks derived
independently (hand formulas, chi-square tests at significance 0.001, exact
quantiles)."""

import json

import fctlab
import numpy as np
import pandas as pd
import pytest
from fctlab.result import PREFIX_COLUMNS, SIZE_STATS_COLUMNS
from fctlab.store import Store
from scipy import stats


def measuring(count=300, **traffic):
    t = {"arrivals": "poisson", "load": 0.7, "sizes": {"dist": "pareto", "mean_pkts": 10, "shape": 1.4}, "count": count}
    t.update(traffic)
    return {
        "seed": 3,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "buffer_pkts": 30,
        },
        "traffic": [t],
        "metrics": {"series": False},
    }


def test_prefixes_table():
    res = fctlab.run(measuring(measure_every=7))
    p = res.prefixes
    assert list(p.columns) == PREFIX_COLUMNS
    assert all(p[c].dtype == np.int64 for c in PREFIX_COLUMNS)
    ids = sorted(p["flow_id"].unique())
    assert ids == list(range(6, 300, 7))  # flows 7, 14, ... of the generator
    f = res.flows.set_index("flow_id")
    for fid, rows in p.groupby("flow_id"):
        n = f.loc[fid, "size_pkts"]
        assert list(rows["k"]) == list(range(1, n + 1))
        assert rows["fct_ns"].is_monotonic_increasing
        assert rows["fct_ns"].iloc[-1] == f.loc[fid, "fct_ns"]  # the whole flow's prefix is its FCT
    # Measuring changes nothing of the run.
    plain = fctlab.run(measuring())
    pd.testing.assert_frame_equal(plain.flows, res.flows)
    assert list(plain.prefixes.columns) == PREFIX_COLUMNS and len(plain.prefixes) == 0


def test_a_lone_measuring_flow_in_its_first_round():
    # Initial window 4, no handshake, one 10 Mb/s link of 10 ms: packets 1..4
    # leave back to back at the start, so prefix k completes at k T + d with
    # T = 1040 B x 8 / 10 Mb/s = 832 us.
    cfg = {
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "transport": {"init_cwnd_pkts": 4, "handshake": False},
        "flows": [{"size_pkts": 12, "measure": True, "start_s": 1.5}],
        "metrics": {"series": False},
    }
    p = fctlab.run(cfg).prefixes
    assert list(p["fct_ns"][:4]) == [k * 832_000 + 10_000_000 for k in range(1, 5)]


def test_files_and_round_trip(tmp_path):
    res = fctlab.run(measuring(measure_every=50, count=200) | {"metrics": {"series": False, "size_stats": True}})
    out = res.write(tmp_path / "a")
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.parquet",
        "manifest.json",
        "meta.json",
        "prefixes.parquet",
        "series.parquet",
        "size_stats.parquet",
        "slowdown.parquet",
    ]
    back = fctlab.Result.read(out)
    pd.testing.assert_frame_equal(back.prefixes, res.prefixes)
    pd.testing.assert_frame_equal(back.size_stats, res.size_stats)
    # A run without them writes the three usual files, and reads back empty tables.
    plain = fctlab.run(measuring(count=50)).write(tmp_path / "b")
    assert sorted(p.name for p in plain.iterdir()) == [
        "flows.parquet",
        "manifest.json",
        "meta.json",
        "series.parquet",
        "slowdown.parquet",
    ]
    b = fctlab.Result.read(plain)
    assert len(b.prefixes) == 0 and len(b.size_stats) == 0


def test_store_keeps_and_queries_the_new_tables(tmp_path):
    spec = {
        "name": "thesis",
        "base": measuring(count=120, measure_every=40) | {"metrics": {"series": False, "size_stats": True}},
        "axes": {"transport.init_cwnd_pkts": [2, 10]},
    }
    fctlab.sweep(spec, store=tmp_path / "st", workers=1, progress=False)
    # and one run without either table
    fctlab.sweep({"name": "plain", "base": measuring(count=60)}, store=tmp_path / "st", workers=1, progress=False)
    st = Store(tmp_path / "st")
    for k in st:
        man = json.loads((st.run_dir(k) / "manifest.json").read_text())
        has = (st.run_dir(k) / "prefixes.parquet").exists()
        assert ("prefixes.parquet" in man["files"]) == has
        assert st.verify(k) is None
    n = st.query(
        "SELECT init_cwnd_pkts, count(DISTINCT flow_id) AS f, max(k) AS kmax FROM prefixes GROUP BY 1 ORDER BY 1"
    )
    assert list(n["init_cwnd_pkts"]) == [2, 10] and list(n["f"]) == [3, 3]
    s = st.query("SELECT init_cwnd_pkts, sum(flows_completed) AS done FROM size_stats GROUP BY 1 ORDER BY 1")
    assert list(s["done"]) == [120, 120]
    # A damaged optional file is caught like any other.
    k = next(k for k in st if (st.run_dir(k) / "size_stats.parquet").exists())
    (st.run_dir(k) / "size_stats.parquet").write_bytes(b"x")
    assert "size_stats.parquet" in st.verify(k)


def test_store_without_the_new_tables_has_empty_views(tmp_path):
    fctlab.sweep({"name": "plain", "base": measuring(count=40)}, store=tmp_path / "st", workers=1, progress=False)
    st = Store(tmp_path / "st")
    assert len(st.query("SELECT * FROM prefixes")) == 0
    assert set(SIZE_STATS_COLUMNS) <= set(st.query("SELECT * FROM size_stats").columns)


def test_mixture_and_empirical_sizes_from_python():
    # values 2, 5, 9 with weights 1, 1, 2 in a mixture with weight 3 against
    # fixed 40 with weight 1: P = 3/16, 3/16, 6/16, 4/16.
    sizes = {
        "dist": "mixture",
        "components": [
            {"weight": 3, "dist": "empirical", "values": [2, 5, 9], "weights": [1, 1, 2]},
            {"weight": 1, "dist": "fixed", "pkts": 40},
        ],
    }
    res = fctlab.run(measuring(count=4000, sizes=sizes, load=0.5))
    counts = res.flows["size_pkts"].value_counts().reindex([2, 5, 9, 40], fill_value=0).to_numpy()
    assert counts.sum() == 4000
    p = stats.chisquare(counts, 4000 * np.array([3, 3, 6, 4]) / 16).pvalue
    assert p > 0.001, counts
    # The realised load follows from the exact mean 0.75 x 6.25 + 0.25 x 40 = 14.6875 packets.
    mean = 0.75 * (2 + 5 + 2 * 9) / 4 + 0.25 * 40
    f = res.flows
    rate = (len(f) - 1) / ((f["start_ns"].max() - f["start_ns"].min()) / 1e9)
    offered = rate * mean * 1040 * 8 / 10e6
    # The rate estimate (n - 1) / span has relative sd 1 / sqrt(n - 1); two-sided
    # significance 0.001 allows 3.29 of them.
    assert abs(offered - 0.5) < 0.5 * 3.29 / np.sqrt(3999)


def test_bad_sizes_name_the_key():
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.run(measuring(sizes={"dist": "empirical", "cdf": [[1, 0.5], [3, 0.8]]}))
    assert e.value.field == "traffic[0].sizes.cdf[1]"
    assert "\n" not in str(e.value)
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.run(measuring(sizes={"dist": "mixture", "components": [{"dist": "fixed", "pkts": 2}]}))
    assert e.value.field == "traffic[0].sizes.components[0].weight"
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.run(measuring(measure_every=0))
    assert e.value.field == "traffic[0].measure_every"


def test_the_new_laws_are_listed():
    names = [d["name"] for d in fctlab.catalog()["distributions"]]
    assert {"mixture", "empirical"} <= set(names)
    params = {p["key"]: p["default"] for p in fctlab.catalog()["parameters"]}
    assert params["metrics.size_stats"] is False and params["metrics.utilization_pkts"] is False


def test_utilization_pkts_counts_as_the_thesis():
    # Mussmann 2012 section 5.2: packets delivered in a second over 1250, the
    # packets of 1000 B a 10 Mb/s link carries in a second. One closed-loop
    # sender of 32-packet flows (the thesis's mice), window 32, no handshake:
    # flow i starts at i P, P = 32 T + 2 d + Ta, and its packet j arrives at
    # i P + (j + 1) T + d (T = 0.8 ms, Ta = 32 us, d = 10 ms).
    cfg = {
        "stop_s": 5.0,
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0, "buffer_pkts": 100},
        "transport": {"mss_bytes": 960, "header_bytes": 40, "init_cwnd_pkts": 32, "handshake": False},
        "traffic": [{"arrivals": "closed-loop", "sizes": {"dist": "fixed", "pkts": 32}}],
        "metrics": {"interval_ms": 1000.0, "utilization_pkts": True},
    }
    s = fctlab.run(cfg).series
    u = s[(s["metric"] == "utilization_pkts") & (s["element"] == "bottleneck")]
    T, Ta, d = 800_000, 32_000, 10_000_000
    P = 32 * T + 2 * d + Ta
    arrivals = np.array([i * P + (j + 1) * T + d for i in range(5_000_000_000 // P + 1) for j in range(32)])
    want = [((arrivals > t - 1e9) & (arrivals <= t)).sum() / 1250 for t in u["t_ns"]]
    assert list(u["t_ns"]) == [k * 1_000_000_000 for k in range(1, 6)]
    assert np.allclose(u["value"], want, rtol=0, atol=1e-12), (list(u["value"]), want)


def test_size_stats_table_against_numpy():
    cfg = measuring(count=3000, sizes={"dist": "uniform", "min_pkts": 1, "max_pkts": 8}) | {
        "metrics": {
            "series": False,
            "size_stats": True,
            "size_stats_quantiles": [0.5, 0.99, 0.999],
            "size_stats_alpha": 0.002,
        }
    }
    res = fctlab.run(cfg)
    t = res.size_stats
    assert list(t.columns) == SIZE_STATS_COLUMNS + ["p50_fct_ns", "p99_fct_ns", "p99_9_fct_ns"]
    assert res.meta["size_stats"] == {"alpha": 0.002, "quantile_columns": ["p50_fct_ns", "p99_fct_ns", "p99_9_fct_ns"]}
    f = res.completed
    for _, row in t.iterrows():
        x = f.loc[f["size_pkts"] == row["size_pkts"], "fct_ns"].to_numpy(dtype=np.int64)
        assert row["flows_completed"] == len(x)
        assert row["min_fct_ns"] == x.min() and row["max_fct_ns"] == x.max()
        assert row["mean_fct_ns"] == pytest.approx(x.mean(), rel=1e-12)
        for q, col in ((0.5, "p50_fct_ns"), (0.99, "p99_fct_ns"), (0.999, "p99_9_fct_ns")):
            exact = np.quantile(x, q, method="lower")
            assert abs(row[col] - exact) <= 0.002 * exact * (1 + 1e-9), (row["size_pkts"], q)

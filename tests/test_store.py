"""The results store: atomic writes, integrity checks, the DuckDB catalog (fctlab.store)."""

import json
import os
import subprocess
import sys

import fctlab
import pandas as pd
import pytest
from fctlab.store import Store, StoreError, run_key


def config(load=0.6, scheme="tcp-newreno", count=200, seed=1, iw=2):
    return {
        "seed": seed,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "buffer_pkts": 40,
        },
        "transport": {"scheme": scheme, "init_cwnd_pkts": iw},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": load,
                "sizes": {"dist": "pareto", "mean_pkts": 15, "shape": 1.4},
                "count": count,
            }
        ],
    }


@pytest.fixture
def swept(tmp_path):
    """A store holding a 2 x 2 sweep (init_cwnd x load), run in this process."""
    spec = {
        "name": "small",
        "base": config(),
        "axes": {"transport.init_cwnd_pkts": [2, 10], "traffic[0].load": [0.4, 0.8]},
    }
    res = fctlab.sweep(spec, store=tmp_path / "st", workers=1, progress=False)
    return spec, res, Store(tmp_path / "st")


def test_key_is_config_seed_version():
    a = run_key(config(), "0.1.0")
    assert a == run_key(json.loads(json.dumps(config())), "0.1.0")  # same content, same key
    assert len(a) == 32 and int(a, 16) >= 0
    assert run_key(config(seed=2), "0.1.0") != a
    assert run_key(config(load=0.61), "0.1.0") != a
    assert run_key(config(), "0.1.1") != a
    # key order in the dict does not matter (canonical JSON)
    c = config()
    assert run_key(dict(reversed(list(c.items()))), "0.1.0") == a


def test_layout_and_manifest(swept):
    _, res, st = swept
    assert len(st.keys()) == 4
    for k in st:
        d = st.run_dir(k)
        assert d.parent.name == k[:2]
        assert sorted(p.name for p in d.iterdir()) == ["flows.parquet", "manifest.json", "meta.json", "series.parquet"]
        man = json.loads((d / "manifest.json").read_text())
        assert man["key"] == k and set(man["files"]) == {"flows.parquet", "series.parquet", "meta.json"}
        meta = json.loads((d / "meta.json").read_text())
        assert meta["store"]["key"] == k and meta["fctlab_version"] == fctlab.__version__
        assert run_key(meta["config"]) == k  # the key is recomputable from the stored config
    assert list((st.path / "tmp").iterdir()) == []


@pytest.mark.parametrize(
    "damage", ["flip-byte", "truncate", "no-manifest", "bad-manifest", "missing-file", "empty-file"]
)
def test_damaged_result_is_detected_never_read_and_rerun(swept, damage):
    spec, res, st = swept
    key = res.points[1].runs[0].key
    d = st.run_dir(key)
    good = (d / "flows.parquet").read_bytes()
    if damage == "flip-byte":
        b = bytearray(good)
        b[len(b) // 2] ^= 0x01
        (d / "flows.parquet").write_bytes(bytes(b))
    elif damage == "truncate":  # a half-written file
        (d / "flows.parquet").write_bytes(good[: len(good) // 2])
    elif damage == "no-manifest":  # the manifest is written last: a writer stopped before it
        (d / "manifest.json").unlink()
    elif damage == "bad-manifest":
        (d / "manifest.json").write_text('{"key": "')
    elif damage == "missing-file":
        (d / "series.parquet").unlink()
    elif damage == "empty-file":
        (d / "meta.json").write_bytes(b"")

    fresh = Store(st.path)
    assert fresh.verify(key) not in (None, "missing")
    assert not fresh.has(key)
    with pytest.raises(StoreError, match="damaged"):
        fresh.get(key)
    # the catalog leaves it out: its flows are never read
    n = fresh.query("SELECT count(DISTINCT run_key) AS n FROM flows")["n"][0]
    assert n == 3
    assert key not in set(fresh.query("SELECT run_key FROM runs")["run_key"])
    # a sweep reruns exactly that run, moves the damaged copy aside, and the result is the original
    again = fctlab.sweep(spec, store=st.path, workers=1, progress=False)
    assert again.ran == [key] and len(again.skipped) == 3
    assert Store(st.path).has(key)
    assert (d / "flows.parquet").read_bytes() == good
    assert len(list((st.path / "corrupt").iterdir())) == 1


def test_put_is_atomic_and_keeps_an_intact_copy(tmp_path):
    st = Store(tmp_path / "st")
    res = fctlab.run(config())
    out = res.write(tmp_path / "r")
    files = {n: (out / n).read_bytes() for n in ("flows.parquet", "series.parquet", "meta.json")}
    key = run_key(config())
    st.put(key, files)
    assert st.has(key)
    # a second writer of the same run (say a concurrent sweep) leaves the first copy alone
    before = os.stat(st.run_dir(key) / "flows.parquet").st_ino
    st.put(key, files)
    assert os.stat(st.run_dir(key) / "flows.parquet").st_ino == before
    assert list((st.path / "tmp").iterdir()) == []
    # a leftover of a writer killed mid-write in tmp/ is invisible to readers
    (st.path / "tmp" / f"{key}.999.deadbeef").mkdir()
    (st.path / "tmp" / f"{key}.999.deadbeef" / "flows.parquet").write_bytes(b"PAR1 half")
    assert st.keys() == [key]
    assert Store(st.path).query("SELECT count(*) AS n FROM runs")["n"][0] == 1
    with pytest.raises(StoreError):
        st.put(key, {"flows.parquet": b""})


def test_catalog_has_config_columns_beside_each_flow(swept):
    spec, res, st = swept
    # the example of the issue
    got = st.query("SELECT scheme, avg(fct_ns) AS mean_fct FROM flows GROUP BY 1")
    assert list(got["scheme"]) == ["tcp-newreno"]
    # per axis value, computed independently from the stored results
    q = st.query(
        "SELECT init_cwnd_pkts, load, count(*) AS n, avg(fct_ns) AS mean_fct, "
        "avg(transport_init_cwnd_pkts) AS iw2 FROM flows WHERE completed GROUP BY ALL ORDER BY ALL"
    )
    assert len(q) == 4
    for row in q.itertuples():
        p = next(
            p
            for p in res.points
            if p.labels["transport.init_cwnd_pkts"] == row.init_cwnd_pkts and p.labels["traffic[0].load"] == row.load
        )
        f = st.get(p.runs[0].key).flows
        f = f[f["completed"]]
        assert row.n == len(f)
        assert row.mean_fct == pytest.approx(f["fct_ns"].astype(float).mean())
        assert row.iw2 == row.init_cwnd_pkts
    runs = st.query("SELECT * FROM runs")
    assert len(runs) == 4
    # dotted keys become underscored columns; defaults fill keys the config did not set
    for col in (
        "network_bottleneck_bps",
        "traffic_0_sizes_mean_pkts",
        "transport_scheme",
        "transport_mss_bytes",
        "network_queue",
        "seed",
        "fctlab_version",
        "wall_s",
    ):
        assert col in runs.columns, col
    assert set(runs["transport_mss_bytes"]) == {1000}  # the catalog default
    assert set(runs["network_queue"]) == {"droptail"}
    sp = st.query("SELECT sweep, point, run_key FROM sweep_points ORDER BY point")
    assert list(sp["sweep"]) == ["small"] * 4 and list(sp["run_key"]) == [p.runs[0].key for p in res.points]
    # the series view carries the same run columns
    s = st.query("SELECT DISTINCT metric FROM series WHERE init_cwnd_pkts = 10")
    assert "queue_pkts" in set(s["metric"])


def test_ambiguous_short_names_need_the_full_column(tmp_path):
    cfg = config()
    cfg["traffic"].append({"arrivals": "poisson", "load": 0.1, "sizes": {"dist": "fixed", "pkts": 3}, "count": 20})
    fctlab.sweep({"base": cfg}, store=tmp_path / "st", workers=1, progress=False)
    st = fctlab.store.open(tmp_path / "st")
    cols = set(st.query("SELECT * FROM flows LIMIT 0").columns)
    assert {"traffic_0_load", "traffic_1_load", "scheme"} <= cols
    assert "load" not in cols  # two keys end in 'load': no short alias
    assert "sender" in cols  # the flow column is never shadowed


def test_open_missing_store_and_bad_sql(tmp_path):
    with pytest.raises(StoreError, match="no fctlab store"):
        fctlab.store.open(tmp_path / "nope")
    st = fctlab.store.open(tmp_path / "new", create=True)
    assert st.query("SELECT count(*) AS n FROM flows")["n"][0] == 0  # empty store: empty views
    with pytest.raises(StoreError) as e:
        st.query("SELEC 1")
    assert "\n" not in str(e.value)


def test_cli_query_errors_are_one_line(tmp_path, swept):
    _, _, st = swept
    for args, code in (
        (["query", "--store", str(st.path), "SELECT nope FROM flows"], 2),
        (["query", "--store", str(tmp_path / "missing"), "SELECT 1"], 2),
    ):
        p = subprocess.run([sys.executable, "-m", "fctlab.cli", *args], capture_output=True, text=True, timeout=120)
        assert p.returncode == code
        assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "fctlab.cli",
            "query",
            "--store",
            str(st.path),
            "--format",
            "json",
            "SELECT count(*) AS n FROM runs",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0 and json.loads(p.stdout) == [{"n": 4}]


def test_same_config_and_seed_give_identical_bytes(tmp_path):
    a = fctlab.sweep({"base": config(seed=3)}, store=tmp_path / "a", workers=1, progress=False)
    b = fctlab.sweep({"base": config(seed=3)}, store=tmp_path / "b", workers=1, progress=False)
    k = a.points[0].runs[0].key
    assert k == b.points[0].runs[0].key
    fa = (Store(tmp_path / "a").run_dir(k) / "flows.parquet").read_bytes()
    fb = (Store(tmp_path / "b").run_dir(k) / "flows.parquet").read_bytes()
    assert fa == fb
    pd.testing.assert_frame_equal(Store(tmp_path / "a").get(k).flows, fctlab.run(config(seed=3)).flows)

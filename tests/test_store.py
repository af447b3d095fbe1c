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


# --- what the store keeps and what a query may touch ----------------------------------


def test_a_sweep_stores_the_probes(tmp_path):
    cfg = {
        "seed": 1,
        "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 5.0},
        "flows": [{"size_pkts": 50, "sender": 0}],
        "traffic": [{"arrivals": "probe", "senders": [1], "interval_ms": 20.0, "pkt_bytes": 500, "stop_s": 0.5}],
    }
    direct = fctlab.run(cfg)
    assert len(direct.probes) > 0
    res = fctlab.sweep({"base": cfg}, store=tmp_path / "st", workers=1, progress=False)
    key = res.points[0].runs[0].key
    assert "probes.parquet" in json.loads((res.store.run_dir(key) / "manifest.json").read_text())["files"]
    pd.testing.assert_frame_equal(res.store.get(key).probes, direct.probes)
    n = res.store.query("SELECT count(*) AS n FROM probes")["n"][0]
    assert n == len(direct.probes)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "fctlab.cli", *args], capture_output=True, text=True, timeout=300)


def test_damaged_runs_are_named_by_query_and_report(swept, tmp_path):
    _, res, st = swept
    bad = res.points[1].runs[0].key
    p = st.run_dir(bad) / "flows.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    r = _cli("query", "--store", str(st.path), "SELECT count(*) AS n FROM runs", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["n", "3"]
    warn = r.stderr.strip().splitlines()
    assert len(warn) == 1 and warn[0].startswith("fctlab: warning: 1 damaged run") and bad in warn[0], r.stderr
    assert "SHA-256" in warn[0]
    r = _cli("report", str(st.path), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0 and bad in r.stderr
    assert bad in (tmp_path / "rep" / "report.html").read_text()


def test_only_the_files_a_manifest_lists_are_read(swept):
    _, res, st = swept
    key = res.points[0].runs[0].key
    # A prefixes table dropped into a run that has none: not the run's, never read.
    stray = pd.DataFrame({"flow_id": [0], "k": [1], "fct_ns": [5]})
    stray.to_parquet(st.run_dir(key) / "prefixes.parquet")
    assert st.has(key)
    assert len(st.get(key).prefixes) == 0
    assert Store(st.path).query("SELECT count(*) AS n FROM prefixes")["n"][0] == 0


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM '{store}/runs/*/*/flows.parquet'",
        "COPY (SELECT 1 AS x) TO '{out}'",
        "ATTACH '{out}' AS other",
        "INSTALL httpfs",
        "SET enable_external_access = true",
    ],
)
def test_query_reads_the_store_and_nothing_else(swept, tmp_path, sql):
    _, _, st = swept
    out = tmp_path / "written.csv"
    r = _cli("query", "--store", str(st.path), sql.format(store=st.path, out=out))
    assert r.returncode == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fctlab: error: query:"), r.stderr
    assert not out.exists()


def test_a_missing_duckdb_is_one_line(swept):
    _, _, st = swept
    code = (
        "import sys; sys.modules['duckdb'] = None\n"
        "from fctlab.cli import main\n"
        f"raise SystemExit(main(['query', '--store', {str(st.path)!r}, 'SELECT 1']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "duckdb" in lines[0] and "pip install" in lines[0], r.stderr


def test_a_read_only_store_is_queried_and_refuses_writes_in_one_line(swept, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to remount a store read-only")
    _, _, st = swept
    ro = tmp_path / "ro"
    ro.mkdir()
    r = subprocess.run(["mount", "--bind", str(st.path), str(ro)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {r.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True)
        r = _cli("query", "--store", str(ro), "SELECT count(*) AS n FROM flows", "--format", "csv")
        assert r.returncode == 0, r.stderr
        for args in (["report", str(ro)], ["sweep", "-q", "--workers", "1", "--store", str(ro), "x.toml"]):
            if args[0] == "sweep":
                (tmp_path / "x.toml").write_text(json_to_toml(config(seed=77)))
                args[-1] = str(tmp_path / "x.toml")
            r = _cli(*args)
            assert r.returncode == 2, (args, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and "read-only" in lines[0].lower(), r.stderr
    finally:
        subprocess.run(["umount", "-l", str(ro)], capture_output=True)


def json_to_toml(cfg: dict) -> str:
    """The small scenarios of this file as TOML (tables and one array of tables)."""

    def val(v):
        return (
            json.dumps(v)
            if not isinstance(v, dict)
            else "{ " + ", ".join(f"{k} = {val(x)}" for k, x in v.items()) + " }"
        )

    lines = [f"seed = {cfg['seed']}"]
    for sec in ("network", "transport"):
        lines.append(f"[{sec}]")
        lines += [f"{k} = {val(v)}" for k, v in cfg[sec].items()]
    for t in cfg["traffic"]:
        lines.append("[[traffic]]")
        lines += [f"{k} = {val(v)}" for k, v in t.items()]
    return "\n".join(lines) + "\n"

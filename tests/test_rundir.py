"""Run directories (`fctlab run --out DIR`): written whole or not at all, never
mixed with an earlier run, refused before the run when unusable, read as a
store of one run by query, report and compare."""

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import fctlab
import pandas as pd
import pytest

SCENARIO = """
seed = {seed}
[network]
topology = "dumbbell"
senders = 2
bottleneck_bps = 10e6
bottleneck_delay_ms = 10.0
buffer_pkts = 30
[[traffic]]
arrivals = "poisson"
load = 0.5
sizes = {{ dist = "pareto", mean_pkts = 10, shape = 1.5 }}
count = {count}
"""

# Measuring flows and size statistics: a run with prefixes.parquet and size_stats.parquet.
WITH_TABLES = """
seed = 1
[network]
bottleneck_bps = 10e6
[[flows]]
size_pkts = 20
measure = true
[metrics]
size_stats = true
"""


def cli(exe, *args, env=None, cwd=None):
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def one_line_error(r):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fctlab: error: "), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    return lines[0]


def test_out_over_an_earlier_run_replaces_it_whole(fctlab_cli, tmp_path):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(WITH_TABLES)
    b.write_text(SCENARIO.format(seed=2, count=30))
    out = tmp_path / "o"
    assert cli(fctlab_cli, "run", str(a), "--out", str(out)).returncode == 0
    assert (out / "prefixes.parquet").exists() and (out / "size_stats.parquet").exists()
    r = cli(fctlab_cli, "run", str(b), "--out", str(out))
    assert r.returncode == 0, r.stderr
    # Only the second run's files: no prefixes or size_stats left from the first,
    # and the summary names exactly what is there.
    names = sorted(p.name for p in out.iterdir())
    # (slowdown.parquet is derived from the flows whenever some flow completed.)
    assert names == ["flows.parquet", "manifest.json", "meta.json", "series.parquet", "slowdown.parquet"]
    assert "prefixes" not in r.stdout and "size_stats" not in r.stdout
    assert json.loads((out / "meta.json").read_text())["seed"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.toml", "b.toml", "o"]


def test_a_directory_holding_other_files_is_refused_before_the_run(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.format(seed=3, count=30))
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "notes.txt").write_text("mine")
    # Were the run to start, the engine would panic (the test failpoint on seed 3).
    env = {**os.environ, "FCTLAB_TEST_PANIC_SEED": "3"}
    line = one_line_error(cli(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"), env=env))
    assert "notes.txt" in line and "not part of a fctlab run" in line
    assert (tmp_path / "o" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "make, expect",
    [
        (lambda d: (d / "f").write_text("x") and d / "f", "not a directory"),
        (lambda d: (d / "f").write_text("x") and d / "f" / "o", "is not a directory"),
        (lambda d: d / ("x" * 300), "too long"),
    ],
)
def test_an_unusable_out_is_refused_before_the_run(fctlab_cli, tmp_path, make, expect):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.format(seed=3, count=30))
    out = make(tmp_path)
    env = {**os.environ, "FCTLAB_TEST_PANIC_SEED": "3"}  # a run would fail differently
    line = one_line_error(cli(fctlab_cli, "run", str(p), "--out", str(out), env=env))
    assert expect in line.lower(), line


def _tmpfs(path: Path, size: str, ro: bool = False) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (a full or a read-only file system)")
    path.mkdir(parents=True, exist_ok=True)
    opts = f"size={size}" + (",ro" if ro else "")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def test_a_full_disk_is_one_line_and_the_earlier_run_is_intact(fctlab_cli, tmp_path):
    small, big = tmp_path / "small.toml", tmp_path / "big.toml"
    small.write_text(SCENARIO.format(seed=1, count=20))
    big.write_text(SCENARIO.format(seed=1, count=20000))
    disk = tmp_path / "disk"
    _tmpfs(disk, "96k")
    try:
        out = disk / "o"
        r = cli(fctlab_cli, "run", str(small), "--out", str(out), "-q")
        assert r.returncode == 0, r.stderr
        line = one_line_error(cli(fctlab_cli, "run", str(big), "--out", str(out), "-q"))
        assert "no space left on device" in line
        # The earlier run is there, whole (its manifest checks out), and nothing else.
        res = fctlab.Result.read(out)
        assert len(res.flows) == 20 and res.meta["config"]["traffic"][0]["count"] == 20
        assert sorted(p.name for p in disk.iterdir()) == ["o"]
    finally:
        _umount(disk)


def test_a_read_only_place_is_refused_before_the_run(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.format(seed=3, count=30))
    ro = tmp_path / "ro"
    _tmpfs(ro, "1m", ro=True)
    try:
        env = {**os.environ, "FCTLAB_TEST_PANIC_SEED": "3"}
        line = one_line_error(cli(fctlab_cli, "run", str(p), "--out", str(ro / "o"), env=env))
        assert "read-only" in line.lower()
    finally:
        _umount(ro)


def test_two_runs_into_one_out_leave_one_whole_run(tmp_path):
    runs = [fctlab.run(fctlab.load_config(SCENARIO.format(seed=s, count=300))) for s in (1, 2)]
    out = tmp_path / "o"
    errors = []

    def write(res):
        try:
            for _ in range(5):
                res.write(out)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=write, args=(r,)) for r in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    got = fctlab.Result.read(out)  # checksums verified: one run's files, not a mix
    seed = got.meta["seed"]
    want = runs[seed - 1]
    pd.testing.assert_frame_equal(got.flows, want.flows)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]


def test_a_size_stats_window_with_no_flow_writes_the_run(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO.format(seed=1, count=20) + "[metrics]\nsize_stats = true\nsize_stats_from_s = 1000.0\n")
    r = cli(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    res = fctlab.Result.read(tmp_path / "o")
    assert len(res.flows) == 20 and len(res.size_stats) == 0
    mem = fctlab.run(p)  # in memory: the table, empty, with its quantile columns
    assert len(mem.size_stats) == 0 and {"p50_fct_ns", "p99_fct_ns"} <= set(mem.size_stats.columns)


def test_query_report_and_compare_take_a_run_directory(fctlab_cli, tmp_path):
    for s in (1, 2):
        (tmp_path / f"s{s}.toml").write_text(SCENARIO.format(seed=s, count=200))
        assert cli(fctlab_cli, "run", str(tmp_path / f"s{s}.toml"), "--out", str(tmp_path / f"run{s}")).returncode == 0
    flows = pd.read_parquet(tmp_path / "run1" / "flows.parquet")
    r = cli(
        fctlab_cli,
        "query",
        "--store",
        str(tmp_path / "run1"),
        "SELECT count(*) AS n, sum(fct_ns) AS s FROM flows",
        "--format",
        "json",
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)[0]
    assert got["n"] == len(flows) and got["s"] == int(flows["fct_ns"].sum())
    r = cli(fctlab_cli, "report", str(tmp_path / "run1"), "--out", str(tmp_path / "rep"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "runs.html").exists()
    r = cli(fctlab_cli, "compare", str(tmp_path / "run1"), str(tmp_path / "run2"))
    assert r.returncode == 0, r.stderr
    assert "run1 median ms" in r.stdout and "run2 p90 ms" in r.stdout and "PS median ms" in r.stdout


def test_compare_prints_what_it_promises(fctlab_cli, tmp_path):
    # Two hand-made runs; the medians and 90th percentiles per bin by hand.
    from fctlab.result import Result

    def run(fcts, ps):
        n = len(fcts)
        flows = pd.DataFrame(
            {
                "size_pkts": [2, 3, 3, 3][:n],
                "fct_ns": pd.array(fcts, dtype="Int64"),
                "ps_fct_ns": pd.array(ps, dtype="Int64"),
                "completed": [True] * n,
            }
        )
        return Result(flows=flows, series=pd.DataFrame(), meta={"config": {}, "seed": 0})

    run([10e6, 20e6, 30e6, 40e6], [5e6, 6e6, 7e6, 8e6]).write(tmp_path / "tcp")
    run([1e6, 2e6, 3e6, 4e6], [5e6, 6e6, 7e6, 8e6]).write(tmp_path / "rcp")
    r = cli(fctlab_cli, "compare", str(tmp_path / "tcp"), str(tmp_path / "rcp"), "--out", str(tmp_path / "cmp"))
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path / "cmp" / "compare.csv").set_index("size_pkts")
    assert list(t.columns) == [
        "tcp flows",
        "tcp median ms",
        "tcp p90 ms",
        "rcp flows",
        "rcp median ms",
        "rcp p90 ms",
        "rcp/tcp median",
        "PS median ms",
        "size_lo_pkts",
        "size_hi_pkts",
    ]
    row = t.loc["2-3"]  # all four flows: sizes 2 and 3
    assert row["tcp median ms"] == 25.0 and row["rcp median ms"] == 2.5
    assert row["tcp p90 ms"] == pytest.approx(37.0)  # numpy's linear quantile: 30 + 0.7 x 10
    assert row["rcp/tcp median"] == pytest.approx(0.1) and row["PS median ms"] == 6.5
    for col in ("tcp p90 ms", "rcp/tcp median", "PS median ms"):
        assert col in r.stdout


def test_copy_of_a_run_directory_is_still_a_run(tmp_path):
    res = fctlab.run(fctlab.load_config(SCENARIO.format(seed=4, count=50)))
    res.write(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert fctlab.store.open(tmp_path / "b").query("SELECT count(*) AS n FROM flows")["n"][0] == 50
    (tmp_path / "b" / "flows.parquet").write_bytes(b"not parquet")
    with pytest.raises(fctlab.RunDirError, match="damaged"):
        fctlab.Result.read(tmp_path / "b")

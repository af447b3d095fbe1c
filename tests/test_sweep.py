"""Sweeps: expansion, validation, resuming after SIGKILL, the Dask path (fctlab.sweep)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fctlab
import pytest
from fctlab.store import Store
from fctlab.sweep import expand, load_spec

ROOT = Path(__file__).resolve().parents[1]


def base_config(count=300, seed=1):
    return {
        "seed": seed,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "buffer_pkts": 50,
        },
        "transport": {"scheme": "tcp-newreno", "init_cwnd_pkts": 2},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.6,
                "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.4},
                "count": count,
            }
        ],
    }


def flows_bytes(store: Store) -> dict:
    return {k: (store.run_dir(k) / "flows.parquet").read_bytes() for k in store}


# --- expansion ----------------------------------------------------------------------


def test_expand_cartesian_product_and_seeds():
    spec = {
        "base": base_config(seed=10),
        "seeds": 3,
        "axes": {"transport.init_cwnd_pkts": [2, 4, 10], "traffic[0].load": [0.5, 0.8]},
    }
    pts = expand(spec)
    assert len(pts) == 3 * 2 * 3
    seen = {(p.labels["transport.init_cwnd_pkts"], p.labels["traffic[0].load"], p.labels["seed"]) for p in pts}
    assert seen == {(w, ld, s) for w in (2, 4, 10) for ld in (0.5, 0.8) for s in (10, 11, 12)}
    for p in pts:
        assert p.config["transport"]["init_cwnd_pkts"] == p.labels["transport.init_cwnd_pkts"]
        assert p.config["traffic"][0]["load"] == p.labels["traffic[0].load"]
        assert p.config["seed"] == p.labels["seed"]
        assert p.config["network"] == spec["base"]["network"]
        assert "seeds" not in p.config and len(p.runs) == 1
    assert len({p.runs[0].key for p in pts}) == len(pts)  # every point is its own run
    # seeds innermost: consecutive points differ only by seed
    assert [p.labels["seed"] for p in pts[:3]] == [10, 11, 12]


def test_expand_linked_axes_and_seed_list():
    spec = {
        "base": base_config(),
        "seeds": [7, 9],
        "linked": {"ack": {"transport.delayed_ack": [False, True], "transport.handshake": [True, False]}},
    }
    pts = expand(spec)
    assert len(pts) == 4
    pairs = {(p.config["transport"]["delayed_ack"], p.config["transport"]["handshake"]) for p in pts}
    assert pairs == {(False, True), (True, False)}
    assert sorted({p.config["seed"] for p in pts}) == [7, 9]


def test_a_scenario_file_is_a_one_point_sweep(tmp_path):
    cfg = base_config()
    (tmp_path / "s.toml").write_text(
        "seed = 4\nreplications = 2\n[network]\nbottleneck_bps = 10e6\n"
        "[[flows]]\nsize_pkts = 10\n[[flows]]\nsize_pkts = 20\n"
    )
    s = load_spec(tmp_path / "s.toml")
    assert s["replications"] == 2 and "replications" not in s["base"] and s["name"] == "s"
    pts = expand(s)
    assert len(pts) == 1 and len(pts[0].runs) == 2
    assert all("replications" not in r.config for r in pts[0].runs)
    del cfg


def test_base_file_relative_to_spec(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "base.toml").write_text("[network]\nbottleneck_bps = 10e6\n[[flows]]\nsize_pkts = 10\n")
    (tmp_path / "sub" / "spec.toml").write_text(
        'base = "base.toml"\nseeds = 2\n[axes]\n"flows[0].size_pkts" = [5, 50]\n'
    )
    pts = expand(tmp_path / "sub" / "spec.toml")
    assert sorted(p.config["flows"][0]["size_pkts"] for p in pts) == [5, 5, 50, 50]


@pytest.mark.parametrize(
    "spec, point_or_key, field",
    [
        # a bad value at one point: named by point and key, before anything runs
        ({"axes": {"network.bottleneck_bps": [10e6, -1.0]}}, "sweep point 1", "network.bottleneck_bps"),
        # an unknown key set by an axis
        ({"axes": {"transport.init_cwnd": [2]}}, "sweep point 0", "transport.init_cwnd"),
        # an index the base does not have
        ({"axes": {"traffic[3].load": [0.5]}}, "traffic[3].load", "axes.traffic[3].load"),
        # a malformed key path
        ({"axes": {"transport..scheme": [1]}}, "not a config key path", "axes.transport..scheme"),
        # an axis that is not a list
        ({"axes": {"traffic[0].load": 0.5}}, "non-empty list", "axes.traffic[0].load"),
        # linked lists of different lengths
        (
            {"linked": {"g": {"transport.handshake": [True], "transport.delayed_ack": [True, False]}}},
            "equal lengths",
            "linked.g",
        ),
        # seeds
        ({"seeds": 0}, ">= 1", "seeds"),
        ({"seeds": [1, "x"]}, "whole number", "seeds[1]"),
        ({"replications": 0}, ">= 1", "replications"),
        # replications larger than the flows to share out
        ({"replications": 500}, "cannot be split", "traffic[0].count"),
        # unknown sweep key
        ({"axis": {}}, "unknown sweep key", "axis"),
    ],
)
def test_bad_specs_name_point_and_key(spec, point_or_key, field):
    full = {"base": base_config(), **spec}
    with pytest.raises(fctlab.ConfigError) as e:
        expand(full)
    msg = str(e.value)
    assert point_or_key in msg and "\n" not in msg
    assert e.value.field == field


def test_invalid_point_runs_nothing(tmp_path):
    spec = {"base": base_config(), "axes": {"traffic[0].load": [0.5, 0.7, -2.0]}}
    with pytest.raises(fctlab.ConfigError, match=r"sweep point 2 \(traffic\[0\]\.load=-2\.0"):
        fctlab.sweep(spec, store=tmp_path / "st", progress=False)
    assert not (tmp_path / "st").exists() or Store(tmp_path / "st").keys() == []


def test_cli_bad_spec_one_line_error(tmp_path):
    (tmp_path / "bad.toml").write_text(
        "[base]\n[base.network]\nbottleneck_bps = 10e6\n[[base.flows]]\nsize_pkts = 10\n"
        '[axes]\n"network.bottleneck_bps" = [1e6, 0]\n'
    )
    p = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "sweep", str(tmp_path / "bad.toml"), "--store", str(tmp_path / "st")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr
    assert "sweep point 1" in lines[0] and "network.bottleneck_bps" in lines[0]


# --- running, storing, resuming -----------------------------------------------------


def test_sweep_stores_every_run_and_skips_them_next_time(tmp_path):
    spec = {"base": base_config(), "seeds": 2, "axes": {"transport.init_cwnd_pkts": [2, 10]}}
    r1 = fctlab.sweep(spec, store=tmp_path / "st", workers=2, progress=False)
    assert len(r1.ran) == 4 and r1.skipped == []
    st = Store(tmp_path / "st")
    assert sorted(st.keys()) == sorted(r1.ran)
    # each stored run is the run of its config, byte for byte (fctlab run --out writes the same file)
    for p in r1.points:
        out = fctlab.run(p.config).write(tmp_path / f"plain{p.index}")
        assert (out / "flows.parquet").read_bytes() == (st.run_dir(p.runs[0].key) / "flows.parquet").read_bytes()
    r2 = fctlab.sweep(spec, store=tmp_path / "st", workers=2, progress=False)
    assert r2.ran == [] and sorted(r2.skipped) == sorted(r1.ran)
    # one more axis value: only the new points run
    spec["axes"]["transport.init_cwnd_pkts"].append(4)
    r3 = fctlab.sweep(spec, store=tmp_path / "st", workers=2, progress=False)
    assert len(r3.ran) == 2 and len(r3.skipped) == 4


def _sessions_alive(sid: int) -> list:
    """Processes in session ``sid`` (the sweep started with start_new_session)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid and fields[0] != "Z":  # fields[3] is the session id; skip zombies
            out.append(int(d.name))
    return out


def _start_sweep(spec_path: Path, store: Path):
    return subprocess.Popen(
        [sys.executable, "-m", "fctlab.cli", "sweep", str(spec_path), "--store", str(store), "--workers", "2", "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for_runs(store: Path, n: int, proc, timeout=120.0) -> int:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        runs = store / "runs"
        have = sum(1 for sub in runs.iterdir() for _ in sub.iterdir()) if runs.is_dir() else 0
        if have >= n:
            return have
        assert proc.poll() is None, f"sweep ended early: {proc.stderr.read().decode()}"
        time.sleep(0.01)
    raise AssertionError("timed out waiting for results")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the sweep's processes")
def test_sigkill_and_restart_gives_the_uninterrupted_results(tmp_path):
    n_points = 24
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'name = "killme"\nseeds = 4\n[base]\nseed = 1\n'
        '[base.network]\ntopology = "dumbbell"\nsenders = 2\nbottleneck_bps = 10e6\n'
        "bottleneck_delay_ms = 10.0\nbuffer_pkts = 50\n"
        '[base.transport]\nscheme = "tcp-newreno"\n'
        '[[base.traffic]]\narrivals = "poisson"\nload = 0.7\n'
        'sizes = { dist = "pareto", mean_pkts = 20, shape = 1.4 }\ncount = 3000\n'
        '[axes]\n"transport.init_cwnd_pkts" = [2, 4, 10]\n"traffic[0].load" = [0.5, 0.8]\n'
    )
    ref = fctlab.sweep(spec, store=tmp_path / "ref", workers=2, progress=False)
    assert len(ref.ran) == n_points
    want = flows_bytes(Store(tmp_path / "ref"))

    store = tmp_path / "st"
    # 1. SIGKILL the sweep's main process only: its workers must not outlive it
    p = _start_sweep(spec, store)
    _wait_for_runs(store, 3, p)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    t0 = time.monotonic()
    while _sessions_alive(p.pid) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    assert _sessions_alive(p.pid) == [], "worker processes outlived the killed sweep"
    # 2. restart, then SIGKILL every process of the sweep at once, mid-way
    p = _start_sweep(spec, store)
    have = _wait_for_runs(store, 10, p)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    stored = Store(store).keys()
    assert have <= len(stored) < n_points, "the sweep finished before it could be killed: make the runs longer"
    # 3. restart and finish: exactly the uninterrupted sweep's runs, byte for byte
    p = _start_sweep(spec, store)
    assert p.wait(timeout=300) == 0, p.stderr.read().decode()
    st = Store(store)
    assert all(st.has(k) for k in st)
    got = flows_bytes(st)
    assert sorted(got) == sorted(want)
    assert got == want
    # nothing was run twice: the finished runs of the first attempts were kept
    for k in stored:
        assert k in got
    assert not list((store / "corrupt").glob("*")) if (store / "corrupt").exists() else True


def test_dask_local_cluster_matches_local_pool(tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = {
        "name": "dask",
        "base": base_config(count=400),
        "seeds": 2,
        "axes": {"traffic[0].load": [0.5, 0.8]},
        "replications": 2,
    }
    local = fctlab.sweep(spec, store=tmp_path / "local", workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        dask = fctlab.sweep(spec, store=tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False)
    assert len(local.ran) == len(dask.ran) == 8
    a, b = flows_bytes(Store(tmp_path / "local")), flows_bytes(Store(tmp_path / "dask"))
    assert sorted(a) == sorted(b) and a == b
    # the merged replications agree too
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(local.summary(), dask.summary())


def test_cli_sweep_and_query(tmp_path):
    spec = ROOT / "examples" / "sweeps" / "iw-load.toml"
    env = {**os.environ, "COLUMNS": "200"}
    p = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "sweep", str(spec), "--store", str(tmp_path / "st")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert "12 runs (12 ran now, 0 already stored)" in p.stdout
    assert "sweep iw-load: 12/12 runs done" in p.stderr  # the progress line: runs, packets/s, time left
    assert "pkts/s" in p.stderr and "left" in p.stderr
    q = subprocess.run(
        [
            sys.executable,
            "-m",
            "fctlab.cli",
            "query",
            "--store",
            str(tmp_path / "st"),
            "--format",
            "csv",
            "SELECT init_cwnd_pkts, count(*) AS n FROM flows GROUP BY 1 ORDER BY 1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert q.returncode == 0, q.stderr
    assert q.stdout.split() == ["init_cwnd_pkts,n", "2,3000", "10,3000"]  # 2 loads x 3 seeds x 500 flows each


def test_cli_dry_run_lists_points_and_touches_nothing(tmp_path):
    spec = ROOT / "examples" / "sweeps" / "ack-policy.toml"
    p = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "sweep", str(spec), "--store", str(tmp_path / "st"), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[-1].startswith("12 points, 12 runs, 0 already in")
    assert "transport.delayed_ack=true" in p.stdout and "transport.handshake=false" in p.stdout
    assert not (tmp_path / "st").exists()

"""Nothing lost: Ctrl-C at any moment of `fctlab run`, and engine panics in
`fctlab run` and in sweeps (one line, exit 2; the other points still run)."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import fctlab
import pandas as pd
import pytest

# A few seconds of engine time: 60,000 Poisson flows on a 100 Mb/s dumbbell.
LONG = """
seed = 5
[network]
topology = "dumbbell"
senders = 4
bottleneck_bps = 100e6
bottleneck_delay_ms = 5.0
buffer_pkts = 100
[[traffic]]
arrivals = "poisson"
load = 0.8
sizes = { dist = "pareto", mean_pkts = 20, shape = 1.4 }
count = 60000
"""


def _wait_for_tmp(parent: Path, proc, timeout=120.0) -> bool:
    """Wait until `fctlab run` has made its temporary output directory (it is
    about to start the engine); False if the process ended first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(p.name.endswith(".fctlab-tmp") for p in parent.iterdir()):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    raise AssertionError("fctlab run did not start")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of LONG: its flows and its engine wall time."""
    import sys

    cli = str(Path(sys.executable).parent / "fctlab")
    d = tmp_path_factory.mktemp("ref")
    (d / "s.toml").write_text(LONG)
    r = subprocess.run([cli, "run", str(d / "s.toml"), "--out", str(d / "o"), "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    meta = json.loads((d / "o" / "meta.json").read_text())
    return pd.read_parquet(d / "o" / "flows.parquet").set_index("flow_id"), meta["wall_s"], d / "s.toml"


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 1.0])
def test_ctrl_c_keeps_every_finished_flow(fctlab_cli, reference, tmp_path, fraction):
    ref, engine_s, scenario = reference
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [fctlab_cli, "run", str(scenario), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert _wait_for_tmp(tmp_path, proc)
    time.sleep(fraction * engine_s)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    res = fctlab.Result.read(out)  # a complete run directory: every file its manifest lists, checksums verified
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o"]  # no temporary directory left behind
    flows = res.flows.set_index("flow_id")
    if proc.returncode == 0:  # the signal came after the run was written: nothing left to stop
        assert stderr == "" and not res.interrupted and len(flows) == len(ref), stderr
        return
    assert proc.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fctlab: interrupted"), stderr
    if res.interrupted:
        assert res.meta["stats"]["interrupted"] and "marked interrupted" in lines[0]
        assert len(flows) < len(ref)
    else:  # the signal came after the simulation had ended: the run is complete
        assert "already finished" in lines[0] and len(flows) == len(ref)
    # Each flow started is the same flow as in the uninterrupted run (same seed),
    # and each one that finished finished at the same time.
    assert list(flows.index) == list(ref.index[: len(flows)])
    assert (flows["start_ns"] == ref.loc[flows.index, "start_ns"]).all()
    done = flows[flows["completed"]]
    assert len(done) > 0
    assert (done["fct_ns"] == ref.loc[done.index, "fct_ns"]).all()


def test_ctrl_c_early_in_a_run_is_an_interrupted_run(fctlab_cli, tmp_path):
    # Ten times LONG's flows (several seconds of engine time): half a second
    # after the engine starts the simulation is certainly still going.
    count = 600_000
    (tmp_path / "s.toml").write_text(LONG.replace("count = 60000", f"count = {count}"))
    proc = subprocess.Popen(
        [fctlab_cli, "run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert _wait_for_tmp(tmp_path, proc)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    res = fctlab.Result.read(tmp_path / "o")
    assert res.interrupted and res.meta["interrupted"]
    assert 0 < res.meta["flows_completed"] < count


def test_stop_flag_stops_a_run_from_another_thread():
    import threading

    flag = fctlab.StopFlag()
    cfg = fctlab.load_config(LONG)
    threading.Timer(0.3, flag.set).start()
    res = fctlab.run(cfg, stop=flag)
    assert res.interrupted and 0 < len(res.flows) < 60000


# --- panics ---------------------------------------------------------------------

SMALL = """
seed = {seed}
[network]
bottleneck_bps = 10e6
[[traffic]]
arrivals = "poisson"
load = 0.5
sizes = {{ dist = "fixed", pkts = 5 }}
count = 50
"""


def test_an_engine_panic_is_one_line_and_exit_2(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SMALL.format(seed=7))
    env = {**os.environ, "FCTLAB_TEST_PANIC_SEED": "7"}
    r = subprocess.run(
        [fctlab_cli, "run", str(p), "--out", str(tmp_path / "o")], capture_output=True, text=True, env=env
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("fctlab: error: the engine failed") and "lib.rs:" in lines[0], lines[0]
    assert not (tmp_path / "o").exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.toml"]


def test_an_engine_panic_in_python_is_an_exception():
    os.environ["FCTLAB_TEST_PANIC_SEED"] = "11"
    try:
        with pytest.raises(fctlab.EngineError, match="failpoint"):
            fctlab.run(fctlab.load_config(SMALL.format(seed=11)))
    finally:
        del os.environ["FCTLAB_TEST_PANIC_SEED"]
    assert isinstance(fctlab.EngineError("x"), Exception)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_panicking_point_fails_alone(fctlab_cli, tmp_path, workers):
    # Three points (seeds 1, 2, 3); the run of seed 2 panics in the engine.
    (tmp_path / "base.toml").write_text(SMALL.format(seed=1))
    (tmp_path / "sw.toml").write_text('name = "p"\nbase = "base.toml"\nseeds = [1, 2, 3]\n')
    env = {**os.environ, "FCTLAB_TEST_PANIC_SEED": "2"}
    r = subprocess.run(
        [fctlab_cli, "sweep", str(tmp_path / "sw.toml"), "--store", str(tmp_path / "st"), "--workers", workers, "-q"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "1 of 3 runs failed" in lines[0] and "point 1" in lines[0] and "EngineError" in lines[0], lines[0]
    seeds = sorted(fctlab.store.open(tmp_path / "st").runs()["seed"])
    assert seeds == [1, 3]
    rec = json.loads((tmp_path / "st" / "sweeps" / "p.json").read_text())
    assert len(rec["failed"]) == 1


def test_a_rust_panic_outside_a_run_is_one_line(monkeypatch, tmp_path, capsys):
    # pyo3 turns a panic in any other binding into PanicException, a
    # BaseException that `except Exception` does not catch.
    from fctlab import _core, cli

    def panics(*a, **k):
        raise _core.PanicException("index out of bounds")

    monkeypatch.setattr(fctlab, "run", panics)
    p = tmp_path / "s.toml"
    p.write_text(SMALL.format(seed=1))
    assert cli.main(["run", str(p), "--out", str(tmp_path / "o"), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fctlab: error: the engine failed"), err


def test_a_rust_panic_fails_its_point_in_an_in_process_sweep(monkeypatch, tmp_path):
    from fctlab import _core

    real = fctlab.run

    def run(cfg, **kw):
        if cfg.get("seed") == 2:
            raise _core.PanicException("boom")
        return real(cfg, **kw)

    monkeypatch.setattr(fctlab, "run", run)
    base = fctlab.load_config(SMALL.format(seed=1))
    res = fctlab.sweep(
        {"base": base, "seeds": [1, 2, 3]}, store=tmp_path / "st", workers=1, progress=False, raise_failures=False
    )
    assert len(res.failed) == 1 and "PanicException: boom" in next(iter(res.failed.values()))
    assert sorted(res.store.runs()["seed"]) == [1, 3]
    assert [p.index for p in res.points if res.stored(p.index)] == [0, 2]

"""The route a Python user takes: `pip install .` into a fresh virtual
environment gives a working `fctlab` with every command (the engine is built
by maturin from the source; the dependencies come from the package index)."""

import socket
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCENARIO = """
seed = 1
[network]
bottleneck_bps = 10e6
bottleneck_delay_ms = 10.0
[[traffic]]
arrivals = "poisson"
load = 0.5
sizes = { dist = "pareto", mean_pkts = 10, shape = 1.5 }
count = 100
"""


def _index_reachable() -> bool:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return True
    except OSError:
        return False


def test_pip_install_gives_every_command(tmp_path):
    if not _index_reachable():
        pytest.skip("pip install needs the package index (pypi.org), which cannot be reached from here")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    r = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", str(ROOT)], capture_output=True, text=True, timeout=1800
    )
    assert r.returncode == 0, r.stderr[-3000:]
    exe = str(env_dir / "bin" / "fctlab")

    def fctlab(*args):
        p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert p.returncode == 0, (args, p.stderr[-2000:])
        return p.stdout

    # The package comes from the new environment, not from this checkout.
    where = subprocess.run([str(py), "-c", "import fctlab; print(fctlab.__file__)"], capture_output=True, text=True)
    assert where.stdout.startswith(str(env_dir)), where.stdout
    (tmp_path / "s.toml").write_text(SCENARIO)
    fctlab("run", "s.toml", "--out", "run", "-q")
    assert fctlab("query", "--store", "run", "SELECT count(*) AS n FROM flows", "--format", "csv").split() == [
        "n",
        "100",
    ]
    (tmp_path / "sw.toml").write_text('base = "s.toml"\nseeds = 2\n')
    fctlab("sweep", "sw.toml", "--store", "st", "-q", "--workers", "2")
    assert fctlab("query", "--store", "st", "SELECT count(*) AS n FROM runs", "--format", "csv").split() == ["n", "2"]
    fctlab("report", "st")
    assert (tmp_path / "st" / "report" / "report.html").exists()
    fctlab("compare", "run", "run")
    assert "tcp-newreno" in fctlab("list")
    assert fctlab("reproduce", "--list").strip()
    for cmd in ("run", "live", "compare", "list", "reproduce", "suite1991", "sweep", "query", "report", "bench"):
        fctlab(cmd, "--help")

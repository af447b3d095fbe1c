"""The command line: outputs, one-line errors, exit codes."""

import json
import subprocess

import pandas as pd
import pytest

GOOD = """
seed = 2
[network]
topology = "dumbbell"
senders = 2
bottleneck_bps = 10e6
bottleneck_delay_ms = 10.0
buffer_pkts = 30
[[traffic]]
arrivals = "poisson"
load = 0.5
sizes = { dist = "pareto", mean_pkts = 10, shape = 1.5 }
count = 50
"""


def run(cli, *args, cwd=None):
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_run_writes_the_three_files(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(GOOD)
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "50/50 flows completed" in r.stdout
    flows = pd.read_parquet(tmp_path / "o" / "flows.parquet")
    assert len(flows) == 50 and flows["completed"].all()
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert meta["seed"] == 2 and meta["config"]["network"]["senders"] == 2
    assert (tmp_path / "o" / "series.parquet").exists()


def test_two_cli_runs_are_byte_identical(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(GOOD)
    for d in ("a", "b"):
        assert run(fctlab_cli, "run", str(p), "--out", str(tmp_path / d), "-q").returncode == 0
    assert (tmp_path / "a" / "flows.parquet").read_bytes() == (tmp_path / "b" / "flows.parquet").read_bytes()


@pytest.mark.parametrize(
    "old, new, field",
    [
        ("buffer_pkts = 30", "buffer_pkts = 30\nspeed = 3", "network.speed"),
        ("bottleneck_bps = 10e6", 'bottleneck_bps = "ten"', "network.bottleneck_bps"),
        ("bottleneck_bps = 10e6", "bottleneck_bps = -10e6", "network.bottleneck_bps"),
        ("bottleneck_bps = 10e6", "bottleneck_bps = 0", "network.bottleneck_bps"),
        ("seed = 2", 'seed = 2\n[transport]\nscheme = "warp"', "transport.scheme"),
        ('arrivals = "poisson"', 'arrivals = "bursty"', "traffic[0].arrivals"),
    ],
)
def test_bad_input_is_one_line_naming_the_field(fctlab_cli, tmp_path, old, new, field):
    p = tmp_path / "bad.toml"
    p.write_text(GOOD.replace(old, new))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("fctlab: error: ") and field in lines[0]
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_empty_workload_and_missing_file(fctlab_cli, tmp_path):
    p = tmp_path / "empty.toml"
    p.write_text("[network]\nbottleneck_bps = 1e6\n")
    r = run(fctlab_cli, "run", str(p))
    assert r.returncode == 2 and "flows" in r.stderr and "empty" in r.stderr and "Traceback" not in r.stderr
    r = run(fctlab_cli, "run", str(tmp_path / "nope.toml"))
    assert r.returncode == 2 and "not found" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    p.write_text("[network\nbottleneck_bps = 1e6\n")
    r = run(fctlab_cli, "run", str(p))
    assert r.returncode == 2 and "TOML" in r.stderr and "Traceback" not in r.stderr


def test_no_completed_flow_says_so(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(
        "stop_s = 0.001\n[network]\nbottleneck_bps = 1e6\nbottleneck_delay_ms = 10.0\n[[flows]]\nsize_pkts = 100\n"
    )
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0
    assert "no flow completed" in r.stderr
    assert (tmp_path / "o" / "flows.parquet").exists()


def test_list_shows_schemes_and_defaults(fctlab_cli):
    r = run(fctlab_cli, "list")
    assert r.returncode == 0
    assert "tcp-newreno" in r.stdout and "half-dumbbell" in r.stdout and "min_rto_ms" in r.stdout
    j = json.loads(run(fctlab_cli, "list", "--json").stdout)
    assert any(s["name"] == "tcp-newreno" for s in j["schemes"])


def test_output_cut_short_by_the_reader_is_not_an_error(fctlab_cli):
    # `fctlab list | head -1` where the reader is gone before fctlab writes:
    # the pipe is closed at once, long before the interpreter has started.
    p = subprocess.Popen([fctlab_cli, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0
    assert "error" not in err and "Traceback" not in err

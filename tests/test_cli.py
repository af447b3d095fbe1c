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


# --- help, flags, and errors in the user's words ----------------------------------------


def _subparsers():
    import argparse

    from fctlab.cli import build_parser

    p = build_parser()
    sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def test_every_command_and_option_has_help():
    for name, sp in _subparsers().items():
        if name == "list":  # its own tests cover it
            continue
        assert sp.description, f"fctlab {name} has no description"
        for a in sp._actions:
            if a.dest != "help":
                assert a.help, f"fctlab {name} {a.option_strings or a.dest} has no help"


def test_run_and_live_take_the_same_flags():
    subs = _subparsers()
    for name in ("run", "live"):
        opts = {o: a for a in subs[name]._actions for o in a.option_strings}
        assert {"-q", "--quiet", "--out", "--seed"} <= set(opts), name
        assert opts["--out"].default == "out" and not opts["--out"].required, name


def test_reproduce_lists_and_never_runs_everything_unasked(fctlab_cli):
    from fctlab.experiments import REGISTRY

    r = run(fctlab_cli, "reproduce", "--list")
    assert r.returncode == 0
    listed = [line.split()[0] for line in r.stdout.strip().splitlines()]
    assert sorted(listed) == sorted(REGISTRY)
    r = subprocess.run([fctlab_cli, "reproduce"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "--list" in lines[0] and "--all" in lines[0]


@pytest.mark.parametrize(
    "old, new, field, words",
    [
        ("count = 50", "count = 2.5", "traffic[0].count", "expected a whole number >= 0, got 2.5"),
        ("count = 50", 'count = "many"', "traffic[0].count", 'expected a whole number >= 0, got the text "many"'),
        ("load = 0.5", "load = true", "traffic[0].load", "expected a number, got true"),
        ("buffer_pkts = 30", "buffer_pkts = [30]", "network.buffer_pkts", "expected a whole number >= 0, got a list"),
    ],
)
def test_errors_speak_the_users_words(fctlab_cli, tmp_path, old, new, field, words):
    p = tmp_path / "bad.toml"
    p.write_text(GOOD.replace(old, new))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    assert r.stderr.strip() == f"fctlab: error: {field}: {words}"


def test_documented_forms_are_accepted(fctlab_cli, tmp_path):
    # links = "all" as the docs write it; a count written as a float (2.5e1)
    p = tmp_path / "s.toml"
    p.write_text(GOOD.replace("count = 50", "count = 2.5e1") + '[metrics]\nlinks = "all"\n')
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert len(pd.read_parquet(tmp_path / "o" / "flows.parquet")) == 25
    series = pd.read_parquet(tmp_path / "o" / "series.parquet")
    # every link sampled: the dumbbell's 2 access links, the bottleneck and the way back
    assert {"bottleneck", "access0", "access1"} <= set(series["element"])


def test_an_offered_load_of_one_or_more_is_warned_of(fctlab_cli, tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(GOOD.replace("load = 0.5", "load = 1.5").replace("count = 50", "count = 20"))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"), "-q")
    assert r.returncode == 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fctlab: warning: traffic: the offered load is 1.500"), r.stderr
    p.write_text(GOOD)
    assert run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"), "-q").stderr == ""


@pytest.mark.parametrize(
    "content, words",
    [
        (bytes(range(256)) * 4, "not a text file"),
        (b"a = " + b"[" * 100000 + b"]" * 100000, "nested too deeply"),
        (b"x = 1\x00", "not a text file"),
    ],
)
def test_a_file_that_is_no_scenario_is_one_line(fctlab_cli, tmp_path, content, words):
    p = tmp_path / "s.toml"
    p.write_bytes(content)
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], r.stderr


def test_a_scenario_that_is_not_a_file_is_one_line(fctlab_cli, tmp_path):
    for path in ("/dev/zero", str(tmp_path)):
        r = run(fctlab_cli, "run", path, "--out", str(tmp_path / "o"))
        assert r.returncode == 2 and r.stderr.strip().endswith("not a regular file"), r.stderr


def test_a_sweep_too_large_is_refused_with_its_size(fctlab_cli, tmp_path):
    (tmp_path / "base.toml").write_text(GOOD)
    senders = list(range(1, 1001))
    loads = [0.1 * i for i in range(1, 101)]
    spec = f'base = "base.toml"\nseeds = 1000\n[axes]\n"network.senders" = {senders}\n"traffic[0].load" = {loads}\n'
    (tmp_path / "sw.toml").write_text(spec)
    r = run(fctlab_cli, "sweep", str(tmp_path / "sw.toml"), "--store", str(tmp_path / "st"))
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "fctlab: error: axes: this sweep has 100,000,000 runs (1000 x 100 x 1000); at most 100,000 in one sweep: "
        "split it into several"
    )
    assert not (tmp_path / "st").exists()


def test_progress_shows_percentage_and_time_left():
    import io

    from fctlab.progress import RunProgress, fraction_done

    p = {
        "sim_ns": 2e9,
        "stop_ns": None,
        "events": 10,
        "flows_started": 30,
        "flows_completed": 25,
        "flows_expected": 100,
        "data_delivered": 10,
        "wall_s": 10.0,
    }
    assert fraction_done(p) == 0.25
    s = io.StringIO()
    RunProgress(stream=s)(p)
    assert s.getvalue().startswith("25% | ~0:30 left | ")  # 10 s for a quarter: 30 s for the rest
    # a time limit too: the run ends at whichever end comes first
    assert fraction_done({**p, "stop_ns": 4e9}) == 0.5
    assert fraction_done({**p, "flows_expected": None, "stop_ns": None}) is None

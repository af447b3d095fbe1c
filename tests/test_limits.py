"""Inputs beyond what the engine can hold are one line naming the key, exit 2;
a run too large for the machine's memory is refused before it is built; set-up
grows linearly with the senders."""

import json
import subprocess
import time

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


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def refused(cli, tmp_path, text):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    r = run(cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fctlab: error: "), r.stderr
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr
    assert not (tmp_path / "o").exists()
    return lines[0]


RCP = '[transport]\nscheme = "rcp"\n[transport.rcp]\n'


@pytest.mark.parametrize(
    "old, new, field, allowed",
    [
        # Gaps of 10^21 ns overflow integer nanoseconds (the engine panicked).
        ("load = 0.5", "rate_per_s = 1e-12", "traffic[0].rate_per_s", "1e-6"),
        ("load = 0.5", "load = 1e-15", "traffic[0].load", "1e-6"),
        # Timers that round to 0 ns: a SYN storm.
        ("seed = 2", "seed = 2\n[transport]\nsyn_rto_ms = 1e-7", "transport.syn_rto_ms", "0.001 ms"),
        (
            "seed = 2",
            "seed = 2\n" + RCP + "syn_first_retx_ms = 1e-7",
            "transport.rcp.syn_first_retx_ms",
            "0.001 ms",
        ),
        ("seed = 2", "seed = 2\n" + RCP + "syn_retx_ms = 1e-7", "transport.rcp.syn_retx_ms", "0.001 ms"),
        (
            "seed = 2",
            "seed = 2\n[transport]\ndelack_timeout_ms = 1e12",
            "transport.delack_timeout_ms",
            "at most",
        ),
        # A sketch finer than f64 or memory allow.
        (
            "count = 50",
            "count = 50\n[metrics]\nsize_stats = true\nsize_stats_alpha = 1e-8",
            "metrics.size_stats_alpha",
            "1e-4",
        ),
        # Every flow 10^12 packets.
        ("shape = 1.5", "shape = 1e308", "traffic[0].sizes.shape", "1000"),
        ("shape = 1.5", "shape = 1.05", "traffic[0].sizes.shape", "10%"),
        ("mean_pkts = 10", "mean_pkts = 1e10", "traffic[0].sizes.mean_pkts", "1e9"),
    ],
)
def test_values_beyond_the_engine_are_one_line(fctlab_cli, tmp_path, old, new, field, allowed):
    text = GOOD.replace(old, new)
    if "rcp" in new:
        text = text.replace("buffer_pkts = 30", 'buffer_pkts = 30\nqueue = "rcp"')
    line = refused(fctlab_cli, tmp_path, text)
    assert field in line and allowed in line, line


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


needs_meminfo = pytest.mark.skipif(
    mem_available() is None or mem_available() > 1e11,
    reason="needs /proc/meminfo and under 100 GB available",
)


@needs_meminfo
def test_a_billion_flows_with_their_table_is_refused(fctlab_cli, tmp_path):
    # 10^9 flow records of over 100 bytes each: more than 100 GB.
    text = GOOD.replace("bottleneck_bps = 10e6", "bottleneck_bps = 100e9").replace("count = 50", "count = 1e9")
    line = refused(fctlab_cli, tmp_path, text)
    assert "metrics.flows" in line and "metrics.flows = false" in line and "GB" in line, line


@needs_meminfo
def test_a_series_of_every_link_over_a_long_run_is_refused(fctlab_cli, tmp_path):
    # 4,000 links x 2 values x 10^7 samples (10^5 s at 10 ms): over 10^11 values.
    text = GOOD.replace("senders = 2", "senders = 1000") + '\nstop_s = 1e5\n[metrics]\nlinks = "all"\n'
    line = refused(fctlab_cli, tmp_path, text)
    assert "metrics.interval_ms" in line and "GB" in line, line


def test_ten_thousand_senders_set_up_in_seconds(fctlab_cli, tmp_path):
    # Set-up was quadratic in the senders: 10^4 took over a minute.
    p = tmp_path / "big.toml"
    p.write_text(GOOD.replace("senders = 2", "senders = 10000").replace("count = 50", "count = 20"))
    t0 = time.monotonic()
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"), "-q")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 60
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    setup = meta.get("setup_s", meta.get("stats", {}).get("setup_s"))
    assert setup is not None and 0 <= setup < 60, meta.keys()

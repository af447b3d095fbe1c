"""The window-based TCP variants (tcp-tahoe, tcp-reno, tcp-hstcp, tcp-scalable)
from Python and the CLI: they run, complete every flow, take their parameter
tables, refuse bad ones with one line naming the key, and `fctlab list` shows them."""

import json
import subprocess

import fctlab
import pytest

VARIANTS = ["tcp-tahoe", "tcp-reno", "tcp-hstcp", "tcp-scalable"]

# A small dumbbell with a short buffer, so every scheme sees drops and recovery.
DUMBBELL = """
seed = 5
[network]
topology = "dumbbell"
senders = 3
bottleneck_bps = 10e6
bottleneck_delay_ms = 10.0
access_delay_ms = [1.0, 5.0, 15.0]
buffer_pkts = 12
[transport]
scheme = "{scheme}"
{table}
[[traffic]]
arrivals = "poisson"
load = 0.8
sizes = {{ dist = "pareto", mean_pkts = 20, shape = 1.3 }}
count = 60
"""


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def config(scheme, **table):
    c = {
        "seed": 5,
        "network": {
            "topology": "dumbbell",
            "senders": 3,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "access_delay_ms": [1.0, 5.0, 15.0],
            "buffer_pkts": 12,
        },
        "transport": {"scheme": scheme, **table},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.8,
                "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3},
                "count": 60,
            }
        ],
        "metrics": {"cwnd_flows": [0]},
    }
    return c


@pytest.mark.parametrize("scheme", VARIANTS)
def test_each_variant_runs_from_python_and_completes(scheme):
    res = fctlab.run(config(scheme))
    f = res.flows
    assert len(f) == 60 and f["completed"].all()
    assert (f["fct_ns"] >= f["ideal_ns"]).all()
    assert f["drops"].sum() > 0 and f["retransmits"].sum() > 0  # recovery was exercised
    assert res.meta["config"]["transport"]["scheme"] == scheme
    assert (res.series["metric"] == "cwnd_pkts").any()


@pytest.mark.parametrize(
    "scheme, table",
    [
        ("tcp-tahoe", ""),
        ("tcp-reno", ""),
        ("tcp-hstcp", "[transport.hstcp]\nlow_window = 10\nlow_p = 1e-3"),
        ("tcp-scalable", "[transport.scalable]\na = 0.02\nlow_window = 4"),
    ],
)
def test_each_variant_runs_from_the_cli(fctlab_cli, tmp_path, scheme, table):
    p = tmp_path / "s.toml"
    p.write_text(DUMBBELL.format(scheme=scheme, table=table))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "60/60 flows completed" in r.stdout
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert meta["config"]["transport"]["scheme"] == scheme


def test_variants_differ_from_each_other():
    # Same workload and seed: Tahoe (no fast recovery) and the high-speed laws
    # (low legacy windows, so they act here) give other FCTs than Reno.
    fct = {s: fctlab.run(config(s)).flows["fct_ns"].sum() for s in ["tcp-tahoe", "tcp-reno"]}
    fct["tcp-hstcp"] = fctlab.run(config("tcp-hstcp", hstcp={"low_window": 4})).flows["fct_ns"].sum()
    fct["tcp-scalable"] = fctlab.run(config("tcp-scalable", scalable={"low_window": 0})).flows["fct_ns"].sum()
    assert len(set(fct.values())) == 4, fct


BAD = [
    # (scheme, TOML table, the same as a dict, the key the error names)
    ("tcp-hstcp", "[transport.hstcp]\nlow_windw = 10", {"hstcp": {"low_windw": 10}}, "transport.hstcp"),
    ("tcp-hstcp", "[transport.hstcp]\nhigh_p = 0.5", {"hstcp": {"high_p": 0.5}}, "transport.hstcp.high_p"),
    ("tcp-scalable", "[transport.scalable]\nb = 2.0", {"scalable": {"b": 2.0}}, "transport.scalable.b"),
    ("tcp-reno", "[transport.hstcp]\nlow_window = 10", {"hstcp": {"low_window": 10}}, "transport.hstcp"),
]


@pytest.mark.parametrize("scheme, table, as_dict, field", BAD)
def test_bad_tables_are_one_line_naming_the_key(fctlab_cli, tmp_path, scheme, table, as_dict, field):
    p = tmp_path / "bad.toml"
    p.write_text(DUMBBELL.format(scheme=scheme, table=table))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and "Traceback" not in r.stderr, r.stderr
    with pytest.raises(fctlab.ConfigError, match=field.replace(".", r"\.")):
        fctlab.run(config(scheme, **as_dict))


def test_list_shows_the_variants_and_their_parameters(fctlab_cli):
    r = run(fctlab_cli, "list")
    assert r.returncode == 0
    for s in VARIANTS:
        assert s in r.stdout
    for key in [
        "low_window = 38",
        "high_window = 83000",
        "high_p = 1e-7",
        "high_decrease = 0.1",
        "low_p = ",
        "a = 0.01",
        "b = 0.125",
        "low_window = 16",
        "RFC 3649",
        "Kelly 2003",
    ]:
        assert key in r.stdout, key
    j = json.loads(run(fctlab_cli, "list", "--json").stdout)
    schemes = {s["name"]: s for s in j["schemes"]}
    assert schemes["tcp-hstcp"]["table"] == "transport.hstcp"
    assert {p["key"]: p["default"] for p in schemes["tcp-hstcp"]["params"]}["high_p"] == "1e-7"
    assert schemes["tcp-scalable"]["table"] == "transport.scalable"
    assert {p["key"] for p in schemes["tcp-scalable"]["params"]} == {"a", "b", "low_window"}
    assert all(p["source"] for s in ("tcp-hstcp", "tcp-scalable") for p in schemes[s]["params"])
    assert schemes["tcp-tahoe"]["params"] == [] and schemes["tcp-reno"]["params"] == []

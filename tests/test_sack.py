"""tcp-sack (RFC 2018 SACK blocks, RFC 6675 recovery) from Python and the CLI: it
runs, completes every flow, takes its parameter table, refuses bad tables with
one line naming the key, and `fctlab list` shows it with its parameters. The
recovery itself is checked against hand traces in crates/fctlab-core/tests/sack.rs."""

import json
import subprocess

import fctlab
import pytest

# A small dumbbell with a short buffer, so flows see drops and recovery.
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
scheme = "tcp-sack"
{table}
[[traffic]]
arrivals = "poisson"
load = 0.8
sizes = {{ dist = "pareto", mean_pkts = 20, shape = 1.3 }}
count = 60
"""


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


def config(scheme="tcp-sack", **transport):
    return {
        "seed": 5,
        "network": {
            "topology": "dumbbell",
            "senders": 3,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "access_delay_ms": [1.0, 5.0, 15.0],
            "buffer_pkts": 12,
        },
        "transport": {"scheme": scheme, **transport},
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


def test_runs_from_python_and_completes():
    res = fctlab.run(config())
    f = res.flows
    assert len(f) == 60 and f["completed"].all()
    assert (f["fct_ns"] >= f["ideal_ns"]).all()
    assert f["drops"].sum() > 0 and f["retransmits"].sum() > 0  # recovery was exercised
    assert res.meta["config"]["transport"]["scheme"] == "tcp-sack"
    assert (res.series["metric"] == "cwnd_pkts").any()
    # Same config and seed: the same table, byte for byte.
    again = fctlab.run(config())
    assert f.equals(again.flows)


def test_recovers_differently_from_newreno():
    # The same workload and seed with losses: SACK recovery changes the outcome.
    sack = fctlab.run(config()).flows
    newreno = fctlab.run(config("tcp-newreno")).flows
    assert list(sack["fct_ns"]) != list(newreno["fct_ns"])


def test_three_losses_in_a_window_hand_trace():
    # tests/sack.rs's first trace from Python: 8.32 Mb/s (T = 1 ms per 1040 B
    # packet), d = 50 ms, IW 10, 12 packets, packets 1, 3 and 5 lost: the third
    # hole's retransmission leaves at D + 9T and arrives T + d later, with D =
    # T + 2d + Ta the time from sending a packet to its ACK.
    t, d = 1_000_000, 50_000_000
    ta = round(40 * 8e9 / 8.32e6)
    dd = t + 2 * d + ta
    cfg = {
        "network": {
            "topology": "single-link",
            "bottleneck_bps": 8.32e6,
            "bottleneck_delay_ms": 50.0,
            "buffer_pkts": 1000,
        },
        "transport": {"scheme": "tcp-sack", "init_cwnd_pkts": 10, "handshake": False},
        "flows": [{"size_pkts": 12}],
        "losses": [{"flow": 0, "seq": s} for s in (1, 3, 5)],
        "metrics": {"series": False},
    }
    f = fctlab.run(cfg).flows.iloc[0]
    assert int(f["fct_ns"]) == dd + 10 * t + d
    assert int(f["drops"]) == 3


@pytest.mark.parametrize("table", ["", "[transport.sack]\nblocks = 1\nrescue = false"])
def test_runs_from_the_cli(fctlab_cli, tmp_path, table):
    p = tmp_path / "s.toml"
    p.write_text(DUMBBELL.format(table=table))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "60/60 flows completed" in r.stdout
    meta = json.loads((tmp_path / "o" / "meta.json").read_text())
    assert meta["config"]["transport"]["scheme"] == "tcp-sack"


BAD = [
    # (TOML table, the same as a dict, the key the error names)
    ("[transport.sack]\nblocks = 4", {"sack": {"blocks": 4}}, "transport.sack.blocks"),
    ("[transport.sack]\nblocks = 0", {"sack": {"blocks": 0}}, "transport.sack.blocks"),
    ("[transport.sack]\nrescue = 1", {"sack": {"rescue": 1}}, "transport.sack.rescue"),
    ("[transport.sack]\nrescu = false", {"sack": {"rescu": False}}, "transport.sack"),
]


@pytest.mark.parametrize("table, as_dict, field", BAD)
def test_bad_tables_are_one_line_naming_the_key(fctlab_cli, tmp_path, table, as_dict, field):
    p = tmp_path / "bad.toml"
    p.write_text(DUMBBELL.format(table=table))
    r = run(fctlab_cli, "run", str(p), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and "Traceback" not in r.stderr, r.stderr
    with pytest.raises(fctlab.ConfigError, match=field.replace(".", r"\.")) as e:
        fctlab.run(config(**as_dict))
    assert e.value.field.startswith(field)


def test_its_table_beside_another_scheme_is_refused():
    with pytest.raises(fctlab.ConfigError, match="tcp-newreno") as e:
        fctlab.run(config("tcp-newreno", sack={"rescue": False}))
    assert e.value.field == "transport.sack"


def test_list_shows_it_and_its_parameters(fctlab_cli):
    r = run(fctlab_cli, "list")
    assert r.returncode == 0
    assert "tcp-sack" in r.stdout
    for key in ["blocks = 3", "rescue = true", "RFC 2018", "RFC 6675"]:
        assert key in r.stdout, key
    j = json.loads(run(fctlab_cli, "list", "--json").stdout)
    s = {s["name"]: s for s in j["schemes"]}["tcp-sack"]
    assert s["table"] == "transport.sack"
    params = {p["key"]: p for p in s["params"]}
    assert set(params) == {"blocks", "rescue"}
    assert params["blocks"]["default"] in (3, "3") and params["rescue"]["default"] in (True, "true")
    assert all(p["source"] for p in params.values())

"""Queue disciplines from Python and the CLI: red, red-ecn and fq on a small dumbbell."""

import json
import subprocess

import fctlab
import pytest


def scenario(queue, **tables):
    s = {
        "seed": 5,
        "network": {
            "topology": "dumbbell",
            "senders": 3,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "access_delay_ms": [1.0, 5.0, 20.0],
            "buffer_pkts": 30,
            "queue": queue,
            **tables,
        },
        "transport": {"ecn": queue == "red-ecn"},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.8,
                "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3},
                "count": 150,
            }
        ],
        "metrics": {"interval_ms": 10.0},
    }
    return s


@pytest.mark.parametrize(
    "queue,tables",
    [
        ("red", {}),
        ("red", {"red": {"adaptive": True, "gentle": False}}),
        ("red-ecn", {}),
        ("fq", {}),
        ("fq", {"fq": {"buckets": 4, "classify": "path"}}),
    ],
)
def test_every_flow_completes_and_the_queue_stays_within_its_buffer(queue, tables):
    res = fctlab.run(scenario(queue, **tables))
    f = res.flows
    assert len(f) == 150 and f["completed"].all()
    assert (f["fct_ns"] >= f["ideal_ns"]).all()
    q = res.series[res.series["metric"] == "queue_pkts"]["value"]
    assert q.max() <= 30


def test_red_ecn_marks_where_red_drops():
    # Two 1000-packet flows through RED with a fast average (q_weight 0.02) and
    # mark_p 1, so every early decision on an ECN-capable packet is a mark; the
    # 300-packet buffer is far above what the marked windows need (BDP ~ 40).
    # With ECN nothing is lost; without it, RED's early decisions are drops.
    def two_flows(queue, ecn):
        return {
            "seed": 5,
            "network": {
                "topology": "dumbbell",
                "senders": 2,
                "bottleneck_bps": 10e6,
                "bottleneck_delay_ms": 10.0,
                "access_delay_ms": 5.0,
                "buffer_pkts": 300,
                "queue": queue,
                "red": {"q_weight": 0.02, "mark_p": 1.0},
            },
            "transport": {"ecn": ecn},
            "flows": [{"sender": 0, "size_pkts": 1000}, {"sender": 1, "size_pkts": 1000, "start_s": 0.05}],
        }

    ecn = fctlab.run(two_flows("red-ecn", True))
    red = fctlab.run(two_flows("red", True))
    assert ecn.flows["completed"].all() and red.flows["completed"].all()
    assert ecn.flows["drops"].sum() == 0 and ecn.flows["retransmits"].sum() == 0
    assert red.flows["drops"].sum() > 0


def test_runs_are_deterministic():
    a = fctlab.run(scenario("red")).flows
    b = fctlab.run(scenario("red")).flows
    assert a.equals(b)


def test_bad_tables_are_refused_with_the_key():
    with pytest.raises(fctlab.ConfigError, match=r"network\.red\.max_p"):
        fctlab.run(scenario("red", red={"max_p": 2.0}))
    with pytest.raises(fctlab.ConfigError, match=r"network\.red"):
        fctlab.run(scenario("droptail", red={"max_p": 0.1}))
    with pytest.raises(fctlab.ConfigError, match=r"network\.fq\.bucket"):
        fctlab.run(scenario("fq", fq={"bucket": 10}))


def test_list_shows_the_queues_with_parameters(fctlab_cli):
    r = subprocess.run([fctlab_cli, "list"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0
    for name in ("red", "red-ecn", "fq"):
        assert f"  {name}: " in r.stdout
    for key in ("target_delay_ms", "max_p", "q_weight", "quantum_bytes", "buckets", "classify"):
        assert key in r.stdout
    j = json.loads(subprocess.run([fctlab_cli, "list", "--json"], capture_output=True, text=True, timeout=120).stdout)
    queues = {q["name"]: q for q in j["queues"]}
    assert queues["red"]["table"] == "network.red" and queues["red-ecn"]["table"] == "network.red"
    assert queues["fq"]["table"] == "network.fq"
    red = {p["key"]: p for p in queues["red"]["params"]}
    assert red["max_p"]["default"] == "0.1" and "linterm_" in red["max_p"]["source"]
    assert red["target_delay_ms"]["default"] == "5"
    fq = {p["key"]: p for p in queues["fq"]["params"]}
    assert fq["buckets"]["default"] == "1000"

"""RCP from Python and the CLI: scheme rcp over rcp routers."""

import json
import subprocess

import fctlab
import pytest


def scenario(**rcp):
    net = {
        "topology": "dumbbell",
        "senders": 2,
        "bottleneck_bps": 10e6,
        "bottleneck_delay_ms": 10.0,
        "access_delay_ms": [1.0, 5.0],
        "buffer_pkts": 200,
        "queue": "rcp",
    }
    if rcp:
        net["rcp"] = rcp
    return {
        "seed": 2,
        "network": net,
        "transport": {"scheme": "rcp"},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.7,
                "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3},
                "count": 100,
            }
        ],
        "metrics": {"interval_ms": 10.0},
    }


@pytest.mark.parametrize("rcp", [{}, {"alpha": 0.4, "beta": 0.4}])
def test_every_rcp_flow_completes(rcp):
    r = fctlab.run(scenario(**rcp))
    assert len(r.flows) == 101 or len(r.flows) == 100
    assert r.flows["completed"].all()
    assert (r.flows["fct_ns"] > 0).all()


def test_rcp_needs_its_router_and_checks_its_table():
    s = scenario()
    s["network"]["queue"] = "droptail"
    with pytest.raises(fctlab.ConfigError, match=r"network\.queue"):
        fctlab.run(s)
    with pytest.raises(fctlab.ConfigError, match=r"network\.rcp\.gamma"):
        fctlab.run(scenario(gamma=2.0))


def test_list_shows_rcp_with_its_parameters(fctlab_cli):
    r = subprocess.run([fctlab_cli, "list"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0
    assert "rcp" in r.stdout
    for key in (
        "mode",
        "alpha",
        "beta",
        "upd_timeslot_ms",
        "init_rate_fact",
        "min_rate_bps",
        "initial_rtt_ms",
        "floor_fact",
        "syn_first_retx_ms",
        "syn_retx_ms",
    ):
        assert key in r.stdout
    j = json.loads(subprocess.run([fctlab_cli, "list", "--json"], capture_output=True, text=True, timeout=120).stdout)
    queues = {q["name"]: q for q in j["queues"]}
    assert queues["rcp"]["table"] == "network.rcp"
    alpha = {p["key"]: p for p in queues["rcp"]["params"]}["alpha"]
    assert alpha["default"] == "0.1"

"""XCP from Python and the CLI: the scheme with its router queue on a small dumbbell."""

import json
import subprocess

import fctlab
import pytest


def scenario(**xcp):
    net = {
        "topology": "dumbbell",
        "senders": 3,
        "bottleneck_bps": 10e6,
        "bottleneck_delay_ms": 10.0,
        "access_delay_ms": [1.0, 5.0, 20.0],
        "buffer_pkts": 30,
        "queue": "xcp",
    }
    if xcp:
        net["xcp"] = xcp
    return {
        "seed": 9,
        "network": net,
        "transport": {"scheme": "xcp"},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.8,
                "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3},
                "count": 150,
            }
        ],
        "metrics": {"interval_ms": 10.0, "cwnd_flows": [0, 1]},
    }


@pytest.mark.parametrize("xcp", [{}, {"alpha": 0.3, "beta": 0.127, "gamma": 0.05}])
def test_every_flow_completes(xcp):
    res = fctlab.run(scenario(**xcp))
    f = res.flows
    assert len(f) == 150 and f["completed"].all()
    assert (f["fct_ns"] >= f["ideal_ns"]).all()
    q = res.series[res.series["metric"] == "queue_pkts"]["value"]
    assert q.max() <= 30
    # The window is set by feedback, never below one packet.
    w = res.series[res.series["metric"] == "cwnd_pkts"]["value"]
    assert len(w) > 0 and w.min() >= 1.0


def test_xcp_needs_its_router_queue():
    s = scenario()
    s["network"]["queue"] = "droptail"
    with pytest.raises(Exception) as e:
        fctlab.run(s)
    assert "network.queue" in str(e.value)
    s = scenario(alpha=-1.0)
    with pytest.raises(Exception) as e:
        fctlab.run(s)
    assert "network.xcp.alpha" in str(e.value)


def test_list_shows_xcp(fctlab_cli):
    r = subprocess.run([fctlab_cli, "list"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "xcp" in r.stdout
    j = json.loads(subprocess.run([fctlab_cli, "list", "--json"], capture_output=True, text=True, timeout=120).stdout)
    assert any(s["name"] == "xcp" for s in j["schemes"])
    queues = {q["name"]: q for q in j["queues"]}
    assert queues["xcp"]["table"] == "network.xcp"
    params = {p["key"]: p for p in queues["xcp"]["params"]}
    assert params["alpha"]["default"] == "0.4" and params["beta"]["default"] == "0.226"
    assert params["gamma"]["default"] == "0.1" and "xcpq.cc" in params["alpha"]["source"]

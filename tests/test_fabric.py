"""Fabrics from Python: per-link utilisation and the tiers' ECMP imbalance
(:mod:`fctlab.links`), the offered load of traffic between hosts, and the
pFabric example file."""

import re
import warnings
from pathlib import Path

import fctlab
import numpy as np
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pfabric-leaf-spine.toml"


def fat_tree(routing: str, **traffic) -> dict:
    return {
        "seed": 4,
        "network": {"topology": "fat-tree", "routing": routing, "buffer_pkts": 100, "fat-tree": {"k": 4}},
        "transport": {"handshake": False, "min_rto_ms": 1.0, "initial_rto_ms": 1.0},
        "traffic": [
            {
                "arrivals": "poisson",
                "matrix": "permutation",
                "load": 0.4,
                "count": 300,
                "sizes": {"dist": "fixed", "pkts": 50},
                **traffic,
            }
        ],
    }


#: The tier of a fat-tree or leaf-spine link, from its name ("h3-e1",
#: "e1-a0", "a0-c2", "h3-l0", "l0-s1"; "-rev" the other way).
_LAYER = {"h": "host", "e": "edge", "a": "agg", "c": "core", "l": "leaf", "s": "spine"}


def tier_of(name: str) -> str:
    m = re.fullmatch(r"([a-z])\d+-([a-z])\d+(-rev)?", name)
    a, b = _LAYER[m.group(1)], _LAYER[m.group(2)]
    return f"{b}-{a}" if m.group(3) else f"{a}-{b}"


def test_link_utilization_and_imbalance_follow_the_link_totals():
    res = fctlab.run(fat_tree("ecmp"))
    links = fctlab.link_utilization(res)
    st = res.meta["stats"]
    assert len(links) == 2 * 48 and list(links["link"]) == list(st["links"])
    assert np.allclose(links["utilization"], links["busy_ns"] / st["end_ns"])
    assert links["utilization"].between(0, 1).all()
    # The tiers, recomputed from the link names: mean and largest
    # utilisation, and the largest load over the mean.
    links["tier"] = links["link"].map(tier_of)
    tiers = fctlab.ecmp_imbalance(res)
    assert list(tiers["tier"]) == ["host-edge", "edge-agg", "agg-core", "core-agg", "agg-edge", "edge-host"]
    for _, t in tiers.iterrows():
        u = links.loc[links["tier"] == t["tier"], "utilization"]
        assert t["links"] == len(u) == 16
        assert t["mean_utilization"] == pytest.approx(u.mean())
        assert t["max_utilization"] == pytest.approx(u.max())
        assert t["imbalance"] == pytest.approx(u.max() / u.mean())
    # A permutation loads every host link the same (300 flows of 50 packets
    # over 16 sources: each sends 300/16 on average, but as drawn); the host
    # tiers' imbalance only reflects that draw. Nothing here is below 1.
    assert (tiers["imbalance"] >= 1).all()


def test_other_topologies_have_no_tiers():
    res = fctlab.run({"network": {"bottleneck_bps": 1e7}, "flows": [{"size_pkts": 3}]})
    assert "tiers" not in res.meta["stats"]
    assert fctlab.ecmp_imbalance(res).empty
    assert len(fctlab.link_utilization(res)) == len(res.meta["stats"]["links"])


def test_the_load_between_hosts_is_that_of_the_busiest_host_link():
    # A permutation: every host sends and receives at the load asked for.
    assert fctlab.describe(fat_tree("ecmp"))["offered_load"] == pytest.approx(0.4)
    # An incast of fan-in 3 to host 5: host 5 receives 3 answers per query,
    # each of the other 15 sends 3/15 of them; load 0.6 is host 5's.
    incast = fat_tree("ecmp", matrix="incast", fan_in=3, receiver=5, load=0.6)
    assert fctlab.describe(incast)["offered_load"] == pytest.approx(0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fctlab.run(fat_tree("spray", count=50))


def test_the_pfabric_example_runs():
    cfg = tomllib.loads(EXAMPLE.read_text())
    ls = cfg["network"]["leaf-spine"]
    shape = (ls["hosts_per_leaf"], ls["leaves"], ls["spines"], ls["host_bps"], ls["fabric_bps"])
    assert shape == (16, 9, 4, 10e9, 40e9)
    assert fctlab.describe(cfg)["offered_load"] == pytest.approx(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = fctlab.run(str(EXAMPLE))
    f = res.flows
    assert len(f) == cfg["traffic"][0]["count"] and f["completed"].all()
    assert set(f["sender"]) | set(f["dst"]) <= set(range(144))
    # all-to-all outside the source's rack: 16 hosts per leaf.
    assert ((f["sender"] // 16) != (f["dst"] // 16)).all()
    assert (f["fabric_slowdown"] >= 1).all()
    tiers = fctlab.ecmp_imbalance(res).set_index("tier")
    assert tiers["links"].to_dict() == {"host-leaf": 144, "leaf-spine": 36, "spine-leaf": 36, "leaf-host": 144}
    table = fctlab.slowdown_by_size(f)
    assert table["flows"].iloc[-1] == len(f)


def test_the_fabric_pages_fluid_slowdown_of_a_lone_flow_is_one():
    # The fluid model's own alone time is its denominator: a flow alone on
    # the leaf-spine has fluid slowdown 1 (max-min gives it the host rate).
    from fctlab.experiments.checks.fabric_scenarios import TRANSPORT, websearch_cfg
    from fctlab.experiments.checks.fabric_websearch import fluid

    cfg = websearch_cfg("websearch", 0.5, 10)
    del cfg["traffic"]
    cfg["flows"] = [{"src": 3, "dst": d, "size_bytes": b} for d, b in ((40, 1_000_000), (7, 50_000))]
    cfg["flows"][1]["start_s"] = 0.01
    res = fctlab.run(cfg)
    assert res.flows["fabric_slowdown"].min() >= 1
    assert fluid(res.flows)["fabric_slowdown"].to_numpy() == pytest.approx([1.0, 1.0], abs=1e-9)
    assert TRANSPORT["handshake"] is False

"""The catalogue's keys and defaults are the engine's.

``fctlab.catalog()`` (``fctlab list --json``, and the reference pages generated
from it) documents every key of every scenario table with its default. Here,
without reading any prose: each documented key is a key the engine accepts;
the keys the guide's scenario file and the example sweeps use are documented;
and writing the documented defaults out explicitly gives the very same run as
leaving them out (so each default is the value in effect), for the scenario's
own tables and for both TCP presets. That every key of every table is
documented is checked against serde's own field lists in the engine
(``scenario::catalog`` tests); that block defaults (schemes, queues) are in
effect, by ``crates/fctlab-core/tests/documented_defaults.rs``.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import fctlab
import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore

ROOT = Path(__file__).resolve().parents[1]

#: A loaded dumbbell with losses, so window, queue and timer parameters act.
BASE = {
    "seed": 5,
    "network": {
        "topology": "dumbbell",
        "senders": 3,
        "bottleneck_bps": 10e6,
        "bottleneck_delay_ms": 10.0,
        "access_delay_ms": [1.0, 5.0, 20.0],
        "buffer_pkts": 15,
    },
    "traffic": [
        {"arrivals": "poisson", "load": 0.9, "sizes": {"dist": "pareto", "mean_pkts": 30, "shape": 1.3}, "count": 150}
    ],
    "flows": [{"size_pkts": 40}],
    "losses": [{"flow": 0, "seq": 3}],
}


@pytest.fixture(scope="module")
def cat() -> dict:
    return fctlab.catalog()


def keys(cat: dict, section: str) -> list:
    return [p for p in cat["parameters"] + cat["entry_parameters"] if p["section"] == section]


def with_value(cat: dict, section: str) -> dict:
    """The keys of a section whose default is a value, by name."""
    return {p["name"]: p["value"] for p in keys(cat, section) if p["value"] is not None}


def put(cfg: dict, section: str, name: str, value) -> None:
    """Set key ``name`` of ``section`` in every place the section has in ``cfg``."""
    if section == "run":
        cfg[name] = value
    elif section in ("traffic", "flows", "losses"):
        for entry in cfg[section]:
            entry[name] = value
    else:
        cfg.setdefault(section, {})[name] = value


def given(cfg: dict, section: str, name: str) -> bool:
    """Whether ``cfg`` gives key ``name`` of ``section`` (in its first entry, for lists)."""
    if section == "run":
        return name in cfg
    table = cfg.get(section, {})
    return name in (table[0] if isinstance(table, list) else table)


def same_run(a: dict, b: dict):
    ra, rb = fctlab.run(a, warn=False), fctlab.run(b, warn=False)
    assert ra.meta["stats"]["packets_dropped"] > 0, "the base scenario should lose packets"
    assert ra.flows.equals(rb.flows), "writing the documented defaults out changed the flows"
    assert ra.series.equals(rb.series), "writing the documented defaults out changed the series"
    return ra


def test_every_section_is_documented(cat):
    names = [s["name"] for s in cat["sections"]]
    assert names == ["run", "network", "graph", "transport", "tcp", "traffic", "flows", "metrics", "losses"]
    for s in names:
        assert keys(cat, s), f"section {s} has no keys"


def test_each_documented_default_is_accepted_as_its_key(cat):
    for section in ("run", "network", "transport", "traffic", "flows", "metrics", "losses"):
        for name, value in with_value(cat, section).items():
            if given(BASE, section, name) or (section, name) == ("network", "buffer_bdp"):
                continue  # the base scenario gives it, or its other (buffer_pkts: one of the two)
            cfg = copy.deepcopy(BASE)
            put(cfg, section, name, value)
            fctlab.validate(cfg)  # raises ConfigError naming the key if it were no key
    # ... where a key that is not one is refused, naming it.
    cfg = copy.deepcopy(BASE)
    put(cfg, "metrics", "no_such_key", True)
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.validate(cfg)
    assert e.value.field == "metrics.no_such_key"


def test_the_tcp_options_are_keys_of_transport(cat):
    for p in keys(cat, "tcp"):
        cfg = copy.deepcopy(BASE)
        cfg["transport"] = {p["name"]: p["ns3"]}
        fctlab.validate(cfg)
        cfg["transport"] = {p["name"]: {"not": "a value"}}
        with pytest.raises(fctlab.ConfigError) as e:
            fctlab.validate(cfg)
        assert e.value.field.startswith(f"transport.{p['name']}"), e.value.field


def scenario_keys(cfg: dict) -> set:
    """The dotted keys of a scenario, in the catalogue's spelling."""
    out = set()
    for k, v in cfg.items():
        if k in ("network", "transport", "metrics") and isinstance(v, dict):
            for kk, vv in v.items():
                if k == "network" and kk == "graph":
                    out |= {f"network.graph.links[].{x}" for link in vv.get("links", []) for x in link}
                elif not isinstance(vv, dict):
                    out.add(f"{k}.{kk}")
        elif k in ("traffic", "flows", "losses"):
            out |= {f"{k}[].{kk}" for entry in v for kk in entry}
        elif k not in ("axes", "linked", "seeds", "replications", "name", "base", "sweep"):
            out.add(k)
    return out


def test_the_keys_the_guide_and_the_examples_use_are_documented(cat):
    documented = {p["key"] for p in cat["parameters"] + cat["entry_parameters"]}
    documented |= {f"{p['section']}.{a}" for p in cat["parameters"] for a in p.get("aliases", [])}
    guide = (ROOT / "docs" / "guide" / "scenarios.md").read_text()
    block = re.search(r"```toml\n(.*?)```", guide, re.S).group(1)
    # The guide's file also shows the optional keys, commented out: uncomment
    # those that are whole `key = value` lines.
    lines = [re.sub(r"^# (\w+ = [^#]+?)\s+#.*$", r"\1", ln) for ln in block.splitlines()]
    used, prefix = set(), ""
    for ln in lines:
        h = re.match(r"^\[(\[?)([\w.]+)\]", ln)
        if h:
            prefix = h.group(2) + ("[]" if h.group(1) else "")
            continue
        kv = re.match(r"^(\w+)\s*=", ln)
        if kv:
            used.add(f"{prefix}.{kv.group(1)}" if prefix else kv.group(1))
    assert len(used) > 60
    assert not used - documented, f"the guide's scenario file uses undocumented keys: {sorted(used - documented)}"
    for path in sorted((ROOT / "examples").rglob("*.toml")):
        doc = tomllib.loads(path.read_text())
        if "base" in doc:  # a sweep spec: its axes name keys; its base is a file or a scenario
            axes = list(doc.get("axes", {})) + [k for g in doc.get("linked", {}).values() for k in g]
            used = {re.sub(r"\[\d+\]", "[]", k) for k in axes}
            used |= scenario_keys(doc["base"]) if isinstance(doc["base"], dict) else set()
        else:  # a scenario
            used = scenario_keys(doc)
        assert used and not used - documented, f"{path.name} uses undocumented keys: {sorted(used - documented)}"


def test_scenario_defaults_written_out_change_nothing(cat):
    a = copy.deepcopy(BASE)
    a["metrics"] = {"cwnd_flows": [0, 1]}
    b = copy.deepcopy(a)
    for section in ("transport", "metrics"):
        for name, value in with_value(cat, section).items():
            if name not in b.get(section, {}):
                put(b, section, name, value)
    for name in ("receiver_delay_ms", "queue"):
        put(b, "network", name, with_value(cat, "network")[name])
    for section in ("traffic", "flows", "losses"):
        for name, value in with_value(cat, section).items():
            for entry in b[section]:
                entry.setdefault(name, value)
    assert b != a
    same_run(a, b)


def test_the_buffer_and_access_defaults_are_the_documented_ones(cat):
    net = with_value(cat, "network")
    a = copy.deepcopy(BASE)
    del a["network"]["buffer_pkts"]
    b = copy.deepcopy(a)
    b["network"]["buffer_bdp"] = net["buffer_bdp"]
    assert fctlab.describe(a)["buffer_pkts"] == fctlab.describe(b)["buffer_pkts"]
    same_run(a, b)
    # access_bps: "10 x bottleneck_bps".
    assert next(p for p in keys(cat, "network") if p["name"] == "access_bps")["text"] == "10 x bottleneck_bps"
    c = copy.deepcopy(BASE)
    c["network"]["access_bps"] = 10 * c["network"]["bottleneck_bps"]
    same_run(BASE, c)


def test_both_presets_are_their_documented_values(cat):
    tcp = keys(cat, "tcp")
    rfc = copy.deepcopy(BASE)
    rfc["transport"] = {p["name"]: p["rfc"] for p in tcp if p["rfc"] is not None}
    same_run(BASE, rfc)
    ns3 = copy.deepcopy(BASE)
    ns3["transport"] = {"preset": "ns3"}
    spelled = copy.deepcopy(BASE)
    spelled["transport"] = {p["name"]: p["ns3"] for p in tcp}
    res = same_run(ns3, spelled)
    # The presets differ on this workload, so the comparison above could fail.
    assert not res.flows.equals(fctlab.run(BASE, warn=False).flows)

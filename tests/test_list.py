"""`fctlab list`: every key of every table with its default, meaning and source,
filterable by section, as text (no line over 160 characters) or JSON; an
unknown section is one line naming the allowed ones, exit status 2."""

from __future__ import annotations

import json
import subprocess

import pytest
from fctlab import listing


def run(cli, *args):
    return subprocess.run([cli, "list", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def everything(fctlab_cli) -> dict:
    r = run(fctlab_cli, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_keys_the_old_list_left_out_are_listed(everything):
    keys = {p["key"] for p in everything["parameters"] + everything["entry_parameters"]}
    wanted = {
        "seed",
        "stop_s",
        "transport.ecn",
        "transport.preset",
        "transport.limited_transmit",
        "transport.rtt_sampling",
        "transport.fin_rst",
        "transport.per_sender",
        "metrics.series",
        "metrics.cwnd_flows",
        "metrics.ps_fct",
        "network.bottleneck_delay_ms",
        "network.access_delay_ms",
        "network.receiver_delay_ms",
        "traffic[].load",
        "traffic[].measure_every",
        "flows[].size_pkts",
        "losses[].transmission",
        "network.graph.links[].rate_bps",
    }
    assert wanted <= keys, sorted(wanted - keys)
    for p in everything["parameters"] + everything["entry_parameters"]:
        assert p["meaning"], f"{p['key']} has no meaning"
        assert p["text"], f"{p['key']} has no default text"


def test_the_tcp_options_state_both_presets(everything):
    tcp = [p for p in everything["parameters"] if p["section"] == "tcp"]
    assert len(tcp) >= 14
    by = {p["name"]: p for p in tcp}
    assert by["limited_transmit"]["rfc"] is False and by["limited_transmit"]["ns3"] is True
    assert by["syn_rto_ms"]["ns3"] == 3000


def test_sections_filter_text_and_json(fctlab_cli, everything):
    r = run(fctlab_cli, "transport", "metrics")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "transport.ecn = false" in out and "transport.limited_transmit" in out and "metrics.series = true" in out
    assert "tcp-newreno:" not in out and "network.queue" not in out  # only those sections
    j = json.loads(run(fctlab_cli, "schemes", "losses", "--json").stdout)
    assert set(j) == {"schemes", "losses"}
    assert [s["name"] for s in j["schemes"]] == [s["name"] for s in everything["schemes"]]
    assert {p["key"] for p in j["losses"]} == {"losses[].flow", "losses[].seq", "losses[].transmission"}


def test_reproductions_are_listed(fctlab_cli):
    from fctlab.experiments import specs

    r = run(fctlab_cli, "reproductions")
    assert r.returncode == 0, r.stderr
    for s in specs():
        assert f"  {s.name}:" in r.stdout
    assert "(also dukkipati2006-fig7)" in " ".join(r.stdout.split())


def test_no_line_is_over_160_characters(fctlab_cli):
    r = run(fctlab_cli)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) > 300
    assert max(len(line) for line in lines) <= 160
    for name in listing.SECTIONS:
        assert any(line.startswith(f"{name}: ") for line in lines) or name == "tcp", name


def test_an_unknown_section_is_one_line(fctlab_cli):
    r = run(fctlab_cli, "schemes", "bogus")
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "'bogus'" in lines[0] and "schemes, queues" in lines[0] and "Traceback" not in r.stderr
    assert r.stdout == ""


def test_help_names_every_section(fctlab_cli):
    r = subprocess.run([fctlab_cli, "list", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    for name in listing.SECTIONS:
        assert f"  {name}" in r.stdout, name

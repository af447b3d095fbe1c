"""The htsim race of ``fctlab bench``: both simulators replay the same flows of
the reference dumbbell and count the same packets. Runs when htsim's
``htsim_dumbbell`` is built (``fctlab bench --build-htsim``), building it here
from its sources when they and g++ are present; skipped with the reason
otherwise."""

import os

import fctlab
import pytest
from conftest import htsim_driver
from fctlab import cli
from fctlab.bench import reference_scenario
from fctlab.benchmarks import htsim


@pytest.fixture(scope="module")
def htsim_exe():
    return htsim_driver(htsim.DRIVER)


def test_find_says_where_it_looked(tmp_path, monkeypatch):
    with pytest.raises(htsim.PeerUnavailable, match=f"no htsim_dumbbell in {tmp_path}"):
        htsim.find(str(tmp_path))
    monkeypatch.setenv("FCTLAB_HTSIM", str(tmp_path))
    with pytest.raises(htsim.PeerUnavailable, match="build.sh"):
        htsim.find()
    monkeypatch.delenv("FCTLAB_HTSIM")
    monkeypatch.setenv("FCTLAB_CACHE", str(tmp_path))
    with pytest.raises(htsim.PeerUnavailable, match="--build-htsim"):
        htsim.find()


def test_driver_gets_the_reference_dumbbell(tmp_path):
    cfg = reference_scenario(1e4)
    args = htsim.driver_args(cfg, tmp_path / "f")
    # rate, access rate, one-way bottleneck delay, buffer, payload, header, IW, senders.
    assert args[1:4] == ["1e+09", "1e+10", "50"]
    # One bandwidth-delay product of 1040-B packets: 1e9 x 0.1 / (8 x 1040) = 12019.2.
    assert abs(int(args[4]) - 1e9 * 0.1 / (8 * 1040)) < 1
    assert args[5:] == ["1000", "40", "2", "10"]


def test_flow_list_is_the_reference_draw(tmp_path):
    cfg = reference_scenario(1e4)
    flows = htsim.flow_list(cfg)
    f = fctlab.run(cfg, warn=False).flows
    assert len(flows) == len(f) and sum(n for _t, n, _s in flows) == int(f["size_pkts"].sum())
    assert [t for t, _n, _s in flows] == sorted(t for t, _n, _s in flows)


def test_both_deliver_every_packet_of_the_same_flows(htsim_exe, tmp_path):
    r = htsim.race(htsim_exe, 2e4, 1, tmp_path, progress=lambda _m: None)
    assert r["fctlab"]["unique_delivered"] == r["sum_pkts"] == r["htsim"]["unique_delivered"]
    assert r["fctlab"]["flows_completed"] == r["flows"] == r["htsim"]["flows_completed"]
    f, h = r["fctlab"]["rates"][0], r["htsim"]["rates"][0]
    assert f > 0 and h > 0 and r["ratio"] == pytest.approx(f / h)


def test_bench_prints_the_race(htsim_exe, capsys, monkeypatch):
    monkeypatch.setenv("FCTLAB_HTSIM", str(htsim_exe.parent))
    assert cli.main(["bench", "--packets", "2e4", "--repeat", "1", "--no-ns3"]) == 0
    out = capsys.readouterr().out
    assert "htsim beside fctlab" in out and "fctlab / htsim, wall (medians)" in out


def test_bench_says_why_it_skips_htsim(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("FCTLAB_HTSIM", str(tmp_path))
    assert cli.main(["bench", "--packets", "2e4", "--repeat", "1", "--no-ns3"]) == 0
    assert f"htsim: skipped: no htsim_dumbbell in {tmp_path}" in capsys.readouterr().out
    assert os.environ["FCTLAB_HTSIM"] == str(tmp_path)

"""The fat-tree race against htsim (`fctlab.benchmarks.htsim_fattree`): the
flow list's law and format, fctlab's ECMP path against the path htsim's
numbering gives, and a lone flow's FCT in both against the closed form of
the store-and-forward model. The tests that run htsim's ``htsim_fattree``
build it from its sources when they and g++ are present (about a minute),
and are skipped with the reason otherwise."""

import math
import re
import subprocess
import sys

import fctlab
import numpy as np
import pytest
from conftest import htsim_driver
from fctlab import cli
from fctlab.benchmarks import htsim
from fctlab.benchmarks import htsim_fattree as hf

K, HALF, HOSTS = 8, 4, 128
#: Bytes on the wire: a data packet, an ACK; link delay (ns); ps per byte at 10 Gb/s.
WIRE, ACK, D_NS, PS_PER_B = 1040, 40, 1000, 800


@pytest.fixture(scope="module")
def fattree_exe():
    return htsim_driver(hf.DRIVER)


def splitmix64(x: int) -> int:
    """SplitMix64's output function on x + the golden gamma (Steele, Lea & Flood, OOPSLA 2014)."""
    m = (1 << 64) - 1
    z = (x + 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


# --- the flow list -----------------------------------------------------------------


def test_websearch_mean_and_arrival_rate_by_hand():
    cdf = hf.websearch_cdf()
    # The piecewise-linear table's mean: each piece's midpoint x its probability,
    # 1,711,250 B as PIAS's scripts state it (mean_flow_size 1711250).
    mean_bytes = sum((x0 + x1) / 2 * (p1 - p0) / 100 for (x0, p0), (x1, p1) in zip(cdf, cdf[1:]))
    assert mean_bytes == pytest.approx(1_711_250, abs=1e-6)
    # Every row is a multiple of 1000 B, so within a piece ceil(X / 1000) - X / 1000
    # is uniform on [0, 1): E[size_pkts] = 1711.25 + 0.5.
    assert hf.mean_pkts(cdf, 1000) == pytest.approx(1711.75, abs=1e-9)
    # Load 0.5 of 10 Gb/s in 1040-B packets (headers counted).
    assert hf.rate_per_host() == pytest.approx(0.5 * 10e9 / (8 * 1711.75 * 1040), rel=1e-12)


def test_flow_list_format_and_offered_load(tmp_path):
    flows = hf.websearch_flows(1e9)
    path = tmp_path / "flows"
    hf.write_flows(path, flows)
    lines = path.read_text().splitlines()
    assert len(lines) == len(flows)
    line = re.compile(r"^(\d+\.\d{9}) ([1-9]\d*) (\d+) (\d+)$")
    rows = [line.match(s).groups() for s in lines]
    start = np.array([float(r[0]) for r in rows])
    size, src, dst = (np.array([int(r[i]) for r in rows]) for i in (1, 2, 3))
    assert np.all(np.diff(start) >= 0) and start[0] > 0
    assert src.min() >= 0 and max(src.max(), dst.max()) < HOSTS
    assert np.all(src // HALF != dst // HALF), "a destination in the source's own rack"
    # Generation stops at the flow that reaches 1e9 packets.
    assert size.sum() >= 1e9 > size.sum() - size[-1]
    assert size.max() <= 30_000  # the table ends at 30 MB
    # Offered load on the 128 host links, headers counted: 0.5. With a size
    # coefficient of variation of 2.32 (the table's second moment), ~584,000
    # flows give a relative standard error of about 0.33%: 1.5% is 4.5 of them.
    load = size.sum() * WIRE * 8 / (start[-1] * HOSTS * 10e9)
    assert load == pytest.approx(0.5, rel=0.015)
    # A destination is uniform over the 124 hosts of other racks; 12 of them share
    # the source's pod: 12 / 124.
    same_pod = np.mean(src // (K * K // 4) == dst // (K * K // 4))
    assert same_pod == pytest.approx(12 / 124, abs=0.004)


def test_flow_list_is_the_drivers_generators(tmp_path):
    gen = htsim.source_dir() / "drivers" / "gen_flows.py"
    if not gen.is_file():
        pytest.skip(f"htsim's drivers are not at {gen.parent}")
    ref = tmp_path / "ref"
    subprocess.run(
        [sys.executable, str(gen), "websearch", "--k", "8", "--load", "0.5", "--packets", "2e5", "--seed", "3"]
        + ["-o", str(ref)],
        check=True,
        capture_output=True,
    )
    mine = tmp_path / "mine"
    hf.write_flows(mine, hf.websearch_flows(2e5, seed=3))
    assert mine.read_bytes() == ref.read_bytes()


# --- routing -------------------------------------------------------------------------


def _links_used(tmp_path, flows: list) -> tuple:
    """fctlab on ``flows`` (lines of a flow list): the switch-to-switch links that
    carried a packet, and each flow's path index."""
    path = tmp_path / "flows"
    path.write_text("".join(f"{t} {n} {s} {d}\n" for t, n, s, d in flows))
    res = fctlab.run(hf.fctlab_cfg(hf.FABRIC, path), warn=False)
    used = {name for name, v in res.meta["stats"]["links"].items() if v["pkts_sent"] and name[0] in "ea"}
    return used, res.flows.sort_values("flow_id")["path"].tolist()


def _both_ways(names) -> set:
    return set(names) | {n + "-rev" for n in names}


def test_flow_zero_takes_htsims_path_from_the_published_hash(tmp_path):
    # splitmix64(0) = 0xE220A8397B1DCDAF, the generator's published first output.
    h0 = 0xE220A8397B1DCDAF
    assert splitmix64(0) == h0
    # Host 0 to host 127 (pods 0 and 7): path 0x...AF mod 16 = 15 = a (k/2) + l
    # with a = 3, l = 3: aggregation switches at position 3 (a3 in pod 0, a31 in
    # pod 7), core a + (k/2) l = 15; edge switches 0 and 127 // 4 = 31. ACKs on
    # the mirror: every link the other way too.
    assert h0 % 16 == 15
    used, paths = _links_used(tmp_path, [(0.0, 5, 0, 127)])
    assert paths == [15]
    assert used == _both_ways(["e0-a3", "a3-c15", "a31-c15", "e31-a31"])
    # Host 0 to host 8 (pod 0, edge switch 2): k/2 = 4 paths, 0x...AF mod 4 = 3: a3.
    used, paths = _links_used(tmp_path, [(0.0, 5, 0, 8)])
    assert paths == [3]
    assert used == _both_ways(["e0-a3", "e2-a3"])


@pytest.mark.parametrize(("index", "src", "dst"), [(5, 37, 100), (3, 20, 30), (9, 127, 64)])
def test_flow_i_takes_htsims_path(tmp_path, index, src, dst):
    # Flows 0 .. index - 1 stay under one edge switch (hosts 1 -> 2: no
    # aggregation or core link), so the fabric links used are flow index's.
    flows = [(0.0, 2, 1, 2)] * index + [(0.0, 5, src, dst)]
    pod_s, pod_d = src // 16, dst // 16
    if pod_s == pod_d:
        p = splitmix64(index) % HALF
        expect = [f"e{src // HALF}-a{pod_s * HALF + p}", f"e{dst // HALF}-a{pod_s * HALF + p}"]
    else:
        p = splitmix64(index) % (HALF * HALF)
        a, step = divmod(p, HALF)
        core = a + HALF * step
        expect = [
            f"e{src // HALF}-a{pod_s * HALF + a}",
            f"a{pod_s * HALF + a}-c{core}",
            f"a{pod_d * HALF + a}-c{core}",
            f"e{dst // HALF}-a{pod_d * HALF + a}",
        ]
    used, paths = _links_used(tmp_path, flows)
    assert paths[index] == p
    assert used == _both_ways(expect)


# --- a lone flow: closed form ---------------------------------------------------------


def hops(src: int, dst: int) -> int:
    if src // HALF == dst // HALF:
        return 2
    return 4 if src // 16 == dst // 16 else 6


def closed_form(n: int, h: int, syn_bytes: int, unit: float) -> int:
    """FCT of a lone n-packet flow over h store-and-forward hops of equal rate,
    in units of ``unit`` ps: the SYN out and its 40-B ACK back, then slow
    start from IW 2 (each ACK releases two packets) while every round is
    shorter than the RTT R of one packet; the last packet i of round m
    leaves i serialisations after the round's first and crosses h hops."""
    b = PS_PER_B / unit
    tau, alpha, syn, d = WIRE * b, ACK * b, syn_bytes * b, D_NS * 1000 / unit
    t_hs = h * (syn + d) + h * (alpha + d)
    r = h * tau + h * alpha + 2 * h * d
    m = 1
    while 2 * (2**m - 1) < n:
        m += 1
    assert m < 2 or 2 * 2 ** (m - 2) * tau <= r, "a round outlasts the RTT: the closed form does not apply"
    i = n - 2 * (2 ** (m - 1) - 1) - 1
    return round(t_hs + (m - 1) * r + (i + h) * tau + h * d)


CASES = [(0, 1, n) for n in (1, 2, 3, 10, 14)] + [(0, 4, n) for n in (1, 3, 20, 30)]
CASES += [(0, 127, n) for n in (1, 2, 3, 10, 62)] + [(37, 100, 40)]


def test_fctlab_lone_flow_is_the_closed_form(tmp_path):
    # fctlab's SYN is header_bytes = 40 B; times in ns.
    for src, dst, n in CASES:
        path = tmp_path / "one"
        path.write_text(f"0.0 {n} {src} {dst}\n")
        f = fctlab.run(hf.fctlab_cfg(hf.FABRIC, path), warn=False).flows
        assert int(f["fct_ns"][0]) == closed_form(n, hops(src, dst), 40, 1000), (src, dst, n)


def test_htsim_lone_flow_is_the_closed_form(fattree_exe, tmp_path):
    # htsim's SYN is 1 B; its FCT file is to the ps. fctlab's is later by the
    # 39 bytes more of its SYN on each hop: 39 x 0.8 ns x H.
    flows, fcts = tmp_path / "one", tmp_path / "fct"
    for src, dst, n in CASES:
        flows.write_text(f"0.0 {n} {src} {dst}\n")
        r = htsim.run_htsim(fattree_exe, hf.driver_args(hf.FABRIC, flows, fcts))
        assert r["all_drops"] == 0
        got_ps = round(hf.read_htsim_fcts(fcts)["fct_ns"][0] * 1000)
        h = hops(src, dst)
        assert got_ps == closed_form(n, h, 1, 1), (src, dst, n)
        assert closed_form(n, h, 40, 1) - got_ps == 39 * PS_PER_B * h


# --- the race -------------------------------------------------------------------------


def test_bins_by_hand():
    sizes = np.array([1, 10, 11, 100, 5000, 20000])
    a = np.array([1.0, 3.0, 10.0, 20.0, 7.0, 9.0])
    b = np.array([2.0, 2.0, 15.0, 15.0, 7.0, 10.0])
    rows = hf.bins(sizes, a, b)
    assert [r["bin"] for r in rows] == ["1-10", "11-100", "1001-10000", "> 10000"]
    assert [r["flows"] for r in rows] == [2, 2, 1, 1]
    assert [r["ratio"] for r in rows] == [1.0, 1.0, 1.0, 0.9]


def test_race_runs_the_same_flows_on_the_same_paths(fattree_exe, tmp_path):
    r = hf.race(fattree_exe, 3e4, 1, tmp_path, progress=lambda _m: None)
    assert r["fctlab"]["unique_delivered"] == r["sum_pkts"] == r["htsim"]["unique_delivered"]
    assert r["fctlab"]["flows_completed"] == r["flows"] == r["htsim"]["flows_completed"]
    assert r["fctlab"]["drops"] == 0 == r["htsim"]["drops"]
    assert all(abs(b["ratio"] - 1) <= 0.10 for b in r["bins"]), r["bins"]
    assert r["ratio"] == pytest.approx(r["fctlab"]["rates"][0] / r["htsim"]["rates"][0])


def test_bench_races_the_fattree(fattree_exe, capsys, monkeypatch):
    monkeypatch.setenv("FCTLAB_HTSIM", str(fattree_exe.parent))
    assert cli.main(["bench", "--shape", "fattree", "--packets", "2e4", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "htsim beside fctlab on a k = 8 fat-tree" in out and "fctlab / htsim, wall (medians)" in out
    assert "mean FCT per size bin (packets), fctlab / htsim" in out


def test_bench_says_why_it_skips_the_fattree_race(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("FCTLAB_HTSIM", str(tmp_path))
    assert cli.main(["bench", "--shape", "fattree", "--packets", "2e4", "--repeat", "1"]) == 0
    assert f"htsim: skipped: no htsim_fattree in {tmp_path}" in capsys.readouterr().out


def test_closed_form_matches_a_hand_trace():
    # One packet over 6 hops: SYN 6 (32 + 1000) + its ACK 6 (32 + 1000) = 12,384 ns,
    # then the packet: 6 (832 + 1000) = 10,992 ns: 23,376 ns in all.
    assert closed_form(1, 6, 40, 1000) == 23_376
    assert math.isclose(closed_form(1, 6, 1, 1) / 1000, 23_376 - 6 * 39 * 0.8)

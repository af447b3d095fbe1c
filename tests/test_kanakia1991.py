"""kanakia1991-table4-3: the optimal column and the window-rule rows by hand."""

import math

from fctlab.experiments.kanakia1991.any_scheme import scheme_setup, suite
from fctlab.experiments.kanakia1991.network import ACCESS_MS, SCHEMES, rtt_ms
from fctlab.experiments.kanakia1991.scenarios import (
    T42_CROSS_GAP_S,
    T45_MAIN_PKTS,
    T47_LOADS,
    T48_BUFFER_PKTS,
    TABLE43_SIZES,
    table41_scenario,
    table46_scenario,
    table49_rtt_ms,
)
from fctlab.experiments.kanakia1991.table4_1 import idle_probe_rtt_ms, table41_optimal_ms, table41_row
from fctlab.experiments.kanakia1991.table4_3 import table43_optimal_ms, table43_times_ms
from fctlab.experiments.kanakia1991.table4_4 import table44_optimal_ms
from fctlab.experiments.kanakia1991.table4_5 import table45_optimal_ms
from fctlab.experiments.kanakia1991.table4_6 import table46_optimal_ms
from fctlab.experiments.kanakia1991.table4_7 import table47_optimal_ms
from fctlab.experiments.kanakia1991.table4_9 import table49_optimal_ms
from fctlab.experiments.kanakia1991.table4_10 import table410_optimal_ms


def test_optimal_column_is_the_file_at_40_mbps_plus_the_rtt():
    # 4, 20, 200 packets of 500 B at 40 Mb/s: 0.4, 2, 20 ms; plus 44 ms.
    assert table43_optimal_ms() == [44.4, 46.0, 64.0]
    assert table43_optimal_ms(core_ms=18.0) == [40.4, 42.0, 60.0]


def test_tahoe_and_decbit_take_their_round_counts():
    # Alone on the path, no loss: Tahoe's slow start from one packet sends
    # 1, 2, 4, ... per round trip: 4 packets in 3 rounds, 20 in 5, 200 in 8.
    # DECbit's windows 1, 1, 2, 2, 3, 3, ...: 3, 8 and 28 rounds. Each round
    # is the 44 ms propagation RTT plus serialisation: under 44 ms + the
    # round's packets at 40 Mb/s (0.1 ms each) + 0.1 ms of fast-line and ACK time.
    rtt = rtt_ms()
    for (name, tp, net), rounds in ((SCHEMES[0], (3, 5, 8)), (SCHEMES[5], (3, 8, 28))):
        times = table43_times_ms(tp, net)
        for t, n, pkts in zip(times, rounds, TABLE43_SIZES):
            assert math.floor(t / rtt) == n, (name, pkts, t)
            assert t - n * rtt < pkts * 0.1 + n * 0.1, (name, pkts, t)


def test_experiment_1_optimal_and_idle_probe_by_hand():
    # 4000 + 10 x 1000 packets of 500 B through 40 Mb/s: 1.4 s; connection 1
    # finishes last under fair sharing: 1400 + 44 = 1444 ms (the paper's).
    assert table41_optimal_ms() == 1444.0
    assert table41_optimal_ms(gap_s=T42_CROSS_GAP_S) == 1444.0
    # Probe: 44 ms + 500 B at 100, 40, 100 Mb/s (0.18 ms) + 40 B back (0.0144 ms).
    assert abs(idle_probe_rtt_ms() - 44.1944) < 1e-9


def test_experiment_1_rows_are_complete_and_the_probe_sees_no_less_than_the_empty_network():
    for name, tp, net in (SCHEMES[0], SCHEMES[6]):
        t, mean, std, _ = table41_row(tp, net)
        assert t > table41_optimal_ms(), name
        assert mean >= 0 and std >= 0, name


def test_experiment_8_has_a_tenth_of_the_buffers():
    import fctlab

    name, tp, net = SCHEMES[0]
    assert fctlab.describe(table41_scenario(tp, net))["buffer_pkts"] == 440  # 40 Mb/s x 44 ms / 500 B
    assert fctlab.describe(table41_scenario(tp, net, buffer_pkts=T48_BUFFER_PKTS))["buffer_pkts"] == 44


def test_experiment_4_optimal_by_hand():
    # 2 x 4000 + 10 x 1000 packets of 500 B at 40 Mb/s: 1.8 s, both long
    # connections last; plus 44 and 2 x (20 + 20 + 1) = 82 ms.
    assert table44_optimal_ms() == [1844.0, 1882.0]


def test_suite_runs_any_registered_scheme_and_refuses_unknown_ones():
    import pytest
    from fctlab.cli import main

    cells = suite("tcp-newreno")
    assert {c["experiment"] for c in cells} == {
        "4.1",
        "4.2",
        "4.3",
        "4.4",
        "4.5",
        "4.6",
        "4.7a",
        "4.7b",
        "4.8",
        "4.9",
        "4.10",
    }
    assert all(c["published"] is None for c in cells)  # not one of the paper's schemes
    # The optimal assumes fair sharing: connection 1 can beat it only where it
    # can take more than its share (4.4's two primaries, 4.9's and 4.10's FCFS
    # races); everywhere else it cannot.
    assert all(
        c["fctlab"] >= c["optimal"]
        for c in cells
        if "transfer time" in c["quantity"] and c["experiment"] not in ("4.4", "4.9", "4.10")
    )
    # A paper scheme gets its published cells: DECbit's 4.3 row.
    tp, net = scheme_setup("decbit")
    assert net["queue"] == "decbit"
    with pytest.raises(ValueError, match="unknown scheme"):
        scheme_setup("nope")
    assert main(["suite1991", "--scheme", "nope"]) != 0


def test_migrating_bottleneck_optimal_by_hand():
    # Max-min over the two 40 Mb/s lines (10 000 packets/s each), connection 1
    # on both: alone until 100 ms (1000 packets), half of S1-S2 beside
    # connection 2 until 250 ms (750), a third of S2-H2 beside 3 and 4 until
    # they finish their 500 packets at 400 ms (500; connection 2 gets the other
    # two thirds of S1-S2: 1000, 250 left), half again until connection 2 ends
    # at 450 ms (250), then its last 1500 alone: 600 ms, plus 44 ms.
    assert T45_MAIN_PKTS == 1000 + 750 + 500 + 250 + 1500
    assert table45_optimal_ms() == 644.0


def test_two_way_optimal_counts_the_reverse_acks_by_hand():
    # 14 000 data packets of 500 B one way and the other direction's 14 000
    # ACKs of 40 B share the 40 Mb/s line: 14 000 x 540 x 8 / 40e6 = 1.512 s.
    assert abs(table46_optimal_ms() - (14_000 * 540 * 8 / 40e6 * 1e3 + 44)) < 1e-6
    assert round(table46_optimal_ms()) == 1556


def test_poisson_cross_traffic_optimal_by_hand():
    # Connection 1 gets (1 - rho) of 10 000 packets/s for its 4000 packets.
    for load in T47_LOADS:
        assert abs(table47_optimal_ms(load) - (4000 / ((1 - load) * 10_000) * 1e3 + 44)) < 1e-6
    # Staggered as the text says, at rho = 0.9: 1000 packets alone in 100 ms,
    # then i streams of 900/s each for 44 ms (i = 1..9): 0.044 x (90 000 -
    # 900 x 45) = 2178 packets by 496 ms, the remaining 822 at 1000/s.
    assert abs(table47_optimal_ms(0.9, staggered=True) - (496 + 822 + 44)) < 1e-6


def test_low_bandwidth_delay_optimal_by_hand():
    # 150 + 10 x 38 = 530 packets of 4000 bits at 1.5 Mb/s, plus 12 ms.
    assert table49_rtt_ms() == 12.0
    assert abs(table49_optimal_ms() - (530 * 4000 / 1.5e6 * 1e3 + 12)) < 1e-6


def test_torture_test_optimal_by_hand():
    # Both files (8000 packets, 0.1 ms each: 800 ms of the line) are done at the
    # T where T minus a quarter of the two sources' on-time by T is 800 ms. On
    # time of a source starting at s (period 4 ms, on 2.5 ms), by bisection.
    def on(t, s):
        if t <= s:
            return 0.0
        n, r = divmod(t - s, 4.0)
        return n * 2.5 + min(r, 2.5)

    lo, hi = 800.0, 2000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid - 0.25 * (on(mid, 1.5) + on(mid, 3.0)) < 800.0:
            lo = mid
        else:
            hi = mid
    c1, c2 = table410_optimal_ms()
    assert abs(c1 - (lo + 0.2)) < 1e-6 and abs(c2 - (lo + 20.2)) < 1e-6
    # About 800 / (1 - 0.3125) ms: the sources take 2 x 1/4 x 2.5/4 of the line.
    assert abs(lo - 800 / 0.6875) < 4


def test_extra_hop_variant_keeps_every_paths_delay_and_adds_three_switches():
    import fctlab

    name, tp, net = next(s for s in SCHEMES if s[0] == "hbh")
    sc = table41_scenario(tp, net)
    g = sc["network"]["graph"]
    assert sc["network"]["topology"] == "graph"
    # 12 senders, each with three added switches on its access line.
    assert len(g["routers"]) == 2 + 3 * 12
    for i in range(12):
        hops = [lk for lk in g["links"] if lk["a"] in (f"h{i}",) or lk["a"].startswith(f"x{i}_")]
        assert len(hops) == 4 and abs(sum(lk["delay_ms"] for lk in hops) - ACCESS_MS) < 1e-12
    # The probe alone: its round trip is the propagation (44 ms) plus the
    # 500 B probe and the 40 B answer serialised on five 100 Mb/s lines (four
    # in, one out) and the 40 Mb/s core: 44 + 540 x 8 x (5 / 100e6 + 1 / 40e6) s.
    sc["flows"] = []
    res = fctlab.run(sc, warn=False)
    rtt = res.probes.rtt_ns.dropna().astype("float64") / 1e6
    want = 44 + 540 * 8 * (5 / 100e6 + 1 / 40e6) * 1e3
    assert abs(idle_probe_rtt_ms(3) - want) < 1e-9
    assert len(rtt) > 10 and (abs(rtt - want) < 1e-5).all()


def test_two_way_traffic_runs_both_directions_through_the_core():
    import fctlab

    name, tp, net = SCHEMES[1]  # Reno over DropTail
    sc = table46_scenario(tp, net)
    sc["metrics"] = {"series": True, "links": ["core", "core-rev"], "interval_ms": 50}
    res = fctlab.run(sc, warn=False)
    f = res.flows
    # Both primaries carry 4000 packets, one each way, and take longer than
    # the optimal, which already counts the other direction's ACKs.
    fwd, rev = f[f.flow_id == 0].iloc[0], f[f.flow_id == 11].iloc[0]
    assert (fwd.size_pkts, rev.size_pkts) == (4000, 4000) and fwd.completed and rev.completed
    assert (fwd.acked_ns - fwd.start_ns) / 1e6 > table46_optimal_ms()
    assert (rev.acked_ns - rev.start_ns) / 1e6 > table46_optimal_ms()
    # Each direction of the core carries data: over the run, each is busy for
    # at least a quarter of the time (the ACKs alone would fill 40/540 of it).
    s = res.series
    u = s[s.metric == "utilization"].groupby("element").value.mean()
    assert u["core"] > 0.25 and u["core-rev"] > 0.25


def test_hbh_is_in_every_table_and_loses_nothing_in_experiment_1():
    name, tp, net = next(s for s in SCHEMES if s[0] == "hbh")
    t, mean, std, drops = table41_row(tp, net)
    assert t > table41_optimal_ms() and drops == 0 and mean >= 0


def test_the_suite_fills_every_cell_for_hbh_beside_its_published_row():
    import math

    cells = suite("hbh")
    assert {c["experiment"] for c in cells} == {
        "4.1",
        "4.2",
        "4.3",
        "4.4",
        "4.5",
        "4.6",
        "4.7a",
        "4.7b",
        "4.8",
        "4.9",
        "4.10",
    }
    assert all(math.isfinite(c["fctlab"]) for c in cells), [c for c in cells if not math.isfinite(c["fctlab"])]
    # Its published cells are there: Table 4.1's 1534 ms, Table 4.10's 1247 and 1254 ms.
    pub = {(c["experiment"], c["quantity"]): c["published"] for c in cells}
    assert pub[("4.1", "transfer time conn. 1 (ms)")] == 1534
    assert (pub[("4.10", "transfer time conn. 1 (ms)")], pub[("4.10", "transfer time conn. 2 (ms)")]) == (1247, 1254)
    # No transfer beats the optimal where fair sharing binds every connection.
    for c in cells:
        if "transfer time" in c["quantity"] and c["experiment"] in ("4.1", "4.2", "4.3", "4.5", "4.6", "4.7a", "4.8"):
            assert c["fctlab"] > c["optimal"], c


def test_packet_pair_loss_handling_is_checked_and_named():
    import fctlab
    import pytest

    sc = {
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 40e6, "queue": "fq"},
        "transport": {"scheme": "packet-pair", "packet_pair": {"recovery": "sack"}},
        "flows": [{"size_pkts": 10}],
    }
    with pytest.raises(fctlab.ConfigError, match=r"transport\.packet_pair\.recovery: .*go-back.*newreno"):
        fctlab.run(sc)


def test_fq_discipline_is_checked_and_named():
    import fctlab
    import pytest

    sc = {
        "network": {
            "topology": "dumbbell",
            "senders": 1,
            "bottleneck_bps": 40e6,
            "queue": "fq",
            "fq": {"discipline": "wfq"},
        },
        "transport": {"scheme": "packet-pair"},
        "flows": [{"size_pkts": 10}],
    }
    with pytest.raises(fctlab.ConfigError, match=r"network\.fq\.discipline: .*drr.*dks"):
        fctlab.run(sc)

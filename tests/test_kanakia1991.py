"""kanakia1991-table4-3: the optimal column and the window-rule rows by hand."""

import math

from fctlab.experiments import kanakia1991 as k


def test_optimal_column_is_the_file_at_40_mbps_plus_the_rtt():
    # 4, 20, 200 packets of 500 B at 40 Mb/s: 0.4, 2, 20 ms; plus 44 ms.
    assert k.table43_optimal_ms() == [44.4, 46.0, 64.0]
    assert k.table43_optimal_ms(core_ms=18.0) == [40.4, 42.0, 60.0]


def test_tahoe_and_decbit_take_their_round_counts():
    # Alone on the path, no loss: Tahoe's slow start from one packet sends
    # 1, 2, 4, ... per round trip: 4 packets in 3 rounds, 20 in 5, 200 in 8.
    # DECbit's windows 1, 1, 2, 2, 3, 3, ...: 3, 8 and 28 rounds. Each round
    # is the 44 ms propagation RTT plus serialisation: under 44 ms + the
    # round's packets at 40 Mb/s (0.1 ms each) + 0.1 ms of fast-line and ACK time.
    rtt = k.rtt_ms()
    for (name, tp, net), rounds in ((k.SCHEMES[0], (3, 5, 8)), (k.SCHEMES[5], (3, 8, 28))):
        times = k.table43_times_ms(tp, net)
        for t, n, pkts in zip(times, rounds, k.TABLE43_SIZES):
            assert math.floor(t / rtt) == n, (name, pkts, t)
            assert t - n * rtt < pkts * 0.1 + n * 0.1, (name, pkts, t)


def test_experiment_1_optimal_and_idle_probe_by_hand():
    # 4000 + 10 x 1000 packets of 500 B through 40 Mb/s: 1.4 s; connection 1
    # finishes last under fair sharing: 1400 + 44 = 1444 ms (the paper's).
    assert k.table41_optimal_ms() == 1444.0
    assert k.table41_optimal_ms(gap_s=k.T42_CROSS_GAP_S) == 1444.0
    # Probe: 44 ms + 500 B at 100, 40, 100 Mb/s (0.18 ms) + 40 B back (0.0144 ms).
    assert abs(k.idle_probe_rtt_ms() - 44.1944) < 1e-9


def test_experiment_1_rows_are_complete_and_the_probe_sees_no_less_than_the_empty_network():
    for name, tp, net in (k.SCHEMES[0], k.SCHEMES[6]):
        t, mean, std, _ = k.table41_row(tp, net)
        assert t > k.table41_optimal_ms(), name
        assert mean >= 0 and std >= 0, name


def test_experiment_8_has_a_tenth_of_the_buffers():
    import fctlab

    name, tp, net = k.SCHEMES[0]
    assert fctlab.describe(k.table41_scenario(tp, net))["buffer_pkts"] == 440  # 40 Mb/s x 44 ms / 500 B
    assert fctlab.describe(k.table41_scenario(tp, net, buffer_pkts=k.T48_BUFFER_PKTS))["buffer_pkts"] == 44


def test_experiment_4_optimal_by_hand():
    # 2 x 4000 + 10 x 1000 packets of 500 B at 40 Mb/s: 1.8 s, both long
    # connections last; plus 44 and 2 x (20 + 20 + 1) = 82 ms.
    assert k.table44_optimal_ms() == [1844.0, 1882.0]


def test_suite_runs_any_registered_scheme_and_refuses_unknown_ones():
    import pytest
    from fctlab.cli import main

    cells = k.suite("tcp-newreno")
    assert {c["experiment"] for c in cells} == {"4.1", "4.2", "4.3", "4.4", "4.8"}
    assert all(c["published"] is None for c in cells)  # not one of the paper's schemes
    assert all(c["fctlab"] >= c["optimal"] for c in cells if c["quantity"].startswith("transfer time") and not c["experiment"] == "4.4")
    # A paper scheme gets its published cells: DECbit's 4.3 row.
    tp, net = k.scheme_setup("decbit")
    assert net["queue"] == "decbit"
    with pytest.raises(ValueError, match="unknown scheme"):
        k.scheme_setup("nope")
    assert main(["suite1991", "--scheme", "nope"]) != 0

"""The modern-TCP pages' scenarios against the closed forms they draw
(Alizadeh et al., DCTCP, SIGCOMM 2010, section 3.3)."""

import math

import fctlab
from fctlab.experiments.checks import dctcp_queue as dq
from fctlab.experiments.checks.modern_tcp_fct import fig1_cfg


def test_the_page_bdp_is_c_times_rtt_in_packets():
    # 10 Gb/s x 100 us / (1500 B x 8) = 83.33 packets.
    assert math.isclose(dq.BDP_PKTS, 10e9 * 100e-6 / 12_000)


def test_q_min_is_positive_just_above_the_guideline_for_two_flows():
    # N = 2: A = 1/2 sqrt(4 (C x RTT + K)) = sqrt(83.33 + K), so Q_min = K + 2 - sqrt(83.33 + K)
    # is zero at K = 7.53 (K^2 + 3K - 79.33 = 0), below C x RTT / 7 = 11.9, the paper's bound.
    assert dq.q_min(7, 2) == 0.0
    assert math.isclose(dq.q_min(12, 2), 14 - math.sqrt(dq.BDP_PKTS + 12))
    assert dq.q_min(dq.BDP_PKTS / 7, 2) > 0


def test_dctcp_saw_tooth_spans_q_min_to_q_max():
    k, n = 32, 2
    m = dq.measure(fctlab.run(dq.scenario(k, n, 0.06), warn=False))
    # The switch marks an arrival finding more than K waiting: the queue may
    # reach K + N + 1; it never falls more than a packet below Q_min.
    assert dq.q_max(k, n) <= m["max"] <= dq.q_max(k, n) + 1
    assert m["min"] >= math.floor(dq.q_min(k, n)) - 1
    assert m["util"] > 0.99 and m["drops"] == 0


def test_dctcp_below_the_guideline_empties_the_queue():
    m = dq.measure(fctlab.run(dq.scenario(1, 2, 0.06), warn=False))
    assert m["min"] == 0 and m["max"] <= dq.q_max(1, 2) + 1


def test_dctcp_on_the_2006_link_marks_at_c_rtt_over_7():
    # 2.4 Gb/s x 100 ms / (1040 B x 8) = 28,846.2 packets; / 7 = 4,120.9.
    cfg = fig1_cfg("tcp-dctcp", 10)
    assert cfg["network"]["ecn-threshold"]["k_pkts"] == 4121
    assert fig1_cfg("tcp-cubic", 10)["network"].get("queue", "droptail") == "droptail"

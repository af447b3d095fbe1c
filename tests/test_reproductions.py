"""Reproductions whose numbers can be derived by hand."""

import fctlab
from fctlab.experiments.dukkipati2006.fig13 import capacity_for, fig13_improvements
from fctlab.experiments.dukkipati2006.scenarios import FIG3_RTT_S, FIG5_RTT_S, fig3_scenario, fig5_scenario


def test_fig3_slow_start_holds_twelve_flows():
    # 2006 paper, Fig. 3: a link of 100 packets per RTT, two 50-packet flows at
    # the start of every RTT, slow start from one packet. A flow needs 6 rounds
    # (1 + 2 + 4 + 8 + 16 = 31 < 50 <= 63): it arrives at kR and its last round
    # leaves at (k+5)R, so it is still in the system when the next pair arrives
    # at (k+5)R and gone before (k+6)R. Between those instants the system holds
    # 2 x 6 = 12 flows plus, from each pair's arrival until the oldest pair's
    # last packet lands, 2 more: the steady-state count steps between 12 and 14.
    # (PS would hold 2: each pair finishes within its RTT.)
    rtts = 40
    res = fctlab.run(fig3_scenario(rtts))
    assert res.flows["completed"].all()
    s = res.series
    act = s[s["metric"] == "active_flows"]
    r = FIG3_RTT_S * 1e9
    steady = act[(act["t_ns"] > 10 * r) & (act["t_ns"] < (rtts - 1) * r)]["value"]
    assert steady.min() == 12 and steady.max() == 14
    # At the end of every RTT (just before the next pair) exactly 12 remain.
    ends = act[((act["t_ns"] + 5e6) % r == 0) & (act["t_ns"] > 10 * r) & (act["t_ns"] < (rtts - 1) * r)]["value"]
    assert len(ends) > 20 and (ends == 12).all()


def test_fig13_improvements_follow_the_papers_formula():
    # 2006 paper, sec. II-A: FCT = (ceil(log2(L + 1)) + 1/2) RTT + L/C with the
    # handshake, RTT 40 ms, 1000 B packets. 1 MB = 1000 packets: 10 rounds, so
    # 0.42 s + 8e6/C; 100 MB = 10^5 packets: 17 rounds, 0.70 s + 8e8/C.
    imp = fig13_improvements([(1980, 45e6), (2002, 10e9)])
    one = (0.42 + 8e6 / 45e6) / (0.42 + 8e6 / 10e9)
    hundred = (0.70 + 8e8 / 45e6) / (0.70 + 8e8 / 10e9)
    assert abs(imp[1][1][3] - one) < 1e-9 * one
    assert abs(imp[100][1][3] - hundred) < 1e-9 * hundred
    # So the text's "under 20x" for 100 MB fails at 10 Gb/s (23.7x) and holds
    # below C = 8e8 / ((0.70 + 8e8/45e6) / 20 - 0.70) = 3.57 Gb/s.
    c20 = 8e8 / ((0.70 + 8e8 / 45e6) / 20 - 0.70)
    assert abs(capacity_for(100, 20.0) - c20) < 1e-6 * c20


def test_round_models_match_the_hand_counts():
    from fractions import Fraction

    from fctlab import ideal

    # Fig. 3: 50 packets from a window of 1 take 6 rounds (1+2+4+8+16 = 31 < 50
    # <= 63), so with 2 arrivals per round 2 x 6 = 12 flows are in the system
    # from round 5 on, and the rounds' packets add up to 2 x 50 = 100.
    m = ideal.rounds_slow_start([50, 50], 30, capacity_pkts=100)
    assert list(m.flows[:6]) == [2, 4, 6, 8, 10, 12] and set(m.flows[5:]) == {12}
    assert set(m.durations) == {6} and all(u == 1.0 for u in m.utilization[5:])
    # Fig. 4: N[0] = 2 (50 each: the 1-packet flow leaves, 49 remain), N[1] = 3
    # (100/3 each). In the steady state every flow gets 1 packet per round: the
    # 99-packet flows last 99 rounds, so 99 of them plus the newest 1-packet
    # flow: 100 flows, all 100 packets used.
    e = ideal.rounds_equal_share([99, 1], 5000, 100)
    assert list(e.flows[:2]) == [2, 3]
    assert e.sent_pkts[0] == 51 and e.sent_pkts[1] == 2 * Fraction(100, 3) + 1
    assert set(e.flows[-1000:]) == {100} and all(x == 100 for x in e.sent_pkts[-1000:])
    assert set(e.durations[-100:]) == {1, 99}


def test_fig5_tcp_short_flows_cannot_beat_slow_start():
    # 2006 paper, Fig. 5: three 300-packet flows beside a long flow on 100 Mb/s,
    # RTT 100 ms. From an initial window of 2, 300 packets need 8 rounds (2+4+
    # ...+128 = 254 < 300 <= 510), so with the handshake each TCP flow takes at
    # least (1 + 7 + 1/2) RTT = 8.5 RTT, however empty the queue. Under PS the
    # three share 3/4 of the link: 900 x 1040 B x 8 / 75 Mb/s = 0.0998 s, about
    # one RTT, plus the 1.5 RTT of handshake and last half trip.
    cfg = fig5_scenario({"scheme": "tcp-newreno"}, "droptail")
    res = fctlab.run(cfg)
    f = res.flows[res.flows["flow_id"] > 0]
    rtt = FIG5_RTT_S * 1e9
    assert len(f) == 3 and f["completed"].all()
    assert (f["fct_ns"] >= 8.5 * rtt).all()
    ps = 1.5 * rtt + 900 * 1040 * 8 / 75e6 * 1e9
    assert (abs(f["ps_fct_ns"] - ps) < 0.01 * ps).all()

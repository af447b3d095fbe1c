"""Reproductions whose numbers can be derived by hand."""

import fctlab
from fctlab.experiments import dukkipati2006


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
    res = fctlab.run(dukkipati2006.fig3_scenario(rtts))
    assert res.flows["completed"].all()
    s = res.series
    act = s[s["metric"] == "active_flows"]
    r = dukkipati2006.FIG3_RTT_S * 1e9
    steady = act[(act["t_ns"] > 10 * r) & (act["t_ns"] < (rtts - 1) * r)]["value"]
    assert steady.min() == 12 and steady.max() == 14
    # At the end of every RTT (just before the next pair) exactly 12 remain.
    ends = act[((act["t_ns"] + 5e6) % r == 0) & (act["t_ns"] > 10 * r) & (act["t_ns"] < (rtts - 1) * r)]["value"]
    assert len(ends) > 20 and (ends == 12).all()

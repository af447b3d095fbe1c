"""Gavaletz & Kaur 2010: the equations the reproductions draw, the schemes'
tables, the sync-drop queue and the fairness the paper reports."""

import math
import warnings

import fctlab
import numpy as np
import pytest
from fctlab import fairness
from fctlab.experiments import REGISTRY
from fctlab.experiments.gavaletz2010.fairness_runs import first_loss_s
from fctlab.experiments.gavaletz2010.scenarios import FIG4_SCHEMES, aimd_window, eq3, eq3_rounds, eq5, fig4_scenario


def run(cfg):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fctlab.NoCompletedFlowWarning)
        return fctlab.run(cfg)


def test_equations_by_hand():
    # Eq. 3 at r_a = 10 ms, r_b = 20 ms, t = 20 ms: 2 x 2^(2 - 1) = 4.
    assert eq3(0.02, 0.02) == pytest.approx(4.0)
    # ... in whole rounds at t = 25 ms: floor(2.5) - floor(1.25) = 1 -> 4.
    assert eq3_rounds(0.02, 0.025) == pytest.approx(4.0)
    # Eq. 5, w = 10, t = 1 s: (0.02/0.01)^2 (0.1 + 1) / (0.2 + 1) = 4 x 1.1 / 1.2.
    assert eq5(0.02, 1.0, 10, 10) == pytest.approx(4 * 1.1 / 1.2)
    # Eq. 1 then 4: w0 = 1, SST = 100, r = 20 ms: 2^(t/r) until t = r log2(100).
    t_ss = 0.02 * math.log2(100)
    assert aimd_window(0.04, 0.02) == pytest.approx(4.0)
    assert aimd_window(t_ss + 0.2, 0.02) == pytest.approx(110.0)
    # Eqs. 10, 11, 13 with r = 60 ms, r_ref = 30 ms (s = 2): w0 = 2, SST = 200,
    # +4 per RTT; slow start ends when REF's does, at r_ref log2(100).
    assert aimd_window(0.0, 0.06, s=2.0) == pytest.approx(2.0)
    ref_ss = 0.03 * math.log2(100)
    assert aimd_window(ref_ss + 0.06, 0.06, s=2.0) == pytest.approx(204.0)
    assert aimd_window(ref_ss + 0.06, 0.06, s=2.0) / 0.06 == pytest.approx(aimd_window(ref_ss + 0.06, 0.03) / 0.03)


def test_registered():
    for i in range(1, 6):
        assert f"gavaletz2010-fig{i}" in REGISTRY


def test_bad_tables_are_refused_naming_the_key():
    base = fig4_scenario({"scheme": "tcp-tarheel"}, 1.0, 1.0)
    cases = [
        (("transport", "tarheel"), {"queue_delay": "psychic"}, "transport.tarheel.queue_delay"),
        (("transport", "libra"), {"k1": -1}, "transport.libra.k1"),
        (("network", "sync_drop"), {"threshold": 1.5}, "network.sync_drop.threshold"),
        (("network", "sync_drop"), {"rearm": 0.95}, "network.sync_drop.rearm"),
    ]
    for (sec, table), value, field in cases:
        cfg = fig4_scenario({"scheme": "tcp-libra"} if table == "libra" else {"scheme": "tcp-tarheel"}, 1.0, 1.0)
        cfg[sec][table] = value
        with pytest.raises(fctlab.ConfigError) as e:
            fctlab.validate(cfg)
        assert e.value.field == field
    cfg = dict(base, flows=[{"sender": 0, "long_lived": True, "transport": {"tarheel": {"ref_rtt_ms": 0}}}])
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.validate(cfg)
    assert e.value.field == "flows[0].transport.tarheel.ref_rtt_ms"
    cfg = dict(base)
    cfg["transport"] = dict(base["transport"], init_ssthresh_pkts=0.5)
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.validate(cfg)
    assert e.value.field == "transport.init_ssthresh_pkts"


def short(transport, stop_s=60.0, bdp=0.25):
    return fig4_scenario(transport, bdp, stop_s)


def test_sync_drop_takes_a_packet_of_every_flow_at_once():
    # NewReno on a quarter-BDP buffer: the first episode costs every one of the
    # ten flows one packet, in the same sample interval.
    res = run(short({"scheme": "tcp-newreno"}))
    d = fairness.flow_series(res, "drops")
    first = d.index[(d > 0).any(axis=1).to_numpy()][0]
    assert (d.loc[first] == 1).sum() >= 8  # flows with a packet queued at the trigger
    assert (d.loc[first:].iloc[min(10, len(d.loc[first:]) - 1)] >= 1).all()  # all within a second


def test_tarheel_is_fair_where_newreno_is_not():
    # The paper (section IV): NewReno "significantly different", Tarheel fair.
    # Without losses Tarheel's rates follow REF's (s = (r + q)/(r_ref + q)
    # scaling), so the 10 senders' mean throughputs agree within a few percent
    # (the handshake delays a 500 ms flow's start by up to 450 ms more than a
    # 50 ms one's: the only difference the scaling does not undo).
    t = run(short(FIG4_SCHEMES[3][1], 60.0, 1.0))
    n = run(short({"scheme": "tcp-newreno"}, 60.0, 1.0))
    assert int(t.flows["drops"].sum()) == 0
    tw, nw = fairness.window(t, 5.0, 60.0), fairness.window(n, 5.0, 60.0)
    assert tw["n"] == nw["n"] == 10
    assert tw["max_min"] < 1.1 and tw["jain"] > 0.999
    assert nw["max_min"] > 5.0
    # The RTT ordering NewReno produces: shorter RTT, higher rate.
    r = fairness.flow_rates(n, 5.0, 60.0)
    assert list(np.argsort(-r.to_numpy())) == list(range(10))


def test_first_loss_and_persistent_queue_helpers():
    res = run(short({"scheme": "tcp-newreno"}))
    cfg = short({"scheme": "tcp-newreno"})
    loss = first_loss_s(res, cfg)
    d = fairness.flow_series(res, "drops")
    assert d.loc[: loss * 1e9 - 1].to_numpy().sum() == 0 and d.loc[loss * 1e9].sum() > 0

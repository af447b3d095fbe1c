"""fctlab.fairness: Jain's index and the max/min ratio, in Python and in SQL."""

import math

import fctlab
import pandas as pd
import pytest
from fctlab import fairness


def test_measures_by_hand():
    assert fairness.jain([3, 3, 3, 3]) == 1.0
    assert fairness.jain([1, 0, 0, 0]) == 0.25  # one flow has everything: 1/n
    assert fairness.jain([4, 2]) == pytest.approx(36 / 40)  # (4 + 2)^2 / (2 (16 + 4))
    assert fairness.max_min_ratio([2, 8, 4]) == 4.0
    assert fairness.max_min_ratio([0, 1]) == math.inf
    assert math.isnan(fairness.jain([])) and math.isnan(fairness.max_min_ratio([]))
    s = fairness.summary([1, 2, 4])
    assert (s["n"], s["max_min"], s["min"], s["max"]) == (3, 4.0, 1.0, 4.0)


def test_windows_of_a_series():
    # flow0 sends 10 then 30, flow1 20 then 20; link rows are not flows.
    rows = [
        (t, "throughput_bps", el, v)
        for t, el, v in [
            (1e9, "flow0", 10.0),
            (2e9, "flow0", 30.0),
            (1e9, "flow1", 20.0),
            (2e9, "flow1", 20.0),
            (1e9, "bottleneck", 99.0),
        ]
    ]
    s = pd.DataFrame(rows, columns=["t_ns", "metric", "element", "value"])
    assert fairness.flow_rates(s).to_dict() == {0: 20.0, 1: 20.0}
    assert fairness.window(s)["jain"] == 1.0
    first = fairness.window(s, 0.0, 1.0)  # samples with 0 < t <= 1 s
    assert first["max_min"] == 2.0
    t = fairness.over_time(s, 1.0)
    assert list(t["max_min"]) == [2.0, 1.5]
    with pytest.raises(ValueError, match="metric"):
        fairness.flow_rates(s, metric="rtt_ms")


def window_limited(tmp_path=None):
    """Two flows held at a window of 10 packets by the receiver window, RTTs
    20 and 40 ms, on links that never queue: 10 x 1000 B x 8 / RTT = 4 and 2 Mb/s."""
    return {
        "seed": 1,
        "stop_s": 3.0,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 1e9,
            "bottleneck_delay_ms": 1.0,
            "access_delay_ms": [9.0, 19.0],
            "buffer_pkts": 1000,
        },
        "transport": {"max_cwnd_pkts": 10, "handshake": False},
        "flows": [{"sender": 0, "long_lived": True}, {"sender": 1, "long_lived": True}],
        "metrics": {"interval_ms": 10.0, "cwnd_flows": [0, 1]},
    }


def test_window_limited_flows_give_the_hand_ratio(tmp_path):
    with pytest.warns(fctlab.NoCompletedFlowWarning):
        res = fctlab.run(window_limited())
    r = fairness.flow_rates(res, 1.0, 3.0)
    # 1000 +- 10 and 500 +- 10 packets in the 2 s window (a window's burst at its edges).
    assert r[0] == pytest.approx(4e6, rel=0.02) and r[1] == pytest.approx(2e6, rel=0.02)
    w = fairness.window(res, 1.0, 3.0)
    assert w["max_min"] == pytest.approx(2.0, rel=0.03)
    assert w["jain"] == pytest.approx(0.9, abs=0.01)
    # SQL over the store: the same numbers from the same series.
    fctlab.sweep({"base": window_limited()}, store=tmp_path / "st", workers=1, progress=False)
    st = fctlab.store.open(tmp_path / "st")
    q = st.query("SELECT * FROM fairness('throughput_bps', 1e9, 3e9)")
    assert len(q) == 1 and q["flows"][0] == 2
    assert q["jain"][0] == pytest.approx(w["jain"], rel=1e-9)
    assert q["max_min"][0] == pytest.approx(w["max_min"], rel=1e-9)
    agg = st.query("SELECT jain_index(rate) AS j, max_min_ratio(rate) AS m FROM flow_rates('throughput_bps', 1e9, 3e9)")
    assert agg["m"][0] == pytest.approx(w["max_min"], rel=1e-9)
    rates = st.query("SELECT element, rate FROM flow_rates('throughput_bps', 1e9, 3e9) ORDER BY element")
    assert list(rates["element"]) == ["flow0", "flow1"]


def test_report_table_rows():
    rows = [(t * 1e8, "throughput_bps", f"flow{f}", v) for t in range(1, 11) for f, v in ((0, 1.0), (1, 4.0))]
    s = pd.DataFrame(rows, columns=["t_ns", "metric", "element", "value"])
    t = fairness.table({"run": s}, {"all": (0.0, 1.0)}, published={"run": {"all": 4.0}})
    assert t.rows == [["run", "all", 2, pytest.approx(25 / 34), 4.0]]
    assert t.published[0][4] == 4.0

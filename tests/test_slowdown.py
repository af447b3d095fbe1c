"""The fabric papers' FCT slowdown: the ``alone_ns`` and ``fabric_slowdown``
columns, and the per-size table (:mod:`fctlab.slowdown`)."""

import math

import fctlab
import numpy as np
import pandas as pd
import pytest
from fctlab.slowdown import quantile, slowdown_by_size

# A dumbbell with one sender: 10 Gb/s access (1 us), 1 Gb/s bottleneck (10 us),
# 10 Gb/s to the receiver (no delay); 1000-B payloads and 40-B headers.
ACCESS, BOTTLENECK = 10e9, 1e9


def lone(size_bytes: int, handshake: bool, iw: int = 100) -> pd.Series:
    cfg = {
        "network": {
            "topology": "dumbbell",
            "senders": 1,
            "bottleneck_bps": BOTTLENECK,
            "bottleneck_delay_ms": 0.01,
            "access_bps": ACCESS,
            "access_delay_ms": 0.001,
            "buffer_pkts": 1000,
        },
        "transport": {
            "scheme": "tcp-newreno",
            "mss_bytes": 1000,
            "header_bytes": 40,
            "init_cwnd_pkts": iw,
            "handshake": handshake,
        },
        "flows": [{"size_bytes": size_bytes}],
        "metrics": {"series": False},
    }
    return fctlab.run(cfg).flows.iloc[0]


def ns(nbytes: int, rate: float) -> int:
    return round(nbytes * 8e9 / rate)


def test_alone_is_one_packet_there_and_one_ack_back_by_hand():
    f = lone(1000, handshake=False)
    # 1040 B at 10, 1 and 10 Gb/s plus 11 us; the 40-B ACK back the same way.
    there = ns(1040, ACCESS) + ns(1040, BOTTLENECK) + ns(1040, ACCESS) + 11_000
    back = ns(40, ACCESS) + ns(40, BOTTLENECK) + ns(40, ACCESS) + 11_000
    assert f["ideal_ns"] == there
    assert f["alone_ns"] == there + back


@pytest.mark.parametrize("size", [1000, 3000, 10_000, 50_500, 200_000])
def test_a_lone_flow_at_line_rate_has_slowdown_one(size):
    # An initial window of 100 packets keeps the sender at line rate (the ACKs
    # of the first packets return long before the window is used up): the flow
    # is its own ideal to the nanosecond (50.5 kB: a short last packet).
    f = lone(size, handshake=False)
    assert f["acked_ns"] - f["start_ns"] == f["alone_ns"]
    assert f["fabric_slowdown"] == 1.0
    assert f["alone_ns"] > f["ideal_ns"]
    # With an initial window of 2 the sender waits for ACKs: slower than alone.
    assert lone(size, handshake=False, iw=2)["fabric_slowdown"] > 1.0 or size <= 2000


def test_the_handshake_is_paid_in_the_slowdown():
    a, b = lone(10_000, handshake=False), lone(10_000, handshake=True)
    # The SYN and its answer (40 B each) cross the three hops each way first.
    syn = 2 * (ns(40, ACCESS) + ns(40, BOTTLENECK) + ns(40, ACCESS) + 11_000)
    assert b["alone_ns"] == a["alone_ns"]
    assert (b["acked_ns"] - b["start_ns"]) - (a["acked_ns"] - a["start_ns"]) == syn
    assert b["fabric_slowdown"] == pytest.approx(1 + syn / a["alone_ns"])


def test_quantile_is_hpccs_rank():
    v = np.arange(1, 101, dtype=float)  # 1..100
    # Rank floor(n q), 0-based: q = 0.5 -> v[50] = 51; 0.99 -> v[99] = 100.
    assert quantile(v, 0.5) == 51 and quantile(v, 0.95) == 96 and quantile(v, 0.99) == 100
    assert quantile(v, 1.0) == 100 and quantile(v, 0.0) == 1
    assert math.isnan(quantile(np.zeros(0), 0.5))


def flows_of(sizes, slowdowns) -> pd.DataFrame:
    return pd.DataFrame({"size_bytes": sizes, "fabric_slowdown": slowdowns, "slowdown": slowdowns})


def test_pfabric_bins_by_hand():
    f = flows_of(
        [1000, 100_000, 100_001, 5_000_000, 10_000_001, 2_000, 7_000_000],
        [1.0, 3.0, 2.0, 4.0, 8.0, 5.0, np.nan],  # the last did not complete
    )
    t = slowdown_by_size(f)
    assert list(t["bin"]) == ["(0, 100 kB]", "(100 kB, 10 MB]", "(10 MB, inf)", "all"]
    assert list(t["flows"]) == [3, 2, 1, 6]
    assert t["mean"].tolist() == pytest.approx([3.0, 3.0, 8.0, 23 / 6])
    # (0, 100 kB]: sorted 1, 3, 5: rank floor(3 x 0.5) = 1 -> 3; 0.99 -> rank 2 -> 5.
    assert t.loc[0, "p50"] == 3.0 and t.loc[0, "p99"] == 5.0
    assert list(t["lo_bytes"][:3]) == [0, 100_000, 10_000_000] and math.isinf(t.loc[2, "hi_bytes"])


def test_equal_count_bins_and_edges():
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 10**7, 1000)
    f = flows_of(sizes, 1 + sizes / 1e6)
    t = slowdown_by_size(f, "hpcc")
    assert len(t) == 21 and (t["flows"][:20] == 50).all() and t["flows"].iloc[-1] == 1000
    # Bins follow size order: each bin's sizes lie above the previous bin's.
    assert (t["lo_bytes"][1:20].to_numpy() >= t["hi_bytes"][:19].to_numpy()).all()
    t = slowdown_by_size(f, [1e6, 5e6])
    assert list(t["bin"][:3]) == ["(0, 1 MB]", "(1 MB, 5 MB]", "(5 MB, inf)"]
    assert t["flows"][:3].sum() == 1000
    t = slowdown_by_size(f, 4, column="slowdown", quantiles=(0.9,))
    assert list(t.columns) == ["bin", "lo_bytes", "hi_bytes", "flows", "mean", "p90"]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"bins": "homa"}, "unknown name"),
        ({"bins": [5, 1]}, "increase"),
        ({"bins": [0]}, "> 0"),
        ({"bins": 0}, "at least 1"),
        ({"column": "fct_ns"}, "not a slowdown column"),
        ({"quantiles": (1.5,)}, r"\[0, 1\]"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, match):
    with pytest.raises(ValueError, match=match):
        slowdown_by_size(flows_of([1], [1.0]), **kwargs)


def websearch_run(seed: int = 1) -> dict:
    return {
        "seed": seed,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 1e9, "bottleneck_delay_ms": 0.01},
        "transport": {"scheme": "tcp-newreno", "mss_bytes": 1000, "header_bytes": 40, "handshake": False},
        "traffic": [{"arrivals": "poisson", "load": 0.5, "count": 400, "sizes": {"dist": "websearch"}}],
        "metrics": {"series": False},
    }


def test_written_with_the_run_and_queryable_in_the_store(tmp_path):
    res = fctlab.run(websearch_run())
    f = res.flows
    done = f[f["completed"]]
    assert (done["fabric_slowdown"] >= 1.0).all()
    assert (done["fabric_slowdown"] == (done["acked_ns"] - done["start_ns"]) / done["alone_ns"]).all()
    res.write(tmp_path / "out")
    written = pd.read_parquet(tmp_path / "out" / "slowdown.parquet")
    pd.testing.assert_frame_equal(written, slowdown_by_size(f))

    fctlab.sweep({"base": websearch_run(), "seeds": [1, 2]}, store=tmp_path / "st", workers=1, progress=False)
    st = fctlab.store.open(tmp_path / "st")
    q = st.query("SELECT * FROM slowdown_by_size() ORDER BY run_key, bin")
    assert set(q["bin"]) <= {"(0, 100 kB]", "(100 kB, 10 MB]", "(10 MB, inf)"}
    for key, g in q.groupby("run_key"):
        flows = st.query("SELECT size_bytes, fabric_slowdown FROM flows WHERE run_key = ?", [key])
        t = slowdown_by_size(flows).set_index("bin")
        for _, row in g.iterrows():
            for col in ("flows", "mean", "p50", "p95", "p99"):
                assert row[col] == pytest.approx(t.loc[row["bin"], col]), (row["bin"], col)

"""Replications: splitting a run, Student-t intervals, merging (fctlab.replicate)."""

import math

import fctlab
import numpy as np
import pandas as pd
import pytest
from fctlab.replicate import (
    replication_seed,
    split,
    summarize,
    t_interval,
    t_ppf,
)


def small_config(count=200, seed=5):
    return {
        "seed": seed,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "buffer_pkts": 50,
        },
        "transport": {"scheme": "tcp-newreno"},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.6,
                "sizes": {"dist": "pareto", "mean_pkts": 15, "shape": 1.4},
                "count": count,
            }
        ],
    }


# --- Student's t quantiles: values derived without this code -------------------


def test_t_quantile_closed_forms():
    # df = 1 is the Cauchy distribution: t_p = tan(pi (p - 1/2)).
    for p in (0.6, 0.9, 0.975, 0.995):
        assert t_ppf(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-9)
    # df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2))  =>  t_p = (2p - 1) / sqrt(2 p (1 - p)).
    for p in (0.75, 0.95, 0.975):
        assert t_ppf(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-9)
    # Symmetry and the median.
    assert t_ppf(0.5, 7) == 0.0
    assert t_ppf(0.025, 7) == pytest.approx(-t_ppf(0.975, 7), rel=1e-12)


def test_t_quantile_table_values():
    # Printed tables of t_{0.975, df} (e.g. NIST/SEMATECH e-Handbook, Table 1.3.6.7.2).
    for df, want in ((4, 2.776), (9, 2.262), (10, 2.228), (30, 2.042), (100, 1.984)):
        assert t_ppf(0.975, df) == pytest.approx(want, abs=5e-4)
    # Large df tends to the normal quantile 1.959964.
    assert t_ppf(0.975, 1e7) == pytest.approx(1.959964, abs=1e-5)


def test_t_interval_by_hand():
    # 1..5: mean 3, s = sqrt(2.5), se = s / sqrt(5) = sqrt(0.5); half = 2.776445 * 0.707107 = 1.963243
    m, lo, hi = t_interval([1, 2, 3, 4, 5])
    assert m == 3
    assert (hi - lo) / 2 == pytest.approx(2.776445 * math.sqrt(0.5), rel=1e-5)
    m, lo, hi = t_interval([4.0])
    assert m == 4.0 and math.isnan(lo) and math.isnan(hi)


def test_t_interval_coverage():
    # The 95% interval over K = 4 normal samples must cover the true mean ~95% of the
    # time (a wrong quantile, e.g. the normal 1.96 instead of t_3 = 3.18, covers ~84%).
    rng = np.random.default_rng(12345)
    trials, hits = 4000, 0
    for _ in range(trials):
        _, lo, hi = t_interval(rng.normal(10.0, 2.0, size=4))
        hits += lo <= 10.0 <= hi
    assert abs(hits / trials - 0.95) < 0.012


# --- splitting --------------------------------------------------------------------


def test_split_divides_counts_and_derives_seeds():
    cfg = small_config(count=1003, seed=7)
    parts = split(cfg, 4)
    assert [p["traffic"][0]["count"] for p in parts] == [251, 251, 251, 250]
    assert sum(p["traffic"][0]["count"] for p in parts) == 1003
    seeds = [p["seed"] for p in parts]
    assert seeds == [replication_seed(7, r) for r in range(4)]
    assert len(set(seeds)) == 4 and all(0 <= s < 2**63 for s in seeds)
    # Independent of the other base seeds: seed 8's replications are all different.
    assert not set(seeds) & {replication_seed(8, r) for r in range(4)}
    # Everything else is untouched, and the input is not modified.
    assert all(p["network"] == cfg["network"] for p in parts)
    assert cfg["traffic"][0]["count"] == 1003 and cfg["seed"] == 7
    # K = 1 is the run itself.
    assert split(cfg, 1) == [cfg]


def test_split_refuses_too_few_flows():
    with pytest.raises(fctlab.ConfigError) as e:
        split(small_config(count=3), 4)
    assert e.value.field == "traffic[0].count"
    with pytest.raises(fctlab.ConfigError) as e:
        split(small_config(), 0)
    assert "replications" in str(e.value)


# --- merging ------------------------------------------------------------------------


def test_summarize_by_hand():
    # Three replications; sizes 2 and 5 fall in bucket [1, 10) of edges [1, 10, 100], size 50 in [10, 100).
    flows = pd.DataFrame(
        {
            "replication": [0, 0, 1, 1, 2, 2, 0, 1, 2],
            "size_pkts": [2, 5, 2, 5, 2, 5, 50, 50, 50],
            "fct_ns": [10, 20, 20, 40, 30, 30, 100, 200, 600],
            "ideal_ns": [5, 10, 5, 10, 5, 10, 50, 50, 50],
            "completed": [True] * 9,
        }
    )
    s = summarize(flows, edges=[1, 10, 100], percentiles=(50,))
    assert list(s["size_lo_pkts"]) == [1, 10] and list(s["n_flows"]) == [6, 3]
    small = s.iloc[0]
    # replication means 15, 30, 30: mean 25, s = sqrt(75), se = 5, t_{0.975,2} = 4.302653
    assert small["mean"] == pytest.approx(25.0)
    assert (small["mean_hi"] - small["mean_lo"]) / 2 == pytest.approx(4.302653 * 5.0, rel=1e-6)
    assert small["mean_pooled"] == pytest.approx(150 / 6)
    # per-replication medians 15, 30, 30 (two values each: their midpoint)
    assert small["p50"] == pytest.approx(25.0)
    assert small["n_min"] == 2 and small["replications"] == 3
    big = s.iloc[1]
    assert big["mean"] == pytest.approx(300.0) and big["n_min"] == 1
    # slowdown = fct / ideal: replication means of bucket 0 are (2+2)/2, (4+4)/2, (6+3)/2
    sd = summarize(flows, edges=[1, 10, 100], value="slowdown")
    assert sd.iloc[0]["mean"] == pytest.approx((2 + 4 + 4.5) / 3)


def test_summarize_ignores_incomplete_flows_and_lone_replications():
    flows = pd.DataFrame(
        {
            "replication": [0, 1, 1],
            "size_pkts": [3, 3, 300],
            "fct_ns": [10, 30, None],
            "ideal_ns": [1, 1, 1],
            "completed": [True, True, False],
        }
    )
    s = summarize(flows, edges=[1, 10, 1000])
    assert len(s) == 1 and s.iloc[0]["mean"] == 20.0
    one = summarize(flows[flows["replication"] == 0], edges=[1, 10])
    assert math.isnan(one.iloc[0]["mean_lo"])  # no interval from a single replication


def test_replicate_runs_and_merges(tmp_path):
    cfg = small_config(count=240)
    rep = fctlab.replicate(cfg, 3, store=tmp_path / "st", workers=1, progress=False)
    assert rep.replications == 3
    assert len(rep.flows) == 240  # the flows are shared out, not multiplied
    assert sorted(rep.flows["replication"].unique()) == [0, 1, 2]
    assert [m["seed"] for m in rep.metas] == [replication_seed(5, r) for r in range(3)]
    assert [m["store"]["replication"]["index"] for m in rep.metas] == [0, 1, 2]
    # each replication equals a plain run of its split config (same flows, same order)
    for r, part in enumerate(split(cfg, 3)):
        plain = fctlab.run(part).flows
        got = rep.flows[rep.flows["replication"] == r].drop(columns="replication").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, plain)
    s = rep.summary()
    assert s["n_flows"].sum() == rep.flows["completed"].sum()
    assert (s.loc[s["replications"] >= 2, "mean_lo"] <= s.loc[s["replications"] >= 2, "mean"]).all()
    # replications as a scenario key, as in a sweep spec
    again = fctlab.replicate({**cfg, "replications": 3}, store=tmp_path / "st", workers=1, progress=False)
    assert again.run_keys == rep.run_keys

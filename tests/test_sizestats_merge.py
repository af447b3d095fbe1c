"""size_stats tables of several runs merge into the table of all their flows
(fctlab.sizestats.merge), and runs without flow records keep the same streaming
tables."""

import math

import fctlab
import numpy as np
import pandas as pd
from fctlab import sizestats
from fctlab.result import SIZE_STATS_COLUMNS

QS = [0.1, 0.5, 0.9, 0.99]


def scenario(seed, flows=True, alpha=0.005):
    return {
        "seed": seed,
        "network": {"topology": "single-link", "bottleneck_bps": 20e6, "bottleneck_delay_ms": 5.0, "buffer_pkts": 40},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.85,
                "count": 3000,
                "sizes": {
                    "dist": "mixture",
                    "components": [
                        {"weight": 8, "dist": "uniform", "min_pkts": 1, "max_pkts": 5},
                        {"weight": 2, "dist": "pareto", "mean_pkts": 20, "shape": 1.3},
                    ],
                },
            }
        ],
        "metrics": {
            "series": False,
            "ps_fct": False,
            "size_stats": True,
            "size_stats_quantiles": QS,
            "size_stats_alpha": alpha,
            "flows": flows,
        },
    }


def test_merging_one_table_gives_it_back():
    t = fctlab.run(scenario(1)).size_stats
    m = sizestats.merge([t], alpha=0.005, quantiles=QS)
    assert list(m.columns) == list(t.columns)
    for c in ("size_pkts", "flows_started", "flows_completed", "sum_fct_ns", "min_fct_ns", "max_fct_ns"):
        assert m[c].tolist() == t[c].tolist(), c
    for c in ["mean_fct_ns"] + [sizestats.quantile_column(q) for q in QS]:
        np.testing.assert_allclose(m[c], t[c], rtol=1e-12, err_msg=c)
    # The sketch holds every completed flow once.
    assert [int(np.sum(c)) for c in t["sketch_count"]] == t["flows_completed"].tolist()


def test_merged_runs_against_exact_quantiles_of_all_their_flows():
    runs = [fctlab.run(scenario(s)) for s in (1, 2, 3)]
    m = sizestats.merge([r.size_stats for r in runs], alpha=0.005, quantiles=QS)
    flows = pd.concat([r.flows for r in runs])
    done = flows[flows["completed"]]
    by = flows.groupby("size_pkts")
    assert m["size_pkts"].tolist() == sorted(flows["size_pkts"].unique().tolist())
    assert m["flows_started"].tolist() == by.size().tolist()
    assert m["flows_completed"].tolist() == by["completed"].sum().tolist()
    for row in m.itertuples(index=False):
        fct = np.sort(done.loc[done["size_pkts"] == row.size_pkts, "fct_ns"].to_numpy(dtype="int64"))
        assert row.sum_fct_ns == int(fct.sum())
        assert (row.min_fct_ns, row.max_fct_ns) == (fct[0], fct[-1])
        assert math.isclose(row.mean_fct_ns, int(fct.sum()) / len(fct), rel_tol=1e-15)
        for q in QS:
            exact = np.quantile(fct, q, method="lower")
            got = getattr(row, sizestats.quantile_column(q))
            assert abs(got - exact) <= 0.005 * exact * (1 + 1e-9), (row.size_pkts, q, got, exact)


def test_without_flow_records():
    kept, lean = fctlab.run(scenario(4)), fctlab.run(scenario(4, flows=False))
    assert len(lean.flows) == 0 and len(kept.flows) == 3000
    pd.testing.assert_frame_equal(lean.size_stats, kept.size_stats)
    assert (lean.meta["flows_total"], lean.meta["flows_completed"]) == (3000, kept.meta["flows_completed"])


def test_merge_refuses_a_table_without_its_sketch():
    t = fctlab.run(scenario(1)).size_stats.drop(columns=["sketch_count"])
    try:
        sizestats.merge([t], alpha=0.005)
    except ValueError as e:
        assert "sketch_count" in str(e)
    else:
        raise AssertionError("merged a table without its sketch")


def test_written_and_read_back_with_the_sketch(tmp_path):
    res = fctlab.run(scenario(5))
    back = fctlab.Result.read(res.write(tmp_path / "r"))
    m1 = sizestats.merge([res.size_stats], alpha=0.005, quantiles=QS)
    m2 = sizestats.merge([back.size_stats], alpha=0.005, quantiles=QS)
    pd.testing.assert_frame_equal(
        m1.drop(columns=["sketch_bucket", "sketch_count"]), m2.drop(columns=["sketch_bucket", "sketch_count"])
    )
    assert set(SIZE_STATS_COLUMNS) <= set(back.size_stats.columns)

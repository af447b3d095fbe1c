"""fctlab.run and its tables, as the output tables page (docs/guide/outputs.md) defines them."""

import fctlab
import numpy as np
import pandas as pd
import pytest
from fctlab.result import FLOW_COLUMNS


def test_flows_table_columns_and_meaning(small):
    res = fctlab.run(small)
    f = res.flows
    assert list(f.columns) == FLOW_COLUMNS
    assert len(f) == 200 and f["flow_id"].is_unique
    done = f[f["completed"]]
    assert len(done) == 200  # a finite workload runs to completion
    # fct = finish - start, acked after the last byte arrived.
    assert (done["fct_ns"] == done["finish_ns"] - done["start_ns"]).all()
    assert (done["acked_ns"] > done["finish_ns"]).all()
    assert (done["fct_ns"] >= done["ideal_ns"]).all()
    assert (f["size_bytes"] == f["size_pkts"] * 1000).all()
    assert f["sender"].between(0, 2).all()


def test_series_table(small):
    res = fctlab.run(small)
    s = res.series
    assert list(s.columns) == ["t_ns", "metric", "element", "value"]
    metrics = set(s["metric"])
    assert {"queue_pkts", "utilization", "active_flows", "cwnd_pkts"} <= metrics
    q = s[s["metric"] == "queue_pkts"]
    assert (q["element"] == "bottleneck").all()
    assert q["value"].max() <= 20  # never above the buffer
    u = s[s["metric"] == "utilization"]["value"]
    assert (u >= 0).all() and (u <= 1.0 + 1e-9).all()
    # Samples every 10 ms.
    t = np.sort(q["t_ns"].unique())
    assert (np.diff(t) == 10_000_000).all()
    assert set(s[s["metric"] == "cwnd_pkts"]["element"]) <= {"flow0", "flow1"}


def test_meta_manifest(small):
    res = fctlab.run(small)
    m = res.meta
    for key in ("config", "seed", "fctlab_version", "events_processed", "packets_forwarded", "wall_s", "build_profile"):
        assert key in m
    assert m["seed"] == 3 and m["config"] == small
    assert m["build_profile"] == "release"
    st = m["stats"]
    assert st["packets_sent"] == st["packets_delivered"] + st["packets_dropped"] + st["packets_in_network"]


def test_write_read_roundtrip_and_determinism(small, tmp_path):
    a = fctlab.run(small).write(tmp_path / "a")
    b = fctlab.run(small).write(tmp_path / "b")
    assert (a / "flows.parquet").read_bytes() == (b / "flows.parquet").read_bytes()
    assert (a / "series.parquet").read_bytes() == (b / "series.parquet").read_bytes()
    back = fctlab.Result.read(a)
    assert back.meta["config"] == small
    pd.testing.assert_frame_equal(back.flows, fctlab.run(small).flows)
    small["seed"] = 4
    c = fctlab.run(small).write(tmp_path / "c")
    assert (a / "flows.parquet").read_bytes() != (c / "flows.parquet").read_bytes()


def test_toml_path_and_text(tmp_path):
    text = """
seed = 1
[network]
bottleneck_bps = 10e6
bottleneck_delay_ms = 5.0
[[flows]]
size_pkts = 10
"""
    p = tmp_path / "s.toml"
    p.write_text(text)
    a = fctlab.run(p).flows
    b = fctlab.run(str(p)).flows
    c = fctlab.run(text).flows
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda c: c["network"].update(colour=1), "network.colour"),
        (lambda c: c["network"].update(bottleneck_bps="fast"), "network.bottleneck_bps"),
        (lambda c: c["network"].update(bottleneck_bps=-5.0), "network.bottleneck_bps"),
        (lambda c: c["network"].update(bottleneck_bps=0), "network.bottleneck_bps"),
        (lambda c: c.update(transport={"scheme": "tcp-nope"}), "transport.scheme"),
        (lambda c: c.pop("traffic"), "flows"),
        (lambda c: c["network"].update(bottleneck_bps=float("nan")), "network.bottleneck_bps"),
    ],
)
def test_bad_input_raises_config_error(small, mutate, field):
    mutate(small)
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.run(small)
    assert e.value.field == field
    assert "\n" not in str(e.value) and field in str(e.value)
    assert isinstance(e.value, ValueError)


def test_no_completed_flow_warns():
    cfg = {
        "stop_s": 0.001,
        "network": {"bottleneck_bps": 1e6, "bottleneck_delay_ms": 10.0},
        "flows": [{"size_pkts": 100}],
    }
    with pytest.warns(fctlab.NoCompletedFlowWarning, match="no flow completed"):
        res = fctlab.run(cfg)
    assert res.meta["flows_completed"] == 0 and not res.flows["completed"].any()
    assert pd.isna(res.flows["fct_ns"].iloc[0])


def test_progress_callback_can_stop_the_run():
    # A long run: the callback (called about once a second) stops it at once.
    cfg = {
        "stop_s": 3600.0,
        "network": {"topology": "dumbbell", "senders": 4, "bottleneck_bps": 1e9, "bottleneck_delay_ms": 10.0},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"series": False},
    }
    calls = []

    def stop(p):
        calls.append(p)
        return False

    res = fctlab.run(cfg, progress=stop, warn=False)
    assert len(calls) == 1 and res.meta["stats"]["interrupted"]
    assert calls[0]["sim_ns"] < 3600e9
    assert set(calls[0]) >= {"sim_ns", "events", "flows_started", "flows_completed", "wall_s"}


def test_catalog_lists_everything():
    cat = fctlab.catalog()
    assert "tcp-newreno" in [s["name"] for s in cat["schemes"]]
    assert {"single-link", "dumbbell", "half-dumbbell"} <= {t["name"] for t in cat["topologies"]}
    assert "droptail" in [q["name"] for q in cat["queues"]]
    assert {"pareto", "fixed", "uniform"} <= {d["name"] for d in cat["distributions"]}


def test_ps_and_slowdown_columns_by_hand():
    # 10 Mb/s, 10 ms one way, handshake on. Flow 1 alone on the link (flow 0 is
    # long done): 20 packets x 1040 B = 166 400 bits = 16.64 ms at line rate;
    # PS FCT = 16.64 ms + 10 ms propagation + 20 ms handshake RTT.
    cfg = {
        "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
        "flows": [{"size_pkts": 5}, {"start_s": 5.0, "size_pkts": 20}],
    }
    f = fctlab.run(cfg).flows
    assert f.loc[1, "ps_fct_ns"] == 16_640_000 + 10_000_000 + 20_000_000
    # ideal: the 20-packet train crosses the link back to back: 20 x 0.832 ms + 10 ms.
    assert f.loc[1, "ideal_ns"] == 20 * 832_000 + 10_000_000
    assert f["slowdown"].tolist() == pytest.approx((f["fct_ns"] / f["ideal_ns"]).astype(float).tolist())
    assert (f["slowdown"] >= 1).all()


def test_ps_column_mean_matches_the_rcp_formula_on_one_link():
    # Poisson arrivals on one link: the fluid PS FCT averaged over flows of all
    # sizes is E[x]/(C(1-rho)) + 1.5 RTT (M/G/1-PS, with the fixed terms). With
    # exponential sizes (rounded up to whole packets) and 20 000 flows the
    # sample mean's relative error is ~ a few percent at rho = 0.5; allow 10%.
    rho, c, rtt = 0.5, 100e6, 0.02
    cfg = {
        "seed": 9,
        "network": {"bottleneck_bps": c, "bottleneck_delay_ms": rtt * 500},
        "traffic": [
            {"arrivals": "poisson", "load": rho, "sizes": {"dist": "exponential", "mean_pkts": 20}, "count": 20000}
        ],
        "metrics": {"series": False},
    }
    f = fctlab.run(cfg).flows
    wire_bits = (f["size_bytes"] + 40 * f["size_pkts"]).astype(float) * 8
    # The load counts nominal sizes (mean 20 pkts); rounding up makes the real
    # load rho' = rho * E[rounded] / 20.
    rho_real = rho * f["size_pkts"].astype(float).mean() / 20
    transfer = (f["ps_fct_ns"].astype(float) - 1.5 * rtt * 1e9).mean()
    expect = (wire_bits / c / (1 - rho_real)).mean() * 1e9
    assert transfer == pytest.approx(expect, rel=0.10)

"""``fctlab bench``: what it counts and how it is asked, not how fast it is.

The counts are checked against hand computations: two loss-free flows deliver
exactly their sizes; one flow at line rate has delivered floor((T - d) / s)
packets by time T (s the serialisation time, d the propagation delay); a lost
packet holds the in-order count at its sequence number however many later
packets arrive. The ns-3 case replays a tiny flow list in both simulators and
runs only when ns-3 is installed.
"""

import math

import fctlab
import pytest
from fctlab import cli, ns3peer
from fctlab.bench import parse_shapes
from fctlab.benchmarks import ns3slice, runner, scaling, shapes

MSS, HDR = 1000, 40
PKT_BITS = (MSS + HDR) * 8


def _two_flows(sizes=(7, 13)) -> dict:
    return {
        "seed": 1,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 5.0,
            "buffer_pkts": 1000,
        },
        "transport": {"scheme": "tcp-newreno", "mss_bytes": MSS, "header_bytes": HDR},
        "flows": [{"sender": i, "start_s": 0.001 * i, "size_pkts": n} for i, n in enumerate(sizes)],
        "metrics": {"series": False},
    }


def test_two_loss_free_flows_deliver_exactly_their_sizes():
    res = fctlab.run(_two_flows(), warn=False)
    f = res.flows
    assert f["completed"].all()
    assert list(f["delivered_pkts"]) == [7, 13]
    assert runner.unique_delivered(f) == 20
    # No loss: no copies either, so every arrival was a new packet.
    assert res.meta["stats"]["packets_dropped"] == 0
    assert res.meta["stats"]["data_delivered"] == 20


def _line_rate(stop_s: float, loss_seq=None) -> dict:
    # One flow of 1000 packets in one window, no handshake, on a single 10 Mb/s
    # link with 20 ms of propagation: packet k (from 0) has fully arrived at
    # d + (k + 1) s, s = 1040 x 8 / 10^7 = 832 us.
    cfg = {
        "seed": 1,
        "stop_s": stop_s,
        "network": {
            "topology": "single-link",
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 20.0,
            "buffer_pkts": 5000,
        },
        "transport": {
            "scheme": "tcp-newreno",
            "mss_bytes": MSS,
            "header_bytes": HDR,
            "init_cwnd_pkts": 1000,
            "handshake": False,
        },
        "flows": [{"sender": 0, "start_s": 0.0, "size_pkts": 1000}],
        "metrics": {"series": False},
    }
    if loss_seq is not None:
        cfg["losses"] = [{"flow": 0, "seq": loss_seq, "transmission": 1}]
    return cfg


@pytest.mark.parametrize("k", [1, 100, 437])
def test_slice_count_at_a_stop_time_is_the_line_rate_count(k):
    s = PKT_BITS / 10e6
    stop = 0.020 + (k + 0.5) * s  # half-way between arrivals k and k + 1
    res = fctlab.run(_line_rate(stop), warn=False)
    f = res.flows
    assert not f["completed"].any()
    assert math.floor((stop - 0.020) / s) == k
    assert list(f["delivered_pkts"]) == [k]
    assert runner.unique_delivered(f) == k


def test_a_lost_packet_holds_the_in_order_count():
    s = PKT_BITS / 10e6
    stop = 0.020 + 100.5 * s  # before any retransmission can arrive (it waits behind the 1000-packet window)
    res = fctlab.run(_line_rate(stop, loss_seq=5), warn=False)
    f = res.flows
    assert list(f["delivered_pkts"]) == [5]
    # Packets after the hole did arrive: copies and out-of-order arrivals are
    # counted by data_delivered, never by delivered_pkts.
    assert res.meta["stats"]["data_delivered"] >= 95


def test_delivered_pkts_matches_completion_in_the_reference_slice():
    # A 2-s slice of the bench's own scenario: every completed flow delivered
    # its size, every other one less, and none more.
    cfg = ns3slice.slice_scenario(2.0, packets=1e5)
    f = fctlab.run(cfg, warn=False).flows
    done = f[f["completed"]]
    assert (done["delivered_pkts"] == done["size_pkts"]).all()
    running = f[~f["completed"]]
    assert len(running) > 0
    assert (running["delivered_pkts"] < running["size_pkts"]).all()
    assert runner.unique_delivered(f) == int(done["size_pkts"].sum()) + int(running["delivered_pkts"].sum())


def test_flow_list_is_the_reference_draw_before_the_stop():
    cfg = ns3slice.slice_scenario(1.0, packets=1e5)
    flows = ns3slice.flow_list(cfg)
    full = fctlab.run({**ns3slice.slice_scenario(5.0, packets=1e5)}, warn=False).flows.sort_values("start_ns")
    early = full[full["start_ns"] < 1_000_000_000]
    assert [(round(t * 1e9), s, n) for t, s, n in flows] == list(
        zip(early["start_ns"], early["sender"], early["size_pkts"])
    )
    p = ns3slice.ns3_params(cfg)
    assert p["sim_seconds"] == 1.0 and p["limited_transmit"] is True and p["rtt_ms"] == 100.0


def test_size_stats_count_equals_the_flows_table_count():
    cfg = _two_flows((3, 4))
    cfg["metrics"] = {"series": False, "flows": False, "size_stats": True}
    res = fctlab.run(cfg, warn=False)
    assert runner.unique_from_size_stats(res.size_stats) == 7


def test_shapes_parse_and_build():
    assert parse_shapes("all") == list(shapes.SHAPES)
    assert parse_shapes("fq,tcp,fq") == ["fq", "tcp"]
    with pytest.raises(ValueError, match="--shape: unknown shape 'udp'"):
        parse_shapes("tcp,udp")
    for name in shapes.SHAPES:
        cfg = shapes.scenario(name, 1e4)
        if name != "ps":
            fctlab.describe(cfg)  # the engine accepts it
    g = shapes.chain_scenario(1e4, routers=100)["network"]["graph"]
    assert len(g["links"]) == 299 and len(g["paths"]) == 97
    fq = shapes.scenario("fq", 1e4)["network"]
    assert fq["queue"] == "fq" and fq["fq"]["buckets"] == 1000


def test_chain_load_is_as_stated():
    # Interior core link: `hops` of the senders' equal shares of the arrivals.
    cfg = shapes.chain_scenario(1e4, routers=20, hops=3)
    rate = cfg["traffic"][0]["rate_per_s"]
    senders = len(cfg["network"]["graph"]["paths"])
    load = 3 * rate / senders * shapes.MEAN_PKTS * PKT_BITS / 1e9
    assert load == pytest.approx(0.8)


def test_scaling_flows_scenario_keeps_n_flows_in_progress():
    cfg = scaling.flows_scenario(50)
    cfg["stop_s"] = 0.5
    f = fctlab.run(cfg, warn=False).flows
    assert len(f) == 50 and not f["completed"].any()
    assert (f["delivered_pkts"] > 0).all()


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["bench", "--shape", "udp"], "--shape: unknown shape 'udp'"),
        (["bench", "--shape", ""], "--shape: empty"),
        (["bench", "--packets", "0"], "--packets: must be positive"),
        (["bench", "--repeat", "0"], "--repeat: must be at least 1"),
        (["bench", "--scaling"], "--scaling needs --out DIR"),
    ],
)
def test_cli_refuses_bad_bench_arguments_in_one_line(capsys, argv, needle):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fctlab: error: ") and needle in err
    assert len(err.splitlines()) == 1


@pytest.mark.skipif(not ns3peer.installed(), reason="ns-3 is not installed (python -m fctlab.ns3peer --install-only)")
def test_ns3_counts_the_same_packets_on_a_tiny_flow_list():
    # Two flows on the reference dumbbell, no loss: by a stop time in slow
    # start both simulators have delivered the packets of the rounds completed
    # by then (one ns-3 run: its import alone takes 10-20 s).
    cfg = ns3slice.slice_scenario(3.0, packets=1e5)
    params = ns3slice.ns3_params(cfg)
    cfg.pop("traffic")
    flows = [(0.0, 0, 40), (0.05, 3, 200)]
    cfg["flows"] = [{"sender": s, "start_s": t, "size_pkts": n} for t, s, n in flows]
    assert runner.unique_delivered(fctlab.run(cfg, warn=False).flows) == 240
    # By 0.48 s, in slow start from a window of 2 with the handshake first
    # (RTT 100 ms, all of it on the bottleneck, the network empty): flow 0's
    # rounds of 2, 4, 8, 16 packets arrive just after 0.15, 0.25, 0.35, 0.45 s;
    # flow 1 (from 0.05 s) has had its rounds of 2, 4, 8, the next one arrives
    # just after 0.50 s.
    cfg["stop_s"] = params["sim_seconds"] = 0.48
    expected = [2 + 4 + 8 + 16, 2 + 4 + 8]
    ns = ns3peer.run_ns3_flows(params, flows, progress=lambda _m: None)
    f = fctlab.run(cfg, warn=False).flows.sort_values("flow_id")
    assert list(f["delivered_pkts"]) == expected
    assert ns["data_pkts_delivered"] == runner.unique_delivered(f) == sum(expected)


def test_a_flows_source_without_in_order_counts_knows_only_completed_flows():
    # Live mode reports finish times but not the receivers' in-order points:
    # a completed flow delivered its size, an unfinished one is unknown (null).
    import numpy as np
    from fctlab.result import _flows_frame

    i64 = lambda *x: np.array(x, dtype=np.int64)  # noqa: E731
    cols = {
        "flow_id": i64(0, 1),
        "sender": i64(0, 0),
        "size_bytes": i64(5000, 9000),
        "size_pkts": i64(5, 9),
        "start_ns": i64(0, 0),
        "finish_ns": i64(100, -1),
        "acked_ns": i64(150, -1),
        "retransmits": i64(0, 0),
        "drops": i64(0, 0),
        "marks": i64(0, 0),
        "ideal_ns": i64(50, 60),
        "ps_fct_ns": i64(-1, -1),
        "transport": np.zeros(2, dtype=np.int32),
        "schemes": ["tcp-newreno"],
    }
    f = _flows_frame(cols)
    assert f["delivered_pkts"].iloc[0] == 5 and f["delivered_pkts"].isna().iloc[1]

"""The Mussmann 2012 reproductions' scenarios, checked against hand models."""

import fctlab
import numpy as np
from fctlab.experiments.mussmann2012.fig5_2 import fig52_stats
from fctlab.experiments.mussmann2012.fig5_2_text import gap_closed
from fctlab.experiments.mussmann2012.fig5_4 import median_p99
from fctlab.experiments.mussmann2012.scenarios import (
    BOTTLENECK_MS,
    C_BPS,
    FIG51_MEASURE_PKTS,
    FIG52_ALPHA,
    FIG52_QS,
    FIG52_RATE,
    FIG54_STEPS,
    HEADER_BYTES,
    LATENCY_MS,
    PKT_BYTES,
    PROTOCOLS,
    fig51_scenario,
    fig52_chunk,
    fig53_scenario,
    fig54_rtt_s,
    fig54_scenario,
)


def ser(nbytes, rate=C_BPS):
    return round(nbytes * 8e9 / rate)


def lone_flow(n, w, fwd, rev, pkt=PKT_BYTES, hdr=HEADER_BYTES):
    """A lone flow on an empty path, as in crates/fctlab-core/tests/empty_path.rs:
    handshake, then slow start with an ACK per packet (packet k >= w leaves on
    the ACK of packet (k - w) // 2), each hop a FIFO server. Returns the data
    packets' arrival times at the receiver and when the last ACK is back."""

    def hop(t, nbytes, path, free):
        for h, (rate, d) in enumerate(path):
            start = max(t, free[h])
            free[h] = start + ser(nbytes, rate)
            t = free[h] + d
        return t

    t0 = sum(ser(hdr, r) + d for r, d in fwd) + sum(ser(hdr, r) + d for r, d in rev)
    ffree, rfree = [0] * len(fwd), [0] * len(rev)
    arrive, ack = [0] * n, [0] * n
    for k in range(n):
        release = t0 if k < w else ack[(k - w) // 2]
        arrive[k] = hop(release, pkt, fwd, ffree)
        ack[k] = hop(arrive[k], hdr, rev, rfree)
    return arrive, ack[-1]


def test_fig53_one_generator_by_hand():
    # One generator of 32-packet flows, Reno IW 10 over DropTail (no loss: the
    # window never exceeds the buffer and both hops run at 10 Mb/s). Every flow
    # finds the network empty (the next starts when the last ACK is back), so
    # flow i starts at s0 + i D and its packets reach the receiver at the same
    # offsets; the thesis's utilisation is those arrivals per second over 1250.
    name, tp, net = PROTOCOLS[1]
    assert name == "TCP IW10"
    cfg = fig53_scenario(tp, net, 1, seed=3)
    s0 = round(cfg["traffic"][0]["start_s"] * 1e9)
    d_acc, d_bn = round(LATENCY_MS * 1e6), round(BOTTLENECK_MS * 1e6)
    fwd = [(C_BPS, d_acc), (C_BPS, d_bn)]
    offsets, period = lone_flow(32, 10, fwd, fwd[::-1])
    stop = round(cfg["stop_s"] * 1e9)
    arrivals = np.array([s0 + i * period + a for i in range(stop // period + 1) for a in offsets])
    s = fctlab.run(cfg).series
    u = s[(s["metric"] == "utilization_pkts") & (s["element"] == "bottleneck")]
    assert list(u["t_ns"]) == [k * 1_000_000_000 for k in range(1, 41)]
    want = [((arrivals > t - 1e9) & (arrivals <= t)).sum() / 1250 for t in u["t_ns"]]
    assert np.allclose(u["value"], want, rtol=0, atol=1e-12)
    # The line rate in 1 KB packets is the thesis's 1250 a second.
    assert C_BPS / (8 * PKT_BYTES) == 1250


def test_fig51_measuring_flow_alone_is_slow_start():
    # Without the background flows the measuring flow's prefixes are the hand
    # model's arrival times (Reno, IW 2) minus its start.
    name, tp, net = PROTOCOLS[0]
    cfg = fig51_scenario(tp, net, seed=2)
    cfg["flows"] = [f for f in cfg["flows"] if f.get("measure")]
    cfg.pop("stop_s")
    p = fctlab.run(cfg).prefixes
    fwd = [(C_BPS, round(LATENCY_MS * 1e6)), (C_BPS, round(BOTTLENECK_MS * 1e6))]
    arrive, _ = lone_flow(FIG51_MEASURE_PKTS, 2, fwd, fwd[::-1])
    assert list(p["k"]) == list(range(1, FIG51_MEASURE_PKTS + 1))
    assert list(p["fct_ns"]) == list(np.maximum.accumulate(arrive))


# ----------------------------------------------------------- Figures 5.2, 5.4


def test_fig52_workload_is_the_thesis():
    # A one-second chunk with its flow records kept: the flows counted are the
    # ones starting in [warm, warm + count), as many as Poisson arrivals at the
    # rate that offers load 0.9 with the mixture's mean size give (within 4
    # standard deviations), and about 1 in 500 is a marker flow of 100, 125,
    # ..., 1075 packets.
    name, tp, net = PROTOCOLS[1]
    cfg = fig52_chunk(tp, net, seed=3, count_s=1.0, warm_s=0.3, cool_s=0.1)
    cfg["metrics"]["flows"] = True
    res = fctlab.run(cfg)
    f = res.flows
    inside = f[(f["start_ns"] >= 300_000_000) & (f["start_ns"] < 1_300_000_000)]
    # 0.9 x 2.4e9 / (8 x 1000 B x (499/500 x 25 + 587.5/500)) flows a second.
    rate = 0.9 * 2.4e9 / 8000 / (25 * 499 / 500 + 587.5 / 500)
    assert abs(FIG52_RATE - rate) < 1e-9
    assert abs(len(inside) - rate) < 4 * rate**0.5
    t = res.size_stats
    assert t["flows_started"].sum() == len(inside)
    assert t["flows_completed"].sum() == inside["completed"].sum()
    markers = f[f["size_pkts"] >= 100]
    big = markers[~markers["size_pkts"].isin(range(100, 1076, 25))]
    # Pareto flows of 100+ packets are rare ((4.17 / 100)^1.2 = 2.2%); marker sizes hold the rest.
    expected = len(f) / 500 + len(f) * (25 * 0.2 / 1.2 / 100) ** 1.2 * 40 / 976
    assert len(markers) - len(big) <= expected + 4 * expected**0.5 + 5
    on_lattice = markers[markers["size_pkts"].isin(range(100, 1076, 25))]
    assert len(on_lattice) >= len(f) / 500 - 4 * (len(f) / 500) ** 0.5
    assert cfg["network"]["bottleneck_bps"] == 2.4e9 and cfg["network"]["bottleneck_delay_ms"] == 50.0


def test_gap_closed_by_hand():
    # The thesis's 75% at 13 packets: x sits three quarters of the way from TCP to RCP.
    assert gap_closed(400.0, 200.0, 250.0) == 0.75
    assert gap_closed(400.0, 200.0, 400.0) == 0.0 and gap_closed(400.0, 200.0, 200.0) == 1.0


def test_fig52_chunks_resume_from_the_store(tmp_path):
    # Two chunks through a store, then again: nothing runs the second time and
    # the merged table is the same; it is the merge of the chunks run here.
    from fctlab import sizestats

    name, tp, net = PROTOCOLS[0]
    args = (name, tp, net, 3000, 2, 0.2, 0.1)
    a, cfgs = fig52_stats(*args, store=tmp_path / "st", workers=1, progress=False)
    b, _ = fig52_stats(*args, store=tmp_path / "st", workers=1, progress=False)
    cols = [c for c in a.columns if not c.startswith("sketch")]
    assert a[cols].equals(b[cols])
    here = sizestats.merge([fctlab.run(c).size_stats for c in cfgs], alpha=FIG52_ALPHA, quantiles=FIG52_QS)
    assert a[cols].equals(here[cols])
    assert [c["seed"] for c in cfgs] == [1, 2]
    st = fctlab.store.open(tmp_path / "st")
    assert len(st.keys()) == 2


def test_fig54_lone_measuring_flow_is_slow_start():
    # The largest step without the long-lived flows: every link at 160 Mb/s,
    # RTT 100 ms; the prefixes are the hand model's (IW 10, handshake).
    name, tp, net = PROTOCOLS[1]
    bw, lat = FIG54_STEPS[-1]
    cfg = fig54_scenario(tp, net, 5, bw, lat)
    cfg["flows"] = [f for f in cfg["flows"] if f.get("measure")]
    cfg.pop("stop_s")
    p = fctlab.run(cfg).prefixes
    fwd = [(bw, round(lat * 1e6)), (bw, round(BOTTLENECK_MS * 1e6))]
    arrive, _ = lone_flow(FIG51_MEASURE_PKTS, 10, fwd, fwd[::-1])
    assert list(p["fct_ns"]) == list(np.maximum.accumulate(arrive))
    assert fig54_rtt_s(lat) == 0.1


def test_fig54_percentiles_count_unfinished_runs_as_slowest():
    fct = np.array([[1.0, 2.0], [1.0, np.nan], [3.0, np.nan]])
    med, p99 = median_p99(fct)
    # k = 2: sorted (2, inf, inf): the median (rank 1) is not reached.
    assert med[0] == 1.0 and np.isnan(med[1]) and p99[0] == 1.0


def test_dotted_names_are_accepted():
    from fctlab.cli import main
    from fctlab.experiments import REGISTRY, canonical

    for i in range(1, 5):
        assert canonical(f"mussmann2012-fig5.{i}") == f"mussmann2012-fig5-{i}" in REGISTRY
    try:
        code = main(["reproduce", "mussmann2012-fig5.9", "--out", "/nonexistent"])
    except SystemExit as e:
        code = e.code
    assert code not in (0, None)

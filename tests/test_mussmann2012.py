"""The Mussmann 2012 reproductions' scenarios, checked against hand models."""

import numpy as np

import fctlab
from fctlab.experiments import mussmann2012 as m


def ser(nbytes, rate=m.C_BPS):
    return round(nbytes * 8e9 / rate)


def lone_flow(n, w, fwd, rev, pkt=m.PKT_BYTES, hdr=m.HEADER_BYTES):
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
    name, tp, net = m.PROTOCOLS[1]
    assert name == "TCP IW10"
    cfg = m.fig53_scenario(tp, net, 1, seed=3)
    s0 = round(cfg["traffic"][0]["start_s"] * 1e9)
    d_acc, d_bn = round(m.LATENCY_MS * 1e6), round(m.BOTTLENECK_MS * 1e6)
    fwd = [(m.C_BPS, d_acc), (m.C_BPS, d_bn)]
    offsets, period = lone_flow(32, 10, fwd, fwd[::-1])
    stop = round(cfg["stop_s"] * 1e9)
    arrivals = np.array([s0 + i * period + a for i in range(stop // period + 1) for a in offsets])
    s = fctlab.run(cfg).series
    u = s[(s["metric"] == "utilization_pkts") & (s["element"] == "bottleneck")]
    assert list(u["t_ns"]) == [k * 1_000_000_000 for k in range(1, 41)]
    want = [((arrivals > t - 1e9) & (arrivals <= t)).sum() / 1250 for t in u["t_ns"]]
    assert np.allclose(u["value"], want, rtol=0, atol=1e-12)
    # The line rate in 1 KB packets is the thesis's 1250 a second.
    assert m.C_BPS / (8 * m.PKT_BYTES) == 1250


def test_fig51_measuring_flow_alone_is_slow_start():
    # Without the background flows the measuring flow's prefixes are the hand
    # model's arrival times (Reno, IW 2) minus its start.
    name, tp, net = m.PROTOCOLS[0]
    cfg = m.fig51_scenario(tp, net, seed=2)
    cfg["flows"] = [f for f in cfg["flows"] if f.get("measure")]
    cfg.pop("stop_s")
    p = fctlab.run(cfg).prefixes
    fwd = [(m.C_BPS, round(m.LATENCY_MS * 1e6)), (m.C_BPS, round(m.BOTTLENECK_MS * 1e6))]
    arrive, _ = lone_flow(m.FIG51_MEASURE_PKTS, 2, fwd, fwd[::-1])
    assert list(p["k"]) == list(range(1, m.FIG51_MEASURE_PKTS + 1))
    assert list(p["fct_ns"]) == list(np.maximum.accumulate(arrive))

"""Closed forms for CUBIC, DCTCP, Vegas and BBR, and the runs that check
them: each check runs its scenario and returns what the closed form
predicts, what the run shows and the worst error, for the `modern-tcp` page
and the tests.

- CUBIC (RFC 9438 sec. 4.2): after one congestion event at W_max, W(t) =
  C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta) / C), t from the
  epoch's start.
- DCTCP (RFC 8257 sec. 3.3): alpha <- (1 - g) alpha + g F once per window;
  with a steady marking fraction its fixed point is F, so alpha's time
  average is the fraction of packets marked.
- Vegas (Brakmo & Peterson 1995, Linux tcp_vegas.c): each flow holds its
  window while its truncated diff, floor(cwnd (RTT - baseRTT) / baseRTT) =
  floor(Q RTT / baseRTT) for Q packets queued, is within alpha..beta (2..4):
  Q RTT / baseRTT in [2, 5), so from just under 2 to just under 5 packets
  in the bottleneck queue.
- BBR (Linux tcp_bbr.c): on an empty path its bandwidth estimate is the
  bottleneck rate and its minimum RTT the least RTT of the path (the
  handshake's); STARTUP ends after three rounds in a row without 25 %
  more bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..page import run

MSS, HEADER = 1000, 40
WIRE = MSS + HEADER


@dataclass
class Check:
    """One closed-form check: what it predicts, what the run shows, the
    worst error (relative unless ``unit`` says otherwise), and the curves the
    page draws (name -> (t_s, values))."""

    scheme: str
    what: str
    predicted: str
    measured: str
    worst: float
    unit: str = "relative"
    curves: dict = field(default_factory=dict)
    result: object = None


def path_cfg(
    scheme: str,
    *,
    rate_bps: float,
    delay_ms: float,
    access_ms: float,
    buffer_pkts: int,
    stop_s: float,
    senders: int = 1,
    interval_ms: float = 1.0,
    transport: dict | None = None,
    queue: dict | None = None,
):
    """Long-lived flows of ``scheme`` on a dumbbell with 10 Gb/s access links
    and 1000-byte segments; every flow's window sampled."""
    net = {
        "topology": "dumbbell",
        "senders": senders,
        "bottleneck_bps": rate_bps,
        "access_bps": 10e9,
        "bottleneck_delay_ms": delay_ms,
        "access_delay_ms": access_ms,
        "buffer_pkts": buffer_pkts,
        **(queue or {}),
    }
    return {
        "seed": 1,
        "stop_s": stop_s,
        "network": net,
        "transport": {"scheme": scheme, "mss_bytes": MSS, "header_bytes": HEADER, **(transport or {})},
        "traffic": [{"arrivals": "long-lived"}],
        "metrics": {"interval_ms": interval_ms, "links": ["bottleneck"], "cwnd_flows": list(range(senders))},
    }


def flow_metric(res, metric: str, flow: int = 0):
    """(t in s, values) of a per-flow series metric."""
    s = res.series
    s = s[(s.metric == metric) & (s.element.astype(str) == f"flow{flow}")]
    return s.t_ns.to_numpy(float) / 1e9, s.value.to_numpy(float)


def link_metric(res, metric: str):
    s = res.series
    s = s[(s.metric == metric) & (s.element.astype(str) == "bottleneck")]
    return s.t_ns.to_numpy(float) / 1e9, s.value.to_numpy(float)


def cubic_check(*, stop_s: float = 25.0) -> Check:
    """One CUBIC flow with ECN on 100 Mb/s with a 100 ms RTT (a BDP of 1202
    packets), through a queue marking above 200 packets (1000 of buffer),
    from an initial ssthresh of 400: the window grows past about 1400, the
    first ECN echo is the congestion event (RFC 9438 sec. 4.6 treats it as a
    loss, without the retransmissions), and the epoch after it runs until the
    next. W_max is the window at the epoch's start over beta (cwnd =
    ssthresh = beta W_max)."""
    c, beta = 0.4, 0.7
    cfg = path_cfg(
        "tcp-cubic",
        rate_bps=100e6,
        delay_ms=45.0,
        access_ms=5.0,
        buffer_pkts=1000,
        stop_s=stop_s,
        interval_ms=20.0,
        transport={"init_ssthresh_pkts": 400, "ecn": True, "cubic": {"hystart": False}},
        queue={"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 200}},
    )
    res = run(cfg, "cubic after one congestion event", warn=False)
    t, w = flow_metric(res, "cwnd_pkts")
    cuts = np.flatnonzero(w[1:] < 0.8 * w[:-1]) + 1
    if len(cuts) == 0:
        raise RuntimeError("cubic check: no congestion event")
    i0 = cuts[0]
    i2 = cuts[1] if len(cuts) > 1 else len(t)
    w_max = w[i0] / beta
    k = np.cbrt(w_max * (1 - beta) / c)
    tt, ww = t[i0:i2], w[i0:i2]
    model = c * (tt - t[i0] - k) ** 3 + w_max
    err = float(np.max(np.abs(ww - model)) / w_max)
    return Check(
        "tcp-cubic",
        "W(t) = C (t - K)^3 + W_max after one congestion event",
        f"W_max = {w_max:.0f}, K = {k:.2f} s",
        f"the window over the {tt[-1] - tt[0]:.1f} s to the next event; sampled before the event: {w[:i0].max():.0f}",
        err,
        curves={"cwnd": (tt, ww), "closed form": (tt, model)},
        result=res,
    )


def dctcp_check(*, stop_s: float = 1.0) -> Check:
    """Two DCTCP flows on 1 Gb/s (30 us one way) through a queue marking
    above K = 20 packets: each flow's alpha, averaged over time after 0.2 s,
    against the fraction of its packets marked (its marks over the data
    packets it sent: those delivered in order and the retransmissions)."""
    cfg = path_cfg(
        "tcp-dctcp",
        rate_bps=1e9,
        delay_ms=0.02,
        access_ms=0.01,
        buffer_pkts=300,
        stop_s=stop_s,
        senders=2,
        interval_ms=0.1,
        queue={"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": 20}},
    )
    res = run(cfg, "dctcp alpha", warn=False)
    f = res.flows.sort_values("flow_id")
    fracs = (f["marks"] / (f["delivered_pkts"] + f["retransmits"])).to_numpy(float)
    alphas, curves, errs = [], {}, []
    for i in (0, 1):
        t, a = flow_metric(res, "model_alpha", i)
        alphas.append(a[t >= 0.2].mean())
        errs.append(abs(alphas[-1] - fracs[i]) / fracs[i])
        curves[f"alpha, flow {i}"] = (t, a)
        curves[f"F, flow {i}"] = (np.array([0.0, stop_s]), np.array([fracs[i], fracs[i]]))
    return Check(
        "tcp-dctcp",
        "alpha's fixed point is the marked fraction F",
        "F = " + ", ".join(f"{x:.4f}" for x in fracs),
        "mean alpha " + ", ".join(f"{a:.4f}" for a in alphas),
        float(max(errs)),
        curves=curves,
        result=res,
    )


def vegas_check(*, flows=(1, 2, 4), stop_s: float = 20.0) -> Check:
    """N Vegas flows on 100 Mb/s, 20 ms RTT, a 1000-packet buffer: the mean
    bottleneck queue after half the run, per flow, against alpha..beta + 1
    (Linux truncates diff: it holds from diff 2 to diff 4.99)."""
    per_flow, curves, res = [], {}, None
    for n in flows:
        cfg = path_cfg(
            "tcp-vegas",
            rate_bps=100e6,
            delay_ms=5.0,
            access_ms=5.0,
            buffer_pkts=1000,
            stop_s=stop_s,
            senders=n,
            interval_ms=10.0,
        )
        res = run(cfg, f"vegas {n}", warn=False)
        t, q = link_metric(res, "queue_pkts")
        per_flow.append(q[t >= stop_s / 2].mean() / n)
        curves[f"queue / flow, {n} flow{'s' if n > 1 else ''}"] = (t, q / n)
    outside = max(max(0.0, 2.0 - x, x - 5.0) for x in per_flow)
    return Check(
        "tcp-vegas",
        "floor(diff) in alpha..beta = 2..4: 2 to 5 packets queued per flow",
        "2 to 5 packets per flow",
        ", ".join(f"{n}: {x:.2f}" for n, x in zip(flows, per_flow)),
        outside,
        unit="packets outside [2, 5]",
        curves=curves,
        result=res,
    )


def bbr_expected(rate_bps: float = 100e6, one_way_ms: float = 10.0) -> tuple:
    """The bottleneck rate (segments/s) and the handshake's RTT (ms): the
    propagation plus a 40-byte SYN's and SYN-ACK's serialisation on the
    access, bottleneck and egress links."""
    ser = HEADER * 8 * (2 / 10e9 + 1 / rate_bps)
    return rate_bps / (8 * WIRE), 2 * one_way_ms + 2 * ser * 1e3


def startup_exit_round(rounds, bw, mode) -> tuple:
    """The round STARTUP should end by the rule (three rounds in a row
    without 25 % more bandwidth than the last growth), from the estimate
    sampled first in each round, and the round it did end in."""
    ended = int(rounds[np.flatnonzero(mode > 0)[0]])
    full, count, predicted = 0.0, 0, None
    for r in range(1, ended + 2):
        at = np.flatnonzero(rounds == r)
        if len(at) == 0:
            continue
        # The rule is applied at a round's start, to the estimate then.
        b = bw[at[0]]
        if b >= 1.25 * full:
            full, count = b, 0
        else:
            count += 1
            if count == 3:
                predicted = r
                break
    return predicted, ended


def bbr_check(*, stop_s: float = 3.0) -> list:
    """One BBR flow on an empty 100 Mb/s path with 20 ms of propagation RTT:
    its estimates against the path's, and STARTUP's end against the rule."""
    cfg = path_cfg("tcp-bbr", rate_bps=100e6, delay_ms=5.0, access_ms=5.0, buffer_pkts=1000, stop_s=stop_s)
    res = run(cfg, "bbr on an empty path", warn=False)
    rate, rtt = bbr_expected()
    t, bw = flow_metric(res, "model_bw_pps")
    _, mrtt = flow_metric(res, "model_min_rtt_ms")
    late = t >= 0.5
    bw_err = float(np.max(np.abs(bw[late] / rate - 1)))
    rtt_err = float(np.max(np.abs(mrtt / rtt - 1)))
    tr, rounds = flow_metric(res, "model_rounds")
    _, mode = flow_metric(res, "model_mode")
    tb = dict(zip(t, bw))
    bw_at = np.array([tb.get(x, 0.0) for x in tr])
    predicted, ended = startup_exit_round(rounds, bw_at, mode)
    exit_err = float("inf") if predicted is None else abs(predicted - ended)
    return [
        Check(
            "tcp-bbr",
            "bandwidth estimate = bottleneck rate",
            f"{rate:,.1f} segments/s",
            f"{bw[late].min():,.1f} to {bw[late].max():,.1f} after 0.5 s",
            bw_err,
            curves={"estimate": (t, bw), "bottleneck rate": (t, np.full_like(t, rate))},
            result=res,
        ),
        Check(
            "tcp-bbr",
            "min RTT estimate = the path's least RTT",
            f"{rtt:.6f} ms",
            f"{mrtt.min():.6f} to {mrtt.max():.6f} ms",
            rtt_err,
            result=res,
        ),
        Check(
            "tcp-bbr",
            "STARTUP ends after 3 rounds without 25 % growth",
            f"round {predicted}",
            f"round {ended}",
            exit_err,
            unit="rounds",
            result=res,
        ),
    ]

"""Fig. 12 of Dukkipati & McKeown (CCR 2006) held within bands, at a scale CI
can afford: 30,000 flows per scheme of the paper's workload (C = 2.4 Gb/s,
RTT 0.1 s, Poisson arrivals at load 0.9, Pareto sizes of mean 25 packets and
shape 1.2, 1000 B + 40 B packets, a buffer of 10^6 packets), seed 1.

The bands, per size class (3-9, 10-99 and 100-999 packets; mean FCT over the
flows of the class):

- **RCP** (the released patch's router and hosts, mode ns2) emulates
  processor sharing, whose mean FCT for a flow of L packets is exactly
  1.5 RTT + L/(C(1 - rho)) (M/G/1-PS, plus the handshake and the last half
  RTT): mean FCT / mean PS FCT within [0.9, 1.15]. The width is stated, not
  derived: the 10% allowed for equal flows started together, plus 5% for
  the lag of the rate equation under Poisson arrivals; below 1 because the
  sample's realised load is below the nominal 0.9 (a Pareto law of shape 1.2
  has infinite variance).
- **TCP** cannot beat slow start: with an initial window of 2 and one ACK
  per packet, a flow of L packets needs k rounds with 2 (2^k - 1) >= L, each
  a full round trip of propagation, after the handshake: FCT >= (k + 1/2) RTT
  + RTT (``ideal.slow_start_fct_ns`` with an infinite C), exactly. Most flows
  end in slow start (the paper), so the class mean lies within [1, 1.5] of
  that bound (1.5 stated: queueing on top of slow start).
- **TCP / RCP**, from the two bands: within [SS / (1.15 PS), 1.5 SS / (0.9 PS)]
  of the class means of the formulas: derived, not measured.
- **XCP** is slower than RCP in every class (the paper: RCP's FCT "is always
  lower than that of XCP and TCP"), and at least 1.5x RCP from 10 packets up
  (stated; the paper: "as much as 30 times").

A regression in any scheme moves a class out of its band. fctlab's default
RCP (mode ps) is held to the same RCP band: about 10,000 flows arrive per
second here and each spends a round trip between its SYN and its first data
packet, so a router that counted every announced flow in N would hold R near
C/1000 (the flows announced within the mean sending time count only beyond
the flows that left within it).
"""

import fctlab
import pytest
from fctlab import ideal
from fctlab.experiments.dukkipati2006.scenarios import C_BPS, PKT_BYTES, RHO, RTT_S, fig12_scenario

FLOWS = 30_000
CLASSES = ((3, 10), (10, 100), (100, 1000))
RTT_NS = RTT_S * 1e9


def _run(transport: dict, queue: str, rcp_mode=None):
    cfg = fig12_scenario(transport, queue, 25, 1.2, FLOWS)
    if rcp_mode is not None:
        cfg["network"]["rcp"] = {"mode": rcp_mode}
    f = fctlab.run(cfg).flows
    assert f["completed"].all()
    L = f["size_pkts"].to_numpy()
    fct = f["fct_ns"].to_numpy(dtype=float)
    out = {}
    for lo, hi in CLASSES:
        m = (lo <= L) & (hi > L)
        assert m.sum() >= 300, f"class {lo}-{hi - 1}: only {m.sum()} flows"
        ps = ideal.ps_fct_ns(L[m] * PKT_BYTES, C_BPS, RHO, RTT_NS)
        ss = ideal.slow_start_fct_ns(L[m], 1e18, RTT_NS, pkt_bytes=PKT_BYTES, init_cwnd_pkts=2)
        out[(lo, hi)] = {"fct": fct[m].mean(), "ps": ps.mean(), "ss": ss.mean(), "each_ss": (fct[m] >= ss - 1).all()}
    return out


@pytest.fixture(scope="module")
def runs():
    return {
        "tcp": _run({"scheme": "tcp-newreno"}, "droptail"),
        "xcp": _run({"scheme": "xcp"}, "xcp"),
        "rcp": _run({"scheme": "rcp", "rcp": {"mode": "ns2"}}, "rcp", "ns2"),
    }


def test_rcp_is_within_its_band_of_processor_sharing(runs):
    for c, r in runs["rcp"].items():
        assert 0.9 <= r["fct"] / r["ps"] <= 1.15, f"RCP, {c}: {r['fct'] / r['ps']:.3f} x PS"


def test_tcp_cannot_beat_slow_start_and_mostly_ends_in_it(runs):
    for c, r in runs["tcp"].items():
        assert r["each_ss"], f"TCP, {c}: a flow beat slow start"
        assert 1.0 <= r["fct"] / r["ss"] <= 1.5, f"TCP, {c}: {r['fct'] / r['ss']:.3f} x the slow-start bound"


def test_tcp_over_rcp_within_the_band_the_formulas_give(runs):
    for c in CLASSES:
        t, r = runs["tcp"][c], runs["rcp"][c]
        lo, hi = t["ss"] / (1.15 * r["ps"]), 1.5 * t["ss"] / (0.9 * r["ps"])
        got = t["fct"] / r["fct"]
        assert lo <= got <= hi, f"TCP / RCP, {c}: {got:.2f} outside [{lo:.2f}, {hi:.2f}]"
    # The paper's "about 4 times" for flows up to 2000 packets lies just
    # below the band of 100-999 packets (about 4.2 to 7.3): slow start from
    # two packets against PS cannot do better with these formulas.


def test_xcp_is_slower_than_rcp(runs):
    for c in CLASSES:
        ratio = runs["xcp"][c]["fct"] / runs["rcp"][c]["fct"]
        assert ratio > 1.0, f"XCP / RCP, {c}: {ratio:.2f}"
        if c[0] >= 10:
            assert ratio >= 1.5, f"XCP / RCP, {c}: {ratio:.2f}"


def test_default_rcp_is_within_the_rcp_band():
    for c, r in _run({"scheme": "rcp"}, "rcp").items():
        assert 0.9 <= r["fct"] / r["ps"] <= 1.15, f"RCP (mode ps), {c}: {r['fct'] / r['ps']:.3f} x PS"

"""crossval-ns3 and the TCP model options from Python.

The ns-3 case runs only when ns-3 is installed (``python -m fctlab.ns3peer
--install-only``; it is not part of ``make setup``: a 4-5 minute install that
builds cppyy, 450 MB); otherwise it is skipped with that reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import fctlab
from fctlab import ns3peer
from fctlab.experiments import crossval as cv


def test_bad_model_options_are_refused_with_the_field_named():
    flows = cv.flow_list(0.5, 3, 1)
    for key, value in (("preset", "ns2"), ("rtt_sampling", "always"), ("recovery_exit", "half"),
                       ("fast_retransmit_timer", "stop"), ("syn_rto_ms", -1.0), ("ssthresh_flight", "half"),
                       ("dupack_window", "sack")):
        with pytest.raises(fctlab.ConfigError, match=f"transport.{key}"):
            fctlab.run(cv.scenario(flows, 50, cv.transport(2, **{key: value})), warn=False)


def test_without_losses_the_ns3_preset_changes_nothing():
    # Every option acts on a loss or a lost SYN only: with a buffer no flow
    # can fill, the preset gives the very same completion times.
    flows = cv.flow_list(0.3, 60, 2)
    a = cv.run_fctlab(flows, 100_000, cv.transport(2))
    b = cv.run_fctlab(flows, 100_000, cv.transport(2, "ns3"))
    assert a["drops"] == b["drops"] == 0
    assert np.array_equal(a["fct"], b["fct"])


def test_flow_list_follows_its_law():
    # Shares per bin (chi-square at 0.001, 3 degrees of freedom: 16.27) and
    # sizes inside their bins; arrival rate from the load and the exact mean.
    flows = cv.flow_list(0.8, 20_000, 5)
    sizes = np.array([n for _, _, n in flows])
    counts = np.array([np.sum((sizes >= a) & (sizes <= b)) for a, b in cv.BINS])
    assert counts.sum() == len(sizes)
    expect = np.array(cv.BIN_SHARE) * len(sizes)
    assert float(np.sum((counts - expect) ** 2 / expect)) < 16.27
    lam = 0.8 * cv.C_BPS / (8 * cv.PKT_BYTES * cv.mean_size_pkts())
    span = flows[-1][0]
    assert abs(len(flows) / span / lam - 1) < 0.03  # 20,000 arrivals: sd 0.7%


@pytest.mark.skipif(not ns3peer.installed(), reason="ns-3 is not installed (python -m fctlab.ns3peer --install-only)")
def test_ns3_agrees_flow_for_flow_without_losses():
    # Light load, a buffer of 1 BDP: no drops in either simulator, and then
    # the two models are the same (handshake, slow start, ACK clocking), so
    # every flow's FCT agrees to well within 1%.
    flows = cv.flow_list(0.2, 40, 3)
    ref = cv.run_ns3(flows, cv.BDP_PKTS, 2)
    ours = cv.run_fctlab(flows, cv.BDP_PKTS, cv.transport(2, "ns3"))
    assert ref["drops"] == 0 and ours["drops"] == 0
    assert not np.isnan(ref["fct"]).any() and not np.isnan(ours["fct"]).any()
    rel = np.abs(ours["fct"] / ref["fct"] - 1)
    assert rel.max() < 0.01, rel.max()


@pytest.mark.skipif(not ns3peer.installed(), reason="ns-3 is not installed (python -m fctlab.ns3peer --install-only)")
def test_ns3_preset_drops_and_resends_as_ns3_under_heavy_loss():
    # A loss-heavy cell (buffer 50, load 0.8, IW 2, 600 flows): ns-3 without
    # SACK resends far more than RFC NewReno would (its Reno-SACK marks chain
    # recoveries after a timeout, README "TCP model options"). The preset must
    # drop and resend as much as ns-3, within 15%; the RFC model and the
    # preset without dupack_window resend about half as much.
    flows = cv.flow_list(0.8, 600, 1)
    ref = cv.run_ns3(flows, 50, 2)
    ours = cv.run_fctlab(flows, 50, cv.transport(2, "ns3"))
    assert ref["other_drops"] == 0
    assert abs(ours["drops"] / ref["drops"] - 1) < 0.15, (ours["drops"], ref["drops"])
    assert abs(ours["retransmits"] / ref["retransmits"] - 1) < 0.15, (ours["retransmits"], ref["retransmits"])

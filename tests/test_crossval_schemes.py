"""crossval-ns3's scheme dimension: CUBIC, DCTCP, BBR and Vegas against ns-3.

The ns-3 cases run only when ns-3 is installed (``python -m fctlab.ns3peer
--install-only``); otherwise they are skipped with that reason.
"""

from __future__ import annotations

import numpy as np
import pytest
from fctlab import ns3peer
from fctlab.experiments.checks import crossval_schemes as cs
from fctlab.experiments.checks.crossval import BDP_PKTS, flow_list, run_fctlab, transport

needs_ns3 = pytest.mark.skipif(
    not ns3peer.installed(), reason="ns-3 is not installed (python -m fctlab.ns3peer --install-only)"
)

#: Two transfers starting together on the crossval path, a buffer of 1 BDP:
#: no drops in either simulator.
TWO = [(0.0, 0, 1000), (0.0, 1, 300)]


def test_every_scheme_cell_runs_and_completes_in_fctlab():
    g = {"cells": tuple((k, 50, 0.8, 10) for k in cs.SCHEMES), "flows": 40, "ensemble": 2}
    for cell in cs.scheme_cells(g):
        sizes, dflt, ens, ref, why, failed = cs.run_scheme_cell(g, cell, "not asked")
        assert ref is None and why == "not asked" and failed is None
        assert len(sizes) == 40 and len(ens) == 2
        for r in (dflt, *ens):
            assert not np.isnan(r["fct"]).any(), cell[0]


def test_the_dctcp_switch_drops_what_it_cannot_mark_only_in_ns3s_model():
    # A 1-BDP buffer never fills here, and DCTCP's data and SYNs are ECT: the
    # DCTCP paper's switch drops nothing; ns-3's RED as DCTCP's switch
    # (not_ect = "drop") drops the forward pure ACKs (handshake, FIN) that
    # find more than K waiting, and never a data segment (no retransmission).
    flows = flow_list(0.8, 300, 1)
    tp = transport(10, "ns3", **cs.SCHEMES["dctcp"].fctlab)
    net = {"queue": "ecn-threshold", "ecn-threshold": {"k_pkts": cs.K_PKTS}}
    paper = run_fctlab(flows, BDP_PKTS + 1, tp, network=net)
    red = run_fctlab(
        flows, BDP_PKTS + 1, tp, network={**net, "ecn-threshold": {"k_pkts": cs.K_PKTS, "not_ect": "drop"}}
    )
    assert paper["drops"] == 0 and red["drops"] > 0
    assert paper["retransmits"] == 0 and red["retransmits"] == 0


@needs_ns3
@pytest.mark.parametrize("key", ["cubic", "bbr"])
def test_two_transfers_agree_with_ns3(key):
    # Without drops CUBIC never leaves slow start here (the window stays
    # below ssthresh, HyStart off in both), so both simulators run the same
    # slow start: equal to the nanosecond. BBR paces at its estimates; the
    # two implementations of Linux's tcp_bbr.c agree within 1%.
    f = cs.run_scheme_fctlab(key, TWO, BDP_PKTS, 10, "ns3")
    n = cs.run_scheme_ns3(key, TWO, BDP_PKTS, 10)
    assert f["drops"] == 0 and n["drops"] == 0
    tol = 1e-6 if key == "cubic" else 0.01
    rel = np.abs(f["fct"] / n["fct"] - 1)
    assert rel.max() < tol, (f["fct"], n["fct"])


@needs_ns3
def test_dctcp_two_transfers_within_the_goal_of_ns3():
    # Marks at K = 20, no drops: the first cut comes as slow start overshoots
    # K; fctlab updates alpha from the first ACK (Linux's dctcp_init sets
    # next_seq = snd_nxt), ns-3 from the end of the first window
    # (TcpDctcp::PktsAcked), so the first cut differs a little: within the
    # page's 10% goal.
    f = cs.run_scheme_fctlab("dctcp", TWO, BDP_PKTS, 10, "ns3")
    n = cs.run_scheme_ns3("dctcp", TWO, BDP_PKTS, 10)
    assert f["drops"] == 0 and n["drops"] == 0
    assert np.abs(f["fct"] / n["fct"] - 1).max() < 0.10, (f["fct"], n["fct"])

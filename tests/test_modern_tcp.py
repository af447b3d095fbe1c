"""DCTCP's warning when the queue never marks, through the Python API."""

import warnings

import fctlab
import pytest


def _cfg(queue: dict) -> dict:
    return {
        "seed": 1,
        "network": {"topology": "dumbbell", "senders": 1, "bottleneck_bps": 1e8, "buffer_pkts": 100, **queue},
        "transport": {"scheme": "tcp-dctcp"},
        "traffic": [{"arrivals": "poisson", "load": 0.3, "count": 20, "sizes": {"dist": "fixed", "pkts": 10}}],
    }


def test_dctcp_on_a_queue_that_never_marks_is_warned_of():
    with pytest.warns(fctlab.ConfigWarning, match="never marks"):
        fctlab.run(_cfg({"queue": "droptail"}))
    with pytest.warns(fctlab.ConfigWarning, match="never marks"):
        fctlab.run(_cfg({"queue": "red"}))


@pytest.mark.parametrize(
    "queue", [{"queue": "ecn-threshold"}, {"queue": "red-ecn"}, {"queue": "red", "red": {"ecn": True}}]
)
def test_dctcp_on_a_marking_queue_is_not_warned_of(queue):
    with warnings.catch_warnings():
        warnings.simplefilter("error", fctlab.ConfigWarning)
        r = fctlab.run(_cfg(queue))
    assert len(r.flows) == 20


# The closed forms of the `modern-tcp` page, run through the API: each check
# fails when its worst error passes the bound.


def test_cubic_follows_w_of_t_after_one_congestion_event():
    from fctlab.experiments.checks.modern_closed import cubic_check

    c = cubic_check()
    # K = cbrt(W_max x 0.3 / 0.4): about 10 s for the ~1430-packet window.
    assert 1300 < float(c.predicted.split()[2].rstrip(",")) < 1600, c.predicted
    assert c.worst < 0.01, (c.predicted, c.measured, c.worst)


def test_dctcp_alpha_averages_the_marked_fraction():
    from fctlab.experiments.checks.modern_closed import dctcp_check

    c = dctcp_check()
    assert c.worst < 0.05, (c.predicted, c.measured, c.worst)


def test_vegas_keeps_two_to_four_packets_queued_per_flow():
    from fctlab.experiments.checks.modern_closed import vegas_check

    c = vegas_check(flows=(1, 3))
    assert c.worst == 0, c.measured


def test_bbr_estimates_the_empty_path_and_leaves_startup_by_the_rule():
    from fctlab.experiments.checks.modern_closed import bbr_check, bbr_expected

    rate, rtt = bbr_expected()
    # 100 Mb/s of 1040-byte packets; 20 ms plus two 40-byte packets' serialisation.
    assert rate == pytest.approx(12019.23, abs=0.01) and rtt == pytest.approx(20.006528, abs=1e-9)
    bw, min_rtt, startup = bbr_check(stop_s=2.0)
    assert bw.worst < 0.005 and min_rtt.worst < 1e-6, (bw.measured, min_rtt.measured)
    assert startup.worst == 0, (startup.predicted, startup.measured)


def test_bbr_without_pacing_is_refused_in_one_line(fctlab_cli, tmp_path):
    import subprocess

    p = tmp_path / "bbr.toml"
    p.write_text(
        '[network]\nbottleneck_bps = 1e7\n[transport]\nscheme = "tcp-bbr"\npacing = false\n'
        '[[traffic]]\narrivals = "poisson"\nload = 0.3\ncount = 5\nsizes = { dist = "fixed", pkts = 10 }\n'
    )
    r = subprocess.run([fctlab_cli, "run", str(p)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "transport.pacing" in lines[0] and "Traceback" not in r.stderr

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

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fctlab_cli():
    """The installed `fctlab` console script (next to the test interpreter)."""
    exe = Path(sys.executable).parent / "fctlab"
    assert exe.exists(), f"fctlab console script not found at {exe}; run `make build`"
    return str(exe)


SMALL = {
    "seed": 3,
    "network": {
        "topology": "dumbbell",
        "senders": 3,
        "bottleneck_bps": 10e6,
        "bottleneck_delay_ms": 10.0,
        "access_delay_ms": [1.0, 5.0, 20.0],
        "buffer_pkts": 20,
    },
    "traffic": [
        {"arrivals": "poisson", "load": 0.7, "sizes": {"dist": "pareto", "mean_pkts": 20, "shape": 1.3}, "count": 200}
    ],
    "metrics": {"interval_ms": 10.0, "cwnd_flows": [0, 1]},
}


@pytest.fixture
def small():
    import copy

    return copy.deepcopy(SMALL)


def htsim_driver(driver: str) -> Path:
    """htsim's ``driver``, built if it is not and its sources, g++ and make are
    here; otherwise the calling test is skipped with the reason."""
    import shutil

    from fctlab.benchmarks import htsim

    try:
        return htsim.find(driver=driver)
    except htsim.PeerUnavailable as e:
        missing = str(e)
    src = htsim.source_dir()
    if not (src / "build.sh").is_file():
        pytest.skip(f"htsim is not built ({missing}) and its sources are not at {src}")
    if shutil.which("g++") is None or shutil.which("make") is None:
        pytest.skip(f"htsim is not built ({missing}) and g++ or make is missing to build it")
    return htsim.build(progress=lambda _m: None, driver=driver)

"""Working in a notebook: a short repr and an HTML one with the headline
numbers, exceptions named as the user imports them, helpers for FCT and
slowdown by size, and the examples (scripts and a notebook) run as they are."""

import html
import math
import shutil
import subprocess
import sys
from pathlib import Path

import fctlab
import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def res():
    return fctlab.run(
        {
            "seed": 4,
            "network": {"bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
            "traffic": [
                {
                    "arrivals": "poisson",
                    "load": 0.6,
                    "sizes": {"dist": "pareto", "mean_pkts": 10, "shape": 1.5},
                    "count": 300,
                }
            ],
        }
    )


def test_repr_is_one_short_line_of_headline_numbers(res):
    text = repr(res)
    assert "\n" not in text and len(text) < 300
    done = res.flows[res.flows["completed"]]
    assert text.startswith("fctlab.Result(tcp-newreno: ")
    assert f"{len(done)}/{len(res.flows)} flows completed" in text
    assert f"mean {done['fct_ns'].astype(float).mean() / 1e6:.4g} ms" in text
    assert f"p99 {done['fct_ns'].astype(float).quantile(0.99) / 1e6:.4g} ms" in text


def test_html_repr_holds_the_headline_numbers(res):
    page = res._repr_html_()
    assert page.startswith("<table") and len(page) < 3000
    text = html.unescape(page)
    done = res.flows[res.flows["completed"]]
    fct = done["fct_ns"].astype(float) / 1e6
    slow = done["slowdown"].astype(float)
    for want in (
        f"{len(done):,} of {len(res.flows):,}",
        f"{fct.mean():.4g} ms",
        f"{fct.median():.4g} ms",
        f"{slow.mean():.4g}",
        "tcp-newreno",
    ):
        assert want in text, want


def test_exceptions_are_named_as_imported():
    with pytest.raises(fctlab.ConfigError) as e:
        fctlab.run({"network": {"bottleneck_bps": "fast"}, "flows": [{"size_pkts": 1}]})
    assert type(e.value).__module__ == "fctlab" and "fctlab.ConfigError" in repr(type(e.value))
    assert e.value.field == "network.bottleneck_bps"
    assert fctlab.EngineError.__module__ == "fctlab" and issubclass(fctlab.EngineError, Exception)


def test_fct_by_size_by_hand():
    # Sizes 2, 3, 50, 60 at one bin per decade: the bins span 1 to 60 packets in
    # ceil(log10 60) = 2 equal log steps, so {2, 3} and {50, 60} fall apart.
    flows = pd.DataFrame(
        {
            "size_pkts": [2, 3, 50, 60, 7],
            "fct_ns": pd.array([10, 20, 100, 300, None], dtype="Int64"),
            "completed": [True, True, True, True, False],
        }
    )
    r = fctlab.Result(flows=flows, series=pd.DataFrame())
    t = r.fct_by_size(bins_per_decade=1)
    assert list(t["n"]) == [2, 2]
    assert list(t["mean"]) == [15.0, 200.0] and list(t["max"]) == [20.0, 300.0]
    assert t["size_pkts"].tolist() == pytest.approx([math.sqrt(6), math.sqrt(3000)])  # geometric means


def test_slowdown_by_size_by_hand():
    flows = pd.DataFrame(
        {
            "size_bytes": [2_000, 3_000, 50_000_000, 60_000_000],
            "size_pkts": [2, 3, 50_000, 60_000],
            "completed": [True] * 4,
            "fabric_slowdown": [1.0, 3.0, 2.0, 2.0],
        }
    )
    t = fctlab.Result(flows=flows, series=pd.DataFrame()).slowdown_by_size([10_000])
    assert list(t["bin"]) == ["(0, 10 kB]", "(10 kB, inf)", "all"]
    assert list(t["flows"]) == [2, 2, 4] and list(t["mean"]) == [2.0, 2.0, 2.0]
    # The value of rank floor(n q): of [1, 3], rank 1 for q = 0.5 and 0.99.
    assert list(t["p50"]) == [3.0, 2.0, 2.0] and list(t["p99"]) == [3.0, 2.0, 3.0]


def test_fct_by_size_of_a_run_partitions_its_flows(res):
    t = res.fct_by_size()
    done = res.flows[res.flows["completed"]]
    assert t["n"].sum() == len(done)
    assert (t["n"] * t["mean"]).sum() == pytest.approx(done["fct_ns"].astype(float).sum())
    assert t["max"].max() == done["fct_ns"].max()
    assert np.all(np.diff(t["size_pkts"]) > 0)


# --- the examples ---------------------------------------------------------------


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_example_script_runs(script, tmp_path):
    arg = {"tcp_rcp_ps.py": "fig.png", "sweep_and_query.py": "store", "run_directory.py": "out"}[script]
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / script), str(tmp_path / arg)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / arg).exists()


def test_example_notebook_runs_and_is_short(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(EXAMPLES / "tcp_rcp_ps.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    lines = [line for c in code for line in c.source.splitlines() if line.strip()]
    assert len(lines) < 20  # the classic figure, and more, in under 20 lines
    shutil.copy(EXAMPLES / "tcp_rcp_ps.ipynb", tmp_path)
    nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the figure
    assert any("text/html" in o.get("data", {}) and "fctlab.Result" in o["data"]["text/html"] for o in outputs)

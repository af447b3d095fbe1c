"""The topologies guide's graph example runs from a TOML file through the CLI and Python."""

import re
import subprocess
from pathlib import Path

import fctlab

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "topologies.md"


def graph_example() -> str:
    blocks = re.findall(r"```toml\n(.*?)```", GUIDE.read_text(), re.S)
    found = [b for b in blocks if 'topology = "graph"' in b]
    assert found, "the topologies guide's graph example is missing"
    return found[0]


def test_the_guides_graph_example_runs(fctlab_cli, tmp_path):
    text = graph_example() + "\n[[flows]]\nsender = 0\nsize_pkts = 30\n\n[[flows]]\nsender = 1\nsize_pkts = 30\n"
    path = tmp_path / "graph.toml"
    path.write_text(text)
    r = subprocess.run(
        [fctlab_cli, "run", str(path), "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    res = fctlab.run(path)
    f = res.flows
    assert f["completed"].all() and len(f) == 2
    # Sender 1's access link is 19 ms longer: its empty-path (one-way) FCT is 19 ms longer.
    assert abs((f["ideal_ns"][1] - f["ideal_ns"][0]) - 19e6) < 1e3
    assert "core" in set(res.series["element"])


def test_a_bad_graph_is_one_line(fctlab_cli, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(graph_example().replace('["src1", "dst"]', '["src9", "dst"]') + "\n[[flows]]\nsize_pkts = 3\n")
    r = subprocess.run(
        [fctlab_cli, "run", str(path), "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "network.graph.paths[1]" in lines[0] and "Traceback" not in r.stderr

"""The HTML report, opened in headless Chromium: every image loads, every table renders."""

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import fctlab
import pytest
from fctlab.report import Figure, Reproduction, Table, fmt, table_html, write_report, write_store_report

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=5000",
    "--dump-dom",
]


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe:
        return exe
    msg = "headless Chromium not found: install Debian's chromium (make chromium, or apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


class _Check(HTMLParser):
    def __init__(self):
        super().__init__()
        self.check = None
        self.imgs = 0
        self.tables = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "fctlab-check":
            self.check = a
        self.imgs += tag == "img"
        self.tables += tag == "table"


def open_in_chromium(page: Path, tmp_path: Path) -> _Check:
    """Load ``page`` in headless Chromium and return what its on-load check recorded."""
    exe = chromium()
    profile = tmp_path / f"chromium-profile-{page.stem}"
    p = subprocess.run(
        [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    parsed = _Check()
    parsed.feed(p.stdout)
    assert parsed.check is not None, f"no #fctlab-check in the dumped DOM of {page}"
    return parsed


def assert_renders(page: Path, tmp_path: Path) -> _Check:
    c = open_in_chromium(page, tmp_path)
    chk = c.check
    assert chk.get("data-status") == "ok", f"{page.name}: {chk}"
    assert int(chk["data-images"]) == int(chk["data-images-ok"]) == c.imgs
    assert int(chk["data-tables"]) == int(chk["data-tables-ok"]) == c.tables
    return c


def make_png(path: Path) -> None:
    from fctlab.plots import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.loglog([1, 10, 100], [0.2, 0.5, 3.0], "o-")
    fig.savefig(path)
    plt.close(fig)


def reproduction(out: Path) -> Reproduction:
    make_png(out / "a.png")
    make_png(out / "b.png")
    published = Table(
        "Average FCT (s)",
        ["flow size", "TCP", "PS"],
        rows=[["10 pkts", 0.51, 0.16], ["100 pkts", 1.32, 0.2]],
        published=[[None, 0.5, 0.15], [None, None, 0.2]],
        published_source="paper, Table 1",
        caption="fctlab beside the published numbers.",
    )
    plain = Table("Runs", ["seed", "flows", "wall (s)"], [[1, 30000, 12.5]])
    return Reproduction(
        name="demo-fig1",
        title="Demo: FCT vs size",
        source="A paper, Fig. 1",
        figures=[Figure("a.png", "Figure A, caption."), Figure("b.png", "Figure B <with> markup & stuff.")],
        tables=[published, plain],
        params={
            "scenario": {"network": {"bottleneck_bps": 2.4e9}, "traffic": [{"load": 0.9}]},
            "flows": 30000,
            "RTT": "100 ms",
        },
        seed=7,
        wall_s=12.5,
        scale="quick",
        notes="Scaled down.",
        command="fctlab reproduce demo-fig1",
    )


def test_reproduction_pages_render_in_chromium(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    r = reproduction(out)
    index = write_report(out, [r], title="Demo report", version="9.9.9")
    assert index == out / "report.html"
    page = out / "demo-fig1.html"
    text = page.read_text()
    # every parameter, the version, the seed and the wall time are on the page
    for s in (
        "scenario.network.bottleneck_bps",
        "2.4e9",
        "scenario.traffic[0].load",
        "0.9",
        "RTT",
        "100 ms",
        "9.9.9",
        ">7<",
        "12.5 s",
        "A paper, Fig. 1",
        "paper, Table 1",
        "Figure B &lt;with&gt; markup",
    ):
        assert s in text, s
    c = assert_renders(page, tmp_path)
    assert c.imgs == 2 and c.tables == 3  # two tables plus the parameter table
    c = assert_renders(index, tmp_path)
    assert c.imgs == 2  # thumbnails


def test_the_check_catches_a_missing_image_and_an_empty_table(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    r = reproduction(out)
    r.tables.append(Table("Empty", ["a"], []))
    write_report(out, [r], version="x")
    (out / "b.png").unlink()
    chk = open_in_chromium(out / "demo-fig1.html", tmp_path).check
    assert chk["data-status"] == "fail"
    assert chk["data-images-ok"] == "1" and chk["data-images"] == "2"
    assert int(chk["data-tables-ok"]) == int(chk["data-tables"]) - 1


def test_published_numbers_sit_beside_fctlabs():
    t = Table("T", ["size", "mean"], [["small", 1.1], ["big", 2.0]], published=[[None, 1.0], [None, None]])
    h = table_html(t)
    assert h.count("<tbody>") == 1 and h.count("<tr>") == 2 + 2  # two header rows, two body rows
    assert "+10.0%" in h  # (1.1 - 1.0) / 1.0
    assert ">fctlab<" in h and ">paper<" in h
    with pytest.raises(ValueError):
        table_html(Table("T", ["a", "b"], [[1, 2]], published=[]))


def test_number_format():
    assert [fmt(x) for x in (0.5, 10.0, 2.4e9, 12345.6, 0.0123456, 3, None, float("nan"), True)] == [
        "0.5",
        "10",
        "2.4e9",
        "12346",
        "0.01235",
        "3",
        "\u2013",
        "\u2013",
        "yes",
    ]


def test_store_report_renders_in_chromium(tmp_path):
    base = {
        "seed": 1,
        "network": {
            "topology": "dumbbell",
            "senders": 2,
            "bottleneck_bps": 10e6,
            "bottleneck_delay_ms": 10.0,
            "buffer_pkts": 50,
        },
        "transport": {"scheme": "tcp-newreno"},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.6,
                "sizes": {"dist": "pareto", "mean_pkts": 15, "shape": 1.4},
                "count": 600,
            }
        ],
    }
    st = tmp_path / "st"
    fctlab.sweep(
        {"name": "loads", "base": base, "seeds": 2, "axes": {"traffic[0].load": [0.3, 0.7]}},
        store=st,
        workers=1,
        progress=False,
    )
    fctlab.sweep({"name": "replicated", "base": base, "replications": 3}, store=st, workers=1, progress=False)
    # a run outside any sweep
    one = fctlab.run({**base, "seed": 99})
    from fctlab.store import Store, run_key

    d = one.write(tmp_path / "one")
    Store(st).put(
        run_key({**base, "seed": 99}),
        {n: (d / n).read_bytes() for n in ("flows.parquet", "series.parquet", "meta.json")},
    )

    p = subprocess.run(
        [sys.executable, "-m", "fctlab.cli", "report", str(st), "--out", str(tmp_path / "rep")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    pages = sorted((tmp_path / "rep").glob("*.html"))
    assert [x.name for x in pages] == ["report.html", "runs.html", "sweep-loads.html", "sweep-replicated.html"]
    for page in pages:
        c = assert_renders(page, tmp_path)
        assert c.imgs >= 1 and (c.tables >= 2 or page.name == "report.html")
    rep = (tmp_path / "rep" / "sweep-replicated.html").read_text()
    assert "Confidence intervals by flow size" in rep and fctlab.__version__ in rep
    assert "base.traffic[0].sizes.mean_pkts" in rep and "replications" in rep
    loads = (tmp_path / "rep" / "sweep-loads.html").read_text()
    assert "traffic[0].load" in loads and "1, 2" in loads  # the axis and the seeds

    # the Python entry point, default output directory
    assert write_store_report(st) == st / "report" / "report.html"


# --- pages that read well ------------------------------------------------------------


def test_many_explicit_flows_are_summarised_with_every_entry_kept(tmp_path):
    from fctlab.report import summarize_entries

    flows = [{"size_pkts": 50, "sender": 0, "start_s": 0.1 * i} for i in range(617)]
    r = Reproduction(name="many", title="Many flows", source="s", params={"scenario": {"flows": flows, "seed": 1}})
    write_report(tmp_path, [r], version="x")
    page = (tmp_path / "many.html").read_text()
    assert page.count("<tr>") < 10  # one row for the 617 flows, not 1,851
    assert "617 entries; size_pkts 50; sender 0; start_s 0 to 61.6" in page
    assert summarize_entries(flows) == "617 entries; size_pkts 50; sender 0; start_s 0 to 61.6"
    import html

    assert html.unescape(page).count('"start_s": ') == 617  # every entry, in the collapsed block
    c = assert_renders(tmp_path / "many.html", tmp_path)
    assert c.tables == 1


def _sweep_store(tmp_path):
    base = {
        "seed": 1,
        "network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "bottleneck_delay_ms": 10.0},
        "traffic": [
            {
                "arrivals": "poisson",
                "load": 0.6,
                "sizes": {"dist": "pareto", "mean_pkts": 10, "shape": 1.4},
                "count": 200,
            }
        ],
    }
    spec = {
        "name": "fixed-buffer",
        "description": "Loads and windows at one buffer size",  # no full stop of its own
        "base": base,
        "axes": {
            "network.buffer_pkts": [40],  # one value: not an axis to plot against, nor a legend entry
            "transport.init_cwnd_pkts": [2, 10],
            "traffic[0].load": [0.3, 0.7],
        },
    }
    fctlab.sweep(spec, store=tmp_path / "st", workers=1, progress=False)
    return tmp_path / "st"


def test_sweep_page_names_only_what_varies(tmp_path, monkeypatch):
    import fctlab.report_store as rs

    labels, xlabels = [], []
    real = rs.save

    def spy(fig, out, name):
        for ax in fig.axes:
            xlabels.append(ax.get_xlabel())
            leg = ax.get_legend()
            labels.append([t.get_text() for t in leg.get_texts()] if leg else [])
        return real(fig, out, name)

    monkeypatch.setattr(rs, "save", spy)
    st = _sweep_store(tmp_path)
    write_store_report(st, tmp_path / "rep")
    assert "network.buffer_pkts" not in xlabels and "traffic[0].load" in xlabels
    for legend in labels:
        assert not any("buffer_pkts" in t for t in legend), legend
        assert len(set(legend)) == len(legend)
    assert labels[0][:2] == ["init_cwnd_pkts=2, load=0.3", "init_cwnd_pkts=2, load=0.7"]
    page = (tmp_path / "rep" / "sweep-fixed-buffer.html").read_text()
    assert "Loads and windows at one buffer size. The last sweep took" in page
    assert "Same in every configuration: network.buffer_pkts = 40." in page


def test_store_pages_fit_a_1400_pixel_window(tmp_path):
    st = _sweep_store(tmp_path)
    write_store_report(st, tmp_path / "rep")
    exe = chromium()
    for page in sorted((tmp_path / "rep").glob("*.html")):
        p = subprocess.run(
            [exe, *CHROMIUM_FLAGS, "--window-size=1400,1000", f"--user-data-dir={tmp_path / 'prof'}", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
        )
        c = _Check()
        c.feed(p.stdout)
        assert c.check["data-status"] == "ok", c.check
        assert c.check["data-overflow"] == "0", (page.name, c.check.get("data-overflow-tables"))


def test_a_long_parameter_table_collapses_its_large_groups(tmp_path):
    import html

    # One full scenario per scheme, 40 parameters each, and two plain parameters.
    params = {f"scheme{i}": {f"key{j}": i * 100 + j for j in range(40)} for i in range(5)}
    params.update({"C": "10 Mb/s", "RTT": "40 ms"})
    r = Reproduction(name="long", title="Long", source="s", params=params)
    write_report(tmp_path, [r], version="x")
    page = (tmp_path / "long.html").read_text()
    body = page[page.index("id='parameters'") :]
    assert body.count("<tr>") == 1 + 5 + 2  # the header, one row per scheme, the two plain ones
    text = html.unescape(body)
    import re

    for i in range(5):
        for j in range(40):
            assert re.search(rf"scheme{i}\.key{j} = {i * 100 + j}(\n|<)", text), (i, j)
    assert ">10 Mb/s<" in body
    assert_renders(tmp_path / "long.html", tmp_path)


def test_long_notes_keep_their_opening_in_view_and_fold_the_rest():
    from fctlab.report import NOTES_FOLD_CHARS, notes_html

    short = "One paragraph.\n\nAnother."
    assert "<details>" not in notes_html(short) and notes_html(short).count("<p>") == 2
    paras = [f"Paragraph {i}: " + "words " * 100 for i in range(4)]
    long = "\n\n".join(paras)
    assert len(long) > NOTES_FOLD_CHARS
    h = notes_html(long)
    opening, folded = h.split("<details>")
    assert "Paragraph 0" in opening and "Paragraph 1" not in opening
    assert all(f"Paragraph {i}" in folded for i in (1, 2, 3)) and "3 more paragraphs" in folded
    one = "First sentence. " + "x" * 400 + ". " + "More text here. " * 100
    opening, folded = notes_html(one).split("<details>")
    assert "First sentence." in opening and "More text here." in folded

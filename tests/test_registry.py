"""The reproductions' registry: names, aliases, report order, and the data files
of published numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from fctlab import experiments
from fctlab.experiments import registry
from fctlab.experiments.page import published

EXPERIMENTS = Path(experiments.__file__).parent


def test_every_figure_drawn_on_another_pages_is_a_name_of_that_page():
    # Figures that share a page with the one before them (the sources' own
    # numbering): the 2006 paper's Figs 7, 9 and 11, the 1991 draft's Tables
    # 4.7a and 4.7b and its Figure 7, the thesis's "Fig. 5.N" spelling.
    drawn_on = {
        "dukkipati2006-fig7": "dukkipati2006-fig6",
        "dukkipati2006-fig9": "dukkipati2006-fig8",
        "dukkipati2006-fig11": "dukkipati2006-fig10",
        "kanakia1991-table4-7a": "kanakia1991-table4-7",
        "kanakia1991-table4-7b": "kanakia1991-table4-7",
        "kanakia1991-fig7": "kanakia1991",
        **{f"mussmann2012-fig5.{i}": f"mussmann2012-fig5-{i}" for i in range(1, 5)},
    }
    for alias, name in drawn_on.items():
        assert experiments.canonical(alias) == name
        assert name in experiments.REGISTRY
        assert experiments.spec(alias).name == name
    # A name that is no page or alias comes back as it is.
    assert experiments.canonical("no-such-page") == "no-such-page"
    with pytest.raises(KeyError):
        experiments.spec("no-such-page")


def test_specs_are_the_registry_in_report_order():
    specs = experiments.specs()
    assert [s.name for s in specs] == list(experiments.REGISTRY)
    assert all(experiments.REGISTRY[s.name] is s.func for s in specs)
    assert len({s.name for s in specs}) == len(specs) == 44
    # Each source's pages in the order of its figures, the sources as the report shows them.
    names = [s.name for s in specs]
    assert names[:6] == [f"dukkipati2006-fig{i}" for i in range(1, 7)]
    assert names.index("kanakia1991-table4-10") + 1 == names.index("kanakia1991")
    assert names[-6:] == [f"gavaletz2010-fig{i}" for i in range(1, 6)] + ["rtt-fairness-modern"]
    for s in specs:
        assert s.title and "\n" not in s.title
        assert s.source in ("dukkipati2006", "kanakia1991", "mussmann2012", "gavaletz2010", "zhuang2016", "fctlab")
        assert s.name.startswith(s.source) or s.source == "fctlab"
    assert {s.name for s in specs if s.source == "fctlab"} == {
        "baselines-tcp-ps-srpt",
        "replicated-fig1-workload",
        "live-vs-sim",
        "crossval-ns3",
        "fabric-websearch",
        "fabric-ecmp",
        "fabric-htsim",
        "modern-tcp",
        "dctcp-queue",
        "modern-tcp-fct",
        "rtt-fairness-modern",
    }


def test_a_name_or_alias_is_registered_once():
    with pytest.raises(ValueError, match="twice"):
        registry.reproduction("dukkipati2006-fig1", title="again")(lambda out, scale: [])
    with pytest.raises(ValueError, match="taken"):
        registry.reproduction("a-new-page", title="t", aliases=("dukkipati2006-fig7",))(lambda out, scale: [])
    with pytest.raises(ValueError, match="one line"):
        registry.reproduction("another-page", title="two\nlines")
    assert "a-new-page" not in experiments.REGISTRY


def test_published_numbers_cite_their_source():
    files = sorted(EXPERIMENTS.glob("*/published.toml"))
    assert {f.parent.name for f in files} == {"dukkipati2006", "kanakia1991", "mussmann2012", "gavaletz2010"}
    for f in files:
        from fctlab.experiments.page import _published_file

        for section, data in _published_file(str(f)).items():
            assert data["source"].split(",")[0] in (
                "Dukkipati & McKeown 2006",
                "Kanakia",
                "Mussmann 2012",
                "Gavaletz & Kaur 2010",
            ), (f, section)
    # A cell the table leaves blank reads as None; the thesis's shares as printed.
    t41 = published(str(EXPERIMENTS / "kanakia1991" / "x.py"), "table4_1")
    assert t41["rows"]["tcp (tahoe)"] == [4430, None, None]
    assert t41["rows"]["optimal"] == [1444, 0, 0]
    fq = published(str(EXPERIMENTS / "mussmann2012" / "x.py"), "fq_share")
    assert dict(zip(fq["sizes_pkts"], fq["p99"])) == {13: 0.75, 133: 0.75, 500: 0.85, 1000: 0.88}

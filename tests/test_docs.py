"""The documentation: the generated reference pages are current, a new building
block appears there without a hand edit, and the pages keep their shape (README
at most 200 lines, no page over 400 lines, no table cell over 300 characters,
links from the README to pages that exist)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from fctlab import docs_ref, listing

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REFRESH = ".venv/bin/python -m fctlab.docs_ref"


@pytest.fixture(scope="module")
def cat() -> dict:
    return listing.catalogue()


def pages() -> list:
    return sorted(DOCS.rglob("*.md"))


def test_the_generated_reference_is_current(cat, tmp_path):
    pages = docs_ref.render(cat)
    for name, text in pages.items():
        (tmp_path / name).write_text(text)
    stale = docs_ref.stale(DOCS / "reference", pages)
    assert not stale, f"docs/reference is out of date ({', '.join(stale)}): run `{REFRESH}` and commit the pages"
    # ... and the check itself sees a difference.
    (tmp_path / "schemes.md").write_text(pages["schemes.md"].replace("tcp-newreno", "tcp-oldreno"))
    assert docs_ref.stale(tmp_path, pages) == ["schemes.md"]
    # The command that refreshes them writes exactly these pages.
    out = tmp_path / "written"
    assert docs_ref.main(["--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(pages)
    assert docs_ref.main(["--out", str(out), "--check"]) == 0


def test_a_new_block_appears_without_a_hand_edit(cat):
    # A scheme registered in the engine reaches the catalogue (extending.rs checks
    # that); from there the reference page follows with no edit anywhere else.
    c = copy.deepcopy(cat)
    entry = {
        "name": "tcp-fixed",
        "description": "TCP with a window that never grows",
        "table": "transport.fixed",
        "params": [{"key": "window_pkts", "default": "4", "value": 4.0, "source": "a teaching example"}],
    }
    c["schemes"].append(entry)
    page = docs_ref.render(c)["schemes.md"]
    assert "## `tcp-fixed`" in page and "`[transport.fixed]`" in page
    assert "| `window_pkts` | `4` | a teaching example |" in page
    # So is a new key of a scenario table, in its section.
    c["parameters"].append(
        {
            "section": "metrics",
            "key": "metrics.new_key",
            "name": "new_key",
            "default": True,
            "value": True,
            "text": "true",
            "meaning": "something new",
            "source": "",
            "aliases": [],
        }
    )
    page = docs_ref.render(c)["scenario.md"]
    metrics = page.split("{ #metrics }")[1].split("\n## ")[0]
    assert "| `new_key` | `true` | something new |" in metrics


def test_every_block_and_key_of_the_catalogue_is_on_a_reference_page(cat):
    ref = {p.name: p.read_text() for p in (DOCS / "reference").glob("*.md")}
    for file, key in (("schemes.md", "schemes"), ("queues.md", "queues"), ("sizes.md", "distributions")):
        for e in cat[key]:
            assert f"## `{e['name']}`" in ref[file], f"{e['name']} missing from reference/{file}"
    for p in cat["parameters"] + cat["entry_parameters"]:
        assert f"| `{p['name']}`" in ref["scenario.md"], f"{p['key']} missing from reference/scenario.md"
    for r in cat["reproductions"]:
        assert f"| `{r['name']}` |" in ref["reproductions.md"], r["name"]


def table_cells(text: str):
    """Cells of the markdown tables in ``text`` (outside code blocks)."""
    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if not in_code and line.lstrip().startswith("|"):
            yield from (c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|")))


def test_pages_keep_their_shape():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200, "README.md is over 200 lines: move the material into docs/"
    long_pages = [(p.relative_to(ROOT), n) for p in pages() if (n := len(p.read_text().splitlines())) > 400]
    assert not long_pages, f"pages over 400 lines (split them): {long_pages}"
    for path in [ROOT / "README.md", *pages()]:
        for c in table_cells(path.read_text()):
            assert len(c) <= 300, f"{path.relative_to(ROOT)}: a table cell of {len(c)} characters: {c[:80]}..."


def test_the_cell_check_sees_a_long_cell():
    text = "| a | b |\n| --- | --- |\n| x | " + "y" * 301 + " |\n"
    assert max(len(c) for c in table_cells(text)) == 301


def test_readme_links_reach_pages_that_exist():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?:docs/|ARCHITECTURE)[^)#]*)", readme)
    assert len(links) > 20
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"
    # Its two set-up commands come first.
    first_block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
    assert first_block.splitlines()[0].startswith("make report") and "make test" in first_block

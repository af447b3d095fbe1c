"""What ``fctlab list`` shows: the engine's catalogue (every building block and
every key of every scenario table, with its default, meaning and source) and
the reproductions, by section, as text or JSON. The reference pages of the
documentation are generated from the same data (`fctlab.docs_ref`)."""

from __future__ import annotations

import json
import textwrap
from typing import Any

#: The sections ``fctlab list`` can show, in order, with what each holds.
SECTIONS = {
    "schemes": "transports: transport.scheme, parameters in [transport.<table>]",
    "queues": "router queue disciplines: network.queue, parameters in [network.<table>]",
    "topologies": "network shapes: network.topology",
    "sizes": "flow size laws: sizes = { dist = NAME, ... } in a [[traffic]] entry",
    "arrivals": "arrival processes and open-loop sources: arrivals in a [[traffic]] entry",
    "run": "top-level keys: seed, stop_s",
    "network": "[network] and each link of [network.graph]",
    "transport": "[transport], with the TCP model options",
    "tcp": "the TCP model options of [transport] and their values under both presets",
    "traffic": "each [[traffic]] entry",
    "flows": "each [[flows]] entry",
    "metrics": "[metrics]",
    "losses": "each [[losses]] entry (forced losses)",
    "reproductions": "the source documents' figures and tables (fctlab reproduce NAME)",
}

#: Block sections: the catalogue's key for each.
BLOCKS = {
    "schemes": "schemes",
    "queues": "queues",
    "topologies": "topologies",
    "sizes": "distributions",
    "arrivals": "arrivals",
}

#: Key sections that show the catalogue's sections of the same name and these.
GROUPS = {"network": ("network", "graph"), "transport": ("transport", "tcp")}

WIDTH = 100


def reproductions() -> list:
    """The reproductions, in report order: name, source, title, aliases."""
    from .experiments import specs

    return [{"name": s.name, "source": s.source, "title": s.title, "aliases": list(s.aliases)} for s in specs()]


def catalogue() -> dict:
    """The engine's catalogue (``fctlab.catalog()``) with the reproductions."""
    import fctlab

    cat = dict(fctlab.catalog())
    cat["reproductions"] = reproductions()
    return cat


def unknown(names) -> list:
    """The names that are not sections."""
    return [n for n in names if n not in SECTIONS]


def keys_of(cat: dict, section: str) -> list:
    """The documented keys of a key section (``network`` also gives the graph links' keys)."""
    want = GROUPS.get(section, (section,))
    return [p for p in cat["parameters"] + cat["entry_parameters"] if p["section"] in want]


def items(cat: dict, section: str) -> list:
    """The items of one section: blocks, keys or reproductions."""
    if section in BLOCKS:
        return cat[BLOCKS[section]]
    if section == "reproductions":
        return cat["reproductions"]
    return keys_of(cat, section)


def select(cat: dict, names) -> dict:
    """The JSON ``fctlab list --json`` prints: the whole catalogue, or the named sections."""
    if not names:
        return cat
    return {n: items(cat, n) for n in names}


def _wrap(text: str, indent: int, first: str = "") -> list:
    pad = " " * indent
    return textwrap.wrap(
        first + text,
        width=WIDTH,
        initial_indent=pad,
        subsequent_indent=pad + "  ",
        break_long_words=True,
        break_on_hyphens=False,
    ) or [pad + first.rstrip()]


def _block_lines(item: dict) -> list:
    lines = _wrap(item["description"], 2, f"{item['name']}: ")
    if item.get("queue"):
        lines += _wrap(f"needs network.queue = {item['queue']!r}", 6)
    if item.get("params"):
        where = f"[{item['table']}]" if item.get("table") and "[" not in item["table"] else item.get("table") or ""
        lines += _wrap(f"parameters{' in ' + where if where else ''}:", 6)
        for p in item["params"]:
            src = f" ({p['source']})" if p.get("source") else ""
            lines += _wrap(f"{p['key']} = {p['default']}{src}", 8)
    return lines


def _key_lines(p: dict) -> list:
    also = f" (also {', '.join(p['aliases'])})" if p.get("aliases") else ""
    src = f" Source: {p['source']}." if p.get("source") else ""
    return _wrap(f"{p['key']} = {p['text']}", 2) + _wrap(f"{p['meaning']}{also}.{src}", 6)


def _repro_lines(r: dict) -> list:
    also = f" (also {', '.join(r['aliases'])})" if r["aliases"] else ""
    return _wrap(f"{r['title']}{also}", 2, f"{r['name']}: ")


def text(cat: dict, names) -> str:
    """The text ``fctlab list [SECTION ...]`` prints; no line is longer than ``WIDTH``."""
    out: list = []
    for name in names or list(SECTIONS):
        if name == "tcp" and not names:
            continue  # shown with transport
        out += _wrap(SECTIONS[name], 0, f"{name}: ")
        for it in items(cat, name):
            if name in BLOCKS:
                out += _block_lines(it)
            elif name == "reproductions":
                out += _repro_lines(it)
            else:
                out += _key_lines(it)
        out.append("")
    return "\n".join(out)


def value_text(v: Any) -> str:
    """A JSON value as the reference pages write it (TOML spelling)."""
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return str(v)

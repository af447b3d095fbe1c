"""The defaults the README documents are the ones in effect.

The README's scheme and queue tables (column "parameters (defaults)") and the
commented scenario in its "Scenarios" section state default values; the engine
reports the values it uses in ``fctlab.catalog()`` (``fctlab list --json``).
Every documented default is compared with the registry's: numbers numerically,
booleans as booleans, strings as strings. A default the README calls automatic or
gives as a formula or a description is skipped only when the registry too says it
is derived (no plain value, or a value marked automatic); formulas over the same
table's parameters (``1.5/low_window^2``) are evaluated and compared as numbers.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fctlab
import pytest

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore

README = Path(__file__).resolve().parents[1] / "README.md"


# --------------------------------------------------------------------- values


@dataclass
class Value:
    """A documented or registered default, normalised: ``kind`` is "number",
    "bool", "string", "list", "formula" (``text`` over other parameters),
    "word" (an unquoted word in the README, such as ``unlimited``), or
    "derived" (no plain value: a description, or None)."""

    kind: str
    value: Any = None
    text: str = ""
    automatic: bool = False
    formula: bool = False  # a number computed from a formula

    @property
    def is_value(self) -> bool:
        return self.kind in ("number", "bool", "string", "list")


_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def evaluate(formula: str, names: dict) -> float | None:
    """``1.5 / low_window^2`` with ``names`` bound (numbers); None if it is not
    plain arithmetic over known names."""
    text = formula.replace("^", "**").replace(" x ", " * ")

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id in names:
            return float(names[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            return _BIN[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(formula)

    try:
        return ev(ast.parse(text, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def split_note(text: str) -> tuple:
    """``0 (automatic: 3 x min_th)`` -> ("0", "automatic: 3 x min_th"): the value
    and the parenthesised note after it (nested parentheses kept)."""
    text = text.strip()
    depth, start = 0, None
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0 and start is None and i > 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
    if start is not None and text.endswith(")"):
        return text[:start].strip(), text[start + 1 : -1].strip()
    return text, ""


def parse_text(text: str, note: str = "", bare: str = "word") -> Value:
    """A default written as text. A bare word is a ``bare`` ("word" in the
    README, where strings are quoted; "string" in a registry string)."""
    t = text.strip()
    automatic = "automatic" in note.lower() or "automatic" in t.lower()
    low = t.lower()
    if low in ("true", "false"):
        return Value("bool", low == "true", t, automatic)
    if len(t) >= 2 and t[0] == t[-1] == '"':
        return Value("string", t[1:-1], t, automatic)
    try:
        return Value("number", float(t), t, automatic)
    except ValueError:
        pass
    if re.fullmatch(r"[A-Za-z][\w\-]*", t):
        return Value(bare, t, t, automatic)
    if re.search(r"[A-Za-z_]", t) and re.search(r"[+\-*/^]", t) and re.fullmatch(r"[\w\s.+\-*/^()]+", t):
        return Value("formula", None, t, automatic)
    return Value("derived", None, t, automatic)


def from_json(v: Any) -> Value:
    """A default as TOML or JSON gives it (README scenario block values, registry values)."""
    if v is None:
        return Value("derived", None, "null")
    if isinstance(v, bool):
        return Value("bool", v, str(v).lower())
    if isinstance(v, (int, float)):
        return Value("number", float(v), repr(v))
    if isinstance(v, list):
        return Value("list", v, repr(v))
    return Value("string", v, v)


def registry_value(param: dict, entry_name: str = "") -> Value:
    """A registry parameter's default: a JSON value (None for a derived one,
    whose ``derived`` text may give its formula: ``"null = 1.5 / low_window^2"``),
    or (older registries) a string such as ``"0 (automatic: ...)"`` or
    ``"false (red-ecn: true)"``."""
    # The typed value when the registry gives one; ``default`` is its text form.
    d = param["value"] if "value" in param else param.get("default")
    derived = param.get("derived")
    if d is None and isinstance(derived, str):
        head, note = split_note(derived.split("=", 1)[-1])
        out = parse_text(head, note)
        return out if out.kind == "formula" else Value("derived", None, derived)
    marks = " ".join(str(v) for k, v in param.items() if k not in ("key", "default", "value", "source") and v)
    extra_auto = bool(re.search(r"automatic|derived", marks, re.I)) or any(
        param.get(k) is True for k in ("automatic", "derived")
    )
    if not isinstance(d, str):
        out = from_json(d)
        out.automatic = out.automatic or extra_auto
        return out
    head, note = split_note(d)
    m = re.fullmatch(r"([\w\-]+):\s*(.+)", note)
    if m and m.group(1) == entry_name:  # a value particular to this entry: "false (red-ecn: true)"
        head, note = m.group(2), ""
    out = parse_text(head, note, bare="string")
    out.automatic = out.automatic or extra_auto
    return out


def resolve(v: Value, names: dict) -> Value:
    """A formula evaluated over ``names``; other values as they are."""
    if v.kind == "formula":
        x = evaluate(v.text, names)
        if x is not None:
            return Value("number", x, v.text, v.automatic, formula=True)
    return v


def compare(where: str, key: str, readme: Value, registry: Value) -> str | None:
    """None if the README's default is the registry's, else a message naming both."""
    msg = f"{where}: {key}: the README says {readme.text!r}, the engine's registry says {registry.text!r}"
    if not registry.is_value:
        # the registry gives no plain value: the README must not claim one either
        return (
            None
            if (not readme.is_value or readme.automatic or readme.formula)
            else msg + " (derived, not a fixed value)"
        )
    if readme.kind == "word" and registry.kind == "string":
        return None if readme.value == registry.value else msg
    if not readme.is_value:
        if registry.automatic and readme.automatic:
            return None
        return msg + " (the README gives no plain value)"
    if readme.kind == "number" and registry.kind == "number":
        return None if math.isclose(readme.value, registry.value, rel_tol=1e-9, abs_tol=1e-12) else msg
    if readme.kind != registry.kind:
        return msg + f" ({readme.kind} vs {registry.kind})"
    return None if readme.value == registry.value else msg


# --------------------------------------------------------------------- README


def section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"README: no '## {title}' section"
    return m.group(1)


def markdown_tables(text: str) -> list:
    """Each markdown table as (header cells, rows of cells)."""
    out, cur = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cur.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif cur:
            rows = [r for r in cur[1:] if not all(re.fullmatch(r":?-+:?", c) for c in r)]
            out.append((cur[0], rows))
            cur = []
    return out


def split_items(text: str) -> list:
    """Split on commas and semicolons outside parentheses and quotes."""
    items, depth, quote, cur = [], 0, False, ""
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        if ch in ",;" and depth == 0 and not quote:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [i.strip() for i in items if i.strip()]


_TABLE = re.compile(r"`\[([\w]+\.[\w]+)\]`")
_ITEM = re.compile(r"(?P<keys>[A-Za-z_]\w*(?:\s*/\s*[A-Za-z_]\w*)*)\s+(?P<rest>.+)$", re.S)


@dataclass
class Row:
    kind: str  # "schemes" or "queues"
    name: str
    #: table -> key -> (README text, parsed value); an empty dict: the table is named, its values are elsewhere
    tables: dict
    none: bool = False


def parse_cell(cell: str) -> dict:
    """``[network.red]` min_th / max_th 0 (automatic), max_p 0.1, ...`` ->
    {"network.red": {"min_th": ("0 (automatic)", Value), ...}}."""
    parts = _TABLE.split(cell)
    out: dict = {}
    for table, text in zip(parts[1::2], parts[2::2]):
        entries = out.setdefault(table, {})
        text = text.strip().strip(";").strip()
        if not text or text.startswith("as above"):
            entries.setdefault("__as_above__", text.startswith("as above"))
            continue
        for item in split_items(text):
            m = _ITEM.match(item)
            assert m, f"README: cannot read the default {item!r} of [{table}]"
            value_text, note = split_note(m.group("rest"))
            for key in re.split(r"\s*/\s*", m.group("keys")):
                entries[key] = (m.group("rest").strip(), parse_text(value_text, note))
    return out


def parse_rows(text: str) -> list:
    """The rows of the README's scheme and queue tables."""
    rows = []
    for header, body in markdown_tables(section(text, "Schemes and queues")):
        if "parameters (defaults)" not in header:
            continue
        kind = {"scheme": "schemes", "queue": "queues"}[header[0]]
        col = header.index("parameters (defaults)")
        prev = None
        for cells in body:
            name = re.search(r"`([^`]+)`", cells[0]).group(1)
            cell = cells[col]
            none = cell.lower().startswith("none")  # "none (router constants in [network.xcp])"
            row = Row(kind, name, {} if none else parse_cell(cell), none=none)
            for table, entries in row.tables.items():
                if entries.pop("__as_above__", False):
                    assert prev is not None and table in prev.tables, f"README: {name}: 'as above' with nothing above"
                    entries.update(prev.tables[table])
                    # the description's overrides: "`red` with `ecn = true`"
                    for key, val in re.findall(r"`(\w+) = ([^`]+)`", cells[1]):
                        entries[key] = (val, parse_text(val))
            rows.append(row)
            prev = row
    return rows


def toml_defaults(text: str) -> dict:
    """The defaults the README's scenario block documents, by dotted key:
    each value of [transport] and [metrics] (that block spells out the
    defaults); elsewhere, a comment's ``default: X`` for its line's key and
    ``or KEY = V (default: ...)`` for KEY. Values are (text, Value)."""
    m = re.search(r"```toml\n(.*?)```", section(text, "Scenarios"), re.S)
    assert m, "README: no ```toml block under '## Scenarios'"
    out: dict = {}
    table = ""
    for raw in m.group(1).splitlines():
        line = raw.strip()
        h = re.match(r"^\[\[?([\w.]+)\]\]?", line)
        if h:
            table = h.group(1)
            continue
        commented = line.startswith("#")
        body = line.lstrip("#").strip() if commented else line
        kv = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.*?)\s*(?:#\s*(.*))?$", body)
        if not kv:
            continue
        key, value_text, comment = kv.group(1), kv.group(2), kv.group(3) or ""
        dotted = f"{table}.{key}" if table else key
        alt = re.search(r"\bor ([A-Za-z_]\w*) = (\S+) \(default\b", comment)
        if alt:
            out[f"{table}.{alt.group(1)}" if table else alt.group(1)] = (alt.group(2), parse_toml(alt.group(2)))
            continue
        d = re.search(r"\bdefault:\s*([^;)]+)", comment)
        if d:
            out[dotted] = (d.group(1).strip(), parse_toml(d.group(1).strip()))
        elif not commented and table in ("transport", "metrics"):
            out[dotted] = (value_text, parse_toml(value_text))
    return out


def parse_toml(text: str) -> Value:
    """A TOML value (``2``, ``"tcp-newreno"``, ``["bottleneck"]``), else descriptive text."""
    try:
        return from_json(tomllib.loads(f"v = {text}")["v"])
    except tomllib.TOMLDecodeError:
        return parse_text(text)


# ---------------------------------------------------------------------- checks


def registry_entry(cat: dict, row: Row, table: str) -> dict | None:
    """The registry entry that owns ``table`` for a README row: the row's own
    entry, else the entry of the same name in the other list (the ``rcp``
    scheme documents the ``rcp`` queue's table), else any entry with the table."""
    own = [e for e in cat[row.kind] if e["name"] == row.name]
    same_name = [e for k in ("schemes", "queues") for e in cat[k] if e["name"] == row.name]
    anyone = [e for k in ("schemes", "queues") for e in cat[k]]
    for group in (own, same_name, anyone):
        for e in group:
            if e.get("table") == table:
                return e
    return None


def table_mismatches(cat: dict, rows: list) -> list:
    problems = []
    for row in rows:
        own = [e for e in cat[row.kind] if e["name"] == row.name]
        if not own:
            problems.append(f"README {row.kind[:-1]} {row.name}: not in the engine's registry")
            continue
        if row.none and own[0]["params"]:
            problems.append(
                f"README {row.kind[:-1]} {row.name}: documented without parameters, the registry lists "
                f"{[p['key'] for p in own[0]['params']]}"
            )
        for table, entries in row.tables.items():
            if row.none or not entries:
                continue
            entry = registry_entry(cat, row, table)
            if entry is None:
                problems.append(f"README {row.name}: [{table}] is no registry entry's table")
                continue
            params = {p["key"]: p for p in entry["params"]}
            reg = {k: registry_value(p, row.name) for k, p in params.items()}
            reg_names = {k: v.value for k, v in reg.items() if v.kind == "number"}
            doc_names = {k: v.value for k, (_, v) in entries.items() if v.kind == "number"}
            for key, (_text, doc) in entries.items():
                if key not in params:
                    problems.append(f"README {row.name}: [{table}] {key} is not a parameter the registry knows")
                    continue
                msg = compare(
                    f"README {row.kind[:-1]} {row.name} [{table}]",
                    key,
                    resolve(doc, doc_names),
                    resolve(reg[key], reg_names),
                )
                if msg:
                    problems.append(msg)
    return problems


def block_mismatches(cat: dict, documented: dict) -> list:
    problems = []
    params = {p["key"]: p for p in cat["parameters"]}
    for key, (_text, doc) in documented.items():
        if key in params:
            msg = compare("README scenario block", key, doc, registry_value(params[key]))
            if msg:
                problems.append(msg)
    return problems


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text()


@pytest.fixture(scope="module")
def cat() -> dict:
    return fctlab.catalog()


def test_scheme_and_queue_tables_match_the_registry(readme, cat):
    rows = parse_rows(readme)
    assert {r.name for r in rows if r.kind == "schemes"} >= {"tcp-newreno", "tcp-hstcp", "rcp"}, (
        "README scheme table not found"
    )
    assert {r.name for r in rows if r.kind == "queues"} >= {"droptail", "red", "fq"}, "README queue table not found"
    problems = table_mismatches(cat, rows)
    assert not problems, "documented defaults differ from the engine's:\n  " + "\n  ".join(problems)


def test_every_scheme_queue_and_parameter_is_documented(readme, cat):
    rows = parse_rows(readme)
    missing = []
    for kind in ("schemes", "queues"):
        names = {r.name for r in rows if r.kind == kind}
        missing += [f"{kind[:-1]} {e['name']}" for e in cat[kind] if e["name"] not in names]
    documented = {(t, k) for r in rows for t, entries in r.tables.items() for k in entries}
    for kind in ("schemes", "queues"):
        for e in cat[kind]:
            missing += [
                f"[{e['table']}] {p['key']} ({e['name']})"
                for p in e["params"]
                if (e["table"], p["key"]) not in documented
            ]
    assert not missing, "in the engine's registry but not in the README's tables: " + ", ".join(missing)


def test_scenario_block_matches_the_registry(readme, cat):
    documented = toml_defaults(readme)
    params = {p["key"] for p in cat["parameters"]}
    # every transport and metrics parameter the engine lists is in the block
    missing = sorted(k for k in params if k.split(".")[0] in ("transport", "metrics") and k not in documented)
    assert not missing, f"README scenario block: no documented default for {missing}"
    problems = block_mismatches(cat, documented)
    assert not problems, "documented defaults differ from the engine's:\n  " + "\n  ".join(problems)


# ------------------------------------------------- the checks catch a difference


def test_a_changed_table_default_is_caught(readme, cat):
    text = readme.replace("max_p 0.1,", "max_p 0.2,", 1).replace("low_window 38,", "low_window 40,", 1)
    problems = table_mismatches(cat, parse_rows(text))
    assert any("[network.red]: max_p: the README says '0.2'" in p and "0.1" in p for p in problems), problems
    # low_window 40 is caught, and so is the low_p formula evaluated at 40
    assert any("low_window: the README says '40'" in p for p in problems), problems
    assert any(": low_p:" in p for p in problems), problems


def test_a_changed_block_default_is_caught(readme, cat):
    text = readme.replace("init_cwnd_pkts = 2 ", "init_cwnd_pkts = 3 ", 1).replace(
        "handshake = true ", "handshake = false ", 1
    )
    problems = block_mismatches(cat, toml_defaults(text))
    assert any("transport.init_cwnd_pkts: the README says '3'" in p for p in problems), problems
    assert any("transport.handshake: the README says 'false'" in p for p in problems), problems


def test_value_normalisation():
    # registry strings of older catalogues and JSON values of newer ones read alike
    assert registry_value({"key": "max_p", "default": "0.1"}).value == 0.1
    assert registry_value({"key": "max_p", "default": 0.1}).value == 0.1
    auto = registry_value({"key": "min_th", "default": "0 (automatic: max(5, ...) packets)"})
    assert (auto.kind, auto.value, auto.automatic) == ("number", 0.0, True)
    assert registry_value({"key": "ecn", "default": "false (red-ecn: true)"}, "red").value is False
    assert registry_value({"key": "ecn", "default": "false (red-ecn: true)"}, "red-ecn").value is True
    assert registry_value({"key": "classify", "default": "flow"}).value == "flow"
    assert not registry_value({"key": "low_p", "default": None}).is_value
    derived = registry_value(
        {"key": "low_p", "default": None, "derived": "null = 1.5 / low_window^2 (1.0388e-3 at 38)"}
    )
    assert resolve(derived, {"low_window": 38}).value == pytest.approx(1.5 / 38**2)
    low_p = resolve(
        registry_value({"key": "low_p", "default": "1.5 / low_window^2 (1.0388e-3 at 38)"}), {"low_window": 38}
    )
    assert low_p.value == pytest.approx(1.5 / 38**2)
    # README "0 (automatic)" against a registry that leaves the value to be derived: skipped
    assert compare("t", "min_th", parse_text("0", "automatic"), from_json(None)) is None
    # a plain README value against a derived registry value is a difference
    assert compare("t", "max_p", parse_text("0.1"), from_json(None)) is not None
    assert compare("t", "gentle", parse_text("true"), from_json(1.0)) is not None

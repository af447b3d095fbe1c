"""The reproductions by name: every page registers itself with `reproduction`.

A page is a function ``(out_dir: Path, scale: str) -> list[Reproduction]``;
its `Spec` holds its name, the source it reproduces, a one-line title
and the other names it answers to (a figure drawn on another figure's page).
Pages register as their modules are imported; ``fctlab.experiments`` imports
them in report order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: The packages of the project's own pages (checks of fctlab itself, no source document).
OWN = "fctlab"


@dataclass(frozen=True)
class Spec:
    """A registered page."""

    name: str
    source: str  # the source package ("dukkipati2006"), or "fctlab" for the project's own pages
    title: str  # one line
    aliases: tuple = ()
    func: Callable[[Path, str], list] | None = None


_SPECS: dict = {}
#: name -> callable(out_dir: Path, scale: str) -> list[Reproduction], in report order.
REGISTRY: dict = {}
#: Other spellings of page names: alias -> name.
ALIASES: dict = {}


def _source_of(module: str) -> str:
    """``fctlab.experiments.dukkipati2006.fig1`` -> ``dukkipati2006``; the checks package -> ``fctlab``."""
    parts = module.split(".")
    pkg = parts[parts.index("experiments") + 1] if "experiments" in parts else parts[-1]
    return OWN if pkg == "checks" else pkg


def reproduction(name: str, *, title: str, aliases: tuple = (), source: str | None = None):
    """Register the decorated page function under ``name`` (and ``aliases``)."""
    if "\n" in title:
        raise ValueError(f"{name}: a page's title is one line")

    def register(func):
        if name in _SPECS or name in ALIASES:
            raise ValueError(f"reproduction {name!r} registered twice")
        spec = Spec(name, source or _source_of(func.__module__), title, tuple(aliases), func)
        taken = [a for a in spec.aliases if a in _SPECS or a in ALIASES or a == name]
        if taken:
            raise ValueError(f"alias {taken[0]!r} of {name!r} is taken")
        ALIASES.update((a, name) for a in spec.aliases)
        _SPECS[name] = spec
        REGISTRY[name] = func
        return func

    return register


def order(modules) -> None:
    """Put the registered pages in the order of their modules in ``modules``
    (dotted names under ``fctlab.experiments``), whatever order they were
    imported in; a page whose module is not listed is an error."""
    rank = {f"{__package__}.{m}": i for i, m in enumerate(modules)}
    missing = [s.name for s in _SPECS.values() if s.func.__module__ not in rank]
    if missing:
        raise ValueError(f"pages not listed in report order: {', '.join(missing)}")
    ranked = sorted(_SPECS.values(), key=lambda s: rank[s.func.__module__])
    _SPECS.clear()
    REGISTRY.clear()
    for s in ranked:
        _SPECS[s.name] = s
        REGISTRY[s.name] = s.func


def specs() -> list:
    """Every registered page's `Spec`, in report order."""
    return list(_SPECS.values())


def spec(name: str) -> Spec:
    """The `Spec` of ``name`` (or of the page an alias names); KeyError if none."""
    return _SPECS[canonical(name)]


def canonical(name: str) -> str:
    """The registered name of ``name``: the page an alias names, else ``name`` itself."""
    return ALIASES.get(name, name)

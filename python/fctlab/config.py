"""Loading scenarios from TOML files, paths or dicts, and refusing bad ones.

The schema lives in the engine (one source of truth for Python, the CLI and
Rust users); this module only reads files and turns them into canonical JSON.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore

from . import _core

#: Raised for a refused scenario. ``str(e)`` is one line naming the key, the
#: value and what is allowed; ``e.field`` is the dotted key.
ConfigError = _core.ConfigError
ConfigError.field = property(lambda self: self.args[1] if len(self.args) > 1 else "")  # type: ignore[attr-defined]
ConfigError.__str__ = lambda self: str(self.args[0]) if self.args else ""  # type: ignore[assignment]


def config_error(field: str, message: str) -> Exception:
    """A ConfigError whose text names the field, as the engine's do."""
    return ConfigError(f"{field}: {message}" if field else message, field)


ConfigLike = Union[Mapping[str, Any], str, os.PathLike]


def load_config(config: ConfigLike) -> dict:
    """Return the scenario as a plain dict, from a dict, a TOML file path or TOML text."""
    if isinstance(config, Mapping):
        try:
            return _plain(config, "")
        except RecursionError:
            raise config_error("", "not a scenario: tables or lists nested too deeply") from None
    if isinstance(config, (str, os.PathLike)):
        s = str(config)
        is_text = isinstance(config, str) and ("\n" in s or "=" in s) and not os.path.exists(s)
        text = s if is_text else _read_text(Path(config))
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise config_error("", f"not valid TOML: {e}") from None
        except RecursionError:
            raise config_error("", "not a scenario: tables or lists nested too deeply") from None
    raise config_error("", f"a scenario is a dict, a TOML file path or TOML text, not {type(config).__name__}")


#: The largest scenario file read.
MAX_SCENARIO_BYTES = 256 << 20


def _read_text(p: Path) -> str:
    """A scenario file's text: a regular UTF-8 text file of at most 256 MiB."""
    if not p.exists():
        raise config_error("", f"scenario file not found: {p}")
    if not p.is_file():
        raise config_error("", f"{p}: not a regular file")
    size = p.stat().st_size
    if size > MAX_SCENARIO_BYTES:
        raise config_error("", f"{p}: {size:,} bytes; a scenario file may have at most 256 MiB")
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise config_error("", f"{p}: not a text file (byte {e.start} is not UTF-8); a scenario is TOML") from None
    if "\x00" in text:
        raise config_error("", f"{p}: not a text file (it holds NUL bytes); a scenario is TOML")
    return text


def _plain(obj: Any, path: str) -> Any:
    """Deep-copy into JSON-compatible types, refusing what JSON cannot carry."""
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise config_error(path, f"keys must be strings, got {k!r}")
            out[k] = _plain(v, f"{path}.{k}" if path else k)
        return out
    if isinstance(obj, (list, tuple)):
        return [_plain(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if math.isnan(obj) or math.isinf(obj):
            raise config_error(path, f"must be a finite number, got {obj}")
        return float(obj)
    # numpy scalars and the like
    if hasattr(obj, "item"):
        return _plain(obj.item(), path)
    raise config_error(path, f"unsupported value of type {type(obj).__name__}")


def to_json(config: Mapping[str, Any]) -> str:
    """Canonical JSON (sorted keys): the same scenario always gives the same text."""
    return json.dumps(_plain(config, ""), sort_keys=True, separators=(",", ":"))

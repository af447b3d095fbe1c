"""Run directories: what ``fctlab run --out DIR`` (or `fctlab.Result.write`)
writes, the same layout as one run of a results store::

    DIR/
      flows.parquet, series.parquet, meta.json
      prefixes.parquet, size_stats.parquet, probes.parquet   (when they have rows)
      manifest.json   the store key, and the size and SHA-256 of each file above

A run directory is written whole or not at all: the files go into a
temporary directory beside ``DIR`` (``.DIR.<random>.tmp``), which is then
renamed to ``DIR``. An earlier run in ``DIR`` is replaced as a whole (never
mixed with the new one's files); a directory holding anything else is refused,
and so is a ``DIR`` that cannot be written (a file, a read-only place, a name
too long), before the run starts (`prepare`).
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path

FORMAT = 1
MANIFEST = "manifest.json"
#: Files every run has.
FILES = ("flows.parquet", "series.parquet", "meta.json")
#: Files a run has only when those tables have rows.
OPTIONAL_FILES = ("prefixes.parquet", "size_stats.parquet", "probes.parquet")
#: Tables derived from the flows when a run is written (read back from the flows).
DERIVED_FILES = ("slowdown.parquet",)
#: What a run directory may hold (anything else is not ours to replace):
#: the run's files and the report made of it (``fctlab report DIR``).
RUN_FILES = (*FILES, *OPTIONAL_FILES, *DERIVED_FILES, MANIFEST, "report")


class RunDirError(Exception):
    """An output directory that cannot be used, or a run directory that is damaged."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with builtins.open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def manifest(key: str, sizes_and_hashes: dict) -> dict:
    """The manifest of a run: ``{"format", "key", "files": {name: {"bytes", "sha256"}}}``."""
    return {"format": FORMAT, "key": key, "files": dict(sizes_and_hashes)}


def write_manifest(d: Path, key: str) -> dict:
    """Hash the run files present in ``d`` and write its manifest (fsync'd)."""
    files = {}
    for name in (*FILES, *OPTIONAL_FILES, *DERIVED_FILES):
        p = d / name
        if p.exists():
            fsync_file(p)
            files[name] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
    man = manifest(key, files)
    (d / MANIFEST).write_text(json.dumps(man, indent=1, sort_keys=True) + "\n")
    fsync_file(d / MANIFEST)
    return man


def read_manifest(d: Path) -> dict | None:
    """The manifest of run directory ``d`` (None if it has none: written
    before manifests existed). Raises RunDirError if it is unreadable."""
    p = Path(d) / MANIFEST
    try:
        man = json.loads(p.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise RunDirError(f"{d}: unreadable {MANIFEST}: {e}") from None
    if not isinstance(man, dict) or not isinstance(man.get("files"), dict):
        raise RunDirError(f"{d}: {MANIFEST} does not describe a run")
    return man


def verify(d: Path, man: dict, *, hashes: bool = True) -> str | None:
    """None if the files of run directory ``d`` match its manifest ``man``
    (sizes, and SHA-256 unless ``hashes=False``), else what does not."""
    names = list(FILES) + [n for n in (*OPTIONAL_FILES, *DERIVED_FILES) if n in man["files"]]
    for name in names:
        ent = man["files"].get(name)
        if not isinstance(ent, dict):
            return f"manifest lacks {name}"
        try:
            size = (Path(d) / name).stat().st_size
        except FileNotFoundError:
            return f"{name} missing"
        if size != ent.get("bytes"):
            return f"{name} has {size} bytes, manifest says {ent.get('bytes')}"
    if hashes:
        for name in names:
            if sha256_file(Path(d) / name) != man["files"][name].get("sha256"):
                return f"{name} fails its SHA-256 check"
    return None


def is_run_dir(d: Path) -> bool:
    """``d`` is a directory holding a run (``meta.json`` and ``flows.parquet``)."""
    d = Path(d)
    return d.is_dir() and (d / "meta.json").is_file() and (d / "flows.parquet").is_file()


def _name_max(d: Path) -> int:
    try:
        return os.pathconf(d, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_target(out: Path) -> None:
    """Refuse an ``--out`` that cannot take a run: a file, a directory holding
    anything but an earlier run, a name too long. (Whether it can be written
    is found by `prepare`, which makes the temporary directory.)"""
    out = Path(out)
    not_dir = RunDirError(f"{out}: exists and is not a directory; choose another output directory")
    try:  # one look at it: another writer may move its earlier run aside at any moment
        entries = sorted(p.name for p in out.iterdir())
    except FileNotFoundError:
        if out.is_symlink():
            raise not_dir from None
        entries = []
    except NotADirectoryError:
        raise not_dir from None
    others = [n for n in entries if n not in RUN_FILES]
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise RunDirError(
            f"{out}: holds files that are not part of a fctlab run ({shown}); "
            "choose another output directory or empty this one"
        )
    anc = out.parent
    while not anc.exists():
        anc = anc.parent
    if not anc.is_dir():
        raise RunDirError(f"{out}: {anc} is not a directory")
    if len(out.name.encode()) > _name_max(anc):
        raise RunDirError(f"{out}: the name is longer than this file system allows ({_name_max(anc)} bytes)")


def _put_back(old: Path, out: Path) -> None:
    """Return the earlier run moved aside to ``old`` unless another writer's
    run took ``out`` meanwhile (then the earlier run is dropped)."""
    try:
        os.rename(old, out)
    except OSError:
        shutil.rmtree(old, ignore_errors=True)


class Writer:
    """Writes one run directory atomically: `prepare` (before the run:
    checks ``out`` and makes the temporary directory beside it), then
    `commit` with a function that writes the files into a directory."""

    def __init__(self, out: os.PathLike | str):
        self.out = Path(out)
        self.tmp: Path | None = None

    def prepare(self) -> Writer:
        """Check ``out`` and make the temporary directory beside it (raises
        RunDirError naming ``out`` if either fails)."""
        try:
            check_target(self.out)
            parent = self.out.parent
            parent.mkdir(parents=True, exist_ok=True)
            tmp = parent / f".{uuid.uuid4().hex[:12]}.fctlab-tmp"
            tmp.mkdir()
        except OSError as e:
            raise RunDirError(f"{self.out}: cannot write a run here: {e.strerror or e}") from None
        self.tmp = tmp
        return self

    def commit(self, write_into, key: str) -> Path:
        """Write the run with ``write_into(dir)``, its manifest, then put it in
        place of ``out`` (replacing an earlier run there as a whole)."""
        if self.tmp is None:
            self.prepare()
        try:
            write_into(self.tmp)
            write_manifest(self.tmp, key)
            fsync_dir(self.tmp)
            self._swap()
        finally:
            self.abort()
        return self.out

    def _swap(self) -> None:
        out, parent = self.out, self.out.parent
        for _ in range(5):
            check_target(out)
            old = None
            if out.exists():
                old = parent / f".{uuid.uuid4().hex[:12]}.fctlab-old"
                try:
                    os.rename(out, old)
                except FileNotFoundError:
                    old = None
            try:
                os.rename(self.tmp, out)
            except OSError as e:
                if old is not None:
                    _put_back(old, out)
                if e.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    continue  # another writer put its run there meanwhile: replace it in turn
                raise
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            fsync_dir(parent)
            return
        raise RunDirError(f"{out}: other writers kept replacing it; not written")

    def abort(self) -> None:
        """Remove the temporary directory, if it is still there."""
        if self.tmp is not None and self.tmp.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = None

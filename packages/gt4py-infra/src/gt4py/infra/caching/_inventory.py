"""What a cache root holds, and trimming it safely (the engine of ``python -m gt4py.infra.cache``).

Only what the caches themselves created is touched: namespace directories (recognized by
their reserved ``_files`` / ``_dirs`` / ``_locks`` subdirectories), their entries, locks and
leftover temp/trash items. Anything else under the root is left alone, so pointing the
command at the wrong directory cannot delete unrelated files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pathlib
import time
from collections.abc import Iterator, Mapping
from typing import Final, Literal

from . import _file_format as file_format
from ._atomic import (
    TEMP_PREFIX,
    TRASH_PREFIX,
    is_scratch_name,
    remove_atomically,
    remove_scratch,
)
from ._file_format import CorruptEntry
from ._layout import (
    LOCK_SUFFIX,
    RESERVED_DIRS,
    NamespaceLayout,
    is_entry_name,
)
from ._locking import holder_path, try_lock
from ._manifest import MANIFEST_NAME, read_manifest


#: A temp item younger than this may belong to a build in progress: `clean` keeps it unless
#: given a shorter --older-than.
STALE_TEMP_AGE: Final = 3600.0


@dataclasses.dataclass(frozen=True)
class EntryInfo:
    namespace: str
    kind: Literal["file", "dir"]
    digest: str
    path: pathlib.Path
    size: int
    last_used: float  # seconds since the epoch: latest of access and modification
    key_parts: Mapping[str, str] | None  # None when unreadable (or not asked for)


@dataclasses.dataclass(frozen=True)
class NamespaceInfo:
    name: str
    directory: pathlib.Path
    entries: tuple[EntryInfo, ...]
    scratch_count: int  # temp and trash items (writes or removals in flight, or abandoned)
    scratch_size: int

    @property
    def size(self) -> int:
        return sum(entry.size for entry in self.entries)


@dataclasses.dataclass
class CleanReport:
    entries_removed: int = 0
    bytes_freed: int = 0
    scratch_removed: int = 0
    locks_removed: int = 0


def find_namespaces(root: pathlib.Path, *, within: str | None = None) -> list[str]:
    """The names of every cache namespace under ``root`` (``within``: that one and those
    nested in it, e.g. ``next`` for ``next/translation``), sorted."""
    found: list[str] = []
    for current, dirnames, _ in os.walk(root):
        if any(name in RESERVED_DIRS for name in dirnames):
            found.append(pathlib.Path(current).relative_to(root).as_posix())
        # Descend only into possible nested namespaces, never into entries or scratch.
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(("_", ".")))
    return sorted(
        name
        for name in found
        if name != "." and (within is None or name == within or name.startswith(f"{within}/"))
    )


def inspect_namespace(
    root: pathlib.Path, namespace: str, *, with_key_parts: bool = False
) -> NamespaceInfo:
    layout = NamespaceLayout(root, namespace)
    entries: list[EntryInfo] = []
    scratch_count = scratch_size = 0
    kinds: tuple[tuple[Literal["file", "dir"], pathlib.Path], ...] = (
        ("file", layout.files_dir),
        ("dir", layout.dirs_dir),
    )
    for kind, directory in kinds:
        for item in _list(directory):
            if is_entry_name(item.name):
                entries.append(_entry_info(namespace, kind, item, with_key_parts))
            elif is_scratch_name(item.name):
                scratch_count += 1
                scratch_size += _size_of(pathlib.Path(item.path))
    entries.sort(key=lambda entry: entry.last_used, reverse=True)
    return NamespaceInfo(namespace, layout.directory, tuple(entries), scratch_count, scratch_size)


def clean(
    root: pathlib.Path,
    *,
    namespace: str | None = None,
    older_than: float | None = None,
    now: float | None = None,
) -> CleanReport:
    """Remove entries (all, or those unused for ``older_than`` seconds), safely.

    ``namespace`` limits this to one namespace and those nested in it.

    Each removal renames the entry to a trash name first, so concurrent readers see it whole
    or not at all; a concurrent builder at worst builds it again.
    """
    now = time.time() if now is None else now
    report = CleanReport()
    namespaces = find_namespaces(root, within=namespace)
    for name in namespaces:
        _clean_namespace(NamespaceLayout(root, name), older_than, now, report)
    return report


def _clean_namespace(
    layout: NamespaceLayout, older_than: float | None, now: float, report: CleanReport
) -> None:
    info = inspect_namespace(layout.root, layout.namespace)
    for entry in info.entries:
        expired = older_than is None or now - entry.last_used > older_than
        if expired and remove_atomically(entry.path):
            report.entries_removed += 1
            report.bytes_freed += entry.size
    temp_age = STALE_TEMP_AGE if older_than is None else older_than
    for directory in (layout.files_dir, layout.dirs_dir, layout.locks_dir):
        for item in _list(directory):
            path = pathlib.Path(item.path)
            stale_temp = item.name.startswith(TEMP_PREFIX) and now - _last_modified(path) > temp_age
            if item.name.startswith(TRASH_PREFIX) or stale_temp:
                remove_scratch(path)
                report.scratch_removed += 1
    _remove_unused_locks(layout, report)
    # Empty directories go too (rmdir refuses non-empty ones: safe against new writers,
    # which recreate what they need).
    for directory in (layout.files_dir, layout.dirs_dir, layout.locks_dir):
        with contextlib.suppress(OSError):
            directory.rmdir()
    parent = layout.directory
    while parent != layout.root and layout.root in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


def _remove_unused_locks(layout: NamespaceLayout, report: CleanReport) -> None:
    for item in _list(layout.locks_dir):
        if not item.name.endswith(LOCK_SUFFIX):
            continue
        digest = item.name[: -len(LOCK_SUFFIX)]
        entry_exists = (layout.files_dir / digest).exists() or (layout.dirs_dir / digest).exists()
        # Only a lock nobody holds may go; a builder waiting on it at worst builds twice,
        # which the atomic publish makes harmless.
        lock = try_lock(pathlib.Path(item.path))
        if lock is None:
            continue
        try:
            # A holder record of a free lock is a builder's that was killed: stale.
            with contextlib.suppress(OSError):
                holder_path(pathlib.Path(item.path)).unlink()
            if not entry_exists:
                os.unlink(item.path)
                report.locks_removed += 1
        except OSError:
            pass
        finally:
            lock.release()


def _entry_info(
    namespace: str, kind: Literal["file", "dir"], item: os.DirEntry[str], with_key_parts: bool
) -> EntryInfo:
    path = pathlib.Path(item.path)
    parts: Mapping[str, str] | None = None
    if kind == "file":
        size = _size_of(path)
        last_used = _last_used(path)
        if with_key_parts:
            with contextlib.suppress(OSError, CorruptEntry):
                parts = file_format.read_key_parts(path, item.name)
    else:
        size = _size_of(path)
        manifest = path / MANIFEST_NAME
        last_used = _last_used(manifest if manifest.exists() else path)
        if with_key_parts:
            with contextlib.suppress(OSError, CorruptEntry):
                parts = read_manifest(path, item.name, inspecting=True)["key_parts"]
    return EntryInfo(namespace, kind, item.name, path, size, last_used, parts)


def _list(directory: pathlib.Path) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as scan:
            yield from sorted(scan, key=lambda item: item.name)
    except OSError:
        return


def _last_used(path: pathlib.Path) -> float:
    try:
        info = path.lstat()
    except OSError:
        return 0.0
    return max(info.st_atime, info.st_mtime)


def _last_modified(path: pathlib.Path) -> float:
    """The latest modification inside ``path`` (a write in progress keeps this recent).

    Access times are no use here: listing a temp directory updates its own.
    """
    latest = 0.0
    with contextlib.suppress(OSError):
        latest = path.lstat().st_mtime
    if path.is_dir() and not path.is_symlink():
        for current, dirnames, filenames in os.walk(path):
            for name in [*dirnames, *filenames]:
                with contextlib.suppress(OSError):
                    latest = max(latest, (pathlib.Path(current) / name).lstat().st_mtime)
    return latest


def _size_of(path: pathlib.Path) -> int:
    try:
        info = path.lstat()
    except OSError:
        return 0
    if not path.is_dir() or path.is_symlink():
        return info.st_size
    total = 0
    for current, _, filenames in os.walk(path):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += (pathlib.Path(current) / name).lstat().st_size
    return total


__all__: list[str] = []

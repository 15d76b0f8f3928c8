"""The manifest that makes a BuildDirCache entry verifiable.

It is written last into the finished temp directory, just before the directory is renamed
into place. It records the key (digest and named parts) and every file, directory and
symlink of the entry with its size and xxh3 checksum. An entry is valid only when its manifest
parses, everything it lists is present and unchanged, and nothing else is there. Its files
(and the manifest) must be trusted (``_trust``): a file of another user or one others can
write is refused with a :class:`CacheError`.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import stat
import time
from collections.abc import Mapping
from typing import Any, Final

import xxhash

from ._atomic import atomic_write_bytes
from ._errors import CacheError
from ._file_format import CorruptEntry, open_for_inspection, unopenable
from ._keys import CacheKey
from ._trust import check_entry


MANIFEST_NAME: Final = ".gt4py-cache-manifest.json"
MANIFEST_FORMAT: Final = 1
_CHUNK: Final = 1 << 20
_O_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC: Final[int] = getattr(os, "O_CLOEXEC", 0)


def write_manifest(directory: pathlib.Path, key: CacheKey) -> int:
    """Describe the finished contents of ``directory`` in its manifest (written atomically).

    Also *seals* the directory and its subdirectories: their modification time is set to a
    value recorded in the manifest, and returned (:func:`reseal` restores it after a move on
    a file system that changes it). Adding or removing a name in a directory sets its
    modification time to the current time, so a reader that finds the recorded times knows
    that nothing was added without listing the directories (see :func:`verify_contents`).
    """
    manifest = directory / MANIFEST_NAME
    if manifest.exists() or manifest.is_symlink():
        raise CacheError(
            f"the build function wrote {MANIFEST_NAME} into {directory}; that name is "
            "reserved for the cache's manifest"
        )
    sealed = _seal_time_ns()
    items: list[list[Any]] = []
    subdirectories: list[pathlib.Path] = []
    for current, dirnames, filenames in os.walk(directory):
        base = pathlib.Path(current)
        dirnames.sort()
        for name in [*dirnames, *sorted(filenames)]:
            path = base / name
            relative = path.relative_to(directory).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                items.append([relative, "link", os.readlink(path)])
            elif stat.S_ISDIR(info.st_mode):
                items.append([relative, "dir", sealed])
                subdirectories.append(path)
            elif stat.S_ISREG(info.st_mode):
                items.append([relative, "file", info.st_size, _file_checksum(path)])
            else:
                raise CacheError(
                    f"cannot cache {path}: only regular files, directories and symlinks can be "
                    "part of a cached build directory"
                )
    document = {
        "format": MANIFEST_FORMAT,
        "key_digest": key.digest,
        "key_parts": dict(key.parts),
        "items": items,
        "sealed_mtime_ns": sealed,
    }
    for subdirectory in subdirectories:  # a change of a subdirectory leaves its parent's time
        os.utime(subdirectory, ns=(sealed, sealed), follow_symlinks=False)
    atomic_write_bytes(manifest, json.dumps(document, ensure_ascii=False, indent=0).encode())
    os.utime(directory, ns=(sealed, sealed))  # after the manifest's rename into it
    return sealed


def reseal(directory: pathlib.Path, sealed: int) -> None:
    """Restore the sealed modification time of a moved entry, where the move changed it
    (ext4, tmpfs and most others keep it). Best effort: an unsealed entry is only slower."""
    with contextlib.suppress(OSError):
        if os.lstat(directory).st_mtime_ns != sealed:
            os.utime(directory, ns=(sealed, sealed), follow_symlinks=False)


def _seal_time_ns() -> int:
    # Whole, even seconds (every file system can store them: FAT has 2 s), in the past: any
    # later change of a directory gives it a later time, even on coarse file systems.
    return (int(time.time()) // 2 * 2 - 2) * 1_000_000_000


def read_manifest(
    directory: pathlib.Path, digest: str | None = None, *, inspecting: bool = False
) -> dict[str, Any]:
    """The parsed, structurally checked manifest of the entry ``directory``.

    Raises FileNotFoundError when ``directory`` does not exist, :class:`CorruptEntry` when its
    manifest is missing, unreadable, malformed or for another key. ``inspecting``: a read for
    a listing or a diagnostic, which must not count as a use of the entry (nor is it checked
    for trust: nothing read then is run). Otherwise the manifest file must be trusted
    (``_trust.check_entry``, a :class:`CacheError` if not).
    """
    path = directory / MANIFEST_NAME
    try:
        if inspecting:
            with open_for_inspection(path) as file:
                raw = file.readall()
        else:
            raw = _read_trusted(path)
    except FileNotFoundError:
        if not directory.exists():
            raise
        raise CorruptEntry("manifest missing") from None
    except NotADirectoryError as error:
        if directory.is_file():
            raise CorruptEntry("a file sits where the entry directory belongs") from error
        raise FileNotFoundError(str(error)) from error  # a parent is a file: no entry
    except OSError as error:
        raise unopenable(error, "the manifest is a symlink", "manifest ") from error
    try:
        document = json.loads(raw)
    except ValueError as error:
        raise CorruptEntry(f"manifest is not valid JSON ({error})") from error
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        raise CorruptEntry("manifest has an unknown format")
    parts, items = document.get("key_parts"), document.get("items")
    if (
        not isinstance(parts, Mapping)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in parts.items())
        or not isinstance(items, list)
    ):
        raise CorruptEntry("manifest is malformed")
    recorded = document.get("key_digest")
    if digest is not None and recorded != digest:
        raise CorruptEntry(f"manifest records key {str(recorded)[:8]}, not {digest[:8]}")
    return document


def _read_trusted(path: pathlib.Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC)
    try:
        info = os.fstat(fd)
        check_entry(path, info, "cache entry manifest")
        data = os.read(fd, info.st_size + 1)  # one read, and it shows the end of the file
        if len(data) <= info.st_size:
            return data  # short: truncated meanwhile, and then it does not parse
        chunks = [data]
        while chunk := os.read(fd, _CHUNK):  # it grew since fstat: read it all
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def verify_contents(
    directory: pathlib.Path,
    document: Mapping[str, Any],
    *,
    checksums: bool,
    directory_mtime_ns: int | None = None,
) -> None:
    """Check that the entry holds exactly what its manifest lists, unchanged.

    A listed item missing or changed, or an item that is not listed (a file dropped into the
    entry after it was published, such as a second extension module that the import system
    would pick first) is :class:`CorruptEntry`; an item owned by someone else or writable by
    others is a :class:`CacheError` (``_trust.check_entry``).

    The directories are listed only when one of them is not sealed any more (its modification
    time, ``directory_mtime_ns`` for the entry itself, differs from the recorded one): on a
    hit nothing is added to the ``lstat`` of each item.
    """
    sealed = document.get("sealed_mtime_ns")
    unchanged = isinstance(sealed, int) and directory_mtime_ns == sealed
    listed: set[str] = {MANIFEST_NAME}
    for item in document["items"]:
        try:
            relative, kind = item[0], item[1]
            if not isinstance(relative, str):
                raise TypeError("not a path")
            listed.add(relative)
            path = directory / relative
            info = path.lstat()
            check_entry(path, info, "file of a cache entry")
            if kind == "file":
                if not stat.S_ISREG(info.st_mode):
                    raise CorruptEntry(f"{relative} is not a regular file")
                if info.st_size != item[2]:
                    raise CorruptEntry(f"{relative} has {info.st_size} bytes, expected {item[2]}")
                if checksums and _file_checksum(path) != item[3]:
                    raise CorruptEntry(f"{relative} checksum mismatch")
            elif kind == "dir":
                if not stat.S_ISDIR(info.st_mode):
                    raise CorruptEntry(f"{relative} is not a directory")
                if len(item) < 3 or info.st_mtime_ns != item[2]:
                    unchanged = False
            elif kind == "link":
                if not stat.S_ISLNK(info.st_mode) or os.readlink(path) != item[2]:
                    raise CorruptEntry(f"{relative} is not the recorded symlink")
            else:
                raise CorruptEntry(f"manifest lists {relative} with unknown kind {kind!r}")
        except FileNotFoundError:
            raise CorruptEntry(f"{item[0]} is missing") from None
        except OSError as error:
            raise CorruptEntry(f"{item[0]} is unreadable: {error.strerror or error}") from error
        except (IndexError, TypeError, KeyError) as error:
            raise CorruptEntry("manifest is malformed") from error
    if not unchanged:
        _refuse_unlisted(directory, "", listed)


def _refuse_unlisted(directory: pathlib.Path, prefix: str, listed: set[str]) -> None:
    """:class:`CorruptEntry` naming the first item under ``directory`` not in ``listed``."""
    try:
        with os.scandir(directory) as scan:
            items = [(prefix + item.name, item.is_dir(follow_symlinks=False)) for item in scan]
    except OSError as error:
        raise CorruptEntry(f"{prefix or '.'} cannot be listed: {error.strerror}") from error
    for relative, is_directory in items:
        if relative not in listed:
            raise CorruptEntry(
                f"unexpected file {relative!r} (not in the manifest; dropped in after the entry "
                "was published)"
            )
        if is_directory:
            _refuse_unlisted(directory / relative.rpartition("/")[2], f"{relative}/", listed)


def _file_checksum(path: pathlib.Path) -> str:
    hasher = xxhash.xxh3_64()
    with open(path, "rb", buffering=0) as file:
        while chunk := file.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


__all__: list[str] = []

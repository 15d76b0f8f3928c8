"""The manifest that makes a BuildDirCache entry verifiable.

It is written last into the finished temp directory, just before the directory is renamed
into place. It records the key (digest and named parts) and every file, directory and
symlink of the entry with its size and xxh3 checksum. An entry is valid only when its manifest
parses and everything it lists is present and unchanged.
"""

from __future__ import annotations

import json
import os
import pathlib
import stat
from collections.abc import Mapping
from typing import Any, Final

import xxhash

from ._atomic import atomic_write_bytes
from ._errors import CacheError
from ._file_format import CorruptEntry, open_for_inspection
from ._keys import CacheKey


MANIFEST_NAME: Final = ".gt4py-cache-manifest.json"
MANIFEST_FORMAT: Final = 1
_CHUNK: Final = 1 << 20


def write_manifest(directory: pathlib.Path, key: CacheKey) -> None:
    """Describe the finished contents of ``directory`` in its manifest (written atomically)."""
    manifest = directory / MANIFEST_NAME
    if manifest.exists() or manifest.is_symlink():
        raise CacheError(
            f"the build function wrote {MANIFEST_NAME} into {directory}; that name is "
            "reserved for the cache's manifest"
        )
    items: list[list[Any]] = []
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
                items.append([relative, "dir"])
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
    }
    atomic_write_bytes(manifest, json.dumps(document, ensure_ascii=False, indent=0).encode())


def read_manifest(
    directory: pathlib.Path, digest: str | None = None, *, inspecting: bool = False
) -> dict[str, Any]:
    """The parsed, structurally checked manifest of the entry ``directory``.

    Raises FileNotFoundError when ``directory`` does not exist, :class:`CorruptEntry` when its
    manifest is missing, unreadable, malformed or for another key. ``inspecting``: a read for
    a listing or a diagnostic, which must not count as a use of the entry.
    """
    path = directory / MANIFEST_NAME
    try:
        if inspecting:
            with open_for_inspection(path) as file:
                raw = file.readall()
        else:
            raw = path.read_bytes()
    except FileNotFoundError:
        if not directory.exists():
            raise
        raise CorruptEntry("manifest missing") from None
    except NotADirectoryError as error:
        if directory.is_file():
            raise CorruptEntry("a file sits where the entry directory belongs") from error
        raise FileNotFoundError(str(error)) from error  # a parent is a file: no entry
    except OSError as error:
        raise CorruptEntry(f"manifest unreadable: {error.strerror or error}") from error
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


def verify_contents(
    directory: pathlib.Path, document: Mapping[str, Any], *, checksums: bool
) -> None:
    """Check that every item of the manifest is present and unchanged; CorruptEntry if not."""
    for item in document["items"]:
        try:
            relative, kind = item[0], item[1]
            path = directory / relative
            info = path.lstat()
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


def _file_checksum(path: pathlib.Path) -> str:
    hasher = xxhash.xxh3_64()
    with open(path, "rb", buffering=0) as file:
        while chunk := file.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


__all__: list[str] = []

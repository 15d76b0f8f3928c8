"""The identity of a code generator: a digest of its package's own source files.

Cache keys of generated code include it, so upgrading (or editing) the package that generates
the code never serves translations that the new code would not produce (as Triton keys its
cache on the compiler's own sources). Computed once per package and process.

Reading and hashing every file costs a few milliseconds that a warm process would pay before
its first cache hit (issue 44.8), so the digest is remembered in the cache
(``infra/source-digests``) under the files' *status*: each file's name, size, modification
and status-change times in nanoseconds, inode and device. Any write to a file changes its
status-change time, which no user can set back, and a reinstall or checkout replaces inodes;
Python itself decides whether a ``.pyc`` still matches its source on the modification time
and size alone, so a generator whose status is unchanged is also the code that runs. A
missing, unreadable or damaged memo is recomputed; one that cannot be written is not kept.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import TYPE_CHECKING

import xxhash


if TYPE_CHECKING:
    from ._keys import CacheKey

# Files that shape generated code: Python, templates, grammars, C++ headers shipped with it.
_SOURCE_SUFFIXES = frozenset({".py", ".pyi", ".j2", ".jinja", ".lark", ".h", ".hpp", ".cpp", ".cu"})
MEMO_NAMESPACE = "infra/source-digests"


@functools.cache
def source_digest(package: str) -> str:
    """A hex digest of every source file (name and content) under the package ``package``."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"source_digest: {package!r} is not an importable package")
    files = [
        (base, path)
        for base in sorted(spec.submodule_search_locations)
        for path in _source_files(base)
    ]
    status = xxhash.xxh3_128()
    for _, path in files:
        info = os.stat(path)
        fields = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
        status.update(f"{path}\0{fields}\0".encode())
    key = _memo_key(package, status.hexdigest())
    remembered = _recall(key)
    if remembered is not None:
        return remembered
    digest = xxhash.xxh3_128()
    for base, path in files:
        digest.update(os.path.relpath(path, base).replace(os.sep, "/").encode() + b"\0")
        with open(path, "rb") as file:
            digest.update(file.read())
        digest.update(b"\0")
    result = digest.hexdigest()
    _remember(key, result)
    return result


def _source_files(base: str) -> list[str]:
    """The source files under ``base`` (recursively), in ``sorted(base.rglob("*"))`` order
    (by path components)."""
    found: list[str] = []
    pending = [base]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir() and not entry.is_symlink():  # as rglob: links not entered
                    pending.append(entry.path)
                elif os.path.splitext(entry.name)[1] in _SOURCE_SUFFIXES and entry.is_file():
                    found.append(entry.path)
    return sorted(found, key=lambda path: path.split(os.sep))


def _memo_key(package: str, status: str) -> CacheKey:
    from ._keys import CacheKey

    return CacheKey({"package": package, "files_status": status})


def _recall(key: CacheKey) -> str | None:
    """The digest remembered under ``key``; None if absent, damaged or unreadable."""
    from ._errors import CacheError
    from ._file_cache import _lookup
    from ._file_format import PayloadKind
    from ._namespaced import NamespacedCache

    try:
        found = _lookup(NamespacedCache(MEMO_NAMESPACE)._layout(), key, PayloadKind.BYTES)
    except (CacheError, OSError):
        return None
    if not isinstance(found, bytes):
        return None
    text = found.decode("ascii", "replace")
    return text if len(text) == 32 and all(c in "0123456789abcdef" for c in text) else None


def _remember(key: CacheKey, digest: str) -> None:
    """Keep ``digest`` under ``key`` if the cache can be written (best effort)."""
    from ._errors import CacheError
    from ._file_cache import _publish
    from ._file_format import PayloadKind
    from ._namespaced import NamespacedCache

    memo = NamespacedCache(MEMO_NAMESPACE)
    try:
        layout = memo._writable_layout(memo._layout(), key)
        _publish(layout, key, PayloadKind.BYTES, digest.encode("ascii"))
    except (CacheError, OSError):
        pass

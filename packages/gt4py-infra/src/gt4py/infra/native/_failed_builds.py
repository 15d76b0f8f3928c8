"""What becomes of a failed build: kept in the cache for inspection, or, when the disk is full,
reported as such.

Failed builds are kept in the cache root's ``native/failed`` namespace, never where a
successful build would be (``native/modules``), so a failure is never a cache hit; there they
show in ``python -m gt4py.infra.cache info`` and are removed by its ``clean``. Nothing is ever
kept outside the cache (no directory per attempt in the system temp directory).

A build tool that fails because the disk is full says so only in its output; such a failure
is a :class:`~gt4py.infra.caching.CacheError` naming the directory (the cache's device is
full), not a compiler error or a broken toolchain.
"""

from __future__ import annotations

import errno
import os
import pathlib
import shutil

from gt4py.infra import caching
from gt4py.infra.caching._atomic import cache_error_from


_DISK_FULL_MESSAGES = tuple(
    os.strerror(code) for code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
)


def keep_failed_build(build_dir: pathlib.Path, key: caching.CacheKey) -> pathlib.Path:
    """Keep a copy of ``build_dir`` (about to be discarded) and return where it lies.

    ``key`` is the key the build would have had: the same sources, options and toolchain
    fail the same way, so a repeated failure finds the copy kept the first time. A cache that
    cannot take the copy raises :class:`~gt4py.infra.caching.CacheError`.
    """

    def copy(destination: pathlib.Path) -> None:
        shutil.copytree(build_dir, destination, symlinks=True, dirs_exist_ok=True)

    return caching.BuildDirCache("native/failed").get_or_build(key, copy)


def raise_if_disk_full(output: str, directory: pathlib.Path, doing: str) -> None:
    """A :class:`~gt4py.infra.caching.CacheError` if a tool's ``output`` says the disk (or
    quota) holding ``directory`` is full."""
    for message in _DISK_FULL_MESSAGES:
        if message in output:
            code = errno.ENOSPC if message == _DISK_FULL_MESSAGES[0] else errno.EDQUOT
            raise cache_error_from(OSError(code, message), doing, directory, directory=directory)

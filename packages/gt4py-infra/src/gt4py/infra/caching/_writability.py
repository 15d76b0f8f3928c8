"""Whether a cache directory takes new entries: read-only caches are read, never written.

A cache baked into a container image or kept on a read-only shared file system serves its
entries like any other (reading never writes: no lock, no access-time update required, no
manifest rewrite). Only a miss needs to write; it goes to the overlay directory when one is
configured (``build_cache_overlay``), else it is a :class:`CacheError` naming the directory.
Writability is probed by creating a file, because permission bits say nothing for root and
nothing about read-only mounts.
"""

from __future__ import annotations

import errno
import os
import pathlib
from typing import Final

from ._atomic import TEMP_PREFIX, create_in_directory
from ._errors import CacheError


_READ_ONLY: Final = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def unwritable_reason(directory: pathlib.Path) -> str | None:
    """None when files can be created in ``directory`` (made if missing), else why not.

    Any other failure (a full disk, a file in the way) is a :class:`CacheError`.
    """
    import tempfile  # not at import: only a miss probes the cache

    try:
        fd, name = create_in_directory(
            directory,
            lambda: tempfile.mkstemp(dir=directory, prefix=f"{TEMP_PREFIX}probe-"),
            doing="checking that the cache takes new entries",
            path=directory,
        )
    except CacheError as error:
        cause = error.__cause__
        if isinstance(cause, OSError) and cause.errno in _READ_ONLY:
            return cause.strerror or str(cause)
        raise
    os.close(fd)
    os.unlink(name)
    return None


def read_only_error(
    directory: pathlib.Path, reason: str, entry: str, *, overlay: bool
) -> CacheError:
    """The error of a miss in the read-only cache ``directory`` (no usable overlay)."""
    remedy = (
        "point GT4PY_BUILD_CACHE_OVERLAY at a writable directory for new builds (its entries "
        "are looked up after the cache's own), or GT4PY_BUILD_CACHE_DIR at a writable cache"
        if overlay
        else "build with a writable cache root"
    )
    return CacheError(
        f"the gt4py cache directory {directory} is read-only ({reason}): its entries are used, "
        f"but {entry} is not among them and cannot be built there; {remedy}"
    )


__all__: list[str] = []

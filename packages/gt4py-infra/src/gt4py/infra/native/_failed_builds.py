"""Where failed builds are kept for inspection: a cache namespace of their own.

They are never published where a successful build would be (``native/modules``), so a failure
is never a cache hit; keeping them in the cache root's ``native/failed`` namespace makes them
visible to ``python -m gt4py.infra.cache info`` and trimmed by its ``clean``.
"""

from __future__ import annotations

import pathlib
import shutil
import tempfile

from gt4py.infra import caching


def keep_failed_build(build_dir: pathlib.Path, key: caching.CacheKey, label: str) -> pathlib.Path:
    """Keep a copy of ``build_dir`` (about to be discarded) and return where it lies.

    ``key`` is the key the build would have had: the same sources, options and toolchain
    fail the same way, so a repeated failure finds the copy kept the first time. If the cache
    cannot take the copy it goes to the system temp directory; ``label`` names it there.
    """

    def copy(destination: pathlib.Path) -> None:
        shutil.copytree(build_dir, destination, symlinks=True, dirs_exist_ok=True)

    try:
        return caching.BuildDirCache("native/failed").get_or_build(key, copy)
    except (OSError, caching.CacheError):
        destination = pathlib.Path(tempfile.mkdtemp(prefix=f"gt4py-failed-{label}-"))
        copy(destination)
        return destination

"""Atomic, self-validating, diagnosable caches shared by every gt4py package.

- :class:`FileCache`: key -> bytes or a pickled object; :class:`BuildDirCache`: key -> a
  directory of build products. Both live under ``config.cache_root()`` in a namespace such as
  ``"next/translation"``.
- Every write is an atomic publish, every read validates (a damaged entry is a miss and is
  rebuilt), and concurrent builders of one key build it once.
- :class:`CacheKey` keeps named parts, so with ``GT4PY_CACHE_DIAGNOSTICS=1`` (or the logger
  ``gt4py.infra.caching`` at DEBUG) every miss says which part changed.
- :func:`hits_only`: lookups that never build (a miss raises :class:`WouldBuild`).
- :func:`build_label` names what entries are built for (a program, a stencil) in the
  caches' diagnostics and lock-wait messages.
- :func:`import_generated_module` imports generated Python from an entry, never via bytecode.

``python -m gt4py.infra.cache info|clean`` inspects and trims the cache.
"""

from ._atomic import (
    atomic_publish_dir as atomic_publish_dir,
    atomic_write_bytes as atomic_write_bytes,
)
from ._build_counts import builds_in_this_thread as builds_in_this_thread
from ._build_dir_cache import BuildDirCache as BuildDirCache
from ._errors import CacheError as CacheError
from ._file_cache import FileCache as FileCache
from ._generated_module import import_generated_module as import_generated_module
from ._hits_only import WouldBuild as WouldBuild, hits_only as hits_only
from ._keys import CacheKey as CacheKey
from ._labels import build_label as build_label, current_build_label as current_build_label
from ._source_digest import source_digest as source_digest


__all__ = [
    "BuildDirCache",
    "CacheError",
    "CacheKey",
    "FileCache",
    "WouldBuild",
    "atomic_publish_dir",
    "build_label",
    "builds_in_this_thread",
    "current_build_label",
    "hits_only",
    "import_generated_module",
    "atomic_write_bytes",
    "source_digest",
]

"""The one exception type of the caches."""

from __future__ import annotations


class CacheError(Exception):
    """A cache cannot be used: unwritable directory, full disk, misuse.

    The message says which directory or entry is affected and what to do. Whenever this is
    raised, the cache on disk is left as it was before the failed operation: never corrupt.
    """


__all__ = ["CacheError"]

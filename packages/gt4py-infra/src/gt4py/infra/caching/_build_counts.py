"""Counts of the cache entries this thread built (not found), per namespace.

A build runs in the thread that asked for the entry and holds its lock, so a thread-local
count is exact even with several builders per process (a ``ThreadRunner``). Compilation
drivers read it around a task to report how many entries the task really built: with many
processes or ranks on one cache, the sum over all of them shows that each key was built once.
"""

from __future__ import annotations

import collections
import threading


_local = threading.local()


def _counts() -> collections.Counter[str]:
    counts: collections.Counter[str] | None = getattr(_local, "counts", None)
    if counts is None:
        counts = _local.counts = collections.Counter()
    return counts


def count_build(namespace: str) -> None:
    """Record that this thread built and published an entry of ``namespace``."""
    _counts()[namespace] += 1


def builds_in_this_thread() -> dict[str, int]:
    """How many entries this thread built so far, per cache namespace (``"native/modules"``...).

    Hits, and entries another process built while this one waited for its lock, do not count.
    Take the difference of two readings to count the builds of one piece of work.
    """
    return dict(_counts())


__all__ = ["builds_in_this_thread", "count_build"]

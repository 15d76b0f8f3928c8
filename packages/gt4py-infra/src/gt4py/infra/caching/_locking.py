"""Per-key build locks: one builder per key across threads, processes and hosts.

A ``filelock.FileLock`` (``flock``) on a lock file kept next to, never inside, the entries.
Separate lock objects conflict even inside one process, so threads are covered as well.
"""

from __future__ import annotations

import contextlib
import logging
import pathlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ._atomic import RACE_ATTEMPTS, cache_error_from, make_directory, race_backoff
from ._errors import CacheError


if TYPE_CHECKING:
    import filelock

_logger = logging.getLogger("gt4py.infra.caching")
_held = threading.local()


@contextlib.contextmanager
def build_lock(lock_path: pathlib.Path, *, entry: str) -> Iterator[None]:
    """Hold the build lock ``lock_path`` of ``entry`` (a description for messages)."""
    held: set[pathlib.Path] = _held.__dict__.setdefault("paths", set())
    if lock_path in held:
        # flock would deadlock: the waiting thread is the one holding the lock.
        raise CacheError(
            f"the build function of {entry} asked for {entry} itself (recursive build)"
        )
    lock = _acquire(lock_path, entry)
    held.add(lock_path)
    try:
        yield
    finally:
        held.discard(lock_path)
        lock.release()


def _acquire(lock_path: pathlib.Path, entry: str) -> filelock.BaseFileLock:
    # Imported on the first build, not with the cache: a hit takes no lock.
    import filelock

    for attempt in range(RACE_ATTEMPTS):
        make_directory(lock_path.parent)
        lock = filelock.FileLock(lock_path)
        try:
            try:
                lock.acquire(timeout=0)
            except filelock.Timeout:
                _logger.debug("waiting for another builder of %s (lock %s)", entry, lock_path)
                lock.acquire()
        except (FileNotFoundError, FileExistsError) as error:
            # A concurrent `clean` removed the lock file or its directory while we opened
            # it: transient, so try again with a fresh lock object.
            if attempt + 1 < RACE_ATTEMPTS:
                race_backoff(attempt)
                continue
            raise cache_error_from(error, "taking the build lock", lock_path) from error
        except OSError as error:
            raise cache_error_from(error, "taking the build lock", lock_path) from error
        return lock
    raise AssertionError("unreachable")


def try_lock(lock_path: pathlib.Path) -> filelock.BaseFileLock | None:
    """The lock ``lock_path`` acquired without waiting, or None if someone holds it."""
    import filelock

    lock = filelock.FileLock(lock_path)
    try:
        lock.acquire(timeout=0)
    except (filelock.Timeout, OSError):
        return None
    return lock


__all__: list[str] = []

"""Per-key build locks: one builder per key across threads, processes and hosts.

A ``filelock.FileLock`` (``flock``) on a lock file kept next to, never inside, the entries.
Separate lock objects conflict even inside one process, so threads are covered as well.

The holder of a lock records who it is (pid, host, since when) in a ``.holder`` file beside
the lock, so that a waiter can say whom it waits for: after ``REPORT_AFTER_S`` seconds it logs
one warning naming the holder, and with the ``build_lock_timeout`` setting
(``GT4PY_BUILD_LOCK_TIMEOUT``) it gives up with a :class:`CacheError` naming it. Without a
timeout a waiter waits as long as the holder builds: a stopped (SIGSTOP, suspended job) or
hung builder is then visible in the log instead of silent.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pathlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from ._atomic import RACE_ATTEMPTS, cache_error_from, make_directory, race_backoff, temp_sibling
from ._errors import CacheError


if TYPE_CHECKING:
    import filelock

_logger = logging.getLogger("gt4py.infra.caching")
_held = threading.local()

#: Seconds of waiting for another builder before a warning names it.
REPORT_AFTER_S: Final = 5.0
HOLDER_SUFFIX: Final = ".holder"
_POLL_S: Final = 0.05


def holder_path(lock_path: pathlib.Path) -> pathlib.Path:
    return lock_path.with_suffix(HOLDER_SUFFIX)


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
    _record_holder(lock_path, entry)
    try:
        yield
    finally:
        held.discard(lock_path)
        with contextlib.suppress(OSError):
            holder_path(lock_path).unlink()
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
                _wait(lock, lock_path, entry)
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


def _wait(lock: filelock.BaseFileLock, lock_path: pathlib.Path, entry: str) -> None:
    """Acquire ``lock`` that another builder holds: report it once, give up at the timeout."""
    import filelock

    from gt4py.infra import config

    timeout = config.BUILD_LOCK_TIMEOUT.get()
    _logger.debug("waiting for another builder of %s (lock %s)", entry, lock_path)
    start = time.monotonic()
    reported = False
    while True:
        waited = time.monotonic() - start
        deadlines = [t for t in (timeout, None if reported else REPORT_AFTER_S) if t is not None]
        step = max(0.0, min(deadlines) - waited) if deadlines else -1  # -1: no limit
        try:
            lock.acquire(timeout=step, poll_interval=_POLL_S)
            return
        except filelock.Timeout:
            pass
        waited = time.monotonic() - start
        if timeout is not None and waited >= timeout:
            raise CacheError(
                f"gave up after waiting {waited:.1f} s (build_lock_timeout, "
                f"GT4PY_BUILD_LOCK_TIMEOUT) for {entry}: {describe_holder(lock_path)} holds its "
                f"build lock {lock_path}. If that process is stopped or hung, end it and retry"
            )
        if not reported and waited >= REPORT_AFTER_S:
            reported = True
            _logger.warning(
                "still waiting after %.0f s for %s: %s holds its build lock %s (a stopped or "
                "hung builder? set GT4PY_BUILD_LOCK_TIMEOUT to give up after a while)",
                waited,
                entry,
                describe_holder(lock_path),
                lock_path,
            )


def describe_holder(lock_path: pathlib.Path) -> str:
    """Who holds ``lock_path``, from its holder file: 'process 12 on host h (for 3 s)'."""
    try:
        record: dict[str, Any] = json.loads(holder_path(lock_path).read_text(encoding="utf-8"))
        pid, host, since = int(record["pid"]), str(record["host"]), float(record["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return "an unknown process (it left no holder record)"
    return f"process {pid} on host {host} (for {max(0.0, time.time() - since):.0f} s)"


def _record_holder(lock_path: pathlib.Path, entry: str) -> None:
    # Best effort and not fsynced: it only serves messages. Written to a temp sibling and
    # renamed, so a waiter reads a whole record or none.
    record = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "since": time.time(),
        "entry": entry,
    }
    temp = temp_sibling(holder_path(lock_path))
    try:
        temp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(temp, holder_path(lock_path))
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


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

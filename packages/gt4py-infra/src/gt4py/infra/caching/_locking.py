"""Per-key build locks: one builder per key across threads, processes and hosts.

A ``filelock.FileLock`` (``flock``) on a lock file kept next to, never inside, the entries.
Separate lock objects conflict even inside one process, so threads are covered as well.

The holder of a lock records who it is (pid, host, since when, what it builds, and how long its
builds in this namespace took so far) in a ``.holder`` file beside the lock, so that a waiter
can say whom it waits for, and keeps the record's modification time fresh every
``HEARTBEAT_S`` while it holds the lock (a heartbeat thread: it stops with the process, when
the process is stopped by SIGSTOP or a suspended job, or frozen). A waiter logs at INFO whom it
waits for ("waiting for <entry> being built by process N on host h"); an ordinary long build
by a live holder says nothing more. It warns once only when the holder has shown no sign of
life (no heartbeat, no new holder) for clearly longer than a build should take: three times
the holder's (or the waiter's own) recent build time in that namespace, at least
``MIN_REPORT_S``; ``REPORT_AFTER_S`` (60 s) when neither has built anything there yet. A holder
that does not beat (an older gt4py, or no record yet) counts as silent since the wait began. With the ``build_lock_timeout`` setting
(``GT4PY_BUILD_LOCK_TIMEOUT``) a waiter gives up with a :class:`CacheError` naming the holder,
live or not. Without a timeout a waiter waits as long as the holder builds: a stopped or hung
builder is then visible in the log instead of silent.

Taking a lock also sweeps the staging items (``.tmp-<digest>-<pid>-<random>``, see
``_atomic``) that a killed builder left: its holder record outlives it, and names its pid and
host (see :func:`sweep_stale_staging`). The key being locked is swept at every build, the
whole namespace at the first build in it of each process.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import math
import os
import pathlib
import re
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from ._atomic import (
    RACE_ATTEMPTS,
    cache_error_from,
    make_directory,
    race_backoff,
    remove_scratch,
    temp_sibling,
)
from ._errors import CacheError
from ._layout import DIRS_DIR, FILES_DIR, LOCK_SUFFIX, LOCKS_DIR, is_entry_name
from ._trust import current_policy


if TYPE_CHECKING:
    import filelock

_logger = logging.getLogger("gt4py.infra.caching")
_held = threading.local()

#: Seconds of waiting for another builder before a warning names it, when nobody knows how
#: long builds in that namespace take.
REPORT_AFTER_S: Final = 60.0
#: With a known build time, the warning comes after this many times that time...
REPORT_FACTOR: Final = 3.0
#: ... but never before this many seconds.
MIN_REPORT_S: Final = 10.0
#: How often a holder refreshes its record (its heartbeat), in seconds: well below
#: ``MIN_REPORT_S``, so that a live holder never looks silent.
HEARTBEAT_S = 2.0
HOLDER_SUFFIX: Final = ".holder"
_POLL_S: Final = 0.05
#: A waiter re-reads the holder record at least this often (it may appear after the wait began).
_RECHECK_S = 1.0
#: Lock holds shorter than this (a hit found under the lock) say nothing about build times.
_MIN_RECORDED_BUILD_S: Final = 1.0
_RECENT_BUILDS: Final = 8

#: Recent build durations (lock hold times) per namespace directory, in this process.
_build_times: dict[pathlib.Path, collections.deque[float]] = {}
_swept: set[pathlib.Path] = set()  # namespace directories swept whole by this process
_state_lock = threading.Lock()

_TEMP_NAME: Final = re.compile(r"\.tmp-(?P<name>.+)-(?P<pid>[0-9]+)-[0-9a-f]{8}")


def _now() -> float:
    """The clock of lock waits (a seam for tests)."""
    return time.monotonic()


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
    started = time.monotonic()
    previous = _read_holder(lock_path)  # left by a killed holder, if any
    _record_holder(lock_path, entry)
    heartbeat = _Heartbeat(holder_path(lock_path))
    with contextlib.suppress(OSError):  # best effort: a sweep never fails a build
        sweep_stale_staging(lock_path, previous)
    try:
        yield
        _note_build_time(lock_path, time.monotonic() - started)
    finally:
        heartbeat.stop()
        held.discard(lock_path)
        with contextlib.suppress(OSError):
            holder_path(lock_path).unlink()
        lock.release()


class _Heartbeat:
    """Touches the holder record every ``HEARTBEAT_S`` until stopped: the holder's liveness.

    A daemon thread, so a build that the process abandons never keeps it alive; it beats only
    while the process runs, so a stopped or frozen holder's record goes stale.
    """

    def __init__(self, path: pathlib.Path) -> None:
        self._path = path
        self._interval = HEARTBEAT_S
        self._stopped = threading.Event()
        self._thread = threading.Thread(
            target=self._beat, name=f"gt4py-lock-heartbeat-{path.stem[:8]}", daemon=True
        )
        self._thread.start()

    def _beat(self) -> None:
        while not self._stopped.wait(self._interval):
            with contextlib.suppress(OSError):  # best effort, like the record itself
                os.utime(self._path)

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=self._interval + 1.0)


def _acquire(lock_path: pathlib.Path, entry: str) -> filelock.BaseFileLock:
    # Imported on the first build, not with the cache: a hit takes no lock.
    import filelock

    for attempt in range(RACE_ATTEMPTS):
        make_directory(lock_path.parent)
        # the policy's mode: older filelock versions chmod the lock file to theirs (0644)
        lock = filelock.FileLock(lock_path, mode=current_policy().file_mode)
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
    """Acquire ``lock`` that another builder holds: say whom it waits for (INFO), warn once if
    the holder shows no sign of life for too long, give up at the timeout."""
    import filelock

    from gt4py.infra import config

    timeout = config.BUILD_LOCK_TIMEOUT.get()
    _logger.debug("waiting for another builder of %s (lock %s)", entry, lock_path)
    start = alive_at = _now()  # alive_at: the holder's last sign of life seen (none yet)
    beat = _holder_beat(lock_path)
    announced = reported = False
    while True:
        now = _now()
        if not announced and _read_holder(lock_path) is not None:
            announced = True
            _logger.info(
                "waiting for %s being built by %s (lock %s)",
                entry,
                describe_holder(lock_path),
                lock_path,
            )
        report_after, expected = (None, None) if reported else report_threshold(lock_path)
        deadlines = [] if timeout is None else [timeout - (now - start)]
        if report_after is not None:
            deadlines.append(report_after - (now - alive_at))
        # Reported and no timeout: -1, wait as long as it takes.
        step = min(_RECHECK_S, *(max(0.0, t) for t in deadlines)) if deadlines else -1
        try:
            lock.acquire(timeout=step, poll_interval=_POLL_S)
            return
        except filelock.Timeout:
            pass
        now = _now()
        waited = now - start
        if timeout is not None and waited >= timeout:
            raise CacheError(
                f"gave up after waiting {waited:.1f} s (build_lock_timeout, "
                f"GT4PY_BUILD_LOCK_TIMEOUT) for {entry}: {describe_holder(lock_path)} holds its "
                f"build lock {lock_path}. If that process is stopped or hung, end it and retry"
            )
        latest = _holder_beat(lock_path)
        if latest != beat:  # a heartbeat, or a new holder: someone is alive and building
            beat, alive_at = latest, now
            continue
        silent = now - alive_at
        if report_after is not None and silent >= report_after:
            reported = True
            if expected is None:
                why = "nothing is known about build times there"
            else:
                why = f"builds there took up to {expected:.1f} s"
            _logger.warning(
                "still waiting after %.0f s for %s: %s holds its build lock %s and has shown "
                "no sign of life for %.0f s (warned after %.0f s: %s). A stopped or hung "
                "builder? Set GT4PY_BUILD_LOCK_TIMEOUT to give up after a while",
                waited,
                entry,
                describe_holder(lock_path),
                lock_path,
                silent,
                report_after,
                why,
            )


def _holder_beat(lock_path: pathlib.Path) -> tuple[int, int] | None:
    """The holder record's (inode, modification time): it changes at each heartbeat and
    with each new holder. Compared, never read as a time: hosts' clocks may differ."""
    try:
        info = os.stat(holder_path(lock_path))
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


def report_threshold(lock_path: pathlib.Path) -> tuple[float, float | None]:
    """After how many seconds a waiter for ``lock_path`` warns, and the build time that is
    based on (None: unknown, the fallback ``REPORT_AFTER_S``).

    The expected build time is the longer of what the holder recorded (its recent builds in
    the namespace) and this process's own recent builds there.
    """
    known = []
    record = _read_holder(lock_path)
    if record is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            known.append(float(record["expected_s"]))
    own = expected_build_time(lock_path)
    if own is not None:
        known.append(own)
    known = [t for t in known if math.isfinite(t) and t >= 0]  # drop nan, inf, junk
    if not known:
        return REPORT_AFTER_S, None
    expected = max(known)
    return max(MIN_REPORT_S, REPORT_FACTOR * expected), expected


def expected_build_time(lock_path: pathlib.Path) -> float | None:
    """The longest recent build this process did in the namespace of ``lock_path``."""
    with _state_lock:
        recent = _build_times.get(_namespace_dir(lock_path))
        return max(recent) if recent else None


def _note_build_time(lock_path: pathlib.Path, seconds: float) -> None:
    if seconds < _MIN_RECORDED_BUILD_S:
        return
    with _state_lock:
        recent = _build_times.setdefault(
            _namespace_dir(lock_path), collections.deque(maxlen=_RECENT_BUILDS)
        )
        recent.append(seconds)


def describe_holder(lock_path: pathlib.Path) -> str:
    """Who holds ``lock_path``, from its holder file: 'process 12 on host h (for 3 s)'."""
    record = _read_holder(lock_path)
    try:
        assert record is not None
        pid, host, since = int(record["pid"]), str(record["host"]), float(record["since"])
    except (AssertionError, ValueError, KeyError, TypeError):
        return "an unknown process (it left no holder record)"
    return f"process {pid} on host {host} (for {max(0.0, time.time() - since):.0f} s)"


def _read_holder(lock_path: pathlib.Path) -> dict[str, Any] | None:
    try:
        record = json.loads(holder_path(lock_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _record_holder(lock_path: pathlib.Path, entry: str) -> None:
    # Best effort and not fsynced: it only serves messages. Written to a temp sibling and
    # renamed, so a waiter reads a whole record or none.
    record: dict[str, Any] = {
        "pid": os.getpid(),
        "host": _hostname(),
        "since": time.time(),
        "entry": entry,
        "heartbeat_s": HEARTBEAT_S,
    }
    expected = expected_build_time(lock_path)
    if expected is not None:
        record["expected_s"] = round(expected, 3)
    temp = temp_sibling(holder_path(lock_path))
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:  # private whatever the umask
            stream.write(json.dumps(record))
        os.replace(temp, holder_path(lock_path))
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()


def try_lock(lock_path: pathlib.Path) -> filelock.BaseFileLock | None:
    """The lock ``lock_path`` acquired without waiting, or None if someone holds it."""
    import filelock

    lock = filelock.FileLock(lock_path, mode=current_policy().file_mode)
    try:
        lock.acquire(timeout=0)
    except (filelock.Timeout, OSError):
        return None
    return lock


# -- sweeping what killed builders left --------------------------------------------------------


def sweep_stale_staging(lock_path: pathlib.Path, previous: dict[str, Any] | None) -> int:
    """Remove what killed builders left; called holding the lock ``lock_path``, with
    ``previous``, the holder record found there when the lock was taken.

    A holder record outlives its holder only when the holder was killed (it is removed with
    the lock), so a record naming this host and a process that is no longer running proves
    that process dead; its staging items of that key (``.tmp-<digest>-<pid>-*`` in ``_dirs``,
    ``_files`` and ``_locks``) are removed. That is done for the locked key with ``previous``,
    and, the first time this process builds in the namespace, for every other key with such a
    record whose lock is free (the record goes too). Staging items of another host's builder
    are left to ``clean``: its pid cannot be checked from here, and on a file system whose
    locks do not reach across hosts a free lock proves nothing. Returns how many items were
    removed.
    """
    namespace_dir = _namespace_dir(lock_path)
    locked = lock_path.name.removesuffix(LOCK_SUFFIX)
    removed = 0
    dead = _dead_local_owner(previous)
    if dead is not None:
        removed += _remove_staging(namespace_dir, locked, dead)
    with _state_lock:
        whole = namespace_dir not in _swept
        _swept.add(namespace_dir)
    if not whole:
        return removed
    for name in os.listdir(lock_path.parent):
        if not name.endswith(HOLDER_SUFFIX):
            continue
        digest = name.removesuffix(HOLDER_SUFFIX)
        if digest == locked or not is_entry_name(digest):
            continue
        key_lock = lock_path.parent / f"{digest}{LOCK_SUFFIX}"
        dead = _dead_local_owner(_read_holder(key_lock))
        if dead is None or not key_lock.exists():
            continue
        lock = try_lock(key_lock)
        if lock is None:
            continue  # a builder holds it now
        try:
            removed += _remove_staging(namespace_dir, digest, dead)
            with contextlib.suppress(FileNotFoundError):
                holder_path(key_lock).unlink()
        finally:
            lock.release()
    return removed


def _hostname() -> str:
    import socket  # not at import: only a build (a miss) takes a lock

    return socket.gethostname()


def _dead_local_owner(record: dict[str, Any] | None) -> int | None:
    """The pid of a holder record naming this host and a process that no longer runs."""
    if record is None:
        return None
    try:
        pid, host = int(record["pid"]), str(record["host"])
    except (KeyError, TypeError, ValueError):
        return None
    if host != _hostname() or _process_alive(pid):
        return None
    return pid


def _remove_staging(namespace_dir: pathlib.Path, digest: str, pid: int) -> int:
    """Remove the staging items of key ``digest`` that process ``pid`` made."""
    removed = 0
    for directory in (
        namespace_dir / DIRS_DIR,
        namespace_dir / FILES_DIR,
        namespace_dir / LOCKS_DIR,
    ):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            match = _TEMP_NAME.fullmatch(name)
            if match is None or int(match["pid"]) != pid:
                continue
            if match["name"].split(".", 1)[0] != digest:  # "<digest>" or "<digest>.holder"
                continue
            remove_scratch(directory / name)
            removed += 1
            _logger.debug("removed %s, left by process %s that was killed", directory / name, pid)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # PermissionError: someone else's; else: cannot tell
        return True
    return True


def _namespace_dir(lock_path: pathlib.Path) -> pathlib.Path:
    return lock_path.parent.parent  # <namespace>/_locks/<digest>.lock


__all__: list[str] = []

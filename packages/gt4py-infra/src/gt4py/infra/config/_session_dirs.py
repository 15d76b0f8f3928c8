"""Session cache directories: made by one process, removed when it ends, however it ends.

A session directory (lifetime ``session``) lives in the system temp directory as
``gt4py-session-<pid>-<random>``, private to its user (mode 0700), with a marker file naming
its owner (pid, host, process start time). It never exists without its marker: it is made
under a hidden staging name (``.gt4py-session-staging-<pid>-<random>``), the marker is written
into it, and only then is it renamed to its visible name. Both names are fresh and made with
an exclusive ``mkdir``, so a path or symlink someone else planted in the temp directory is
never used. It is removed

- at normal interpreter exit (``atexit``);
- on SIGTERM and SIGHUP (batch schedulers, ``docker stop``, a closed terminal): the handler
  removes it, then calls the handler installed before it, if that was a Python function, or
  else re-raises the signal with its default action, so the process still ends the way the
  sender expects (exit status 128 + signal). A signal the process ignored stays ignored;
- otherwise (SIGKILL, a crash, a handler that ends the process without returning): by the next
  process that starts a session on this host, or ``python -m gt4py.infra.cache clean``, which
  remove the directories of owners that are no longer alive: by the marker, or, for a
  directory without one (recreated by a compilation worker that outlived its parent, or left
  by an older gt4py), by the pid in its name.

The caches never recreate a removed session directory (``caching._atomic``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, Final


PREFIX: Final = "gt4py-session-"
STAGING_PREFIX: Final = ".gt4py-session-staging-"
MARKER: Final = ".gt4py-session.json"
#: A directory without a marker younger than this is left alone (an older gt4py writes its
#: marker just after making the directory).
UNMARKED_GRACE_S: Final = 10.0
_OWNER_PID: Final = re.compile(r"(?:gt4py-session-|\.gt4py-session-staging-)([0-9]+)-.+")
_TERMINATING_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_O_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC: Final[int] = getattr(os, "O_CLOEXEC", 0)

_owned: list[tuple[pathlib.Path, int]] = []
_handlers_installed = False
_install_lock = threading.Lock()


def create_session_dir(directory: pathlib.Path | None = None) -> pathlib.Path:
    """A new session directory owned by this process (dead sessions' directories go first),
    in ``directory`` (default: the system temp directory)."""
    base = pathlib.Path(tempfile.gettempdir()) if directory is None else directory
    remove_dead_sessions(base)
    _install_signal_handlers()  # before anything exists: a signal now leaves nothing behind
    pid = os.getpid()
    marker = {"pid": pid, "host": socket.gethostname(), "started": _process_start(pid)}
    for _ in range(100):
        token = secrets.token_hex(8)
        staging = base / f"{STAGING_PREFIX}{pid}-{token}"
        path = base / f"{PREFIX}{pid}-{token}"
        if os.path.lexists(path):
            continue
        try:
            os.mkdir(staging, 0o700)  # exclusive: never an existing path or a symlink
        except FileExistsError:
            continue
        _owned.append((staging, pid))
        _owned.append((path, pid))
        os.chmod(staging, 0o700)  # whatever the umask
        _write_marker(staging / MARKER, marker)
        try:
            _rename_exclusively(staging, path)
        except FileExistsError:
            shutil.rmtree(staging, ignore_errors=True)
            continue
        return path
    raise FileExistsError(f"cannot find a free session directory name in {base}")


def _write_marker(path: pathlib.Path, marker: dict[str, Any]) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600)
    try:
        os.write(fd, json.dumps(marker).encode())
    finally:
        os.close(fd)


def _rename_exclusively(source: pathlib.Path, destination: pathlib.Path) -> None:
    """Rename the directory ``source`` to ``destination``, which must not exist.

    ``rename`` would replace an empty directory someone planted at ``destination`` (and
    ours is then what is there, which is fine), but never follows a symlink there; a
    non-empty one makes it fail.
    """
    try:
        os.rename(source, destination)
    except OSError as error:
        if os.path.lexists(destination):
            raise FileExistsError(str(error)) from error
        raise


def remove_owned_session_dirs() -> None:
    """Remove the session directories this process made (not those of a parent after fork)."""
    pid = os.getpid()
    for path, owner in _owned:
        if owner == pid:
            shutil.rmtree(path, ignore_errors=True)


def remove_dead_sessions(directory: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Remove session directories (in ``directory``, default the system temp directory) whose
    owner on this host is no longer running; returns what was removed.

    Only real directories (never symlinks) of this user are touched. The owner is the one
    the marker names; a directory without a readable marker is judged by the pid in its name
    (``gt4py-session-<pid>-*``; other names are left alone) once it is older than
    :data:`UNMARKED_GRACE_S`. Directories of other hosts (a temp
    directory on a shared file system) are left alone.
    """
    directory = pathlib.Path(tempfile.gettempdir()) if directory is None else directory
    host = socket.gethostname()
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    removed = []
    try:
        candidates = [
            e for e in os.scandir(directory) if e.name.startswith((PREFIX, STAGING_PREFIX))
        ]
    except OSError:
        return []
    for item in candidates:
        path = pathlib.Path(item.path)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (euid is not None and info.st_uid != euid):
            continue
        if not _owner_is_dead(path, info, host):
            continue
        # Renamed first: a concurrent cleaner or a listing never sees it half-removed.
        trash = path.with_name(f".trash-{path.name}-{secrets.token_hex(4)}")
        with contextlib.suppress(OSError):
            os.rename(path, trash)
            shutil.rmtree(trash, ignore_errors=True)
            removed.append(path)
    return removed


def _owner_is_dead(path: pathlib.Path, info: os.stat_result, host: str) -> bool:
    marker = _read_marker(path / MARKER)
    if marker is not None:
        pid, owner_host, started = marker
        return owner_host == host and not _alive(pid, started)
    if time.time() - info.st_mtime < UNMARKED_GRACE_S:
        return False
    match = _OWNER_PID.fullmatch(path.name)
    return match is not None and not _alive(int(match[1]), None)


def _read_marker(path: pathlib.Path) -> tuple[int, str, str | None] | None:
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC)
    except OSError:
        return None
    try:
        marker = json.loads(os.read(fd, 1 << 16))
        return int(marker["pid"]), str(marker["host"]), marker["started"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        os.close(fd)


def _alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    except OSError:
        return True  # cannot tell: keep
    # The pid may have been reused by a newer process since the owner died.
    return started is None or _process_start(pid) in (None, started)


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot; Linux), None where unknown."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else None


def _install_signal_handlers() -> None:
    global _handlers_installed
    with _install_lock:
        if _handlers_installed or threading.current_thread() is not threading.main_thread():
            # Off the main thread, Python cannot install handlers; the next session start
            # (or `clean`) removes the directory if the process is killed.
            return
        _handlers_installed = True
        for signum in _TERMINATING_SIGNALS:
            previous = signal.getsignal(signum)
            if previous is signal.SIG_IGN:
                continue
            signal.signal(signum, functools.partial(_on_terminating_signal, previous))


def _on_terminating_signal(previous: Any, signum: int, frame: FrameType | None) -> None:
    remove_owned_session_dirs()
    if callable(previous):
        handler: Callable[[int, FrameType | None], Any] = previous
        handler(signum, frame)
        return
    # The default action (terminate): restore it and send the signal again, so that the exit
    # status says "killed by SIGTERM" as a scheduler or `docker stop` expects.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)

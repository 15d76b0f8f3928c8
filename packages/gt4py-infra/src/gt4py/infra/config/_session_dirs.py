"""Session cache directories: made by one process, removed when it ends, however it ends.

A session directory (lifetime ``session``) lives in the system temp directory as
``gt4py-session-<pid>-<random>`` with a marker file naming its owner (pid, host, process
start time). It is removed

- at normal interpreter exit (``atexit``);
- on SIGTERM and SIGHUP (batch schedulers, ``docker stop``, a closed terminal): the handler
  removes it, then calls the handler installed before it, if that was a Python function, or
  else re-raises the signal with its default action, so the process still ends the way the
  sender expects (exit status 128 + signal). A signal the process ignored stays ignored;
- otherwise (SIGKILL, a crash, a handler that ends the process without returning): by the next
  process that starts a session on this host, or ``python -m gt4py.infra.cache clean``, which
  remove the directories of owners that are no longer alive.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pathlib
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, Final


PREFIX: Final = "gt4py-session-"
MARKER: Final = ".gt4py-session.json"
_TERMINATING_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)

_owned: list[tuple[pathlib.Path, int]] = []
_handlers_installed = False
_install_lock = threading.Lock()


def create_session_dir() -> pathlib.Path:
    """A new session directory owned by this process (dead sessions' directories go first)."""
    remove_dead_sessions()
    pid = os.getpid()
    path = pathlib.Path(tempfile.mkdtemp(prefix=f"{PREFIX}{pid}-"))
    _owned.append((path, pid))
    marker = {"pid": pid, "host": socket.gethostname(), "started": _process_start(pid)}
    temp = path / f".tmp-{MARKER}"
    temp.write_text(json.dumps(marker), encoding="utf-8")
    os.replace(temp, path / MARKER)
    _install_signal_handlers()
    return path


def remove_owned_session_dirs() -> None:
    """Remove the session directories this process made (not those of a parent after fork)."""
    pid = os.getpid()
    for path, owner in _owned:
        if owner == pid:
            shutil.rmtree(path, ignore_errors=True)


def remove_dead_sessions(directory: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Remove session directories (in ``directory``, default the system temp directory) whose
    owner on this host is no longer running; returns what was removed.

    Directories without a readable marker (being created right now, or not ours) and those
    of other hosts (a temp directory on a shared file system) are left alone.
    """
    directory = pathlib.Path(tempfile.gettempdir()) if directory is None else directory
    host = socket.gethostname()
    removed = []
    try:
        candidates = [e for e in os.scandir(directory) if e.name.startswith(PREFIX)]
    except OSError:
        return []
    for item in candidates:
        path = pathlib.Path(item.path)
        try:
            marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
            pid, owner_host, started = int(marker["pid"]), marker["host"], marker["started"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if owner_host == host and not _alive(pid, started):
            # Renamed first: a concurrent cleaner or a listing never sees it half-removed.
            trash = path.with_name(f".trash-{path.name}")
            with contextlib.suppress(OSError):
                os.rename(path, trash)
                shutil.rmtree(trash, ignore_errors=True)
                removed.append(path)
    return removed


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

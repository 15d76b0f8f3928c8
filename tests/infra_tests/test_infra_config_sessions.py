"""Session caches (lifetime ``session``) vanish however their process ends.

SIGTERM and SIGHUP (batch schedulers, ``docker stop``) remove them and still end the process
as the signal's default would, or run the handler installed before; what a SIGKILL leaves is
removed by the next session start or ``python -m gt4py.infra.cache clean``. Each test runs its
processes with TMPDIR pointing at its own directory.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from gt4py.infra.config import _session_dirs


CHILD = """\
import faulthandler, os, pathlib, signal, sys, time
faulthandler.register(signal.SIGUSR1)  # a session that does not end shows where it is
# the signals as in a terminal session: the test runner may run under nohup, in the
# background or under a CI agent, where SIGHUP / SIGINT start ignored or blocked, and
# children inherit both the dispositions and the mask
signal.pthread_sigmask(signal.SIG_UNBLOCK, {{signal.SIGHUP, signal.SIGTERM, signal.SIGINT}})
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGINT, signal.default_int_handler)
{before}
from gt4py.infra import config
root = config.cache_root()
(root / "entry").write_text("x")
print(root, flush=True)
for _ in range(600):  # short sleeps: a handler run by another thread's wakeup is not delayed
    time.sleep(0.1)
"""


def start_session(tmp: pathlib.Path, before: str = "") -> tuple[subprocess.Popen, pathlib.Path]:
    env = {
        **os.environ,
        "TMPDIR": str(tmp),
        "GT4PY_BUILD_CACHE_LIFETIME": "session",
    }
    env.pop("GT4PY_SESSION_CACHE_DIR", None)
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(before=textwrap.dedent(before))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    assert line, process.stderr.read() if process.stderr else ""
    root = pathlib.Path(line)
    assert (root / "entry").is_file()
    return process, root


def wait_for_exit(process: subprocess.Popen, timeout: float = 30) -> int:
    """The exit status; on a timeout, fails with the child's signal state and its stack."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = pathlib.Path(f"/proc/{process.pid}/status").read_text().splitlines()
        process.send_signal(signal.SIGUSR1)  # faulthandler dumps the stacks to stderr
        time.sleep(1)
        process.kill()
        _, stderr = process.communicate()
        signals = [line for line in status if line.startswith("Sig")]
        pytest.fail(f"the session process did not end: {signals}\n{stderr}")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_terminating_signal_removes_the_session_and_keeps_the_default_action(tmp_path, signum):
    process, root = start_session(tmp_path)
    process.send_signal(signum)
    assert wait_for_exit(process) == -signum  # killed by the signal, as the sender expects
    assert not root.exists()


def test_a_previous_handler_is_chained(tmp_path):
    before = """\
    def handler(signum, frame):
        pathlib.Path(os.environ["TMPDIR"], "handled").write_text(str(signum))
        sys.exit(7)
    signal.signal(signal.SIGTERM, handler)
    """
    process, root = start_session(tmp_path, before)
    process.send_signal(signal.SIGTERM)
    assert wait_for_exit(process) == 7
    assert (tmp_path / "handled").read_text() == str(int(signal.SIGTERM))
    assert not root.exists()


def test_an_ignored_signal_stays_ignored(tmp_path):
    process, root = start_session(tmp_path, "signal.signal(signal.SIGHUP, signal.SIG_IGN)")
    process.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    assert process.poll() is None
    assert root.exists()
    process.terminate()
    assert wait_for_exit(process) == -signal.SIGTERM
    assert not root.exists()


def test_killed_sessions_are_removed_by_the_next_session(tmp_path):
    killed, killed_root = start_session(tmp_path)
    killed.kill()
    killed.wait(timeout=30)
    assert killed_root.exists()  # SIGKILL cannot be handled
    alive, alive_root = start_session(tmp_path)  # starting a session reaps dead ones
    try:
        assert not killed_root.exists()
        assert alive_root.exists()
        assert _session_dirs.remove_dead_sessions(tmp_path) == []  # a live owner keeps it
        assert alive_root.exists()
    finally:
        alive.kill()
        alive.wait(timeout=30)
    assert _session_dirs.remove_dead_sessions(tmp_path) == [alive_root]


def test_cache_clean_removes_dead_sessions(tmp_path):
    killed, root = start_session(tmp_path)
    killed.kill()
    killed.wait(timeout=30)
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.cache", "clean", "--root", str(tmp_path / "c")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "removed 1 session cache" in result.stdout
    assert not root.exists()


def _fake_session(tmp: pathlib.Path, name: str, **marker: object) -> pathlib.Path:
    path = tmp / f"{_session_dirs.PREFIX}{name}"
    path.mkdir()
    (path / _session_dirs.MARKER).write_text(json.dumps(marker))
    return path


def test_only_dead_sessions_of_this_host_are_removed(tmp_path):
    dead_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_pid.wait()
    host = socket.gethostname()
    dead = _fake_session(tmp_path, "dead", pid=dead_pid.pid, host=host, started=None)
    other_host = _fake_session(tmp_path, "other", pid=dead_pid.pid, host=host + "-x", started=None)
    alive = _fake_session(tmp_path, "alive", pid=os.getpid(), host=host, started=None)
    reused = _fake_session(tmp_path, "reused", pid=os.getpid(), host=host, started="0")
    unmarked = tmp_path / f"{_session_dirs.PREFIX}unmarked"
    unmarked.mkdir()
    removed = _session_dirs.remove_dead_sessions(tmp_path)
    expected = {dead}
    if _session_dirs._process_start(os.getpid()) is not None:
        expected.add(reused)  # same pid, another start time: the owner died, pid reused
    assert set(removed) == expected
    assert other_host.exists() and alive.exists() and unmarked.exists()

"""What a killed build leaves behind, and settings that cannot mean what they say.

- A build whose process is interrupted (SIGINT) or killed (SIGTERM, SIGKILL) while a build tool
  runs leaves no tool process behind: tools run in their own process group, stopped by the
  interrupted wait or, when the process dies, by its watchdog; a build worker whose parent
  dies stops its tools and exits. Its staging directory is removed at once (SIGINT) or by the
  next build in the namespace (the owner is dead, its key's lock free).
- float settings reject nan (and inf, and negatives where a minimum says so), naming the
  variable and the value.
- A stage dump that cannot be written names GT4PY_DUMP_STAGES and the directory.

The killed builds run in subprocesses; their tools are ``sleep`` commands (under ``sh``, or
Ninja jobs, which Ninja runs in process groups of their own) found in /proc by a unique
argument.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from gt4py.infra import caching, config, pipeline
from gt4py.infra.caching import _locking


LINUX_PROC = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")


# -- processes ----------------------------------------------------------------------------------


def _state_and_cmdline(pid: int) -> tuple[str, bytes] | None:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[0], cmdline


def running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped, does not)."""
    found = _state_and_cmdline(pid)
    return found is not None and found[0] != "Z"


def running_with(token: str) -> list[int]:
    """The running processes with ``token`` among their arguments."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _state_and_cmdline(int(name))
            if found is not None and found[0] != "Z" and token.encode() in found[1].split(b"\0"):
                pids.append(int(name))
    return pids


def wait_until(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {seconds} s: {what}")
        time.sleep(0.05)


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def unique_sleep() -> str:
    """A ``sleep`` duration no other process uses: the token that finds our tools."""
    return f"{random.randint(4000, 9000)}.{random.randint(100000, 999999)}"


BUILDER = textwrap.dedent(
    """\
    import os, signal, sys
    # as in a terminal: a runner in the background or under nohup starts children with
    # SIGINT / SIGHUP ignored
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # or blocked
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from gt4py.infra import caching
    from gt4py.infra.native import _tools

    root, kind = sys.argv[1:3]
    token = os.environ["LEAK_TOKEN"]  # not an argument: it finds the tools only

    def build(directory):
        (directory / "half.o").write_text("partial")
        if kind == "sh":
            command = ["sh", "-c", f"sleep {token} & sleep {token} & wait"]
        else:  # Ninja runs each job in a process group of its own
            rule = f"rule slow\\n  command = sleep {token}\\nbuild a: slow\\nbuild b: slow\\n"
            (directory / "build.ninja").write_text(rule)
            command = [_tools.find_ninja().path, "-C", str(directory), "-j", "2"]
        process = _tools.start_command(command)
        print(_tools._watchdog._process.pid, flush=True)
        process.communicate()

    key = caching.CacheKey({"build": "killed"})
    caching.BuildDirCache("leaks", root=root).get_or_build(key, build)
    """
)


def staging_items(root: pathlib.Path) -> list[str]:
    names = []
    for sub in ("_dirs", "_files", "_locks"):
        directory = root / "leaks" / sub
        if directory.is_dir():
            names += [f"{sub}/{p.name}" for p in directory.iterdir() if p.name.startswith(".tmp-")]
    return names


def next_build(root: pathlib.Path, key: caching.CacheKey | None = None) -> None:
    """The next build (of the killed entry by default), as a new process's first one there."""
    _locking._swept.discard(root / "leaks")
    key = caching.CacheKey({"build": "killed"}) if key is None else key
    caching.BuildDirCache("leaks", root=root).get_or_build(
        key, lambda d: (d / "ok").write_text("ok")
    )


@LINUX_PROC
@pytest.mark.parametrize("kind", ["sh", "ninja"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_killed_build_leaves_no_tool_running_and_no_staging_dir(tmp_path, kind, signum):
    if kind == "ninja":
        from gt4py.infra.native import _tools

        try:
            _tools.find_ninja()
        except Exception as error:
            pytest.skip(f"no ninja: {error}")
    token = unique_sleep()
    builder = subprocess.Popen(
        [sys.executable, "-c", BUILDER, str(tmp_path), kind],
        env={**os.environ, "LEAK_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert builder.stdout is not None
        watchdog = int(builder.stdout.readline())
        wait_until(lambda: len(running_with(token)) == 2, 20, "the tools did not start")
        assert staging_items(tmp_path)  # mid-build
        builder.send_signal(signum)
        builder.wait(timeout=30)
        wait_until(lambda: not running_with(token), 15, f"{running_with(token)} still run")
        wait_until(lambda: not running(watchdog), 15, "the watchdog still runs")
    finally:
        builder.kill()
        builder.wait()
    if signum == signal.SIGINT:  # unwound: the build removed its own staging directory
        assert builder.returncode != 0
        assert "KeyboardInterrupt" in builder.stderr.read()
        assert [name for name in staging_items(tmp_path) if "_dirs/" in name] == []
    else:
        assert builder.returncode == -signum
    next_build(tmp_path)
    assert staging_items(tmp_path) == []


WORKER_TASKS = textwrap.dedent(
    """\
    def run_tool(token):
        from gt4py.infra.native import _tools

        command = ["sh", "-c", f"sleep {token} & sleep {token} & wait"]
        return _tools.run_command(command).returncode
    """
)

RUNNER_PARENT = textwrap.dedent(
    """\
    import functools, os, sys
    sys.path.insert(0, sys.argv[1])
    import leaky_tasks
    from gt4py.infra import runners

    runner = runners.ProcessRunner(max_workers=1)
    runner.submit(functools.partial(leaky_tasks.run_tool, os.environ["LEAK_TOKEN"])).result()
    """
)


@LINUX_PROC
def test_a_worker_whose_parent_is_killed_stops_its_tools_and_exits(tmp_path):
    (tmp_path / "leaky_tasks.py").write_text(WORKER_TASKS)
    token = unique_sleep()
    parent = subprocess.Popen(
        [sys.executable, "-c", RUNNER_PARENT, str(tmp_path)],
        env={**os.environ, "LEAK_TOKEN": token},
    )
    try:
        wait_until(lambda: len(running_with(token)) == 2, 30, "the tools did not start")
        workers = [
            pid
            for pid in map(int, filter(str.isdigit, os.listdir("/proc")))
            if _parent_of(pid) == parent.pid
        ]
        assert workers
        parent.kill()
        parent.wait(timeout=30)
        wait_until(lambda: not running_with(token), 15, f"{running_with(token)} still run")
        wait_until(lambda: not any(map(running, workers)), 15, "the worker still runs")
    finally:
        parent.kill()
        parent.wait()


def _parent_of(pid: int) -> int | None:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[1])


# -- sweeping staging items ---------------------------------------------------------------------

KEY = caching.CacheKey({"sweep": "built"})
OTHER = caching.CacheKey({"sweep": "other"})


def leave_staging(
    root: pathlib.Path, key: caching.CacheKey, pid: int, host: str | None = None
) -> list[pathlib.Path]:
    """What builder ``pid`` of ``key`` leaves when killed mid-build or mid-write, with its
    holder record (naming ``host``; None: no record)."""
    namespace = root / "leaks"
    items = [
        namespace / "_dirs" / f".tmp-{key.digest}-{pid}-0123abcd",
        namespace / "_files" / f".tmp-{key.digest}-{pid}-4567cdef",
        namespace / "_locks" / f".tmp-{key.digest}.holder-{pid}-89ab0123",
    ]
    for item in items:
        item.parent.mkdir(parents=True, exist_ok=True)
    items[0].mkdir()
    (items[0] / "half.o").write_bytes(b"partial")
    items[1].write_bytes(b"half a write")
    items[2].write_text("{}")
    lock = namespace / "_locks" / f"{key.digest}.lock"
    lock.touch()
    if host is not None:
        record = {"pid": pid, "host": host, "since": time.time(), "entry": "e"}
        _locking.holder_path(lock).write_text(json.dumps(record))
    return items


def test_a_killed_builders_staging_goes_with_the_next_build_of_its_entry(tmp_path):
    next_build(tmp_path, OTHER)  # the namespace's first build in this process is done
    items = leave_staging(tmp_path, KEY, dead_pid(), socket.gethostname())
    next_build(tmp_path, KEY)
    assert not any(item.exists() for item in items)
    assert caching.BuildDirCache("leaks", root=tmp_path).get(KEY) is not None


def test_other_entries_of_killed_builders_go_at_the_first_build_in_the_namespace(tmp_path):
    host = socket.gethostname()
    dead = leave_staging(tmp_path, OTHER, dead_pid(), host)
    live = leave_staging(tmp_path, caching.CacheKey({"sweep": "live"}), os.getpid(), host)
    remote = leave_staging(tmp_path, caching.CacheKey({"sweep": "remote"}), dead_pid(), "elsewhere")
    unrecorded = leave_staging(tmp_path, caching.CacheKey({"sweep": "unrecorded"}), dead_pid())
    next_build(tmp_path, KEY)
    assert not any(item.exists() for item in dead)
    assert not _locking.holder_path(tmp_path / "leaks" / "_locks" / f"{OTHER.digest}.lock").exists()
    # Kept for `clean`: a live owner's (a build in progress), another host's (its pid cannot
    # be checked), one without a record (killed before it wrote one, or cleaned).
    for kept in (live, remote, unrecorded):
        assert all(item.exists() for item in kept)


LOCK_HOLDER = textwrap.dedent(
    """\
    import sys, time, filelock
    lock = filelock.FileLock(sys.argv[1])
    lock.acquire()
    print("locked", flush=True)
    time.sleep(60)
    """
)


def test_a_killed_builders_entry_that_someone_builds_now_is_left_alone(tmp_path):
    # The record is stale, but a new builder took the lock (and will sweep it itself).
    items = leave_staging(tmp_path, OTHER, dead_pid(), socket.gethostname())
    lock = tmp_path / "leaks" / "_locks" / f"{OTHER.digest}.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(lock)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        next_build(tmp_path, KEY)
        assert all(item.exists() for item in items)
    finally:
        holder.kill()
        holder.wait()
    next_build(tmp_path, caching.CacheKey({"sweep": "later"}))  # (KEY is a hit now)
    assert not any(item.exists() for item in items)


# -- number settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("nan", "is not a number"),
        ("NaN", "is not a number"),
        ("inf", "is not a finite number"),
        ("-inf", "is not a finite number"),
        ("1e999", "is not a finite number"),
        ("-1", "is too small"),
    ],
)
@pytest.mark.parametrize("variable", ["GT4PY_BUILD_LOCK_TIMEOUT", "GT4PY_COMPILE_LOG_THRESHOLD_S"])
def test_float_settings_reject_nan_inf_and_negatives_naming_the_variable(
    monkeypatch, variable, text, problem
):
    monkeypatch.setenv(variable, text)
    setting = config.BUILD_LOCK_TIMEOUT if "LOCK" in variable else config.COMPILE_LOG_THRESHOLD_S
    with pytest.raises(config.ConfigError) as info:
        setting.get()
    message = str(info.value)
    assert message.startswith(f"{variable}=")
    assert problem in message
    assert setting.name in message


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_float_settings_reject_nan_inf_and_negatives_set_by_code(value):
    with pytest.raises(config.ConfigError, match="build_lock_timeout"):
        config.set("build_lock_timeout", value)
    with (
        pytest.raises(config.ConfigError, match="compile_log_threshold_s"),
        config.overrides(compile_log_threshold_s=value),
    ):
        pass
    assert config.BUILD_LOCK_TIMEOUT.get() is None


def test_a_setting_may_allow_infinity_but_never_nan(monkeypatch):
    limit = config.register(
        config.Setting(
            name="leaks_test_limit",
            type=float,
            default=1.0,
            allow_infinity=True,
            doc="a limit where inf means none",
            env="GT4PY_LEAKS_TEST_LIMIT",
        )
    )
    monkeypatch.setenv("GT4PY_LEAKS_TEST_LIMIT", "inf")
    assert limit.get() == math.inf
    monkeypatch.setenv("GT4PY_LEAKS_TEST_LIMIT", "nan")
    with pytest.raises(config.ConfigError, match="GT4PY_LEAKS_TEST_LIMIT=nan is not a number"):
        limit.get()


def test_good_numbers_still_pass(monkeypatch):
    monkeypatch.setenv("GT4PY_BUILD_LOCK_TIMEOUT", "2.5")
    assert config.BUILD_LOCK_TIMEOUT.get() == 2.5
    monkeypatch.setenv("GT4PY_BUILD_LOCK_TIMEOUT", "0")
    assert config.BUILD_LOCK_TIMEOUT.get() == 0.0


# -- stage dumps --------------------------------------------------------------------------------

STAGES = [pipeline.Stage("frontend", "py"), pipeline.Stage("cpp", "cpp")]


def test_an_unwritable_dump_directory_names_the_variable_and_the_path(tmp_path, monkeypatch):
    # A file where a directory must be: unwritable even for root (chmod is not).
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("GT4PY_DUMP_STAGES", str(blocker / "dumps"))
    values = pipeline.StageValues(STAGES, {"frontend": "def f(): ...", "cpp": "int x;"})
    with pytest.raises(config.ConfigError) as info:
        values.dump(pipeline.dump_directory() / "program")
    message = str(info.value)
    assert "GT4PY_DUMP_STAGES" in message
    assert f"env GT4PY_DUMP_STAGES) is {blocker / 'dumps'}" in message
    assert str(blocker / "dumps" / "program") in message
    assert "unset it" in message


def test_a_dump_into_an_existing_unwritable_place_is_the_same_error(tmp_path):
    blocker = tmp_path / "frontend.py"
    blocker.mkdir()  # a directory where the dump file must go
    with config.overrides(dump_stages=tmp_path):
        values = pipeline.StageValues(STAGES, {"frontend": "def f(): ...", "cpp": "int x;"})
        with pytest.raises(config.ConfigError, match="GT4PY_DUMP_STAGES") as info:
            values.dump(tmp_path)
    assert "from overrides()" in str(info.value) or "overrides()" in str(info.value)


def test_a_failing_render_is_not_blamed_on_the_directory(tmp_path):
    values = pipeline.StageValues(STAGES, {"frontend": tmp_path / "missing.py"})
    with pytest.raises(FileNotFoundError):
        values.dump(tmp_path / "out")


# -- the holder record ------------------------------------------------------------------------


def test_the_holder_records_its_recent_build_time(tmp_path):
    lock = tmp_path / "ns" / "_locks" / f"{KEY.digest}.lock"
    _locking._note_build_time(lock, 0.2)  # too short to tell anything (a hit under the lock)
    assert _locking.expected_build_time(lock) is None
    _locking._note_build_time(lock, 12.0)
    _locking._note_build_time(lock, 4.0)
    assert _locking.expected_build_time(lock) == 12.0
    with _locking.build_lock(lock, entry="an entry"):
        record = json.loads(_locking.holder_path(lock).read_text())
    assert record["expected_s"] == 12.0
    assert record["pid"] == os.getpid()


@pytest.mark.parametrize(
    ("recorded", "own", "after", "expected"),
    [
        (None, None, _locking.REPORT_AFTER_S, None),
        (30.0, None, 90.0, 30.0),
        (2.0, None, _locking.MIN_REPORT_S, 2.0),
        (None, 25.0, 75.0, 25.0),
        (5.0, 40.0, 120.0, 40.0),  # the longer of the two
        ("junk", None, _locking.REPORT_AFTER_S, None),
        (float("nan"), None, _locking.REPORT_AFTER_S, None),
    ],
)
def test_report_threshold(tmp_path, recorded, own, after, expected):
    lock = tmp_path / "ns" / "_locks" / f"{KEY.digest}.lock"
    lock.parent.mkdir(parents=True)
    record = {"pid": 1, "host": "h", "since": time.time()}
    if recorded is not None:
        record["expected_s"] = recorded
    _locking.holder_path(lock).write_text(json.dumps(record))
    if own is not None:
        _locking._note_build_time(lock, own)
    assert _locking.report_threshold(lock) == (after, expected)

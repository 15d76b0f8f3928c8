"""ProcessRunner with real worker processes: artifacts, config and recursion limit in the
worker, errors, crashed workers, reuse and shutdown. Every test here starts processes."""

from __future__ import annotations

import concurrent.futures
import functools
import gc
import multiprocessing
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator

import pytest

from gt4py.infra import config, runners


sys.path.insert(0, str(pathlib.Path(__file__).parent))
import infra_runners_tasks as tasks


pytestmark = pytest.mark.slow

needs_posix_signals = pytest.mark.skipif(
    not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"
)
needs_linux_proc = pytest.mark.skipif(
    not pathlib.Path("/proc/self/task").exists(), reason="needs Linux /proc"
)


@pytest.fixture(scope="module")
def shared_runner() -> Iterator[runners.ProcessRunner]:
    """Two workers shared by the tests that only need *some* worker (saves start-up time)."""
    with runners.ProcessRunner(max_workers=2) as runner:
        yield runner


def _child_pids() -> set[int]:
    """Live children of this process (any of its threads), from /proc; Linux only."""
    children: set[int] = set()
    for task_dir in pathlib.Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task_dir / "children").read_text()
        children.update(int(pid) for pid in text.split())
    return children


def _is_zombie_or_gone(pid: int) -> bool:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def _gone(pid: int) -> bool:
    """Whether ``pid`` no longer exists at all (a zombie, i.e. an unreaped child, still does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_every_runner_produces_the_same_artifacts(shared_runner: runners.ProcessRunner) -> None:
    jobs = [
        functools.partial(tasks.build_artifact, f"stencil_{i}", 1000 + 37 * i) for i in range(8)
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as users_pool:
        all_runners: list[runners.Runner] = [
            runners.SerialRunner(),
            runners.ThreadRunner(max_workers=2),
            shared_runner,
            runners.ExecutorRunner(users_pool),
        ]
        artifacts = [[r.submit(job) for job in jobs] for r in all_runners]
        results = [[f.result() for f in futures] for futures in artifacts]
    assert results[0] == [job() for job in jobs]
    for other in results[1:]:
        assert other == results[0]


def test_submitting_from_many_threads_at_once(shared_runner: runners.ProcessRunner) -> None:
    def submit_many(thread_index: int) -> list[bytes]:
        jobs = [
            functools.partial(tasks.build_artifact, f"t{thread_index}_{i}", 100) for i in range(25)
        ]
        return [f.result() for f in [shared_runner.submit(job) for job in jobs]]

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as submitters:
        results = list(submitters.map(submit_many, range(8)))
    assert results == [
        [tasks.build_artifact(f"t{t}_{i}", 100) for i in range(25)] for t in range(8)
    ]


def test_the_worker_sees_the_submitters_config(shared_runner: runners.ProcessRunner) -> None:
    with config.overrides(cmake_build_type="Debug", build_jobs=7):
        debug = shared_runner.submit(functools.partial(tasks.setting_and_pid, "cmake_build_type"))
        jobs = shared_runner.submit(functools.partial(tasks.setting_and_pid, "build_jobs"))
        assert debug.result()[0] == "Debug"
        assert jobs.result()[0] == 7
    assert debug.result()[1] != os.getpid()
    # The snapshot is taken at submit: a later task in the same worker sees the new values.
    after = shared_runner.submit(functools.partial(tasks.setting_and_pid, "cmake_build_type"))
    assert after.result()[0] == config.get("cmake_build_type")


def test_the_config_is_applied_before_the_task_is_unpickled(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module that reads a setting at import time, imported by the worker while unpickling.
    (tmp_path / "infra_runners_import_time.py").write_text(
        "from gt4py.infra import config\n\n"
        "SEEN_AT_IMPORT = config.get('cmake_build_type')\n\n"
        "def seen_at_import() -> str:\n"
        "    return SEEN_AT_IMPORT\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import infra_runners_import_time

    with runners.ProcessRunner(max_workers=1) as runner:
        with config.overrides(cmake_build_type="RelWithDebInfo"):
            future = runner.submit(infra_runners_import_time.seen_at_import)
        assert future.result() == "RelWithDebInfo"


def test_the_worker_uses_the_callers_working_directory(
    shared_runner: runners.ProcessRunner, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert shared_runner.submit(tasks.cwd).result() == str(tmp_path)


_PLANTED = """\
import os
with open({marker!r}, "a") as marker:
    marker.write(f"planted pickle.py ran in process {{os.getpid()}}\\n")
"""


def _plant(directory: pathlib.Path) -> pathlib.Path:
    """A stdlib-shadowing ``pickle.py`` in ``directory`` that leaves a mark when imported."""
    marker = directory.parent / f"{directory.name}-marker"
    (directory / "pickle.py").write_text(_PLANTED.format(marker=str(marker)))
    return marker


def test_a_worker_does_not_import_from_the_working_directory(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44: ``python -c`` put the working directory first on the worker's sys.path, so a
    ``pickle.py`` left there ran in the worker. Workers start isolated (-I, ADR 0037)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    marker = _plant(shared)
    monkeypatch.chdir(shared)
    with runners.ProcessRunner(max_workers=1) as runner:  # started here, in `shared`
        isolated, no_user_site, pickle_file = runner.submit(tasks.interpreter_state).result()
        assert runner.submit(tasks.cwd).result() == str(shared)  # it does run there
    assert not marker.exists(), marker.read_text()
    assert (isolated, no_user_site) == (1, 1)
    assert pathlib.Path(pickle_file).parent != shared


_OTHER_USER = "gt4pyplanter"


def _second_user() -> tuple[int, bool]:
    """The uid of a second local account (created if this runs as root), and whether it was
    created here (then the test removes it); else skip."""
    import pwd

    if not hasattr(os, "geteuid") or shutil.which("runuser") is None:
        pytest.skip("needs POSIX users and runuser")
    try:
        return pwd.getpwnam(_OTHER_USER).pw_uid, False
    except KeyError:
        pass
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("a second local user needs root and useradd")
    created = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", _OTHER_USER],
        capture_output=True,
        text=True,
    )
    if created.returncode not in (0, 9):  # 9: created meanwhile by a concurrent run
        pytest.skip(f"useradd failed: {created.stderr.strip()}")
    return pwd.getpwnam(_OTHER_USER).pw_uid, created.returncode == 0


def test_a_worker_ignores_a_module_another_user_planted(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reported attack with a real second account: it plants ``pickle.py`` in a shared
    (sticky, world-writable) directory; this user's build worker started there ignores it."""
    uid, created = _second_user()
    if uid == os.geteuid():
        pytest.skip("the second user is this user")
    # under the system's temporary directory: pytest's own is private to this user
    top = pathlib.Path(tempfile.mkdtemp(prefix="gt4py-shared-"))
    try:
        top.chmod(0o755)
        shared = top / "shared"
        shared.mkdir()
        shared.chmod(0o1777)
        marker = top / "shared-marker"
        marker.write_text("")
        marker.chmod(0o666)  # the planted code may write it, as whoever runs it
        planted = subprocess.run(
            ["runuser", "-u", _OTHER_USER, "--", "tee", str(shared / "pickle.py")],
            input=_PLANTED.format(marker=str(marker)),
            capture_output=True,
            text=True,
        )
        if planted.returncode != 0:
            pytest.skip(f"runuser cannot run as {_OTHER_USER}: {planted.stderr.strip()}")
        assert (shared / "pickle.py").stat().st_uid == uid
        monkeypatch.chdir(shared)
        with runners.ProcessRunner(max_workers=1) as runner:
            runner.submit(tasks.interpreter_state).result()
        monkeypatch.undo()
        assert marker.read_text() == ""
    finally:
        shutil.rmtree(top, ignore_errors=True)
        if created:
            subprocess.run(["userdel", _OTHER_USER], capture_output=True)


def test_the_worker_uses_the_callers_recursion_limit(shared_runner: runners.ProcessRunner) -> None:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(previous + 4321)
    try:
        limit, pid = shared_runner.submit(tasks.recursion_limit_and_pid).result()
        depth = shared_runner.submit(functools.partial(tasks.nest, previous + 2000)).result()
    finally:
        sys.setrecursionlimit(previous)
    assert (limit, pid != os.getpid()) == (previous + 4321, True)
    assert depth == previous + 2000


def test_an_exception_keeps_its_type_and_message(shared_runner: runners.ProcessRunner) -> None:
    future = shared_runner.submit(functools.partial(tasks.fail, "gtfn: no such offset Koff"))
    with pytest.raises(tasks.BuildFailedError) as info:
        future.result()
    assert str(info.value) == "gtfn: no such offset Koff"
    (note,) = info.value.__notes__
    assert note.startswith("Raised in gt4py build worker process")
    assert "infra_runners_tasks.py" in note and "in fail" in note


def test_an_exception_that_cannot_be_rebuilt_becomes_a_runtime_error_with_its_traceback(
    shared_runner: runners.ProcessRunner,
) -> None:
    future = shared_runner.submit(functools.partial(tasks.fail_stubbornly, "compile", "boom"))
    with pytest.raises(RuntimeError) as info:
        future.result()
    text = str(info.value)
    assert "raised infra_runners_tasks.StubbornError: compile failed: boom" in text
    assert "cannot be sent back from the worker" in text
    assert "Traceback" in text and "in fail_stubbornly" in text


def test_sys_exit_in_a_task_fails_the_task_not_the_worker(
    shared_runner: runners.ProcessRunner,
) -> None:
    with pytest.raises(SystemExit) as info:
        shared_runner.submit(functools.partial(tasks.exit_task, 3)).result()
    assert info.value.code == 3
    assert shared_runner.submit(tasks.pid).result() != os.getpid()


def test_an_unpicklable_result_is_a_clear_error(shared_runner: runners.ProcessRunner) -> None:
    with pytest.raises(RuntimeError, match=r"result \(a function\) cannot be pickled"):
        shared_runner.submit(tasks.unpicklable_result).result()


def test_task_output_does_not_disturb_the_worker(shared_runner: runners.ProcessRunner) -> None:
    assert shared_runner.submit(functools.partial(tasks.noisy, 21)).result() == 42
    assert shared_runner.submit(tasks.read_stdin).result() == ""


@needs_linux_proc
def test_workers_start_lazily_and_are_reused() -> None:
    before = _child_pids()
    with runners.ProcessRunner(max_workers=1) as runner:
        assert _child_pids() == before  # nothing starts before the first task
        first, second = (runner.submit(tasks.pid).result() for _ in range(2))
        assert first == second != os.getpid()
        assert first in _child_pids()
    assert _gone(first)  # stopped and reaped by shutdown


@needs_posix_signals
def test_a_killed_worker_fails_its_task_clearly_and_is_replaced() -> None:
    with runners.ProcessRunner(max_workers=1) as runner:
        first_pid = runner.submit(tasks.pid).result()
        doomed = runner.submit(tasks.kill_own_worker)
        with pytest.raises(runners.WorkerCrashedError) as info:
            doomed.result(timeout=60)
        message = str(info.value)
        assert f"worker process {first_pid} was killed by signal 9 (SIGKILL)" in message
        assert "kill_own_worker" in message and "result is lost" in message
        replacement_pid = runner.submit(tasks.pid).result(timeout=60)
        assert replacement_pid not in (first_pid, os.getpid())
    assert _gone(first_pid) and _gone(replacement_pid)


@needs_posix_signals
@needs_linux_proc
def test_a_worker_killed_while_idle_is_replaced_transparently() -> None:
    with runners.ProcessRunner(max_workers=1) as runner:
        first_pid = runner.submit(tasks.pid).result()
        os.kill(first_pid, signal.SIGKILL)
        while not _is_zombie_or_gone(first_pid):  # dead before the next task is sent
            time.sleep(0.01)
        assert runner.submit(tasks.pid).result(timeout=60) not in (first_pid, os.getpid())


def test_a_worker_killed_before_reading_its_task_is_replaced_transparently() -> None:
    # The task is written into the pipe of a stopped worker, which dies without reading it:
    # the write succeeded, yet the task never started, so another worker must run it.
    with runners.ProcessRunner(max_workers=1) as runner:
        first_pid = runner.submit(tasks.pid).result()
        os.kill(first_pid, signal.SIGSTOP)
        future = runner.submit(tasks.pid)
        time.sleep(0.3)  # the feeder has written the task by now
        os.kill(first_pid, signal.SIGKILL)
        assert future.result(timeout=60) not in (first_pid, os.getpid())


def test_a_forgotten_runner_stops_its_workers() -> None:
    runner = runners.ProcessRunner(max_workers=1)
    worker_pid = runner.submit(tasks.pid).result()
    del runner
    gc.collect()
    deadline = time.monotonic() + 60
    while not _gone(worker_pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _gone(worker_pid)


def test_shutdown_waits_for_queued_tasks_and_reaps_the_workers() -> None:
    runner = runners.ProcessRunner(max_workers=2)
    futures = [runner.submit(functools.partial(tasks.sleep_then_pid, 0.1)) for _ in range(4)]
    runner.shutdown(wait=True)
    assert all(f.done() for f in futures)
    worker_pids = {f.result() for f in futures}
    assert os.getpid() not in worker_pids
    assert all(_gone(pid) for pid in worker_pids)


def test_shutdown_can_cancel_queued_tasks() -> None:
    runner = runners.ProcessRunner(max_workers=1)
    running = runner.submit(functools.partial(tasks.sleep_then_pid, 0.5))
    queued = [runner.submit(tasks.pid) for _ in range(3)]
    while not running.running():
        time.sleep(0.01)
    runner.shutdown(wait=True, cancel_futures=True)
    assert running.result() != os.getpid()
    assert all(f.cancelled() for f in queued)


def test_a_new_sys_path_entry_reaches_running_workers(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "infra_runners_late_module.py").write_text(
        textwrap.dedent(
            """
            def answer() -> str:
                return "found"
            """
        )
    )
    with runners.ProcessRunner(max_workers=1) as runner:
        runner.submit(tasks.pid).result()  # the worker is up, with the old sys.path
        monkeypatch.syspath_prepend(str(tmp_path))
        import infra_runners_late_module

        assert runner.submit(infra_runners_late_module.answer).result() == "found"


def test_a_task_the_worker_cannot_load_runs_here_with_a_warning(tmp_path: pathlib.Path) -> None:
    # A module imported from a file path, not from sys.path: it pickles by name here, but a
    # worker cannot import that name.
    import importlib.util

    source = tmp_path / "infra_runners_unreachable.py"
    source.write_text("import os\n\ndef where() -> int:\n    return os.getpid()\n")
    spec = importlib.util.spec_from_file_location("infra_runners_unreachable", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        with (
            runners.ProcessRunner(max_workers=1) as runner,
            pytest.warns(
                runners.TaskNotPicklableWarning,
                match=r"cannot be loaded in a worker process \(ModuleNotFoundError",
            ),
        ):
            assert runner.submit(module.where).result(timeout=60) == os.getpid()
    finally:
        del sys.modules[spec.name]


def test_executor_runner_applies_the_snapshot_in_a_foreign_process_pool() -> None:
    spawn = multiprocessing.get_context("spawn")
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=spawn)
    with runners.ExecutorRunner(pool, owns_executor=True) as runner:
        with config.overrides(cmake_build_type="MinSizeRel"):
            future = runner.submit(functools.partial(tasks.setting_and_pid, "cmake_build_type"))
        value, pid = future.result(timeout=120)
        source = runner.submit(functools.partial(tasks.setting_source, "cmake_build_type"))
        assert source.result(timeout=120) == "snapshot"
    assert (value, pid != os.getpid()) == ("MinSizeRel", True)

"""ProcessRunner used from user programs: a script without a main guard, code piped to the
interpreter, an interactive session; interpreter exit with work still queued; a dying parent.
Each test runs a fresh interpreter, as a user would."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest


sys.path.insert(0, str(pathlib.Path(__file__).parent))
import infra_runners_tasks as tasks


pytestmark = pytest.mark.slow

TASKS_DIR = str(pathlib.Path(__file__).parent)

# Deliberately no `if __name__ == "__main__":` guard: released gt4py's process pool re-runs
# such a script in every worker and fails with BrokenProcessPool.
UNGUARDED_PROGRAM = textwrap.dedent(
    f"""
    import functools, os, sys
    sys.path.insert(0, {TASKS_DIR!r})
    import infra_runners_tasks as tasks
    from gt4py.infra import runners

    runner = runners.default_runner()
    print("runner", type(runner).__name__)
    jobs = [functools.partial(tasks.build_artifact, f"s{{i}}", 64) for i in range(4)]
    futures = [runner.submit(job) for job in jobs]
    print("artifacts", " ".join(f.result().hex() for f in futures))
    print("workers", " ".join(str(runner.submit(tasks.pid).result()) for _ in range(3)))
    print("main", os.getpid())

    def defined_in_main():
        return "ran in main"

    print("main_task", runner.submit(defined_in_main).result())
    """
)


def _run_python(
    args: list[str], *, stdin: str | None = None, env_extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GT4PY_BUILD_JOBS_MODE": "process", "GT4PY_BUILD_JOBS": "2"}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,  # a hang fails the test instead of blocking the suite
        check=False,
    )


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _exited(pid: int) -> bool:
    """Gone, or a zombie waiting for a reaper that is not ours (an orphan's new parent)."""
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


def _parse(stdout: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)


@pytest.mark.parametrize("how", ["script", "piped", "interactive"])
def test_process_runner_works_without_a_main_guard(how: str, tmp_path: pathlib.Path) -> None:
    if how == "script":
        script = tmp_path / "user_script.py"
        script.write_text(UNGUARDED_PROGRAM)
        result = _run_python([str(script)])
    elif how == "piped":  # like a notebook cell: __main__ has no file to re-run
        result = _run_python(["-"], stdin=UNGUARDED_PROGRAM)
    else:  # a REPL session: statements fed to `python -i`, blank lines close the def
        result = _run_python(["-i"], stdin=UNGUARDED_PROGRAM + "\n\nexit()\n")
    assert result.returncode == 0, result.stderr
    assert "BrokenProcessPool" not in result.stderr
    assert "Traceback" not in result.stderr, result.stderr

    printed = _parse(result.stdout.replace(">>> ", "").replace("... ", ""))
    assert printed["runner"] == "ProcessRunner"
    expected = " ".join(tasks.build_artifact(f"s{i}", 64).hex() for i in range(4))
    assert printed["artifacts"] == expected
    workers = {int(pid) for pid in printed["workers"].split()}
    assert int(printed["main"]) not in workers
    assert all(_gone(pid) for pid in workers)  # stopped and reaped at exit

    # The function defined in __main__ ran in the main process, with a warning saying why.
    assert printed["main_task"] == "ran in main"
    assert "TaskNotPicklableWarning" in result.stderr
    assert "defined_in_main" in result.stderr and "main module" in result.stderr


def test_exit_with_work_in_flight_is_clean(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "leave_early.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import functools, sys, time
            sys.path.insert(0, {TASKS_DIR!r})
            import infra_runners_tasks as tasks
            from gt4py.infra import runners

            runner = runners.ProcessRunner(max_workers=1)
            print("worker", runner.submit(tasks.pid).result(), flush=True)
            marker = {str(tmp_path / "ran")!r}
            running = runner.submit(functools.partial(tasks.sleep_then_touch, 0.5, marker + "0"))
            while not running.running():
                time.sleep(0.01)
            queued = [
                runner.submit(functools.partial(tasks.sleep_then_touch, 0, marker + str(i)))
                for i in range(1, 4)
            ]
            # No shutdown(): the interpreter exits with one task running and three queued.
            """
        )
    )
    result = _run_python([str(script)])
    assert result.returncode == 0
    assert result.stderr == ""  # no tracebacks, no warnings about leaked processes
    worker = int(_parse(result.stdout)["worker"])
    assert _gone(worker)
    # The running task was allowed to finish; the queued ones were cancelled, not run.
    assert sorted(p.name for p in tmp_path.glob("ran*")) == ["ran0"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
@pytest.mark.skipif(not pathlib.Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_their_parent_dies(tmp_path: pathlib.Path) -> None:
    script = tmp_path / "killed_parent.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import os, signal, sys
            sys.path.insert(0, {TASKS_DIR!r})
            import infra_runners_tasks as tasks
            from gt4py.infra import runners

            runner = runners.ProcessRunner(max_workers=1)
            print("worker", runner.submit(tasks.pid).result(), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
            """
        )
    )
    result = _run_python([str(script)])
    assert result.returncode == -signal.SIGKILL
    worker = int(_parse(result.stdout)["worker"])
    deadline = time.monotonic() + 30
    while not _exited(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _exited(worker), "an orphaned worker kept running after its parent died"

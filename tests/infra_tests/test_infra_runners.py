"""Runners that need no worker process: serial, thread, executor; argument checking; the default
runner; the fallback for tasks that cannot be pickled (which starts no worker either)."""

from __future__ import annotations

import concurrent.futures
import functools
import os
import pathlib
import sys
import types

import pytest

from gt4py.infra import config, runners


sys.path.insert(0, str(pathlib.Path(__file__).parent))
import infra_runners_tasks as tasks


# -- SerialRunner ------------------------------------------------------------------------------
def test_serial_runner_runs_at_submit_and_returns_a_done_future() -> None:
    calls: list[int] = []

    def build() -> str:
        calls.append(1)
        return "artifact"

    future = runners.SerialRunner().submit(build)
    assert calls == [1]
    assert future.done()
    assert future.result() == "artifact"


def test_serial_runner_captures_exceptions_into_the_future() -> None:
    future = runners.SerialRunner().submit(functools.partial(tasks.fail, "no compiler"))
    assert future.done()
    with pytest.raises(tasks.BuildFailedError, match="no compiler"):
        future.result()


def test_serial_runner_lets_keyboard_interrupt_through() -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runners.SerialRunner().submit(interrupted)


# -- ThreadRunner ------------------------------------------------------------------------------
def test_thread_runner_runs_tasks_on_other_threads() -> None:
    import threading

    with runners.ThreadRunner(max_workers=2) as runner:
        futures = [runner.submit(threading.get_ident) for _ in range(4)]
        assert all(f.result() != threading.get_ident() for f in futures)
        failing = runner.submit(functools.partial(tasks.fail, "bad IR"))
        with pytest.raises(tasks.BuildFailedError, match="bad IR"):
            failing.result()


def test_thread_runner_defaults_to_build_jobs() -> None:
    with config.overrides(build_jobs=3):
        runner = runners.ThreadRunner()
    assert runner.max_workers == 3
    runner.shutdown()


# -- ExecutorRunner ----------------------------------------------------------------------------
def test_executor_runner_uses_the_users_executor_without_pinning_the_config() -> None:
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        runner = runners.ExecutorRunner(pool)
        with config.overrides(cmake_build_type="Debug"):
            value, pid = runner.submit(
                functools.partial(tasks.setting_and_pid, "cmake_build_type")
            ).result()
        assert (value, pid) == ("Debug", os.getpid())
        # In its own process the task must not apply the snapshot: that would pin every
        # setting for the whole program once the override above has ended.
        assert config.resolve("cmake_build_type").source != "snapshot"

        runner.shutdown()
        assert runner.closed
        assert pool.submit(int).result() == 0  # the user's executor is still the user's


def test_executor_runner_shuts_down_an_executor_it_owns() -> None:
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    with runners.ExecutorRunner(pool, owns_executor=True) as runner:
        assert runner.submit(functools.partial(tasks.build_artifact, "a", 8)).result()
    with pytest.raises(RuntimeError, match="shutdown"):
        pool.submit(int)


def test_executor_runner_shutdown_waits_for_its_tasks() -> None:
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        runner = runners.ExecutorRunner(pool)
        future = runner.submit(functools.partial(tasks.sleep_then_pid, 0.2))
        runner.shutdown(wait=True)
        assert future.done()


def test_executor_runner_rejects_what_is_not_an_executor() -> None:
    with pytest.raises(TypeError, match=r"concurrent\.futures\.Executor.*got 42 of type int"):
        runners.ExecutorRunner(42)  # type: ignore[arg-type]


# -- argument checking -------------------------------------------------------------------------
def _every_runner() -> list[runners.Runner]:
    return [
        runners.SerialRunner(),
        runners.ThreadRunner(1),
        runners.ProcessRunner(1),
        runners.ExecutorRunner(concurrent.futures.ThreadPoolExecutor(1), owns_executor=True),
    ]


def test_submit_rejects_non_callables() -> None:
    for runner in _every_runner():
        with runner, pytest.raises(TypeError, match=r"callable taking no arguments, got 'x'"):
            runner.submit("x")  # type: ignore[arg-type]


def test_submit_after_shutdown_is_refused() -> None:
    for runner in _every_runner():
        runner.shutdown()
        with pytest.raises(RuntimeError, match=f"{type(runner).__name__} after shutdown"):
            runner.submit(tasks.pid)


@pytest.mark.parametrize("runner_type", [runners.ThreadRunner, runners.ProcessRunner])
def test_bad_max_workers_is_a_clear_error(runner_type: type[runners.Runner]) -> None:
    with pytest.raises(ValueError, match=r"max_workers=0\) must be at least 1"):
        runner_type(0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="must be an int or None, got '2'"):
        runner_type("2")  # type: ignore[call-arg]


# -- the default runner ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "expected_type"),
    [
        ("serial", runners.SerialRunner),
        ("thread", runners.ThreadRunner),
        ("process", runners.ProcessRunner),
    ],
)
def test_default_runner_follows_the_settings(
    mode: str, expected_type: type[runners.Runner]
) -> None:
    with config.overrides(build_jobs_mode=mode, build_jobs=3):
        runner = runners.default_runner()
        assert type(runner) is expected_type
        assert runners.default_runner() is runner  # one shared runner per setting pair
        if mode != "serial":
            assert runner.max_workers == 3  # type: ignore[attr-defined]


def test_default_runner_is_replaced_after_a_shutdown() -> None:
    with config.overrides(build_jobs_mode="thread", build_jobs=1):
        first = runners.default_runner()
        first.shutdown()
        second = runners.default_runner()
    assert second is not first
    assert second.submit(tasks.pid).result() == os.getpid()


def test_default_runner_is_process_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GT4PY_BUILD_JOBS_MODE", raising=False)
    monkeypatch.setenv("GT4PY_BUILD_JOBS", "2")
    runner = runners.default_runner()
    assert isinstance(runner, runners.ProcessRunner)
    assert runner.max_workers == 2


def test_available_cpus_follows_the_affinity_mask(monkeypatch: pytest.MonkeyPatch) -> None:
    if hasattr(os, "sched_getaffinity"):
        assert runners.available_cpus() == len(os.sched_getaffinity(0))
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
        assert runners.available_cpus() == 1
        monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 5)
    assert runners.available_cpus() == 5


# -- tasks that cannot go to a worker process (fallback; no worker is started) ----------------
def test_a_lambda_falls_back_to_the_calling_thread_with_a_warning() -> None:
    with runners.ProcessRunner(1) as runner:
        with pytest.warns(runners.TaskNotPicklableWarning, match="cannot be sent to a worker"):
            future = runner.submit(lambda: ("built here", os.getpid()))
        assert future.done()
        assert future.result() == ("built here", os.getpid())
        assert runner._pool._feeders == []  # nothing was started for it


def test_a_closure_falls_back_and_its_exception_still_reaches_the_future() -> None:
    message = "closure failed"

    def closure() -> None:
        raise ValueError(message)

    with runners.ProcessRunner(1) as runner:
        with pytest.warns(runners.TaskNotPicklableWarning, match=r"local object.*closure"):
            future = runner.submit(closure)
        with pytest.raises(ValueError, match="closure failed"):
            future.result()


def test_a_task_referring_to_main_falls_back_naming_the_culprit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A class that pickles fine here (it is found in __main__) but that a worker, whose
    # __main__ is not the user's, could never unpickle: as if defined in a notebook.
    main_module = sys.modules["__main__"]
    notebook_class = types.new_class("NotebookStencil")
    notebook_class.__module__ = "__main__"
    monkeypatch.setattr(main_module, "NotebookStencil", notebook_class, raising=False)

    task = functools.partial(tasks.build_artifact, "x", 4)
    task.__dict__["origin"] = notebook_class()  # the task carries an object from __main__
    with runners.ProcessRunner(1) as runner:
        with pytest.warns(
            runners.TaskNotPicklableWarning,
            match=r"refers to class 'NotebookStencil', defined in the main module",
        ):
            future = runner.submit(task)
        assert future.result() == tasks.build_artifact("x", 4)

"""Runners that execute tasks inside this process: serially, or on a thread pool."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import TypeVar

from ._base import Runner, resolve_max_workers, run_now


T = TypeVar("T")


class SerialRunner(Runner):
    """Runs each task in the calling thread, at ``submit``; the returned future is done.

    Exceptions raised by the task are captured into the future, as with the other runners.
    """

    def submit(self, task: Callable[[], T]) -> concurrent.futures.Future[T]:
        self._check_submission(task)
        return run_now(task)

    def shutdown(self, wait: bool = True) -> None:
        self._closed = True


class ThreadRunner(Runner):
    """Runs tasks on up to ``max_workers`` threads (default: the ``build_jobs`` setting).

    Threads share this process's live configuration, so no config snapshot is applied: changing
    a setting while tasks run is seen by the tasks that have not read it yet.
    """

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = resolve_max_workers(max_workers, "ThreadRunner")
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.max_workers, thread_name_prefix="gt4py-build"
        )

    def submit(self, task: Callable[[], T]) -> concurrent.futures.Future[T]:
        self._check_submission(task)
        return self._executor.submit(task)

    def shutdown(self, wait: bool = True) -> None:
        self._closed = True
        self._executor.shutdown(wait=wait)

    def __repr__(self) -> str:
        return f"ThreadRunner(max_workers={self.max_workers})"

"""``ExecutorRunner``: tasks run on any ``concurrent.futures.Executor`` the user already has."""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ._base import Runner, short_repr
from ._task import ConfiguredTask


T = TypeVar("T")


class ExecutorRunner(Runner):
    """Runs tasks on ``executor``: a ``ThreadPoolExecutor``, an ``mpi4py.futures.MPIPoolExecutor``,
    a dask ``Client.get_executor()``... so a compile farm can use an existing engine.

    Each task is wrapped with the caller's config snapshot and recursion limit, applied when it
    runs in another process. Serialization is the executor's business (dask's cloudpickle ships
    lambdas that plain pickle refuses), so no picklability check is made here.

    ``shutdown()`` waits for this runner's tasks and leaves the executor to its owner, unless
    ``owns_executor=True`` hands the executor over (then it is shut down as well).
    """

    def __init__(
        self, executor: concurrent.futures.Executor, *, owns_executor: bool = False
    ) -> None:
        if not callable(getattr(executor, "submit", None)):
            raise TypeError(
                "ExecutorRunner() needs a concurrent.futures.Executor (an object with "
                f"submit()), got {short_repr(executor)} of type {type(executor).__name__}"
            )
        self.executor = executor
        self._owns_executor = owns_executor
        self._outstanding: set[concurrent.futures.Future[Any]] = set()
        self._lock = threading.Lock()

    def submit(self, task: Callable[[], T]) -> concurrent.futures.Future[T]:
        self._check_submission(task)
        future = self.executor.submit(ConfiguredTask.capture(task))
        with self._lock:
            self._outstanding.add(future)
        future.add_done_callback(self._forget)
        return future

    def _forget(self, future: concurrent.futures.Future[Any]) -> None:
        with self._lock:
            self._outstanding.discard(future)

    def shutdown(self, wait: bool = True) -> None:
        self._closed = True
        if self._owns_executor:
            self.executor.shutdown(wait=wait)
        elif wait:
            with self._lock:
                outstanding = list(self._outstanding)
            concurrent.futures.wait(outstanding)

    def __repr__(self) -> str:
        return f"ExecutorRunner({short_repr(self.executor)})"

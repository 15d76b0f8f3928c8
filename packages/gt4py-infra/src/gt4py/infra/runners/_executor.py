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
    a dask ``Client`` (its ``get_executor()`` is used) or ``Client.get_executor()``... so a
    compile farm can use an existing engine.

    Each task is wrapped with the caller's config snapshot and recursion limit, applied when it
    runs in another process. Serialization is the executor's business (dask's cloudpickle ships
    lambdas that plain pickle refuses), so no picklability check is made here.

    ``shutdown()`` waits for this runner's tasks and leaves the executor to its owner, unless
    ``owns_executor=True`` hands the executor over (then it is shut down as well).
    """

    def __init__(self, executor: Any, *, owns_executor: bool = False) -> None:
        if _is_dask_client(executor):
            # A dask Client's own submit() returns dask futures, not concurrent ones; its
            # executor view returns concurrent.futures.Future objects.
            executor = executor.get_executor()
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
        future: concurrent.futures.Future[T] = self.executor.submit(ConfiguredTask.capture(task))
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


def _is_dask_client(obj: object) -> bool:
    return type(obj).__module__.split(".")[0] == "distributed" and callable(
        getattr(obj, "get_executor", None)
    )


def as_runner(runner: Any = None) -> Runner:
    """``runner`` as a :class:`Runner`: ``None`` is :func:`default_runner`, a ``Runner`` is
    itself, a ``concurrent.futures.Executor`` or a dask ``Client`` is wrapped in an
    :class:`ExecutorRunner` (which leaves the executor to its owner)."""
    if runner is None:
        from ._default import default_runner

        return default_runner()
    if isinstance(runner, Runner):
        return runner
    if isinstance(runner, concurrent.futures.Executor) or _is_dask_client(runner):
        return ExecutorRunner(runner)
    raise TypeError(
        "expected a gt4py.infra.runners.Runner, a concurrent.futures.Executor or a dask "
        f"Client, got {short_repr(runner)} of type {type(runner).__name__}"
    )

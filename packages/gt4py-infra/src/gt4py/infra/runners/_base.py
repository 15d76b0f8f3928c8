"""The ``Runner`` interface: submit tasks without arguments, get futures of their artifacts."""

from __future__ import annotations

import abc
import concurrent.futures
from collections.abc import Callable
from typing import Any, Self, TypeVar


T = TypeVar("T")


class Runner(abc.ABC):
    """Runs build tasks and hands back futures of the artifacts they produce.

    A task is a callable without arguments (typically a ``functools.partial`` of a module-level
    function over some IR). Workers produce artifacts (files in the cache, bytes, paths); they
    never load them, so artifacts must be plain picklable values.
    """

    _closed: bool = False

    @abc.abstractmethod
    def submit(self, task: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Schedule ``task()`` and return a future of its result."""

    @abc.abstractmethod
    def shutdown(self, wait: bool = True) -> None:
        """Refuse new tasks; with ``wait``, return only once every submitted task has ended."""

    @property
    def closed(self) -> bool:
        """Whether ``shutdown()`` was called."""
        return self._closed

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown(wait=True)

    def _check_submission(self, task: object) -> None:
        if self._closed:
            raise RuntimeError(f"cannot submit a task to a {type(self).__name__} after shutdown()")
        if not callable(task):
            raise TypeError(
                f"{type(self).__name__}.submit() needs a callable taking no arguments, "
                f"got {short_repr(task)} of type {type(task).__name__}"
            )


def run_now(task: Callable[[], T]) -> concurrent.futures.Future[T]:
    """Run ``task`` in the calling thread; its result or exception goes into a done future.

    ``BaseException``s that are not ``Exception``s (``KeyboardInterrupt``...) propagate at once:
    the user interrupted *this* thread, and must not find out only at ``result()``.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    future.set_running_or_notify_cancel()
    try:
        result = task()
    except Exception as error:
        future.set_exception(error)
    else:
        future.set_result(result)
    return future


def resolve_max_workers(max_workers: int | None, runner_name: str) -> int:
    """``max_workers`` checked, or the ``build_jobs`` setting when it is ``None``."""
    if max_workers is None:
        from gt4py.infra import config

        return config.BUILD_JOBS.get()
    if not isinstance(max_workers, int) or isinstance(max_workers, bool):
        raise TypeError(
            f"{runner_name}(max_workers=...) must be an int or None, "
            f"got {max_workers!r} of type {type(max_workers).__name__}"
        )
    if max_workers < 1:
        raise ValueError(f"{runner_name}(max_workers={max_workers}) must be at least 1")
    return max_workers


def short_repr(value: Any, limit: int = 120) -> str:
    """``repr`` cut to ``limit`` characters, for error messages about arbitrary objects."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__qualname__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."

"""A task packed with what its worker must know: the caller's config and recursion limit."""

from __future__ import annotations

import dataclasses
import os
import sys
import uuid
from collections.abc import Callable
from typing import Final, Generic, TypeVar

from gt4py.infra import config


T = TypeVar("T")

# Identifies this interpreter: a pid alone is ambiguous across machines (MPI, dask) and a token
# alone is inherited by a forked child, so the origin is both.
_PROCESS_TOKEN: Final = uuid.uuid4().hex


def _this_process() -> tuple[int, str]:
    return os.getpid(), _PROCESS_TOKEN


@dataclasses.dataclass(frozen=True)
class ConfiguredTask(Generic[T]):
    """``task`` plus the submitter's config snapshot and recursion limit.

    Called in another process, it first makes that process use the submitter's settings and
    recursion limit (deep IR trees need the caller's limit to be pickled and visited). Called
    in the submitting process itself (an in-process executor), it applies nothing: the config
    and the recursion limit are process-wide, and applying a snapshot there would pin every
    setting for the whole program.
    """

    task: Callable[[], T]
    config: config.Snapshot
    recursion_limit: int
    origin: tuple[int, str]

    @classmethod
    def capture(cls, task: Callable[[], T]) -> ConfiguredTask[T]:
        return cls(task, config.snapshot(), sys.getrecursionlimit(), _this_process())

    def __call__(self) -> T:
        if self.origin != _this_process():
            config.apply(self.config)
            sys.setrecursionlimit(self.recursion_limit)
        return self.task()

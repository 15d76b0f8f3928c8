"""The process-wide runner chosen by the ``build_jobs_mode`` and ``build_jobs`` settings."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

from gt4py.infra import config

from ._base import Runner
from ._in_process import SerialRunner, ThreadRunner
from ._process import ProcessRunner


_FACTORIES: Final[dict[str, Callable[[int], Runner]]] = {
    "process": ProcessRunner,
    "thread": ThreadRunner,
    "serial": lambda _jobs: SerialRunner(),
}
_runners: dict[tuple[str, int], Runner] = {}
_lock = threading.Lock()


def default_runner() -> Runner:
    """The shared runner for the current ``build_jobs_mode`` and ``build_jobs`` settings.

    The settings are read at every call, so ``config.overrides(build_jobs_mode="serial")``
    takes effect at once; one runner per distinct setting pair is kept for the process's
    lifetime (a runner that was shut down is replaced).
    """
    mode = config.BUILD_JOBS_MODE.get()
    jobs = 1 if mode == "serial" else config.BUILD_JOBS.get()
    factory = _FACTORIES.get(mode)
    if factory is None:
        raise config.ConfigError(
            f"gt4py setting 'build_jobs_mode' is {mode!r}; choose one of: {', '.join(_FACTORIES)}"
        )
    with _lock:
        runner = _runners.get((mode, jobs))
        if runner is None or runner.closed:
            runner = _runners[mode, jobs] = factory(jobs)
    return runner

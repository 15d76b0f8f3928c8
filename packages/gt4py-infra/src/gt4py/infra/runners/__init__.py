"""Compilation runners: where build tasks run (serially, on threads, in worker processes, or
on any ``concurrent.futures.Executor``).

``default_runner()`` picks one from the ``build_jobs_mode`` and ``build_jobs`` settings
(``GT4PY_BUILD_JOBS_MODE``, ``GT4PY_BUILD_JOBS``). Process workers never re-import the user's
``__main__``, so scripts without a main guard, notebooks and REPLs all work.
``as_runner()`` turns ``None``, a runner, any ``concurrent.futures.Executor`` (e.g.
``mpi4py.futures.MPIPoolExecutor``) or a dask ``Client`` into a runner (extras
``gt4py-infra[dask]``, ``gt4py-infra[mpi]``).
"""

from gt4py.infra.config import available_cpus as available_cpus

from ._base import Runner as Runner
from ._default import default_runner as default_runner
from ._errors import (
    TaskNotPicklableWarning as TaskNotPicklableWarning,
    WorkerCrashedError as WorkerCrashedError,
)
from ._executor import ExecutorRunner as ExecutorRunner, as_runner as as_runner
from ._in_process import SerialRunner as SerialRunner, ThreadRunner as ThreadRunner
from ._process import ProcessRunner as ProcessRunner


__all__ = [
    "ExecutorRunner",
    "ProcessRunner",
    "Runner",
    "SerialRunner",
    "TaskNotPicklableWarning",
    "ThreadRunner",
    "WorkerCrashedError",
    "as_runner",
    "available_cpus",
    "default_runner",
]

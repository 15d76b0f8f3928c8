"""The errors and warnings a runner reports to its users."""

from __future__ import annotations


class WorkerCrashedError(RuntimeError):
    """A worker process died (killed, out of memory, interpreter crash) while running a task.

    Only the task that was running is lost: the runner replaces the worker for the next task.
    """


class TaskNotPicklableWarning(RuntimeWarning):
    """A task could not be shipped to a worker process, so it ran in this process instead."""

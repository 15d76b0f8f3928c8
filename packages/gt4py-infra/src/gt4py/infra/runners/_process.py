"""``ProcessRunner``: tasks run in a pool of worker processes that never import ``__main__``.

Each worker is a ``python -c`` interpreter speaking length-prefixed pickles over its stdin and
stdout (see ``_protocol``), started at the first task that needs it and reused for later ones.
In this process, one thread per worker feeds it tasks from a shared queue and settles their
futures. No ``multiprocessing`` (whose spawn and forkserver modes re-run the user's main
module) and no ``fork`` (unsafe in a process with threads).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import dataclasses
import itertools
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import IO, Any, Final, TypeVar, cast

from gt4py.infra import config
from gt4py.infra._python_command import python_command

from ._base import Runner, resolve_max_workers, run_now, short_repr
from ._errors import TaskNotPicklableWarning, WorkerCrashedError
from ._pickling import TaskNotPicklableError, dumps_for_worker
from ._protocol import FrameKind, TaskContext, TaskFailure, read_frame, write_frame


T = TypeVar("T")

# The worker imports gt4py.infra from the very directory this process imported it from.
_INFRA_ROOT: Final = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
_BOOTSTRAP: Final = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from gt4py.infra.runners._worker import main; sys.exit(main())"
)
# How long a worker asked to stop (stdin closed, between tasks) may take before it is killed.
_STOP_TIMEOUT_S: Final = 10.0
_WORKER_NUMBERS = itertools.count(1)


class ProcessRunner(Runner):
    """Runs tasks in up to ``max_workers`` worker processes (default: the ``build_jobs`` setting).

    Workers start lazily and are reused. Each task carries ``config.snapshot()``, the caller's
    recursion limit and working directory, applied in the worker before the task is unpickled.
    A task that cannot be pickled, or refers to something defined in ``__main__``, runs in the
    calling thread with a ``TaskNotPicklableWarning``. A worker that dies fails only its current
    task, with ``WorkerCrashedError``, and is replaced. At interpreter exit queued tasks are
    cancelled, running ones finish, and every worker is stopped and reaped.
    """

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = resolve_max_workers(max_workers, "ProcessRunner")
        self._pool = _WorkerPool(self.max_workers)
        # A forgotten runner lets its queued tasks finish (someone may wait on their futures),
        # then its workers stop. Interpreter exit is handled by _close_pools_at_exit instead.
        finalizer = weakref.finalize(self, self._pool.close, wait=False, cancel_pending=False)
        finalizer.atexit = False

    def submit(self, task: Callable[[], T]) -> concurrent.futures.Future[T]:
        self._check_submission(task)
        try:
            payload = dumps_for_worker(task)
        except TaskNotPicklableError as why:
            warnings.warn(
                f"gt4py: task {short_repr(task)} cannot be sent to a worker process ({why}); "
                "running it in the calling thread instead. Build tasks from module-level "
                "functions (e.g. functools.partial of one) to run them in parallel.",
                TaskNotPicklableWarning,
                stacklevel=2,
            )
            return run_now(task)
        context = TaskContext(config.snapshot(), sys.getrecursionlimit(), os.getcwd())
        return self._pool.submit(_Job(concurrent.futures.Future(), context, payload, task))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new tasks and stop the workers once the queued tasks are done.

        ``cancel_futures`` cancels the queued tasks that have not started yet.
        """
        self._closed = True
        self._pool.close(wait=wait, cancel_pending=cancel_futures)

    def __repr__(self) -> str:
        return f"ProcessRunner(max_workers={self.max_workers})"


@dataclasses.dataclass(eq=False)
class _Job:
    future: concurrent.futures.Future[Any]
    context: TaskContext
    payload: bytes  # the pickled task
    task: Callable[[], Any]  # kept to run it here if the worker cannot unpickle it


_STOP: Final = None  # queued once per feeder thread when the pool closes


class _WorkerPool:
    """The queue of jobs and the threads that feed them to worker processes."""

    def __init__(self, max_workers: int) -> None:
        self.max_workers = max_workers
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.idle_feeders = threading.Semaphore(0)
        self._feeders: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closing = False

    def submit(self, job: _Job) -> concurrent.futures.Future[Any]:
        with self._lock:
            if self._closing:
                raise RuntimeError("cannot submit a task to a ProcessRunner after shutdown()")
            self.jobs.put(job)
            if not self.idle_feeders.acquire(blocking=False) and (
                len(self._feeders) < self.max_workers
            ):
                self._add_feeder()
        return job.future

    def _add_feeder(self) -> None:
        feeder = threading.Thread(
            target=_feed_worker,
            args=(self,),
            name=f"gt4py-build-feeder-{next(_WORKER_NUMBERS)}",
            daemon=True,  # exit is handled by _close_pools_at_exit, which joins them
        )
        feeder.start()
        self._feeders.append(feeder)
        _LIVE_POOLS.add(self)
        # Re-registering moves our handler to the front of the exit queue (atexit runs last
        # registered first), ahead of e.g. a session cache cleanup the workers still write to.
        atexit.unregister(_close_pools_at_exit)
        atexit.register(_close_pools_at_exit)

    def close(self, *, wait: bool, cancel_pending: bool) -> None:
        with self._lock:
            if cancel_pending:
                self._cancel_queued_jobs()
            if not self._closing:
                self._closing = True
                for _ in self._feeders:
                    self.jobs.put(_STOP)
            feeders = list(self._feeders)
        if wait:
            for feeder in feeders:
                if feeder is not threading.current_thread():
                    feeder.join()

    def _cancel_queued_jobs(self) -> None:
        stops = 0
        while True:
            try:
                job = self.jobs.get_nowait()
            except queue.Empty:
                break
            if job is _STOP:
                stops += 1
            else:
                job.future.cancel()
        for _ in range(stops):
            self.jobs.put(_STOP)


def _feed_worker(pool: _WorkerPool) -> None:
    """One feeder thread: owns at most one worker process and feeds it jobs until stopped."""
    worker: _WorkerProcess | None = None
    try:
        while (job := pool.jobs.get()) is not _STOP:
            if job.future.set_running_or_notify_cancel():
                try:
                    worker = _run_job(worker, job)
                except BaseException as error:  # never leave a future pending, nor the pool
                    if not job.future.done():
                        job.future.set_exception(error)
                    if worker is not None:  # its state is unknown: start afresh
                        worker.stop()
                        worker = None
            del job  # do not keep the task and its payload alive while idle
            pool.idle_feeders.release()
    finally:
        if worker is not None:
            worker.stop()


def _run_job(worker: _WorkerProcess | None, job: _Job) -> _WorkerProcess | None:
    """Run ``job`` on ``worker`` (started or replaced as needed); the worker to use next."""
    for _attempt in range(2):  # a worker found dead before it got the task is replaced once
        if worker is not None and not worker.alive():
            worker.stop()
            worker = None
        if worker is None:
            try:
                worker = _WorkerProcess()
            except OSError as error:
                job.future.set_exception(
                    WorkerCrashedError(f"could not start a gt4py build worker process: {error}")
                )
                return None
        try:
            reply = worker.run(job.context, job.payload)
            break
        except _NotDeliveredError:
            worker.stop()
            worker = None
    else:
        job.future.set_exception(
            WorkerCrashedError(
                f"gt4py build worker processes die before receiving task {short_repr(job.task)} "
                "(their error output is above)"
            )
        )
        return None
    if reply is None:
        returncode = worker.stop()
        job.future.set_exception(WorkerCrashedError(_describe_death(worker, returncode, job)))
        return None
    kind, body = reply
    if kind is FrameKind.RESULT:
        _settle_result(job, body)
    elif kind is FrameKind.ERROR:
        job.future.set_exception(_rebuild_exception(pickle.loads(body), job, worker.pid))
    elif kind is FrameKind.UNLOADABLE:
        _run_here_instead(job, body.decode(errors="replace"))
    else:
        job.future.set_exception(
            WorkerCrashedError(f"gt4py build worker {worker.pid} sent an unexpected {kind.name}")
        )
        worker.stop()
        return None
    return worker


def _settle_result(job: _Job, body: bytes) -> None:
    try:
        result = pickle.loads(body)
    except Exception as error:
        job.future.set_exception(
            RuntimeError(
                f"the result of task {short_repr(job.task)} came back from the worker process "
                f"but cannot be unpickled here: {type(error).__name__}: {error}"
            )
        )
    else:
        job.future.set_result(result)


def _rebuild_exception(failure: TaskFailure, job: _Job, pid: int) -> BaseException:
    where = f"in gt4py build worker process {pid}"
    if failure.pickled is not None:
        try:
            error = pickle.loads(failure.pickled)
        except Exception as why:
            because = f"{type(why).__name__}: {why}"
        else:
            if isinstance(error, BaseException):
                error.add_note(f"Raised {where}:\n{failure.traceback.rstrip()}")
                return error
            because = f"it unpickled as a {type(error).__name__}"
    else:
        because = failure.unpicklable_because
    return RuntimeError(
        f"task {short_repr(job.task)} raised {failure.type_name}: {failure.message}\n"
        f"(the exception itself cannot be sent back from the worker: {because})\n"
        f"Traceback {where}:\n{failure.traceback.rstrip()}"
    )


def _run_here_instead(job: _Job, reason: str) -> None:
    warnings.warn(
        f"gt4py: task {short_repr(job.task)} cannot be loaded in a worker process ({reason}); "
        "running it in this process instead. Make the modules the task refers to importable "
        "(on sys.path) to run such tasks in parallel.",
        TaskNotPicklableWarning,
        stacklevel=1,
    )
    try:
        result = job.task()
    except Exception as error:
        job.future.set_exception(error)
    else:
        job.future.set_result(result)


def _describe_death(worker: _WorkerProcess, returncode: int, job: _Job) -> str:
    if returncode < 0:
        try:
            signal_name = signal.Signals(-returncode).name
        except ValueError:
            signal_name = "unknown signal"
        how = f"was killed by signal {-returncode} ({signal_name})"
    else:
        how = f"exited with status {returncode}"
    return (
        f"gt4py build worker process {worker.pid} {how} while running task "
        f"{short_repr(job.task)}; the task's result is lost. Workers die like this when they "
        "are killed, run out of memory or crash the interpreter (any error output of the "
        "worker is above). The next task gets a new worker."
    )


class _NotDeliveredError(Exception):
    """The worker was gone before it received the task (so running it elsewhere is safe)."""


class _WorkerProcess:
    """One worker interpreter and its two protocol pipes."""

    def __init__(self) -> None:
        if not sys.executable:
            raise OSError(
                "sys.executable is unknown (an embedded interpreter?); use "
                "GT4PY_BUILD_JOBS_MODE=thread or serial instead of process"
            )
        # isolated (-I): nothing from the working directory, the user site or PYTHON*
        # variables before the parent's sys.path arrives (ADR 0037)
        self._process = subprocess.Popen(
            python_command("-c", _BOOTSTRAP, _INFRA_ROOT),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.pid = self._process.pid
        self._requests = cast(IO[bytes], self._process.stdin)
        self._replies = cast(IO[bytes], self._process.stdout)
        self._sys_path_sent: list[str] | None = None

    def alive(self) -> bool:
        return self._process.poll() is None

    def run(self, context: TaskContext, payload: bytes) -> tuple[FrameKind, bytes] | None:
        """Send one task and wait for its reply; ``None`` if the worker died while running it.

        Raises ``_NotDeliveredError`` when the worker was dead before it could get the task.
        """
        try:
            # Sent again whenever it changed: a notebook may extend sys.path at any time.
            sys_path = [entry for entry in sys.path if isinstance(entry, str)]
            if sys_path != self._sys_path_sent:
                write_frame(self._requests, FrameKind.SYS_PATH, pickle.dumps(sys_path))
                self._sys_path_sent = sys_path
            write_frame(self._requests, FrameKind.CONTEXT, pickle.dumps(context))
            write_frame(self._requests, FrameKind.TASK, payload)
        except OSError as error:  # BrokenPipeError: nobody reads the other end any more
            raise _NotDeliveredError from error
        # A worker killed while idle can still take the write: the kernel keeps its pipe open
        # until its last thread is gone, and poll() cannot see its death before that. Only
        # the worker's STARTED frame proves that it got the task.
        first = read_frame(self._replies)
        if first is None:
            raise _NotDeliveredError
        if first[0] is not FrameKind.STARTED:
            return first  # a protocol error: the caller reports the unexpected frame
        return read_frame(self._replies)

    def stop(self) -> int:
        """Ask the worker to exit (kill it if it does not); reap it. Its exit status."""
        with contextlib.suppress(OSError):  # already broken: the worker is gone
            self._requests.close()
        try:
            returncode = self._process.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            returncode = self._process.wait()
        self._replies.close()
        return returncode


_LIVE_POOLS: Final[weakref.WeakSet[_WorkerPool]] = weakref.WeakSet()


def _close_pools_at_exit() -> None:
    for pool in list(_LIVE_POOLS):
        pool.close(wait=True, cancel_pending=True)

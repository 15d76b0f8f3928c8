"""The worker process of a ``ProcessRunner``: runs tasks from its parent, one at a time.

It is started as ``python -c <bootstrap> <gt4py.infra root>``, never by ``multiprocessing``,
so the user's main module (a script without a main guard, a notebook, a REPL) is not re-run.
The worker only produces artifacts; it never loads what it built.

A worker does not outlive its parent: between tasks it sees the end of its request pipe, and
during a task a watcher thread notices that its parent process changed (the parent was killed
and the worker re-parented); it then stops the build tools the task started (their process
groups, see ``gt4py.infra.native._tools``) and exits at once, leaving nothing running.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import threading
import time
from typing import IO, Final

from ._protocol import FrameKind, TaskContext, TaskFailure, read_frame, write_frame


#: How often (seconds) a worker checks that its parent is still there.
PARENT_CHECK_S: Final = 0.25
#: The exit status of a worker whose parent died (128 + SIGKILL, as if killed with it).
ORPHANED_EXIT_STATUS: Final = 137


def main() -> int:
    _watch_parent(os.getppid())
    requests, replies = _claim_protocol_streams()
    try:
        return _serve(requests, replies)
    except KeyboardInterrupt:  # Ctrl-C reached the whole process group: leave quietly
        return 130
    except BrokenPipeError:  # the parent is gone; nobody is waiting for an answer
        return 0


def _watch_parent(parent: int) -> None:
    """Exit, stopping the build tools of the running task, once ``parent`` is gone."""
    if parent <= 1:
        return  # already orphaned at start (or started by init): nothing to watch

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        tools = sys.modules.get("gt4py.infra.native._tools")  # only if a task used any
        if tools is not None:
            with contextlib.suppress(Exception):
                tools.stop_all_tools()
        os._exit(ORPHANED_EXIT_STATUS)

    threading.Thread(target=watch, name="gt4py-worker-parent-watch", daemon=True).start()


def _claim_protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """Move the protocol pipes off fds 0 and 1, so task output cannot corrupt them.

    Prints of the task and of the compilers it runs (which inherit fds 0-2) go to stderr;
    stdin reads nothing. The duplicated descriptors are not inherited by child processes.
    """
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return requests, replies


def _serve(requests: IO[bytes], replies: IO[bytes]) -> int:
    context: TaskContext | None = None
    while (frame := read_frame(requests)) is not None:
        kind, payload = frame
        if kind is FrameKind.SYS_PATH:
            sys.path[:] = pickle.loads(payload)
        elif kind is FrameKind.CONTEXT:
            context = pickle.loads(payload)
        elif kind is FrameKind.TASK and context is not None:
            write_frame(replies, FrameKind.STARTED, b"")
            write_frame(replies, *run_task(payload, context))
            context = None
        else:
            print(f"gt4py build worker: unexpected {kind.name} frame; exiting", file=sys.stderr)
            return 2
    return 0  # the parent closed the pipe: orderly shutdown


def run_task(payload: bytes, context: TaskContext) -> tuple[FrameKind, bytes]:
    """Adopt the submitter's context, then unpickle and run one task; the reply frame."""
    try:
        _adopt(context)
    except Exception as error:
        return FrameKind.ERROR, pickle.dumps(TaskFailure.from_exception(error))
    try:
        task = pickle.loads(payload)
    except Exception as error:
        return FrameKind.UNLOADABLE, f"{type(error).__name__}: {error}".encode()
    try:
        result = task()
    except (Exception, SystemExit) as error:  # SystemExit too: the task failed, not the worker
        failure = TaskFailure.from_exception(error, skip_frames=1)  # start in the user's code
        return FrameKind.ERROR, pickle.dumps(failure)
    try:
        return FrameKind.RESULT, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        failure = TaskFailure.from_exception(
            RuntimeError(
                f"the task's result (a {type(result).__qualname__}) cannot be pickled to be "
                f"sent back from the worker process: {type(error).__name__}: {error}. Tasks "
                "must return plain artifacts (bytes, paths, picklable values)."
            )
        )
        return FrameKind.ERROR, pickle.dumps(failure)


def _adopt(context: TaskContext) -> None:
    from gt4py.infra import config

    config.apply(context.config)
    sys.setrecursionlimit(context.recursion_limit)
    # Relative paths in the task mean what they meant to the submitter (if its directory is
    # gone or unreachable from here, the worker's own one is kept).
    with contextlib.suppress(OSError):
        os.chdir(context.cwd)


if __name__ == "__main__":
    sys.exit(main())

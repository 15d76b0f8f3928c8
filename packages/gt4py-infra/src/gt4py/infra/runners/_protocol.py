"""The wire format between a ``ProcessRunner`` and its workers: length-prefixed frames.

A frame is a header (kind: 1 byte, payload length: 8 bytes, little endian) and the payload.
The parent sends ``SYS_PATH`` (whenever its ``sys.path`` changed), then for each task a
``CONTEXT`` and a ``TASK`` frame; the worker answers each task with a ``STARTED`` frame once
it holds the whole task (before running any of it), then exactly one ``RESULT``, ``ERROR`` or
``UNLOADABLE`` frame. ``STARTED`` tells the parent whether a worker that died had begun the task:
only one that had not may be given to another worker.
"""

from __future__ import annotations

import enum
import pickle
import struct
import traceback
from typing import IO, TYPE_CHECKING, Final, NamedTuple


if TYPE_CHECKING:
    from gt4py.infra.config import Snapshot


_HEADER: Final = struct.Struct("<BQ")


class FrameKind(enum.IntEnum):
    SYS_PATH = 1  # parent -> worker: pickled list[str], the parent's sys.path
    CONTEXT = 2  # parent -> worker: pickled TaskContext of the next task
    TASK = 3  # parent -> worker: the pickled task
    RESULT = 4  # worker -> parent: the pickled return value
    ERROR = 5  # worker -> parent: pickled TaskFailure
    UNLOADABLE = 6  # worker -> parent: UTF-8 text saying why the task could not be unpickled
    STARTED = 7  # worker -> parent: empty; the task was received and is about to run


class TaskContext(NamedTuple):
    """What the submitter's process looked like at ``submit``, applied before the task loads.

    It travels apart from the task so that modules imported while unpickling the task already
    see the submitter's settings.
    """

    config: Snapshot
    recursion_limit: int
    cwd: str


class TaskFailure(NamedTuple):
    """An exception raised by a task, in a form that always crosses the pipe.

    ``pickled`` is the exception itself, or ``None`` when it does not survive a pickle round
    trip (then ``unpicklable_because`` says why and the parent raises a ``RuntimeError``).
    """

    pickled: bytes | None
    type_name: str
    message: str
    traceback: str
    unpicklable_because: str

    @classmethod
    def from_exception(cls, error: BaseException, *, skip_frames: int = 0) -> TaskFailure:
        tb = error.__traceback__
        for _ in range(skip_frames):  # drop the worker's own frames from the report
            if tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
        text = "".join(traceback.format_exception(type(error), error, tb))
        pickled: bytes | None
        because = ""
        try:
            pickled = pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(pickled)  # many exception classes pickle but cannot be rebuilt
        except Exception as why:
            pickled, because = None, f"{type(why).__name__}: {why}"
        name = f"{type(error).__module__}.{type(error).__qualname__}"
        return cls(pickled, name, str(error), text, because)


def write_frame(stream: IO[bytes], kind: FrameKind, payload: bytes) -> None:
    stream.write(_HEADER.pack(kind, len(payload)))
    stream.write(payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> tuple[FrameKind, bytes] | None:
    """The next frame, or ``None`` when the other side is gone (end of file, even mid-frame)."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    kind, size = _HEADER.unpack(header)
    payload = _read_exactly(stream, size)
    if payload is None:
        return None
    return FrameKind(kind), payload


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)

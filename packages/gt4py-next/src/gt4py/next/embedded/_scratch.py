"""Reusing large numpy result buffers across field operations.

An operator body such as ``-4 * a + a(I + 1) + a(I - 1) + ...`` makes one large temporary
per operation. Fresh large arrays cost page faults on first touch; numpy avoids most of them
for plain array expressions by computing into dead temporaries in place, which field
expressions (their temporaries are sliced views inside field objects) cannot use. This pool
keeps a few large byte buffers per thread and hands out one that no array uses any more.

Whether a buffer is free is exact: every numpy view of a buffer holds a reference to it
(``view.base``), so a buffer whose reference count is back to the pool's own is unused.
The pool is off where reference counts are not exact (free-threaded Python) and for
namespaces other than numpy (cupy has its own memory pool).
"""

from __future__ import annotations

import math
import sys
import threading
from typing import Any, Final

import numpy as np


THRESHOLD_BYTES: Final = 1 << 20  # smaller results are cheap to allocate
_MAX_BUFFERS: Final = 6
_MAX_OVERSIZE: Final = 4  # do not park a small result in a much larger buffer

ENABLED: Final = bool(getattr(sys, "_is_gil_enabled", lambda: True)())


class _Buffers(threading.local):
    def __init__(self) -> None:
        self.free_refcount = _free_refcount()
        self.buffers: list[np.ndarray[Any, Any]] = []


def _free_refcount() -> int:
    # The count a buffer referenced only by the pool shows in the scan loop of `empty` below,
    # measured with the same construct so that interpreter details cancel out.
    probe = [np.empty(1, np.uint8)]
    for _index, buffer in enumerate(probe):
        return sys.getrefcount(buffer)
    raise AssertionError("unreachable")


_local = _Buffers()


def empty(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray[Any, Any] | None:
    """An uninitialized array from the pool, or ``None`` when it should be allocated normally."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < THRESHOLD_BYTES:
        return None
    pool = _local
    buffers = pool.buffers
    free = pool.free_refcount
    chosen = -1
    too_small = -1
    for index, buffer in enumerate(buffers):
        if sys.getrefcount(buffer) != free:
            continue
        size = buffer.nbytes
        if nbytes <= size <= nbytes * _MAX_OVERSIZE:
            if chosen < 0 or size < buffers[chosen].nbytes:
                chosen = index
        elif size < nbytes:
            too_small = index
    if chosen < 0:
        if len(buffers) >= _MAX_BUFFERS:
            if too_small < 0:
                return None
            del buffers[too_small]
        buffers.append(np.empty(nbytes, np.uint8))
        chosen = len(buffers) - 1
    return buffers[chosen][:nbytes].view(dtype).reshape(shape)


def is_pool_buffer(array: Any) -> bool:
    return any(buffer is array for buffer in _local.buffers)


def call(function: Any, args: list[Any] | tuple[Any, ...]) -> Any:
    """``function(*args)``, writing large numpy ufunc results into a pooled buffer."""
    if ENABLED and isinstance(function, np.ufunc):
        largest = 0
        for arg in args:
            if type(arg) is np.ndarray and arg.nbytes > largest:
                largest = arg.nbytes
        if largest >= THRESHOLD_BYTES:
            out = _pooled_result(function, args)
            if out is not None:
                return function(*args, out=out)
    return function(*args)


def _pooled_result(function: np.ufunc, args: list[Any] | tuple[Any, ...]) -> Any:
    if function.nout != 1:
        return None
    dtypes = tuple(arg.dtype if hasattr(arg, "dtype") else type(arg) for arg in args)
    try:
        result_dtype = function.resolve_dtypes((*dtypes, None))[-1]
        shape = np.broadcast_shapes(*(np.shape(arg) for arg in args))
    except (TypeError, ValueError, AttributeError):
        return None
    return empty(shape, result_dtype)

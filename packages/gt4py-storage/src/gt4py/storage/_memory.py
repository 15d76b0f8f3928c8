"""Which arrays may share memory: the object owning it first (cheap), byte ranges on a match.

Both DSL stacks must notice a call whose arguments share memory (an output that is also an
input) before generated code runs. Comparing address ranges costs microseconds per array
(``__array_interface__`` builds a dict), too much for every call; comparing the objects that
own the memory costs nanoseconds and is exact where the owner is known to hold its memory
alone. :func:`memory_owner` gives that object, or :data:`FOREIGN_MEMORY` where it cannot be
told (a buffer reached through ctypes, DLPack, a capsule): such arrays must be compared by
:func:`byte_span`.
"""

from __future__ import annotations

import array as _array
from typing import Any, Final

import numpy as np


class _ForeignMemory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "FOREIGN_MEMORY"


#: The owner of memory that may also be reached through an unrelated object.
FOREIGN_MEMORY: Final = _ForeignMemory()

# Objects that hold their memory alone: two distinct ones never share a byte. (An mmap is not
# one: two maps of one file share the page cache at different addresses.)
_EXCLUSIVE: Final = (np.ndarray, bytes, bytearray, _array.array)
_MAX_CHAIN: Final = 64


def memory_owner(array: Any) -> Any:
    """The object owning the memory ``array`` views, or :data:`FOREIGN_MEMORY`.

    Two arrays with different owners (neither foreign) never share memory. The chain is
    followed through ``base`` (numpy views, ``as_strided``, cupy views) and ``memoryview.obj``
    (``np.frombuffer``, each call of which makes a new memoryview of one buffer).
    """
    owner = array
    for _ in range(_MAX_CHAIN):
        following = owner.obj if isinstance(owner, memoryview) else getattr(owner, "base", None)
        if following is None:
            break
        owner = following
    else:
        return FOREIGN_MEMORY
    if isinstance(owner, memoryview):  # a view of raw memory nobody owns as an object
        return FOREIGN_MEMORY
    if (type(owner).__module__ or "").startswith("cupy"):  # ctypes' array types have None
        memory = getattr(getattr(owner, "data", None), "mem", None)
        # cupy's own allocations are exclusive; UnownedMemory wraps someone else's pointer
        return FOREIGN_MEMORY if type(memory).__name__ == "UnownedMemory" else owner
    return owner if isinstance(owner, _EXCLUSIVE) else FOREIGN_MEMORY


def byte_span(array: Any) -> tuple[int, int]:
    """The bytes ``array`` touches, ``[first, end)``; everything for an unknown array kind."""
    interface = getattr(array, "__array_interface__", None)
    if interface is None:
        interface = getattr(array, "__cuda_array_interface__", None)
    if interface is None:
        return 0, 2**64
    start = end = int(interface["data"][0])
    if not array.size:
        return start, start
    for n, stride in zip(array.shape, array.strides, strict=True):
        if stride < 0:
            start += (n - 1) * stride
        else:
            end += (n - 1) * stride
    return start, end + array.itemsize


def spans_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two :func:`byte_span` ranges share a byte."""
    return a[0] < b[1] and b[0] < a[1]


def data_address(array: Any) -> int:
    """The address of ``array``'s first element (numpy or CUDA array interface)."""
    interface = getattr(array, "__array_interface__", None)
    if interface is None:
        interface = array.__cuda_array_interface__
    return int(interface["data"][0])

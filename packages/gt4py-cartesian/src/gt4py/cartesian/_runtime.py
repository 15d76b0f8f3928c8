"""Helpers that generated stencil modules call at run time (numpy only, cheap to import)."""

from __future__ import annotations

from typing import Any

import numpy as np


Array = np.ndarray[Any, np.dtype[Any]]


def mask(condition: Any, shape: tuple[int, ...]) -> Array:
    """A boolean array of ``shape`` from a field condition or a scalar one."""
    return np.broadcast_to(np.asarray(condition, dtype=bool), shape)


def kindex(start: int, stop: int) -> Array:
    return np.arange(start, stop, dtype=np.int64)[None, None, :]


def gather_k(column: Array, index: Any, shape: tuple[int, ...], name: str) -> Array:
    """``column[..., index]`` along K with a bounds check (numpy would wrap negatives)."""
    index = np.broadcast_to(np.asarray(index).astype(np.intp), shape)
    size = column.shape[2]
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = int(index.min()) if index.min() < 0 else int(index.max())
        raise IndexError(f"K index {bad} of field '{name}' is outside the field (K size {size})")
    return np.take_along_axis(column, index, axis=2)


def kcheck(index: Any, size: int, name: str) -> int:
    value = int(index)
    if not 0 <= value < size:
        raise IndexError(f"K index {value} of field '{name}' is outside the field (K size {size})")
    return value


def cast(value: Any, dtype: str) -> Any:
    return np.asarray(value).astype(dtype)


def round_away_from_zero(value: Any) -> Any:
    return np.copysign(np.floor(np.abs(value) + 0.5), value)


#: One implementation with gt4py.next (C conventions: nan at gamma's poles, not an exception),
#: looked up on first use: most stencils call none of them, and their module computes tables
#: when imported (a warm process's first stencil paid for it, issue 44.8).
_SPECIAL_FUNCTIONS = ("gamma", "erf", "erfc")


def __getattr__(name: str) -> Any:
    if name not in _SPECIAL_FUNCTIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from gt4py.storage import special_functions

    value = globals()[name] = getattr(special_functions, name)
    return value

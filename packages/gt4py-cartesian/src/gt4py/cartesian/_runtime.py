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


def data_error(index: int, size: int, name: str, dim: int) -> IndexError:
    """The error of a data index outside ``[-size, size)`` (one message on every backend)."""
    return IndexError(
        f"data index {index} of field '{name}' is outside the field (data dimension {dim} "
        f"has size {size})"
    )


def dcheck(index: Any, size: int, name: str, dim: int) -> int:
    """A data index computed at run time: negative ones count from the end, as in Python."""
    value = int(index)
    if not -size <= value < size:
        raise data_error(value, size, name, dim)
    return value


def data_view(
    view: Array, indices: list[tuple[int, Any]], shape: tuple[int, ...], name: str, mask: Any
) -> tuple[Any, ...]:
    """The advanced index selecting, at each point of ``shape``, the elements of ``view`` (the
    field over the points, with the data dimensions indexed at compile time already applied
    and the others whole) at the run-time data indices ``indices`` (``(dim, index)``, in
    order; each a scalar or an array over ``shape``). Checked where ``mask`` is true (the
    points a masked statement computes; None: everywhere); other points use index 0."""
    grid = []
    for axis in range(3):
        n = shape[axis]
        # a missing axis (an IJ field's K) is broadcast
        points = np.arange(n) if view.shape[axis] == n else np.zeros(n, dtype=np.intp)
        grid.append(points.reshape([-1 if a == axis else 1 for a in range(3)]))
    where = None if mask is None else np.broadcast_to(mask, shape)
    chosen = []
    for n, (dim, given) in enumerate(indices):
        size = view.shape[3 + n]
        index = np.broadcast_to(np.asarray(given).astype(np.intp), shape)
        if where is not None:
            index = np.where(where, index, 0)
        if index.size:
            low, high = index.min(), index.max()
            if low < -size or high >= size:
                raise data_error(int(low if low < -size else high), size, name, dim)
        chosen.append(index)
    return (*grid, *chosen)


def gather_data(
    view: Array, indices: list[tuple[int, Any]], shape: tuple[int, ...], name: str, mask: Any
) -> Array:
    """``view`` read at run-time data indices (see :func:`data_view`)."""
    result: Array = view[data_view(view, indices, shape, name, mask)]
    return result


def scatter_data(
    view: Array,
    indices: list[tuple[int, Any]],
    value: Any,
    shape: tuple[int, ...],
    name: str,
    mask: Any,
) -> None:
    """Write ``value`` (over ``shape``) into ``view`` at run-time data indices, where ``mask``
    is true (None: everywhere)."""
    index = data_view(view, indices, shape, name, mask)
    value = np.broadcast_to(value, shape)
    if mask is not None:
        where = np.broadcast_to(mask, shape)
        index = tuple(np.broadcast_to(i, shape)[where] for i in index)
        value = value[where]
    view[index] = value


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

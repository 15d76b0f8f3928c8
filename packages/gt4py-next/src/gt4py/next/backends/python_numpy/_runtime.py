"""Helpers the generated itir_python modules import."""

from __future__ import annotations

from typing import Any

import numpy as np


def gather(array: Any, index: tuple[Any, ...]) -> Any:
    """``array[index]`` with index arrays; out-of-bounds points read index 0 (or 0 for an empty
    array) instead of failing or wrapping around: the generated code reads there only where
    a guard discards the value, or reports the read (``status``)."""
    shape = array.shape
    if array.size == 0:  # nothing to read: every point is outside (and checked by the caller)
        points = np.broadcast_shapes(*(np.shape(i) for i in index))
        return np.zeros(points + shape[len(index) :], dtype=array.dtype)
    safe = []
    for axis, raw in enumerate(index):
        idx = np.asarray(raw)
        safe.append(np.where((idx >= 0) & (idx < shape[axis]), idx, 0))
    return array[tuple(safe)]


def gamma(value: Any) -> Any:
    from ...ffront.fbuiltins import gamma as builtin_gamma

    return np.asarray(builtin_gamma(np.asarray(value)))


def scalar(value: Any, dtype: Any) -> Any:
    return np.dtype(dtype).type(value)

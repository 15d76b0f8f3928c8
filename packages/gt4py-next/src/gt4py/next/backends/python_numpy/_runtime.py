"""Helpers the generated itir_python modules import."""

from __future__ import annotations

from typing import Any

import numpy as np


def gather(array: Any, index: tuple[Any, ...]) -> Any:
    """``array[index]`` with index arrays; out-of-bounds points (only reached where a guard
    discards them) read index 0 instead of failing or wrapping around."""
    shape = array.shape
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

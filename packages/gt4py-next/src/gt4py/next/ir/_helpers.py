"""Small constructors shared by lowering, the passes and the code generators."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _nodes as ir


def literal(value: Any, dtype: np.dtype[Any] | str | None) -> ir.Literal:
    """``value`` as a literal of ``dtype`` (``None``, an element type with no dtype, takes
    numpy's default dtype, float64)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        text = repr(bool(value))
    elif dtype.kind in "iu":
        text = repr(int(value))
    else:
        text = repr(float(value))
    return ir.Literal(value=text, dtype=dtype.name)


def neighbour_key(axis: str, outer: int = 0) -> str:
    """The position key of the neighbour of the reduction over ``axis``, ``outer`` same-axis
    reductions out (codegen positions: the innermost is ``axis`` itself)."""
    return axis if outer == 0 else f"{axis}^{outer}"


__all__ = ["literal", "neighbour_key"]

"""Experimental builtins: ``concat_where`` and ``as_offset`` (also ``gtx.experimental``)."""

from __future__ import annotations

from typing import Any

from .._field import Field
from .._offsets import DynamicOffset, FieldOffset
from .fbuiltins import BuiltInFunction


def _scalar_concat_where(condition: Any, true_value: Any, false_value: Any) -> Any:
    # Even with scalar branches the result is a field (it varies along the condition's dims).
    from ..embedded import _builtins

    return _builtins.IMPLEMENTATIONS["concat_where"](condition, true_value, false_value)


concat_where = BuiltInFunction(
    "concat_where",
    _scalar_concat_where,
    "concat_where(condition, a, b): a on the points of a domain condition (K < 5, "
    "(I == 0) | (I >= n), (I >= 1) & (K < 5)), b elsewhere; tuples allowed.",
)


def _as_offset(offset: FieldOffset, offsets: Field | int) -> DynamicOffset:
    return DynamicOffset(offset, offsets)


as_offset = BuiltInFunction(
    "as_offset",
    _as_offset,
    "as_offset(Koff, offsets): a shift by offsets[point] along Koff's dimension, used as "
    "f(as_offset(Koff, offsets)); reads outside f give the nearest edge value (guard them "
    "with where).",
)


EXPERIMENTAL_FUN_BUILTIN_NAMES = ("as_offset", "concat_where")

__all__ = ["EXPERIMENTAL_FUN_BUILTIN_NAMES", "as_offset", "concat_where"]

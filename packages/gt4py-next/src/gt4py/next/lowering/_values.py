"""Lowered values: an IR expression (the value at the current point) or a nested Python tuple
of them (tuples are split during lowering, so the IR never sees them), and their frontend types."""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from .. import ir
from ..ffront import type_specifications as ts


#: A lowered value: one expression or a (nested) tuple of them.
Value = Union[ir.Expr, tuple["Value", ...]]  # noqa: UP007  (a runtime alias, recursive)


def dtype_of(type_: Any) -> np.dtype[Any] | None:
    return ts.element_dtype(type_) if isinstance(type_, ts.TypeSpec) else None


def is_weak(type_: Any) -> bool:
    return isinstance(type_, ts.IntConstantType) or (
        isinstance(type_, ts.ScalarType) and type_.weak
    )


def leaves(value: Value) -> list[ir.Expr]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def map_leaves(function: Any, value: Value) -> Value:
    if isinstance(value, tuple):
        return tuple(map_leaves(function, v) for v in value)
    return function(value)  # type: ignore[no-any-return]


def select(condition: ir.Expr, then: Value, otherwise: Value) -> Value:
    if isinstance(then, tuple) or isinstance(otherwise, tuple):
        size = len(then) if isinstance(then, tuple) else len(otherwise)  # type: ignore[arg-type]
        parts = [v if isinstance(v, tuple) else (v,) * size for v in (then, otherwise)]
        return tuple(select(condition, a, b) for a, b in zip(*parts, strict=True))
    return ir.Call(fun="if_", args=[condition, then, otherwise])


def first_leaf_type(type_: Any) -> Any:
    while isinstance(type_, ts.TupleType):
        type_ = type_.types[0]
    return type_


def type_leaves(type_: Any) -> list[Any]:
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return [leaf for t in type_.types for leaf in type_leaves(t)]
    return [type_]


def rebuild(shape: Value, leaves: Any) -> Value:
    if isinstance(shape, tuple):
        return tuple(rebuild(v, leaves) for v in shape)
    return next(leaves)  # type: ignore[no-any-return]


def rebuild_from_type(type_: Any, leaves: Any) -> Value:
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return tuple(rebuild_from_type(t, leaves) for t in type_.types)
    return next(leaves)  # type: ignore[no-any-return]


__all__ = [
    "Value",
    "dtype_of",
    "first_leaf_type",
    "is_weak",
    "leaves",
    "map_leaves",
    "rebuild",
    "rebuild_from_type",
    "select",
    "type_leaves",
]

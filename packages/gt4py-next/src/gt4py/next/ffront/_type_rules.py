"""Rules on frontend types shared by the type deduction of operators, calls and programs."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .._dimensions import Dimension
from . import type_specifications as ts


BOOL = np.dtype(np.bool_)
INT64 = np.dtype(np.int64)
INT32 = np.dtype(np.int32)
FLOAT64 = np.dtype(np.float64)


def is_weak(type_: ts.TypeSpec) -> bool:
    return isinstance(type_, ts.IntConstantType) or (
        isinstance(type_, ts.ScalarType) and type_.weak
    )


def concrete(dtype: np.dtype[Any], type_: ts.TypeSpec) -> np.dtype[Any]:
    return dtype


def dims_of(type_: ts.TypeSpec) -> tuple[Dimension, ...] | None:
    return type_.dims if isinstance(type_, ts.FieldType) else None


def is_str_constant(call: ast.Call) -> bool:
    """``wpfloat("0.85")``: a number spelled as a string for its dtype (exact in float32)."""
    return (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def contains_field(value: ts.TypeSpec) -> bool:
    if isinstance(value, ts.TupleType):
        return any(contains_field(t) for t in value.types)
    return isinstance(value, ts.FieldType)


def same_type(a: ts.TypeSpec | None, b: ts.TypeSpec | None) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, ts.IntConstantType):
        a = ts.ScalarType(INT64, weak=True)
    if isinstance(b, ts.IntConstantType):
        b = ts.ScalarType(INT64, weak=True)
    if (
        isinstance(a, ts.IntConstantType)
        or isinstance(b, ts.IntConstantType)
        or (isinstance(a, ts.ScalarType) and a.weak)
        or (isinstance(b, ts.ScalarType) and b.weak)
    ):
        return ts.is_assignable(a, b) or ts.is_assignable(b, a)
    if isinstance(a, ts.FieldType) and isinstance(b, ts.FieldType):
        return a.dtype == b.dtype and ts.same_field_dims(a.dims, b.dims)
    if isinstance(a, ts.TupleType) and isinstance(b, ts.TupleType):
        return len(a.types) == len(b.types) and all(map(same_type, a.types, b.types))
    if isinstance(a, ts.NamedCollectionType) and isinstance(b, ts.NamedCollectionType):
        return (
            a.python_type is b.python_type
            and a.names == b.names
            and all(map(same_type, a.types, b.types))
        )
    return a == b


def describe(value: Any) -> str:
    return f"a {type(value).__name__}"


__all__ = [
    "BOOL",
    "FLOAT64",
    "INT32",
    "INT64",
    "concrete",
    "contains_field",
    "describe",
    "dims_of",
    "is_str_constant",
    "is_weak",
    "same_type",
]

"""Whether one deduced type may stand where another is declared (public in
``gt4py.next.ffront.type_specifications``).

Field dimensions are compared as sets (:func:`same_field_dims`), because embedded fields align
by dimension name, not position; Python literals are weak and fit any type of their kind
(NEP 50).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dimensions import Dimension
from ._type_specs import (
    FieldType,
    IntConstantType,
    NamedCollectionType,
    ScalarType,
    TupleType,
    TypeSpec,
)


def same_field_dims(a: tuple[Dimension, ...] | None, b: tuple[Dimension, ...] | None) -> bool:
    return a is None or b is None or set(a) == set(b)


def is_assignable(actual: TypeSpec, expected: TypeSpec) -> bool:
    """Whether a value of type ``actual`` may be passed where ``expected`` is declared."""
    if isinstance(actual, IntConstantType):
        actual = ScalarType(np.dtype(np.int64), weak=True)
    if isinstance(expected, FieldType):
        if isinstance(actual, FieldType):
            return actual.dtype == expected.dtype and same_field_dims(actual.dims, expected.dims)
        return False
    if isinstance(expected, ScalarType):
        if isinstance(actual, ScalarType):
            if actual.weak:
                return literal_fits(actual.dtype, expected.dtype)
            return actual.dtype == expected.dtype
        return False
    if isinstance(expected, TupleType):
        return (
            isinstance(actual, TupleType)
            and len(actual.types) == len(expected.types)
            and all(is_assignable(a, e) for a, e in zip(actual.types, expected.types, strict=False))
        )
    if isinstance(expected, NamedCollectionType):
        return (
            isinstance(actual, NamedCollectionType)
            and actual.python_type is expected.python_type
            and all(is_assignable(a, e) for a, e in zip(actual.types, expected.types, strict=True))
        )
    return actual == expected


def literal_fits(literal: np.dtype[Any], target: np.dtype[Any]) -> bool:
    # NEP 50: an int literal fits any number, a float literal a float, a bool a bool.
    if literal.kind == "b":
        return target.kind == "b"
    if literal.kind in "iu":
        return target.kind in "iuf"
    return target.kind == "f"

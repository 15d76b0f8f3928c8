"""The types the frontend deduces: scalars, fields, tuples, dimensions, offsets, callables.

Types are small immutable values compared structurally. Field dimensions are kept in the
order the frontend computes them; :func:`same_field_dims` compares them as sets, because
embedded fields align by dimension name, not position.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._dimensions import Dimension
from .._offsets import FieldOffset


class TypeSpec:
    """Base class of every deduced type."""

    __slots__ = ()


@dataclasses.dataclass(frozen=True, slots=True)
class ScalarType(TypeSpec):
    """A scalar of ``dtype``; ``weak`` for Python literals, which adapt to the other operand."""

    dtype: np.dtype[Any]
    weak: bool = False

    def __str__(self) -> str:
        return f"{self.dtype.name} literal" if self.weak else self.dtype.name


@dataclasses.dataclass(frozen=True, slots=True)
class FieldType(TypeSpec):
    """A field over ``dims`` (``None``: any dimensions, from ``Field[..., dtype]``)."""

    dims: tuple[Dimension, ...] | None
    dtype: np.dtype[Any]

    def __str__(self) -> str:
        dims = "..." if self.dims is None else ", ".join(d.value for d in self.dims)
        return f"Field[[{dims}], {self.dtype.name}]"


@dataclasses.dataclass(frozen=True, slots=True)
class TupleType(TypeSpec):
    types: tuple[TypeSpec, ...]

    def __str__(self) -> str:
        return f"tuple[{', '.join(map(str, self.types))}]"


@dataclasses.dataclass(frozen=True, slots=True)
class NamedCollectionType(TypeSpec):
    """A dataclass or NamedTuple argument whose attributes are fields or scalars."""

    python_type: type
    names: tuple[str, ...]
    types: tuple[TypeSpec, ...]

    def member(self, name: str) -> TypeSpec | None:
        return dict(zip(self.names, self.types, strict=False)).get(name)

    def __str__(self) -> str:
        return self.python_type.__name__


@dataclasses.dataclass(frozen=True, slots=True)
class DimensionType(TypeSpec):
    dim: Dimension

    def __str__(self) -> str:
        return f"Dimension {self.dim.value}"


@dataclasses.dataclass(frozen=True, slots=True)
class DomainType(TypeSpec):
    """A domain condition such as ``K < 5`` or ``(I == 0) | (I >= n)`` (for concat_where)."""

    dims: tuple[Dimension, ...]

    def __str__(self) -> str:
        return f"domain condition over {', '.join(d.value for d in self.dims)}"


@dataclasses.dataclass(frozen=True, slots=True)
class OffsetType(TypeSpec):
    """A field offset; ``index`` is set for ``E2V[0]`` / ``Koff[1]``."""

    offset: FieldOffset
    indexed: bool = False

    def __str__(self) -> str:
        return f"offset {self.offset.value}{'[...]' if self.indexed else ''}"


@dataclasses.dataclass(frozen=True, slots=True)
class CartesianShiftType(TypeSpec):
    """``I + 1`` / ``I - 1``."""

    dim: Dimension

    def __str__(self) -> str:
        return f"shift along {self.dim.value}"


@dataclasses.dataclass(frozen=True, slots=True)
class LocalIndexType(TypeSpec):
    """``E2CDim(0)``: one neighbour of a field over a local dimension, ``f[E2CDim(0)]``."""

    dim: Dimension
    index: int

    def __str__(self) -> str:
        return f"{self.dim.value}({self.index})"


@dataclasses.dataclass(frozen=True, slots=True)
class DynamicShiftType(TypeSpec):
    """``as_offset(Koff, offsets)``."""

    offset: FieldOffset

    def __str__(self) -> str:
        return f"as_offset({self.offset.value}, ...)"


@dataclasses.dataclass(frozen=True, slots=True)
class CallableType(TypeSpec):
    """A builtin, a dtype constructor, or another field / scan operator (``target``)."""

    kind: str  # "builtin", "operator", "program", "constructor" (a dataclass / NamedTuple)
    target: Any

    def __str__(self) -> str:
        return f"{self.kind} {getattr(self.target, '__name__', self.target)}"


@dataclasses.dataclass(frozen=True, slots=True)
class ModuleType(TypeSpec):
    """A module or namespace used for attribute access (``gtx.where``, ``np.float32``)."""

    value: Any

    def __str__(self) -> str:
        return f"module {getattr(self.value, '__name__', self.value)}"


@dataclasses.dataclass(frozen=True, slots=True)
class IntConstantType(TypeSpec):
    """A compile-time integer (a literal or global), usable as an index or domain bound."""

    value: int

    def __str__(self) -> str:
        return f"int literal {self.value}"


@dataclasses.dataclass(frozen=True, slots=True)
class DTypeType(TypeSpec):
    """A scalar type used as a value: ``astype(a, float32)``."""

    dtype: np.dtype[Any]

    def __str__(self) -> str:
        return f"type {self.dtype.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class DimsTupleType(TypeSpec):
    """A tuple of dimensions: ``broadcast(a, (I, J))``."""

    dims: tuple[Dimension, ...]

    def __str__(self) -> str:
        return f"({', '.join(d.value for d in self.dims)})"


def element_dtype(type_: TypeSpec) -> np.dtype[Any] | None:
    if isinstance(type_, (ScalarType, FieldType)):
        return type_.dtype
    if isinstance(type_, IntConstantType):
        return np.dtype(np.int64)
    return None


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
                return _literal_fits(actual.dtype, expected.dtype)
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


def _literal_fits(literal: np.dtype[Any], target: np.dtype[Any]) -> bool:
    # NEP 50: an int literal fits any number, a float literal a float, a bool a bool.
    if literal.kind == "b":
        return target.kind == "b"
    if literal.kind in "iu":
        return target.kind in "iuf"
    return target.kind == "f"

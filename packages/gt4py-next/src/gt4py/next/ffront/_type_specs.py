"""The classes of the types the frontend deduces (public in
``gt4py.next.ffront.type_specifications``): scalars, fields, tuples, dimensions, offsets,
callables.

Each is a frozen, slotted dataclass made by :func:`_type_spec`, the one place that says how a
type is a value: compared structurally, immutable, and shown (and pickled) as a class of the
public module.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final, TypeVar, dataclass_transform

import numpy as np

from .._dimensions import Dimension
from .._offsets import FieldOffset


#: Where users import, and pickle finds, the type classes.
PUBLIC_MODULE: Final = "gt4py.next.ffront.type_specifications"

_Spec = TypeVar("_Spec")


@dataclass_transform(frozen_default=True)
def _type_spec(cls: type[_Spec]) -> type[_Spec]:
    """``cls`` as a frozen dataclass with slots, its ``__module__`` the public module."""
    spec = dataclasses.dataclass(frozen=True, slots=True)(cls)
    spec.__module__ = PUBLIC_MODULE
    return spec


class TypeSpec:
    """Base class of every deduced type."""

    __module__ = PUBLIC_MODULE
    __slots__ = ()


@_type_spec
class ScalarType(TypeSpec):
    """A scalar of ``dtype``; ``weak`` for Python literals, which adapt to the other operand."""

    dtype: np.dtype[Any]
    weak: bool = False

    def __str__(self) -> str:
        return f"{self.dtype.name} literal" if self.weak else self.dtype.name


@_type_spec
class FieldType(TypeSpec):
    """A field over ``dims`` (``None``: any dimensions, from ``Field[..., dtype]``)."""

    dims: tuple[Dimension, ...] | None
    dtype: np.dtype[Any]

    def __str__(self) -> str:
        dims = "..." if self.dims is None else ", ".join(d.value for d in self.dims)
        return f"Field[[{dims}], {self.dtype.name}]"


@_type_spec
class TupleType(TypeSpec):
    types: tuple[TypeSpec, ...]

    def __str__(self) -> str:
        return f"tuple[{', '.join(map(str, self.types))}]"


@_type_spec
class NamedCollectionType(TypeSpec):
    """A dataclass or NamedTuple argument whose attributes are fields or scalars."""

    python_type: type
    names: tuple[str, ...]
    types: tuple[TypeSpec, ...]

    def member(self, name: str) -> TypeSpec | None:
        return dict(zip(self.names, self.types, strict=False)).get(name)

    def __str__(self) -> str:
        return self.python_type.__name__


@_type_spec
class DimensionType(TypeSpec):
    dim: Dimension

    def __str__(self) -> str:
        return f"Dimension {self.dim.value}"


@_type_spec
class DomainType(TypeSpec):
    """A domain condition such as ``K < 5`` or ``(I == 0) | (I >= n)`` (for concat_where)."""

    dims: tuple[Dimension, ...]

    def __str__(self) -> str:
        return f"domain condition over {', '.join(d.value for d in self.dims)}"


@_type_spec
class OffsetType(TypeSpec):
    """A field offset; ``index`` is set for ``E2V[0]`` / ``Koff[1]``."""

    offset: FieldOffset
    indexed: bool = False

    def __str__(self) -> str:
        return f"offset {self.offset.value}{'[...]' if self.indexed else ''}"


@_type_spec
class CartesianShiftType(TypeSpec):
    """``I + 1`` / ``I - 1``."""

    dim: Dimension

    def __str__(self) -> str:
        return f"shift along {self.dim.value}"


@_type_spec
class LocalIndexType(TypeSpec):
    """``E2CDim(0)``: one neighbour of a field over a local dimension, ``f[E2CDim(0)]``."""

    dim: Dimension
    index: int

    def __str__(self) -> str:
        return f"{self.dim.value}({self.index})"


@_type_spec
class DynamicShiftType(TypeSpec):
    """``as_offset(Koff, offsets)``."""

    offset: FieldOffset

    def __str__(self) -> str:
        return f"as_offset({self.offset.value}, ...)"


@_type_spec
class CallableType(TypeSpec):
    """A builtin, a dtype constructor, or another field / scan operator (``target``)."""

    kind: str  # "builtin", "operator", "program", "constructor" (a dataclass / NamedTuple)
    target: Any

    def __str__(self) -> str:
        return f"{self.kind} {getattr(self.target, '__name__', self.target)}"


@_type_spec
class ModuleType(TypeSpec):
    """A module or namespace used for attribute access (``gtx.where``, ``np.float32``)."""

    value: Any

    def __str__(self) -> str:
        return f"module {getattr(self.value, '__name__', self.value)}"


@_type_spec
class IntConstantType(TypeSpec):
    """A compile-time integer (a literal or global), usable as an index or domain bound."""

    value: int

    def __str__(self) -> str:
        return f"int literal {self.value}"


@_type_spec
class DTypeType(TypeSpec):
    """A scalar type used as a value: ``astype(a, float32)``."""

    dtype: np.dtype[Any]

    def __str__(self) -> str:
        return f"type {self.dtype.name}"


@_type_spec
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

"""Dimensions: the named axes a field lives on, and the vocabulary built from them.

``I + 1`` is a Cartesian shift, ``I(3)`` a named index, and comparisons with integers
(``K < 5``, ``I == 0``) are domain conditions for ``concat_where``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, TypeAlias, TypeVar

from ._annotation_forms import MYPY

# Dimension and its vocabulary live beside Domain, which `I < 5` builds and which needs
# Dimension in turn; they are re-exported here, where the rest of gt4py.next imports them.
from ._domain import (
    CartesianConnectivity as CartesianConnectivity,
    Dimension as Dimension,
    DimensionKind as DimensionKind,
    NamedIndex as NamedIndex,
    dims_sort_key as dims_sort_key,
    promote_dims as promote_dims,
)


class GridType(enum.StrEnum):
    """The two grid families gt4py.next supports."""

    CARTESIAN = "cartesian"
    UNSTRUCTURED = "unstructured"

    def __str__(self) -> str:
        return self.value


class Dims(tuple[Dimension, ...]):
    """The dimensions of a field annotation: ``Field[Dims[I, J], float64]``.

    An annotation may be generic over dimensions: ``Dims[Cell, D]`` with a ``typing.TypeVar``
    ``D``, or ``Dims[Dimension]`` for any one dimension (see
    :class:`~gt4py.next.common.FieldAnnotation`); such ``Dims`` never reach a field.
    """

    __slots__ = ()

    def __new__(cls, dims: Iterable[Dimension] = ()) -> Dims:
        dims = tuple(dims)
        for dim in dims:
            if not (isinstance(dim, (Dimension, TypeVar)) or dim is Dimension):
                raise TypeError(f"Dims[...] takes Dimension objects, got {dim!r}")
        if len(set(dims)) != len(dims):
            raise ValueError(f"Dims[...] lists a dimension twice: {_names(dims)}")
        return super().__new__(cls, dims)

    def __class_getitem__(cls, dims: Dimension | tuple[Dimension, ...]) -> Dims:  # type: ignore[override]
        return cls(dims if isinstance(dims, tuple) else (dims,))

    @property
    def __parameters__(self) -> tuple[TypeVar, ...]:
        """The type variables among the dimensions (``Dims[Cell, D]``: ``(D,)``)."""
        return tuple(dict.fromkeys(d for d in self if isinstance(d, TypeVar)))  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"Dims[{_names(self)}]"


# The public name `Dims` (gt4py.next.Dims, gt4py.next.common.Dims) as type checkers read it
# without gt4py's mypy plugin (ADR 0045, see `_annotation_forms`): for mypy a variable of type
# Any, so that `Dims[I, J]` (dimensions are values) is `Any`; for pyright (its last
# declaration) and at run time the class above.
if MYPY:
    DimsAnnotation: Any
else:
    DimsAnnotation: TypeAlias = Dims


def _names(dims: Iterable[Dimension]) -> str:
    return ", ".join(str(getattr(d, "value", d)) for d in dims)

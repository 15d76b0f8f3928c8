"""Dimensions: the named axes a field lives on, and the vocabulary built from them.

``I + 1`` is a Cartesian shift, ``I(3)`` a named index, and comparisons with integers
(``K < 5``, ``I == 0``) are domain conditions for ``concat_where``.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, NamedTuple, SupportsIndex, TypeGuard, TypeVar


if TYPE_CHECKING:
    from ._domain import Domain


class DimensionKind(enum.StrEnum):
    """What a dimension stands for; it decides the canonical order of dimensions in a field."""

    HORIZONTAL = "horizontal"
    VERTICAL = "vertical"
    LOCAL = "local"

    def __str__(self) -> str:
        return self.value


class GridType(enum.StrEnum):
    """The two grid families gt4py.next supports."""

    CARTESIAN = "cartesian"
    UNSTRUCTURED = "unstructured"

    def __str__(self) -> str:
        return self.value


# Horizontal before local (neighbour) before vertical: `f(E2V)` on a (V, K) field gives
# (E, E2VDim, K), already in this order.
_KIND_ORDER: Final = {
    DimensionKind.HORIZONTAL: 0,
    DimensionKind.LOCAL: 1,
    DimensionKind.VERTICAL: 2,
}


def _as_int_bound(value: object, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, got the bool {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None


class Dimension:
    """A named axis, e.g. ``I = Dimension("I")`` or ``K = Dimension("K", DimensionKind.VERTICAL)``.

    Dimensions are immutable and compare by name and kind. Arithmetic and comparisons with
    integers build the DSL's vocabulary:

    - ``I + 1`` / ``I - 1``: Cartesian shifts, ``field(I + 1)[i] == field[i + 1]``;
    - ``I(3)``: a named index, ``field[I(3)]``, ``field[I(2):I(5)]``;
    - ``I == 0``, ``I != 0``, ``K < 5``, ``K >= n``: domain conditions for ``concat_where``.
    """

    __slots__ = ("_hash", "kind", "value")

    # numpy scalars defer to the reflected operator: `np.int32(1) <= K` is `K >= 1`
    __array_ufunc__ = None

    value: str
    kind: DimensionKind
    _hash: int

    def __init__(self, value: str, kind: DimensionKind | str = DimensionKind.HORIZONTAL) -> None:
        if not isinstance(value, str) or not value:
            raise TypeError(f"a Dimension needs a non-empty name (str), got {value!r}")
        try:
            kind = DimensionKind(kind)
        except ValueError:
            choices = ", ".join(k.name for k in DimensionKind)
            raise ValueError(
                f"unknown kind {kind!r} for Dimension {value!r}; use DimensionKind.{{{choices}}}"
            ) from None
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "_hash", hash((value, kind)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Dimension is immutable (cannot set {name!r})")

    def __reduce__(self) -> tuple[type[Dimension], tuple[str, DimensionKind]]:
        return (Dimension, (self.value, self.kind))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self.kind is DimensionKind.HORIZONTAL:
            return f"Dimension({self.value!r})"
        return f"Dimension({self.value!r}, kind=DimensionKind.{self.kind.name})"

    def __str__(self) -> str:
        return self.value

    # -- equality and domain conditions ---------------------------------------------------------

    def __eq__(self, other: object) -> Any:
        if type(other) is Dimension:
            return self.value == other.value and self.kind is other.kind
        if _is_int(other):
            index = operator.index(other)
            return self._condition(index, index + 1)
        return NotImplemented

    def __ne__(self, other: object) -> Any:
        if type(other) is Dimension:
            return not (self.value == other.value and self.kind is other.kind)
        if _is_int(other):
            index = operator.index(other)
            return self._condition(None, index) | self._condition(index + 1, None)
        return NotImplemented

    def __lt__(self, other: object) -> Domain:
        return self._condition(None, self._bound(other))

    def __le__(self, other: object) -> Domain:
        return self._condition(None, self._bound(other) + 1)

    def __gt__(self, other: object) -> Domain:
        return self._condition(self._bound(other) + 1, None)

    def __ge__(self, other: object) -> Domain:
        return self._condition(self._bound(other), None)

    def _bound(self, other: object) -> int:
        return _as_int_bound(other, f"the bound of a condition on {self.value}")

    def _condition(self, start: int | None, stop: int | None) -> Domain:
        from ._domain import Domain, UnitRange

        return Domain._make((self,), (UnitRange(start, stop),))

    # -- shifts and indices ---------------------------------------------------------------------

    def __add__(self, offset: object) -> CartesianConnectivity:
        if not _is_int(offset):
            return NotImplemented
        return CartesianConnectivity(self, operator.index(offset))

    def __sub__(self, offset: object) -> CartesianConnectivity:
        if not _is_int(offset):
            return NotImplemented
        return CartesianConnectivity(self, -operator.index(offset))

    def __call__(self, index: int) -> NamedIndex:
        return NamedIndex(self, _as_int_bound(index, f"an index on {self.value}"))


def _is_int(value: object) -> TypeGuard[SupportsIndex]:
    return hasattr(value, "__index__") and not isinstance(value, bool)


class NamedIndex(NamedTuple):
    """One position along one dimension: ``I(3)``."""

    dim: Dimension
    value: int

    def __str__(self) -> str:
        return f"{self.dim}={self.value}"


class CartesianConnectivity:
    """A constant shift along one dimension: ``I + 1`` reads the neighbour at ``i + 1``.

    ``field(I + 1)`` moves the field's domain by ``-1`` along ``I`` without copying data.
    """

    __slots__ = ("dim", "offset")

    def __init__(self, dim: Dimension, offset: int) -> None:
        self.dim = dim
        self.offset = offset

    @property
    def codomain(self) -> Dimension:
        return self.dim

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CartesianConnectivity):
            return NotImplemented
        return self.dim == other.dim and self.offset == other.offset

    def __hash__(self) -> int:
        return hash((CartesianConnectivity, self.dim, self.offset))

    def __repr__(self) -> str:
        sign = "+" if self.offset >= 0 else "-"
        return f"{self.dim.value} {sign} {abs(self.offset)}"


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


def _names(dims: Iterable[Dimension]) -> str:
    return ", ".join(str(getattr(d, "value", d)) for d in dims)


def dims_sort_key(dim: Dimension) -> tuple[int, str]:
    return (_KIND_ORDER[dim.kind], dim.value)


_PROMOTED: dict[tuple[tuple[Dimension, ...], ...], tuple[Dimension, ...]] = {}


def promote_dims(*dims_lists: Iterable[Dimension]) -> tuple[Dimension, ...]:
    """All dimensions of the arguments in canonical order: horizontal, local, vertical, then by name.

    Two different dimensions with the same name are refused: they would be ambiguous in every
    message and every generated program.
    """
    key = tuple(tuple(d) for d in dims_lists)
    cached = _PROMOTED.get(key)
    if cached is not None:
        return cached
    unique: dict[Dimension, None] = {}
    for dims in key:
        for dim in dims:
            unique[dim] = None
    by_name: dict[str, Dimension] = {}
    for dim in unique:
        seen = by_name.setdefault(dim.value, dim)
        if seen is not dim and seen != dim:
            raise ValueError(
                f"two different dimensions are both called {dim.value!r} "
                f"({seen!r} and {dim!r}); give them distinct names"
            )
    result = tuple(sorted(unique, key=dims_sort_key))
    if len(_PROMOTED) < 4096:
        _PROMOTED[key] = result
    return result

"""Dimensions and domains: where a field is defined.

A :class:`Domain` is a box, one named range (a :class:`UnitRange`, from ``_unit_range``) per
dimension. Infinite ranges describe broadcast values (a scalar is defined everywhere) and
domain conditions (``K < 5``); the 64-bit index space and :class:`DomainError` are in
``_index_space``, re-exported here with the ranges.

:class:`Dimension` (with its shifts, named indices and canonical order; its kinds are in
``_dimension_kinds``) is defined here too, since comparing a dimension with an integer builds a
:class:`Domain` and a domain is made of dimensions; `gt4py.next._dimensions` re-exports it and
adds the annotation helpers.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, SupportsIndex, TypeAlias, TypeGuard, overload

from ._dimension_kinds import KIND_ORDER, DimensionKind as DimensionKind
from ._index_space import (
    INDEX_MAX as INDEX_MAX,
    INDEX_MIN as INDEX_MIN,
    INFINITY as INFINITY,
    Bound as Bound,
    DomainError as DomainError,
    Infinity as Infinity,
    check_index_range as check_index_range,
    fits_index_space as fits_index_space,
    index_range_message as index_range_message,
)
from ._unit_range import RangeLike as RangeLike, UnitRange as UnitRange, unit_range as unit_range


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


def dims_sort_key(dim: Dimension) -> tuple[int, str]:
    return (KIND_ORDER[dim.kind], dim.value)


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


class NamedRange(NamedTuple):
    """One dimension with its range."""

    dim: Dimension
    unit_range: UnitRange

    def __str__(self) -> str:
        return f"{self.dim}={self.unit_range}"


def named_range(value: tuple[Dimension, RangeLike]) -> NamedRange:
    if isinstance(value, NamedRange):
        return value
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Dimension)):
        raise TypeError(f"expected a (Dimension, range) pair, got {value!r}")
    return NamedRange(value[0], unit_range(value[1], value[0].value))


class Domain(Sequence[NamedRange]):
    """A box: one :class:`UnitRange` per :class:`Dimension`, in the order of ``dims``.

    ``Domain(NamedRange(I, UnitRange(0, 10)), ...)``, ``Domain(dims=(I, J), ranges=(...))`` or,
    most conveniently, :func:`domain` (``domain({I: 10, J: (1, 5)})``).
    """

    __slots__ = ("_bounds", "dims", "ranges")

    dims: tuple[Dimension, ...]
    ranges: tuple[UnitRange, ...]
    _bounds: tuple[tuple[Bound, Bound], ...] | None

    def __init__(
        self,
        *args: NamedRange | tuple[Dimension, RangeLike],
        dims: Sequence[Dimension] | None = None,
        ranges: Sequence[RangeLike] | None = None,
    ) -> None:
        if dims is not None or ranges is not None:
            if args:
                raise TypeError("Domain takes either named ranges or dims=/ranges=, not both")
            if dims is None or ranges is None:
                raise TypeError("Domain needs both dims= and ranges=")
            if len(dims) != len(ranges):
                raise ValueError(
                    f"Domain got {len(dims)} dims but {len(ranges)} ranges; they must pair up"
                )
            pairs = [named_range((d, r)) for d, r in zip(dims, ranges, strict=True)]
        else:
            pairs = [named_range(a) for a in args]
        dims_t = tuple(p.dim for p in pairs)
        if len(set(dims_t)) != len(dims_t):
            raise ValueError(f"Domain lists a dimension twice: {', '.join(map(str, dims_t))}")
        self.dims = dims_t
        self.ranges = tuple(p.unit_range for p in pairs)
        self._bounds = None

    @classmethod
    def _make(cls, dims: tuple[Dimension, ...], ranges: tuple[UnitRange, ...]) -> Domain:
        """Fast path for already validated dims and ranges."""
        dom = object.__new__(cls)
        dom.dims = dims
        dom.ranges = ranges
        dom._bounds = None
        return dom

    # -- sequence protocol ----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.dims)

    def __iter__(self) -> Iterator[NamedRange]:
        return (NamedRange(d, r) for d, r in zip(self.dims, self.ranges, strict=True))

    @overload
    def __getitem__(self, index: int | Dimension) -> NamedRange: ...

    @overload
    def __getitem__(self, index: slice) -> Domain: ...

    def __getitem__(self, index: int | slice | Dimension) -> NamedRange | Domain:
        if isinstance(index, Dimension):
            pos = self.dim_index(index)
            if pos is None:
                raise KeyError(f"{index} is not a dimension of {self}")
            index = pos
        if isinstance(index, slice):
            return Domain._make(self.dims[index], self.ranges[index])
        return NamedRange(self.dims[index], self.ranges[index])

    def dim_index(self, dim: Dimension) -> int | None:
        """The position of ``dim`` in this domain, or ``None``."""
        for i, d in enumerate(self.dims):
            if d is dim or d == dim:
                return i
        return None

    # -- properties -----------------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.dims)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(r) for r in self.ranges)

    @property
    def size(self) -> int | None:
        return math.prod(self.shape) if self.is_finite() else None

    def is_finite(self) -> bool:
        return all(r.is_finite() for r in self.ranges)

    def is_empty(self) -> bool:
        return any(r.start == r.stop for r in self.ranges)

    # -- algebra --------------------------------------------------------------------------------

    def __and__(self, other: Domain | DomainUnion) -> Any:
        """Intersection; a dimension missing on one side is unbounded there."""
        if isinstance(other, DomainUnion):
            return DomainUnion(self) & other
        if not isinstance(other, Domain):
            return NotImplemented
        if self.dims == other.dims:
            return Domain._make(
                self.dims, tuple(a & b for a, b in zip(self.ranges, other.ranges, strict=True))
            )
        dims = promote_dims(self.dims, other.dims)
        ranges = []
        for dim in dims:
            rng = UnitRange.infinite()
            for dom in (self, other):
                pos = dom.dim_index(dim)
                if pos is not None:
                    rng = rng & dom.ranges[pos]
            ranges.append(rng)
        return Domain._make(dims, tuple(ranges))

    def __or__(self, other: Domain | DomainUnion) -> DomainUnion:
        if not isinstance(other, (Domain, DomainUnion)):
            return NotImplemented
        return DomainUnion(self) | other

    def __invert__(self) -> DomainUnion:
        """The complement, as a union of half-spaces (not necessarily disjoint)."""
        if self.is_empty():
            return DomainUnion(Domain())
        parts = []
        for dim, rng in zip(self.dims, self.ranges, strict=True):
            if rng.is_left_finite():
                parts.append(Domain._make((dim,), (UnitRange._make(-INFINITY, rng.start),)))
            if rng.is_right_finite():
                parts.append(Domain._make((dim,), (UnitRange._make(rng.stop, INFINITY),)))
        return DomainUnion(*parts)

    def replace(self, index: int | Dimension, *named_ranges: NamedRange) -> Domain:
        """This domain with the entry at ``index`` replaced by ``named_ranges`` (none: removed)."""
        if isinstance(index, Dimension):
            pos = self.dim_index(index)
            if pos is None:
                raise KeyError(f"{index} is not a dimension of {self}")
            index = pos
        if index < 0:
            index += len(self.dims)
        new = [named_range(nr) for nr in named_ranges]
        dims = self.dims[:index] + tuple(n.dim for n in new) + self.dims[index + 1 :]
        ranges = self.ranges[:index] + tuple(n.unit_range for n in new) + self.ranges[index + 1 :]
        if len(set(dims)) != len(dims):
            raise ValueError(f"replacing gives repeated dimensions: {', '.join(map(str, dims))}")
        return Domain._make(dims, ranges)

    # -- identity -------------------------------------------------------------------------------

    def _key(self) -> tuple[tuple[Bound, Bound], ...]:
        bounds = self._bounds
        if bounds is None:
            bounds = self._bounds = tuple((r.start, r.stop) for r in self.ranges)
        return bounds

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Domain:
            return NotImplemented
        return self is other or (self.dims == other.dims and self._key() == other._key())

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash((self.dims, self._key()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_domain, (self.dims, tuple((r.start, r.stop) for r in self.ranges)))

    def __repr__(self) -> str:
        inner = ", ".join(f"{d}={r}" for d, r in zip(self.dims, self.ranges, strict=True))
        return f"Domain({inner})"

    __str__ = __repr__


def _rebuild_domain(dims: tuple[Dimension, ...], bounds: tuple[tuple[Bound, Bound], ...]) -> Domain:
    return Domain._make(dims, tuple(UnitRange._make(a, b) for a, b in bounds))


class DomainUnion:
    """A union of domains, e.g. ``(I == 0) | (I >= n - 1)``: a condition for ``concat_where``.

    The parts may overlap; a point belongs to the union when it lies in any part.
    """

    __slots__ = ("domains",)

    domains: tuple[Domain, ...]

    def __init__(self, *domains: Domain) -> None:
        for d in domains:
            if not isinstance(d, Domain):
                raise TypeError(f"DomainUnion takes Domain objects, got {d!r}")
        self.domains = tuple(domains)

    def __iter__(self) -> Iterator[Domain]:
        return iter(self.domains)

    def __len__(self) -> int:
        return len(self.domains)

    def __or__(self, other: Domain | DomainUnion) -> DomainUnion:
        if isinstance(other, Domain):
            return DomainUnion(*self.domains, other)
        if isinstance(other, DomainUnion):
            return DomainUnion(*self.domains, *other.domains)
        return NotImplemented

    __ror__ = __or__

    def __and__(self, other: Domain | DomainUnion) -> DomainUnion:
        others = (other,) if isinstance(other, Domain) else getattr(other, "domains", None)
        if others is None:
            return NotImplemented
        parts = [a & b for a in self.domains for b in others]
        return DomainUnion(*(p for p in parts if not p.is_empty()))

    __rand__ = __and__

    def __invert__(self) -> DomainUnion:
        result = DomainUnion(Domain())
        for part in self.domains:
            result = result & ~part
        return result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DomainUnion):
            return NotImplemented
        return self.domains == other.domains

    def __hash__(self) -> int:
        return hash(self.domains)

    def __repr__(self) -> str:
        if not self.domains:
            return "DomainUnion()"
        return " | ".join(f"({d!r})" for d in self.domains)


DomainLike: TypeAlias = (
    Domain | Mapping[Dimension, RangeLike] | Sequence[NamedRange | tuple[Dimension, RangeLike]]
)


def domain(value: DomainLike) -> Domain:
    """A :class:`Domain` from a domain-like value.

    ``domain({I: 10, J: (1, 5)})`` is ``I`` in ``[0, 10)`` and ``J`` in ``[1, 5)``; ranges may be
    sizes, ``(start, stop)`` pairs (``None`` for unbounded), ``range`` or :class:`UnitRange`.
    A sequence of ``(Dimension, range)`` pairs works too.
    """
    if isinstance(value, Domain):
        return value
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, Dimension):
                raise TypeError(f"domain keys must be Dimension objects, got {key!r}")
        return Domain(*(named_range((d, r)) for d, r in value.items()))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return Domain(*(named_range(v) for v in value))
    raise TypeError(
        f"cannot make a Domain from {value!r}: use a Domain, a {{Dimension: range}} dict or "
        "a sequence of (Dimension, range) pairs"
    )

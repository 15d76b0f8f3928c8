"""Fields made of pieces along one dimension, for results that reach to infinity.

``concat_where(K >= 1, a(K - 1), 0.0)`` is ``0.0`` on every level below 1 and ``a(K - 1)``
above: no single array can hold it. A :class:`PiecewiseField` keeps the pieces as they are;
operations act piece by piece, and as soon as a result is finite (e.g. after ``+ b`` or when
written to an output) the pieces are concatenated into one :class:`NdArrayField`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from .._dimensions import Dimension, NamedIndex
from .._domain import Domain, NamedRange, UnitRange
from . import _alignment, _array_ns
from ._selection import absolute_selection
from .exceptions import DomainError, NonContiguousDomainError
from .nd_array_field import EmbeddedField, NdArrayField, is_field


Piece = tuple[UnitRange, Any]  # (range along the piecewise dim, field defined there)


class PiecewiseField(EmbeddedField):
    """A field given by consecutive pieces along ``dim``; at least one piece is unbounded.

    All pieces have the same dims and the same ranges along every other dimension.
    """

    __slots__ = ("_domain", "dim", "pieces")

    _is_piecewise: ClassVar[bool] = True

    dim: Dimension
    pieces: tuple[Piece, ...]

    def __init__(self, dim: Dimension, pieces: Sequence[Piece]) -> None:
        self.dim = dim
        self.pieces = tuple(pieces)
        first = self.pieces[0][1].domain
        pos = first.dim_index(dim)
        assert pos is not None
        ranges = list(first.ranges)
        ranges[pos] = UnitRange._make(self.pieces[0][0].start, self.pieces[-1][0].stop)
        self._domain = Domain._make(first.dims, tuple(ranges))

    @property
    def domain(self) -> Domain:
        return self._domain

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.pieces[0][1].dtype  # type: ignore[no-any-return]

    @property
    def array_ns(self) -> Any:
        return self.pieces[0][1].array_ns

    @property
    def ndarray(self) -> Any:
        return materialize(self).ndarray

    def asnumpy(self) -> np.ndarray[Any, Any]:
        return materialize(self).asnumpy()

    def restrict(self, index: Any) -> Any:
        selection = absolute_selection(self._domain, index)
        pos = self._domain.dim_index(self.dim)
        assert pos is not None
        others = [
            _item(d, s)
            for i, (d, s) in enumerate(zip(self._domain.dims, selection, strict=True))
            if s is not None and i != pos
        ]
        chosen = selection[pos]
        if isinstance(chosen, int):
            for rng, piece in self.pieces:
                if chosen in rng:
                    return piece.restrict((*others, NamedIndex(self.dim, chosen)))
            raise DomainError(f"index {self.dim}={chosen} is out of bounds of {self._domain}")
        if chosen is not None and not _alignment.covers(self._domain.ranges[pos], chosen):
            raise DomainError(f"{self.dim}={chosen} is out of bounds of {self._domain}")
        results = []
        for rng, piece in self.pieces:
            part = rng if chosen is None else rng & chosen
            if not part.is_empty():
                results.append(piece.restrict((*others, NamedRange(self.dim, part))))
        if not results:
            empty = NamedRange(self.dim, UnitRange._make(0, 0))
            results.append(self.pieces[0][1].restrict((*others, empty)))
        return stack_along(self.dim, results)

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "cannot assign into an unbounded temporary field; assign into an allocated field"
        )

    def __repr__(self) -> str:
        parts = ", ".join(f"{self.dim}={rng}: {type(f).__name__}" for rng, f in self.pieces)
        return f"PiecewiseField({self._domain}, dtype={self.dtype.name}, pieces=[{parts}])"


def _item(dim: Dimension, selection: UnitRange | int) -> NamedRange | NamedIndex:
    if isinstance(selection, int):
        return NamedIndex(dim, selection)
    return NamedRange(dim, selection)


def _range_along(field: Any, dim: Dimension) -> UnitRange | None:
    pos = field.domain.dim_index(dim)
    return None if pos is None else field.domain.ranges[pos]


def stack_along(dim: Dimension, fields: Sequence[Any]) -> Any:
    """The fields, consecutive along ``dim``, as one field (concatenated when finite)."""
    pieces: list[Piece] = []
    for field in fields:
        rng = _range_along(field, dim)
        if rng is None:
            raise DomainError(f"cannot stack a field over {field.domain} along {dim}")
        if rng.is_empty():
            continue
        if field._is_piecewise and field.dim == dim:
            pieces.extend(field.pieces)
        else:
            pieces.append((rng, field))
    if not pieces:
        return restrict_along(fields[0], dim, UnitRange._make(0, 0))
    for (left, _), (right, _) in itertools.pairwise(pieces):
        if left.stop != right.start:
            raise NonContiguousDomainError(
                f"the result would have a gap along {dim}: one part ends at {left.stop} and "
                f"the next starts at {right.start} (parts: {', '.join(str(r) for r, _ in pieces)})"
            )
    if len(pieces) == 1:
        return pieces[0][1]
    pieces = _common_other_ranges(dim, pieces)
    if all(rng.is_finite() and not f._is_piecewise for rng, f in pieces):
        return _concatenate(dim, [f for _, f in pieces])
    return PiecewiseField(dim, pieces)


def _common_other_ranges(dim: Dimension, pieces: list[Piece]) -> list[Piece]:
    domains = [f.domain for _, f in pieces]
    first = domains[0]
    if all(d.dims == first.dims for d in domains) and all(
        d.ranges[i] == first.ranges[i]
        for d in domains
        for i, d_dim in enumerate(first.dims)
        if d_dim != dim
    ):
        return pieces
    dims = first.dims
    others = {
        d: r
        for d, r in zip(dims, _alignment.intersect_ranges(domains, dims), strict=True)
        if d != dim
    }
    return [(rng, clip(f, others)) for rng, f in pieces]


def _concatenate(dim: Dimension, fields: list[Any]) -> NdArrayField:
    first = fields[0]
    xp = first.array_ns
    dims = first.domain.dims
    datas = []
    for field in fields:
        if field.domain.dims == dims:
            data = field._data
        else:
            data = _alignment.view(field, dims, [field.domain[d].unit_range for d in dims])
        datas.append(data if field.array_ns is xp else _array_ns.as_namespace_array(xp, data))
    axis = dims.index(dim)
    data = _array_ns.function(xp, "concatenate")(datas, axis=axis)
    ranges = list(first.domain.ranges)
    ranges[axis] = UnitRange._make(
        _range_along(fields[0], dim).start,  # type: ignore[union-attr]
        _range_along(fields[-1], dim).stop,  # type: ignore[union-attr]
    )
    return NdArrayField._make(Domain._make(dims, tuple(ranges)), data, xp)


def materialize(field: Any) -> NdArrayField:
    """``field`` as one :class:`NdArrayField` (an error if it is unbounded along its pieces)."""
    if not field._is_piecewise:
        return field  # type: ignore[no-any-return]
    if not field.domain.ranges[field.domain.dim_index(field.dim)].is_finite():
        raise DomainError(
            f"this field is unbounded along {field.dim} ({field.domain}); restrict it to a "
            "finite domain first (field[domain]), e.g. by combining it with a bounded field"
        )
    return _concatenate(field.dim, [materialize(f) for _, f in field.pieces])


def restrict_along(value: Any, dim: Dimension, rng: UnitRange) -> Any:
    """``value`` clipped to ``rng`` along ``dim`` (scalars and fields without ``dim`` pass)."""
    if not is_field(value):
        return value
    return clip(value, {dim: rng})


def clip(value: Any, ranges: dict[Dimension, UnitRange]) -> Any:
    """``value`` restricted to its intersection with ``ranges`` (no bounds error)."""
    if not is_field(value):
        return value
    domain = value.domain
    items = []
    for dim, rng in ranges.items():
        own = _range_along(value, dim)
        if own is None:
            continue
        new = own & rng
        if new != own:
            items.append(NamedRange(dim, new))
    if not items:
        return value
    return value.restrict(tuple(items)) if domain.dims else value


def map_fields(function: Callable[..., Any], operands: Sequence[Any]) -> Any:
    """``function`` applied to the operands piece by piece of the first piecewise field."""
    piecewise = next(o for o in operands if is_field(o) and o._is_piecewise)
    results = []
    for rng, piece in piecewise.pieces:
        sub = [piece if o is piecewise else restrict_along(o, piecewise.dim, rng) for o in operands]
        results.append(function(*sub))
    return stack_along(piecewise.dim, results)

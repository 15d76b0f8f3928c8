"""Lining up field data by dimension name: the core of broadcasting and domain intersection.

A field's data has one axis per dimension of its domain. Along a finite range the axis has
exactly that many entries; along an unbounded range (a broadcast value) it has one entry.
Aligning gives a view of the data whose axes follow a target dimension order, cut to target
ranges, with length-1 axes for missing dimensions, ready for namespace broadcasting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._dimensions import Dimension, promote_dims
from .._domain import INFINITY, UnitRange
from . import _array_ns
from .exceptions import DomainError


def is_unbounded(rng: UnitRange) -> bool:
    return rng.start == -INFINITY or rng.stop == INFINITY


def result_dims(domains: Sequence[Any]) -> tuple[Dimension, ...]:
    """The dims of a result combining fields.

    When one field's dims contain every other field's dims in the same relative order, that
    order is kept (``a_IJK + b_K`` stays over (I, J, K)); otherwise the canonical order.
    """
    widest: tuple[Dimension, ...] = domains[0].dims
    same = True
    for dom in domains[1:]:
        if dom.dims != widest:
            same = False
            if len(dom.dims) > len(widest):
                widest = dom.dims
    if same:
        return widest
    for dom in domains:
        if not _is_subsequence(dom.dims, widest):
            return promote_dims(*(d.dims for d in domains))
    return widest


def _is_subsequence(dims: Sequence[Dimension], of: Sequence[Dimension]) -> bool:
    remaining = iter(of)
    return all(any(d is o or d == o for o in remaining) for d in dims)


def intersect_ranges(domains: Sequence[Any], dims: Sequence[Dimension]) -> tuple[UnitRange, ...]:
    """Per dim, the intersection of the ranges of the domains that have it."""
    ranges = []
    for dim in dims:
        start: float = -INFINITY
        stop: float = INFINITY
        for dom in domains:
            pos = dom.dim_index(dim)
            if pos is not None:
                rng = dom.ranges[pos]
                start = max(start, rng.start)
                stop = min(stop, rng.stop)
        ranges.append(UnitRange._make(start, stop))
    return tuple(ranges)


def view(field: Any, dims: Sequence[Dimension], ranges: Sequence[UnitRange]) -> Any:
    """The field's data aligned to ``dims`` and cut to ``ranges``.

    Every finite range of the field along a target dim must contain the target range (the
    caller intersects or checks first). Dimensions the field lacks become length-1 axes.
    """
    domain = field._domain
    data = field._data
    own_dims = domain.dims
    if own_dims == dims:
        cut = _cuts(domain.ranges, ranges)
        return data if cut is None else data[cut]
    positions = []
    own_targets = []
    for dim in own_dims:
        pos = _position(dims, dim)
        if pos is None:
            raise DomainError(f"cannot align a field over {_names(own_dims)} to {_names(dims)}")
        positions.append(pos)
        own_targets.append(ranges[pos])
    cut = _cuts(domain.ranges, own_targets)
    if cut is not None:
        data = data[cut]
    if positions != sorted(positions):
        order = sorted(range(len(positions)), key=positions.__getitem__)
        data = _array_ns.function(field.array_ns, "transpose")(data, order)
        positions = sorted(positions)
    if len(positions) != len(dims):
        present = set(positions)
        data = data[tuple(slice(None) if i in present else None for i in range(len(dims)))]
    return data


def _position(dims: Sequence[Dimension], dim: Dimension) -> int | None:
    for i, d in enumerate(dims):
        if d is dim or d == dim:
            return i
    return None


def _cuts(own: Sequence[UnitRange], targets: Sequence[UnitRange]) -> tuple[slice, ...] | None:
    cut: list[slice] | None = None
    for axis, (rng, target) in enumerate(zip(own, targets, strict=True)):
        if rng is target or (rng.start == target.start and rng.stop == target.stop):
            continue
        if is_unbounded(rng):  # broadcast axis: its single entry serves every index
            continue
        if cut is None:
            cut = [slice(None)] * len(own)
        start = int(target.start - rng.start)
        cut[axis] = slice(start, start + int(target.stop - target.start))
    return None if cut is None else tuple(cut)


def covers(outer: UnitRange, inner: UnitRange) -> bool:
    return inner.start == inner.stop or (outer.start <= inner.start and inner.stop <= outer.stop)


def check_covers(
    field: Any, dims: Sequence[Dimension], ranges: Sequence[UnitRange], what: str
) -> None:
    """Raise :class:`DomainError` unless ``field`` is defined on the whole target box."""
    domain = field._domain
    for dim, rng in zip(dims, ranges, strict=True):
        pos = domain.dim_index(dim)
        if pos is not None and not covers(domain.ranges[pos], rng):
            raise DomainError(
                f"{what}: the value covers {dim}={domain.ranges[pos]} but {dim}={rng} is needed"
            )
    for dim in domain.dims:
        if _position(dims, dim) is None:
            raise DomainError(
                f"{what}: the value has dimension {dim}, which the target ({_names(dims)}) lacks"
            )


def shape_of(ranges: Sequence[UnitRange]) -> tuple[int, ...]:
    """The data shape for ``ranges``: lengths, and 1 along unbounded ranges."""
    return tuple(1 if is_unbounded(r) else int(r.stop - r.start) for r in ranges)


def clamped_view(field: Any, dims: Sequence[Dimension], ranges: Sequence[UnitRange]) -> Any:
    """Like :func:`view`, but target ranges may stick out of the field's finite ranges.

    Positions outside repeat the nearest edge value; callers only use them where a condition
    discards them (a guarded read such as ``where(k > 0, a(K - 1), 0.0)``).
    """
    domain = field._domain
    xp = field.array_ns
    if any(not is_unbounded(t) and t.stop <= t.start for t in ranges):
        # an empty box reads nothing (not even from a field that is empty itself)
        shape = tuple(1 if is_unbounded(t) else max(int(t.stop - t.start), 0) for t in ranges)
        return xp.zeros(shape, dtype=field._data.dtype)
    inner = []
    clamps: list[tuple[int, UnitRange, UnitRange]] = []
    for dim, target in zip(dims, ranges, strict=True):
        pos = domain.dim_index(dim)
        own = domain.ranges[pos] if pos is not None else None
        if own is None or is_unbounded(own) or covers(own, target):
            inner.append(target)
            continue
        if own.start == own.stop:
            # a field without values: callers discard every position read here
            shape = tuple(1 if is_unbounded(t) else int(t.stop - t.start) for t in ranges)
            return xp.zeros(shape, dtype=field._data.dtype)
        inner.append(own)
        clamps.append((len(inner) - 1, own, target))
    data = view(field, dims, inner)
    take = _array_ns.function(xp, "take")
    for axis, own, target in clamps:
        positions = xp.arange(int(target.start - own.start), int(target.stop - own.start))
        positions = xp.clip(positions, 0, int(own.stop - own.start) - 1)
        data = take(data, positions, axis=axis)
    return data


def _names(dims: Sequence[Dimension]) -> str:
    return "(" + ", ".join(str(d) for d in dims) + ")"

"""Field indexing: what ``field[index]`` selects, for every accepted index form.

Absolute forms name their dimensions (a ``Domain``, a mapping, named ranges/indices/slices,
``(Dim, range)`` pairs); relative forms are positional (ints, slices, ``...``) over finite
ranges. :func:`selection` turns either into the array cut and the resulting domain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._dimensions import Dimension, NamedIndex
from .._domain import Domain, NamedRange, UnitRange, domain as as_domain
from ._alignment import is_unbounded
from .exceptions import DomainError


def selection(domain: Domain, index: Any) -> tuple[tuple[Any, ...], Domain, bool]:
    """Array cut, resulting domain, and whether an unbounded axis became finite."""
    per_dim = absolute_selection(domain, index)
    cut: list[Any] = []
    dims: list[Dimension] = []
    ranges: list[UnitRange] = []
    unbounded_to_finite = False
    for dim, own, sel in zip(domain.dims, domain.ranges, per_dim, strict=True):
        unbounded = is_unbounded(own)
        if sel is None:
            cut.append(slice(None))
            dims.append(dim)
            ranges.append(own)
        elif isinstance(sel, int):
            if sel not in own:
                raise DomainError(f"index {dim}={sel} is out of bounds of {domain}")
            cut.append(0 if unbounded else sel - int(own.start))
        else:
            if not (own.start <= sel.start and sel.stop <= own.stop) and not sel.is_empty():
                raise DomainError(f"{dim}={sel} is out of bounds of {domain}")
            if unbounded:
                cut.append(slice(None))
                unbounded_to_finite |= not is_unbounded(sel)
            else:
                start = int(sel.start - own.start)
                cut.append(slice(start, start + len(sel)))
            dims.append(dim)
            ranges.append(sel)
    return tuple(cut), Domain._make(tuple(dims), tuple(ranges)), unbounded_to_finite


def absolute_selection(domain: Domain, index: Any) -> list[UnitRange | int | None]:
    """Per dim of ``domain``: a sub-range, a single index, or ``None`` (all)."""
    if isinstance(index, Domain):
        items: Sequence[Any] = list(index)
    elif isinstance(index, Mapping):
        items = list(as_domain(index))
    elif (
        isinstance(index, (NamedRange, NamedIndex))
        or _is_named_slice(index)
        or (isinstance(index, tuple) and len(index) == 2 and isinstance(index[0], Dimension))
    ):
        items = [index]
    elif isinstance(index, tuple) and index and all(_is_absolute_item(i) for i in index):
        items = list(index)
    else:
        return _relative_selection(domain, index)
    selection: list[UnitRange | int | None] = [None] * len(domain.dims)
    for item in items:
        dim, sel = _absolute_item(item)
        pos = domain.dim_index(dim)
        if pos is None:
            raise DomainError(f"cannot index a field over {domain} by {dim}: no such dimension")
        if selection[pos] is not None:
            raise DomainError(f"{dim} is indexed twice in {index!r}")
        selection[pos] = sel
    return selection


def _is_named_slice(item: Any) -> bool:
    return isinstance(item, slice) and (
        isinstance(item.start, NamedIndex) or isinstance(item.stop, NamedIndex)
    )


def _is_absolute_item(item: Any) -> bool:
    return (
        isinstance(item, (NamedRange, NamedIndex))
        or _is_named_slice(item)
        or (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Dimension))
    )


def _absolute_item(item: Any) -> tuple[Dimension, UnitRange | int]:
    if isinstance(item, NamedIndex):
        return item.dim, item.value
    if isinstance(item, slice):
        if item.step not in (None, 1):
            raise DomainError(f"named slices take no step, got {item!r}")
        ends = [e for e in (item.start, item.stop) if e is not None]
        dim = ends[0].dim
        if any(e.dim != dim for e in ends):
            raise DomainError(f"a named slice must use one dimension, got {item!r}")
        start = item.start.value if item.start is not None else None
        stop = item.stop.value if item.stop is not None else None
        return dim, UnitRange(start, stop)
    if isinstance(item, NamedRange):
        return item.dim, item.unit_range
    dim, rng = item
    from .._domain import unit_range

    if not isinstance(rng, (UnitRange, range, tuple)) and hasattr(rng, "__index__"):
        return dim, int(rng)
    return dim, unit_range(rng)


def _relative_selection(domain: Domain, index: Any) -> list[UnitRange | int | None]:
    items = list(index) if isinstance(index, tuple) else [index]
    ellipses = sum(1 for i in items if i is Ellipsis)
    if ellipses > 1:
        raise DomainError("an index can contain at most one '...'")
    if ellipses:
        at = items.index(Ellipsis)
        fill = len(domain.dims) - (len(items) - 1)
        items = items[:at] + [slice(None)] * fill + items[at + 1 :]
    if len(items) > len(domain.dims):
        raise DomainError(f"too many indices ({len(items)}) for a field over {domain}")
    selection: list[UnitRange | int | None] = [None] * len(domain.dims)
    for pos, item in enumerate(items):
        own = domain.ranges[pos]
        if isinstance(item, slice) and item == slice(None):
            continue
        if not own.is_finite():
            raise DomainError(
                f"positional indices need a finite range, but {domain.dims[pos]} is {own}; "
                "use named indices such as I(3) or a Domain"
            )
        positions = range(int(own.start), int(own.stop))
        if isinstance(item, slice):
            chosen = positions[item]
            if chosen.step != 1:
                raise DomainError(f"field slices take no step, got {item!r}")
            selection[pos] = UnitRange(chosen.start, chosen.stop)
        elif isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(
                f"cannot index a field with {item!r}: use ints, slices, named indices (I(3)), "
                "named ranges or a Domain"
            )
        else:
            try:
                selection[pos] = positions[int(item)]
            except IndexError:
                raise DomainError(
                    f"index {int(item)} is out of bounds for {domain.dims[pos]}={own}"
                ) from None
    return selection

"""Shifts (premaps): reading a field at other positions.

- Cartesian, ``f(I + 1)`` or ``f(Koff[1])``: the domain moves, the data is not copied.
- Through a neighbour table, ``f(E2V)``: the table's dimensions replace the target dimension
  (a field over (V, K) becomes one over (E, E2VDim, K)); ``f(E2V[0])`` picks one neighbour.
- Dynamic, ``f(as_offset(Koff, offsets))``: a gather with a per-point shift.

Named offsets are resolved through the offset provider of the current
:func:`~gt4py.next.embedded.context.embedded_context`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._dimensions import CartesianConnectivity, Dimension, DimensionKind
from .._domain import Domain, UnitRange
from .._field import Connectivity
from .._offsets import DynamicOffset, FieldOffset, IndexedFieldOffset
from . import _alignment, _array_ns, _piecewise, nd_array_field
from .context import get_offset_provider
from .exceptions import DomainError, OffsetProviderError
from .nd_array_field import NdArrayConnectivityField, NdArrayField, is_field


def premap(field: Any, shifts: Sequence[Any]) -> Any:
    """``field`` read through each of ``shifts`` in turn."""
    if not shifts:
        raise TypeError("a field call needs a shift, e.g. f(I + 1), f(E2V) or f(Koff[1])")
    for shift in shifts:
        field = _shift(field, shift)
    return field


def _shift(field: Any, shift: Any) -> Any:
    kind = shift.__class__
    if kind is CartesianConnectivity:
        return cartesian_shift(field, shift.dim, shift.offset)
    if kind is IndexedFieldOffset:
        return _indexed_offset(field, shift)
    if kind is FieldOffset:
        return _named_offset(field, shift)
    if kind is DynamicOffset:
        return dynamic_shift(field, shift)
    if isinstance(shift, Connectivity):
        return remap(field, shift)
    raise TypeError(
        f"cannot shift a field by {shift!r}: use I + 1, a FieldOffset (E2V, Koff[1]), "
        "a Connectivity or as_offset(...)"
    )


# -- resolving named offsets -------------------------------------------------------------------


def _provider_entry(offset: FieldOffset) -> Any:
    return get_offset_provider().get(offset.value)


def _missing_entry(offset: FieldOffset) -> OffsetProviderError:
    target = ", ".join(str(d) for d in offset.target)
    return OffsetProviderError(
        f"no offset provider entry for {offset.value!r}: shifting by {offset.value} "
        f"({offset.source} -> {target}) needs offset_provider={{{offset.value!r}: "
        f"<connectivity over ({target}) into {offset.source}>}}"
    )


def _cartesian_dims(offset: FieldOffset, entry: Dimension) -> tuple[Dimension, Dimension | None]:
    """The dim to shift along and, for a relocation (source != target), the new dim."""
    source, target = offset.source, offset.target[0]
    if len(offset.target) != 1 or entry not in (source, target):
        raise OffsetProviderError(
            f"the offset provider maps {offset.value!r} to the dimension {entry}, but "
            f"{offset!r} is not a Cartesian offset along {entry}"
        )
    return source, (None if target == source else target)


def _indexed_offset(field: Any, shift: IndexedFieldOffset) -> Any:
    offset = shift.offset
    entry = _provider_entry(offset)
    if entry is None:
        if offset.is_cartesian_like:
            return cartesian_shift(field, offset.source, shift.index)
        raise _missing_entry(offset)
    if isinstance(entry, Dimension):
        dim, new_dim = _cartesian_dims(offset, entry)
        return cartesian_shift(field, dim, shift.index, new_dim)
    connectivity = _checked_connectivity(offset, entry)
    return remap(field, connectivity.neighbor(shift.index))


def _named_offset(field: Any, offset: FieldOffset) -> Any:
    entry = _provider_entry(offset)
    if entry is None and not offset.is_cartesian_like:
        raise _missing_entry(offset)
    if entry is None or isinstance(entry, Dimension):
        raise TypeError(
            f"{offset.value} is a Cartesian offset: say how far to shift, e.g. "
            f"f({offset.value}[1]) or f({offset.value}[-1])"
        )
    return remap(field, _checked_connectivity(offset, entry))


def check_provider_entry(offset: FieldOffset, entry: Any) -> None:
    """Raise ``OffsetProviderError`` if ``entry`` cannot serve ``offset`` (as shifting does;
    compiled backends check a call's offset provider with it before running)."""
    if entry is None:
        if not offset.is_cartesian_like:
            raise _missing_entry(offset)
    elif isinstance(entry, Dimension):
        _cartesian_dims(offset, entry)
    else:
        _checked_connectivity(offset, entry)


def _checked_connectivity(offset: FieldOffset, entry: Any) -> NdArrayConnectivityField:
    if not isinstance(entry, NdArrayConnectivityField):
        raise OffsetProviderError(
            f"the offset provider entry for {offset.value!r} must be a Connectivity "
            f"(gtx.as_connectivity(...)) or a Dimension, got {type(entry).__name__}"
        )
    if entry.codomain != offset.source:
        raise OffsetProviderError(
            f"the connectivity given for {offset.value!r} points into {entry.codomain}, but "
            f"{offset.value} reads fields over {offset.source}"
        )
    if set(entry.domain.dims) != set(offset.target):
        raise OffsetProviderError(
            f"the connectivity given for {offset.value!r} is over "
            f"({', '.join(map(str, entry.domain.dims))}), but {offset.value} targets "
            f"({', '.join(map(str, offset.target))})"
        )
    return entry


# -- Cartesian shifts --------------------------------------------------------------------------


def cartesian_shift(
    field: Any, dim: Dimension, offset: int, new_dim: Dimension | None = None
) -> Any:
    """``field`` read at ``dim + offset`` (relabelled to ``new_dim`` if given); no copy."""
    if not is_field(field):
        return field
    domain = field.domain
    pos = domain.dim_index(dim)
    if pos is None:
        return field  # the values do not depend on `dim`
    if new_dim is not None and domain.dim_index(new_dim) is not None:
        raise DomainError(f"shifting {dim} to {new_dim} would repeat {new_dim} in {domain}")
    if field._is_piecewise:
        if field.dim == dim:
            pieces = [
                (rng - offset, cartesian_shift(f, dim, offset, new_dim)) for rng, f in field.pieces
            ]
            return _piecewise.PiecewiseField(new_dim or dim, pieces)
        pieces = [(rng, cartesian_shift(f, dim, offset, new_dim)) for rng, f in field.pieces]
        return _piecewise.PiecewiseField(field.dim, pieces)
    ranges = list(domain.ranges)
    ranges[pos] = ranges[pos] - offset
    dims = domain.dims
    if new_dim is not None:
        dims = (*dims[:pos], new_dim, *dims[pos + 1 :])
    return NdArrayField._make(Domain._make(dims, tuple(ranges)), field._data, field.array_ns)


# -- neighbour-table shifts --------------------------------------------------------------------


def remap(field: Any, connectivity: Any) -> Any:
    """``field`` read through ``connectivity``: its codomain dim becomes the table's dims."""
    if not isinstance(connectivity, NdArrayConnectivityField):
        raise TypeError(f"embedded shifts need an ndarray connectivity, got {connectivity!r}")
    target = connectivity.codomain
    domain = field.domain
    pos = domain.dim_index(target)
    if pos is None:
        raise DomainError(
            f"cannot shift a field over ({', '.join(map(str, domain.dims))}) through a "
            f"connectivity into {target}: the field has no dimension {target}"
        )
    # the table's own dims replace `target` (C2E2C: Cell x C2E2CDim -> Cell keeps one Cell)
    repeated = [
        d for d in connectivity.domain.dims if d != target and domain.dim_index(d) is not None
    ]
    if repeated:
        raise DomainError(
            f"shifting a field over {domain} through a connectivity over "
            f"{connectivity.domain} would repeat {', '.join(map(str, repeated))}"
        )
    if field._is_piecewise:
        if field.dim == target:
            needed = _index_hull(connectivity)
            return remap(
                _piecewise.materialize(_piecewise.clip(field, {target: needed})), connectivity
            )
        pieces = [(rng, remap(f, connectivity)) for rng, f in field.pieces]
        return _piecewise.PiecewiseField(field.dim, pieces)
    xp = field.array_ns
    own = domain.ranges[pos]
    data = field._data
    if _alignment.is_unbounded(own):  # constant along `target`: only the shape changes
        table_domain = connectivity.domain
        new_shape = (*data.shape[:pos], *table_domain.shape, *data.shape[pos + 1 :])
        expanded = xp.reshape(
            data, (*data.shape[:pos], *((1,) * table_domain.ndim), *data.shape[pos + 1 :])
        )
        data = _array_ns.function(xp, "broadcast_to")(expanded, new_shape)
        new_ranges = table_domain.ranges
    else:
        new_ranges, indices = gather_plan(connectivity, own)
        flat = xp.reshape(indices, (-1,))
        taken = _array_ns.function(xp, "take")(
            data, _array_ns.as_namespace_array(xp, flat), axis=pos
        )
        data = xp.reshape(taken, (*data.shape[:pos], *indices.shape, *data.shape[pos + 1 :]))
    dims = (*domain.dims[:pos], *connectivity.domain.dims, *domain.dims[pos + 1 :])
    ranges = (*domain.ranges[:pos], *new_ranges, *domain.ranges[pos + 1 :])
    return NdArrayField._make(Domain._make(dims, ranges), data, xp)


def _index_hull(connectivity: NdArrayConnectivityField) -> UnitRange:
    """The smallest range holding every (non-skipped) index of the table."""
    xp = connectivity.array_ns
    table = connectivity._data
    mask = connectivity.valid_mask()
    if mask is not None:
        table = table[mask._data]
    if table.size == 0:
        return UnitRange._make(0, 0)
    return UnitRange._make(int(xp.min(table)), int(xp.max(table)) + 1)


def gather_plan(
    connectivity: NdArrayConnectivityField, available: UnitRange
) -> tuple[tuple[UnitRange, ...], Any]:
    """Ranges of the usable table part and its indices relative to ``available`` (cached).

    Rows whose neighbours fall outside ``available`` are cut off the ends of the table's
    non-local dims; a bad row in the middle is an error. Skipped neighbours read position 0
    (a value that reductions mask out).
    """
    key = ("gather", available.start, available.stop)
    cached = connectivity._cache.get(key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    xp = connectivity.array_ns
    table = connectivity._data
    ranges = list(connectivity.domain.ranges)
    mask = connectivity.valid_mask()
    valid = None if mask is None else mask._data
    outside = (table < available.start) | (table >= available.stop)
    bad = outside if valid is None else (outside & valid)
    if bool(xp.any(bad)):
        cut = []
        for axis, (dim, rng) in enumerate(zip(connectivity.domain.dims, ranges, strict=True)):
            if dim.kind is DimensionKind.LOCAL:
                cut.append(slice(None))
                continue
            others = tuple(a for a in range(bad.ndim) if a != axis)
            row_bad = xp.any(bad, axis=others) if others else bad
            good = xp.nonzero(xp.logical_not(row_bad))[0]
            lo = int(good[0]) if good.size else 0
            hi = int(good[-1]) + 1 if good.size else 0
            cut.append(slice(lo, hi))
            ranges[axis] = UnitRange._make(rng.start + lo, rng.start + hi)
        cut_t = tuple(cut)
        if bool(xp.any(bad[cut_t])):
            raise DomainError(
                f"the connectivity into {connectivity.codomain} over {connectivity.domain} "
                f"refers to {connectivity.codomain} indices outside {available}, where the "
                "field is defined, in the middle of the table; the field must cover "
                f"{_index_hull(connectivity)}"
            )
        table = table[cut_t]
        valid = None if valid is None else valid[cut_t]
    relative = table - available.start
    if valid is not None:
        relative = xp.where(valid, relative, 0)
    plan = (tuple(ranges), relative)
    connectivity._cache[key] = plan
    return plan


# -- dynamic shifts (as_offset) ----------------------------------------------------------------


def dynamic_shift(field: Any, shift: DynamicOffset) -> Any:
    """``field(as_offset(Koff, offsets))``: each point reads ``field`` at ``k + offsets``.

    The result lives where ``offsets`` does (cut to ``field`` along the other dims). Reads
    that fall outside ``field`` return the nearest edge value: guard them with ``where``.
    """
    offset = shift.offset
    entry = _provider_entry(offset)
    if entry is None and offset.is_cartesian_like:
        dim, new_dim = offset.source, None
    elif isinstance(entry, Dimension):
        dim, new_dim = _cartesian_dims(offset, entry)
    else:
        raise OffsetProviderError(
            f"as_offset({offset.value}, ...) needs a Cartesian offset (a FieldOffset with "
            f"source == target, or an offset provider entry that is a Dimension)"
        )
    offsets = shift.offsets
    if not is_field(offsets):
        return cartesian_shift(field, dim, int(offsets), new_dim)
    if offsets.dtype.kind not in "iu":
        raise TypeError(f"as_offset needs an integer field of offsets, got {offsets.dtype}")
    if field._is_piecewise:
        field = _piecewise.materialize(field)
    if offsets._is_piecewise:
        offsets = _piecewise.materialize(offsets)
    domain = field.domain
    pos = domain.dim_index(dim)
    if pos is None:
        return field
    own = domain.ranges[pos]
    if not own.is_finite() or own.is_empty():
        raise DomainError(f"as_offset needs a field with a finite, non-empty range along {dim}")
    xp = field.array_ns
    dims = _alignment.result_dims([domain, offsets.domain])
    ranges = list(_alignment.intersect_ranges([domain, offsets.domain], dims))
    axis = dims.index(dim)
    offsets_pos = offsets.domain.dim_index(dim)
    along = own if offsets_pos is None else offsets.domain.ranges[offsets_pos]
    if not along.is_finite():
        along = own
    ranges[axis] = along
    shift_view = _alignment.view(offsets, dims, ranges)
    base = xp.reshape(
        xp.arange(int(along.start), int(along.stop)),
        tuple(-1 if i == axis else 1 for i in range(len(dims))),
    )
    positions = xp.clip(base + shift_view - int(own.start), 0, len(own) - 1)
    source_ranges = list(ranges)
    source_ranges[axis] = own
    source = _alignment.view(field, dims, source_ranges)
    shape = [max(int(p), int(q)) for p, q in zip(positions.shape, source.shape, strict=True)]
    shape[axis] = len(along)
    broadcast_to = _array_ns.function(xp, "broadcast_to")
    positions = broadcast_to(positions, tuple(shape))
    shape[axis] = len(own)
    source = broadcast_to(source, tuple(shape))
    data = _array_ns.function(xp, "take_along_axis")(source, positions, axis=axis)
    out_dims = dims if new_dim is None else (*dims[:axis], new_dim, *dims[axis + 1 :])
    return NdArrayField._make(Domain._make(tuple(out_dims), tuple(ranges)), data, xp)


nd_array_field.register_operations(premap=premap)  # `field(E2V)`, `field.premap(...)`

"""Neighbour reductions: ``neighbor_sum``, ``max_over``, ``min_over`` over a local dimension.

Skipped neighbours (table entries equal to the connectivity's ``skip_value``) do not take part.
The connectivity is found in the current offset provider: the entry named like the local
dimension, else the one connectivity whose domain has that local dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _builtin_vocabulary as vocabulary
from .._dimensions import Dimension, DimensionKind
from .._domain import Domain, NamedRange
from . import _alignment, _array_ns, _piecewise
from .context import get_offset_provider
from .exceptions import DomainError, FieldDTypeError, OffsetProviderError
from .nd_array_field import NdArrayConnectivityField, NdArrayField, is_field


def reduce(name: str, field: Any, axis: Dimension) -> Any:
    """The reduction ``name`` of ``field`` over the local dimension ``axis``."""
    if not is_field(field):
        raise TypeError(f"{name} needs a field, got {type(field).__name__}")
    if not isinstance(axis, Dimension) or axis.kind is not DimensionKind.LOCAL:
        raise DomainError(
            f"{name}: axis must be a local dimension (DimensionKind.LOCAL), got {axis!r}"
        )
    domain = field.domain
    pos = domain.dim_index(axis)
    if pos is None:
        raise DomainError(
            f"{name}: the field over ({', '.join(map(str, domain.dims))}) has no dimension "
            f"{axis} to reduce"
        )
    dtype = field.dtype
    if dtype.kind not in "iuf":
        raise FieldDTypeError(f"{name} needs a numeric field, got {dtype}")
    if field._is_piecewise:
        if field.dim == axis:
            field = _piecewise.materialize(field)
        else:
            return _piecewise.map_fields(lambda f: reduce(name, f, axis), (field,))
    connectivity = _connectivity_for(axis)
    if _alignment.is_unbounded(domain.ranges[pos]):  # a value broadcast over the neighbours
        if connectivity is None:
            raise OffsetProviderError(
                f"{name}: the field is broadcast along {axis}; the number of neighbours comes "
                f"from a connectivity over {axis}, but the offset provider has none"
            )
        field = field.restrict(NamedRange(axis, connectivity.domain[axis].unit_range))
    mask = None if connectivity is None else connectivity.valid_mask()
    if mask is not None:
        # Along dims where the field is broadcast, the result varies like the mask does.
        narrowed = [
            NamedRange(d, r)
            for d, r in zip(mask.domain.dims, mask.domain.ranges, strict=True)
            if field.domain.dim_index(d) is not None
            and _alignment.is_unbounded(field.domain[d].unit_range)
        ]
        if narrowed:
            field = field.restrict(tuple(narrowed))
    domain = field.domain
    xp = field.array_ns
    data = field._data
    valid = _valid_neighbours(mask, domain, name)
    row = vocabulary.REDUCTIONS[name]  # its combining op and numpy function
    assert row.numpy is not None
    if valid is not None:
        data = xp.where(valid, data, _neutral(row.ir_name, dtype))
    if row.ir_name == "plus":
        result = xp.sum(data, axis=pos, dtype=dtype)
    else:
        result = _array_ns.function(xp, row.numpy)(data, axis=pos)
    new_domain = Domain._make(
        domain.dims[:pos] + domain.dims[pos + 1 :], domain.ranges[:pos] + domain.ranges[pos + 1 :]
    )
    if not new_domain.dims:
        result = xp.asarray(result)
    return NdArrayField._make(new_domain, result, xp)


def _neutral(combine: str, dtype: np.dtype[Any]) -> Any:
    """The value of a missing neighbour for the reduction combining with ``combine``."""
    if combine == "plus":
        return dtype.type(0)
    if dtype.kind == "f":
        return dtype.type(-np.inf if combine == "maximum" else np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.min if combine == "maximum" else info.max)


def _connectivity_for(axis: Dimension) -> NdArrayConnectivityField | None:
    provider = get_offset_provider()
    named = provider.get(axis.value)
    if isinstance(named, NdArrayConnectivityField) and named.domain.dim_index(axis) is not None:
        return named
    found = [
        entry
        for entry in provider.values()
        if isinstance(entry, NdArrayConnectivityField) and entry.domain.dim_index(axis) is not None
    ]
    unique = list({id(c): c for c in found}.values())
    if len(unique) > 1 and len({id(c._data) for c in unique if c.has_skip_values}) > 1:
        names = sorted(k for k, v in provider.items() if any(v is c for c in unique))
        raise OffsetProviderError(
            f"several connectivities over the local dimension {axis} have skip values "
            f"({', '.join(names)}); name the offset like the local dimension ({axis.value!r}) "
            "so the reduction knows which neighbours are missing"
        )
    with_skips = [c for c in unique if c.has_skip_values]
    if with_skips:
        return with_skips[0]
    return unique[0] if unique else None


def _valid_neighbours(mask: NdArrayField | None, domain: Domain, name: str) -> Any:
    """A bool array aligned to ``domain``: which neighbours exist, or ``None`` (all do)."""
    if mask is None:
        return None
    for dim, rng in zip(mask.domain.dims, mask.domain.ranges, strict=True):
        pos = domain.dim_index(dim)
        if pos is not None and not _alignment.covers(rng, domain.ranges[pos]):
            raise DomainError(
                f"{name}: the field covers {dim}={domain.ranges[pos]} but the connectivity "
                f"that marks missing neighbours only covers {dim}={rng}"
            )
    if any(domain.dim_index(d) is None for d in mask.domain.dims):
        mask = _drop_foreign_dims(mask, domain)
    return _alignment.view(mask, domain.dims, domain.ranges)


def _drop_foreign_dims(mask: NdArrayField, domain: Domain) -> NdArrayField:
    """A neighbour is missing if it is missing for any value of a dim the field lacks."""
    xp = mask.array_ns
    data = mask._data
    keep = [i for i, d in enumerate(mask.domain.dims) if domain.dim_index(d) is not None]
    drop = tuple(i for i in range(len(mask.domain.dims)) if i not in keep)
    data = xp.all(data, axis=drop)
    dims = tuple(mask.domain.dims[i] for i in keep)
    ranges = tuple(mask.domain.ranges[i] for i in keep)
    return NdArrayField._make(Domain._make(dims, ranges), data, xp)

"""``concat_where``: pick values by a domain condition, assembling the result from slabs.

``concat_where(K < 5, a, b)`` takes ``a`` on levels below 5 and ``b`` above. Each branch is
only needed where it is chosen, so the result reaches as far as the chosen parts reach:
``concat_where(K >= 1, a(K - 1), 0.0)`` is defined on every level up to the top of
``a(K - 1)``. A union of conditions or a condition over several dimensions reduces to
nested one-dimensional cases; the result must not have holes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dimensions import Dimension
from .._domain import INFINITY, Domain, DomainUnion, UnitRange
from . import _alignment, _array_ns, _elementwise, _piecewise
from .exceptions import DomainError
from .nd_array_field import is_field


def concat_where(condition: Any, true_value: Any, false_value: Any) -> Any:
    """``true_value`` on the points of ``condition``, ``false_value`` elsewhere.

    ``condition`` is a :class:`Domain` (``K < 5``, ``(I >= 1) & (K < 5)``), a
    :class:`DomainUnion` (``(I == 0) | (I >= n)``) or a one-dimensional bool field. The
    values are fields or scalars, or tuples of them.
    """
    parts, mask_range = _condition_parts(condition)
    return _elementwise.map_structure(
        lambda t, f: _concat_where(parts, mask_range, t, f),
        true_value,
        false_value,
        what="concat_where",
    )


def _condition_parts(condition: Any) -> tuple[list[Domain], tuple[Dimension, UnitRange] | None]:
    if isinstance(condition, Domain):
        return [condition], None
    if isinstance(condition, DomainUnion):
        return list(condition.domains), None
    if is_field(condition) and condition.dtype.kind == "b" and condition.domain.ndim == 1:
        return _mask_runs(condition)
    raise TypeError(
        "concat_where needs a domain condition such as K < 5, (I == 0) | (I >= n) or "
        f"(I >= 1) & (K < 5), or a one-dimensional bool field; got {condition!r}"
    )


def _mask_runs(mask: Any) -> tuple[list[Domain], tuple[Dimension, UnitRange]]:
    """The runs of ``True`` of a 1-d bool field, as domains."""
    mask = _piecewise.materialize(mask)
    dim = mask.domain.dims[0]
    rng = mask.domain.ranges[0]
    if not rng.is_finite():
        raise DomainError(
            f"concat_where: a mask field must have a finite domain, got {mask.domain}"
        )
    values = _array_ns.to_numpy(mask.array_ns, mask._data).astype(np.int8)
    edges = np.diff(np.concatenate(([0], values, [0])))
    starts = np.nonzero(edges == 1)[0] + int(rng.start)
    stops = np.nonzero(edges == -1)[0] + int(rng.start)
    parts = [
        Domain._make((dim,), (UnitRange._make(int(a), int(b)),))
        for a, b in zip(starts, stops, strict=True)
    ]
    return parts, (dim, rng)


def _concat_where(
    parts: list[Domain],
    mask_range: tuple[Dimension, UnitRange] | None,
    true_value: Any,
    false_value: Any,
) -> Any:
    dtype = _elementwise.common_dtype((true_value, false_value), "concat_where")
    if dtype is None:
        dtype = _elementwise.literal_dtype((true_value, false_value))
    xp = next((v.array_ns for v in (true_value, false_value) if is_field(v)), np)
    true_field = _as_field(true_value, dtype, xp)
    result = _as_field(false_value, dtype, xp)
    for part in reversed(parts):
        result = _inside_box(part, true_field, result)
    if mask_range is not None:
        dim, rng = mask_range
        dims = _alignment.result_dims([result.domain, Domain._make((dim,), (rng,))])
        result = _piecewise.restrict_along(_elementwise.broadcast(result, dims), dim, rng)
    return result


def _as_field(value: Any, dtype: np.dtype[Any], xp: Any) -> Any:
    if is_field(value):
        return value
    return _elementwise.scalar_field(value, dtype, xp)


def _inside_box(box: Domain, true_field: Any, false_field: Any) -> Any:
    # box = B1 x B2 x ...:  concat_where(B1, concat_where(B2, t, f), f), innermost last.
    result = true_field
    for dim, rng in reversed(list(zip(box.dims, box.ranges, strict=True))):
        result = _along(dim, rng, result, false_field)
    return result


def _along(dim: Dimension, condition: UnitRange, true_field: Any, false_field: Any) -> Any:
    if condition.start == -INFINITY and condition.stop == INFINITY:
        return true_field
    if condition.is_empty():
        return false_field
    dims = _alignment.result_dims(
        [true_field.domain, false_field.domain, Domain._make((dim,), (UnitRange.infinite(),))]
    )
    true_field = _elementwise.broadcast(true_field, dims)
    false_field = _elementwise.broadcast(false_field, dims)
    t_range = true_field.domain[dim].unit_range
    f_range = false_field.domain[dim].unit_range
    slabs = [
        (UnitRange._make(-INFINITY, condition.start) & f_range, false_field),
        (condition & t_range, true_field),
        (UnitRange._make(condition.stop, INFINITY) & f_range, false_field),
    ]
    slabs = [(rng, field) for rng, field in slabs if not rng.is_empty()]
    if not slabs:
        return _piecewise.restrict_along(false_field, dim, UnitRange._make(0, 0))
    used = list({id(f): f for _, f in slabs}.values())
    others = {
        d: r
        for d, r in zip(
            dims, _alignment.intersect_ranges([f.domain for f in used], dims), strict=True
        )
        if d != dim
    }
    pieces = [_piecewise.clip(field, {**others, dim: rng}) for rng, field in slabs]
    return _piecewise.stack_along(dim, pieces)

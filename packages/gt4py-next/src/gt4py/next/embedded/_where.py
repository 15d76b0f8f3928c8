"""``where`` on embedded fields: a value from one of two branches at each point of a mask.

A branch only needs values where the mask selects it, so the result reaches as far as the
mask does wherever the selected branch is defined (see :func:`where`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._dimensions import Dimension
from .._domain import Domain, UnitRange
from . import _alignment, _array_ns
from ._elementwise import (
    _LITERALS,
    _aligned,
    _data_in,
    _namespace,
    _range_along,
    _require_ndarray_fields,
    _scalar_arg,
    _typed_dtype,
    _wrap,
    common_dtype,
    literal,
    literal_dtype,
    map_structure,
)
from .exceptions import FieldDTypeError
from .nd_array_field import is_field


def where(mask: Any, true_value: Any, false_value: Any) -> Any:
    """``true_value`` where ``mask`` holds, else ``false_value`` (tuples: element by element).

    A branch only needs values where it is selected: ``where(k > 0, a(K - 1), 0.0)`` is defined
    on the whole domain of ``k`` even though ``a(K - 1)`` starts one level later.
    """
    if isinstance(mask, tuple):
        raise TypeError("where: the condition must be a bool field or scalar, not a tuple")
    return map_structure(lambda t, f: _where(mask, t, f), true_value, false_value, what="where")


def _where(mask: Any, true_value: Any, false_value: Any) -> Any:
    operands = (mask, true_value, false_value)
    fields = [o for o in operands if is_field(o)]
    mask_dtype = _typed_dtype(mask, "where") if not isinstance(mask, bool) else np.dtype(bool)
    if mask_dtype is None or mask_dtype.kind != "b":
        raise FieldDTypeError(
            f"where: the condition must be bool, got {mask_dtype or type(mask).__name__}"
        )
    dtype = common_dtype((true_value, false_value), "where")
    if dtype is None:
        dtype = literal_dtype((true_value, false_value))
    if not is_field(mask):
        chosen = true_value if bool(mask) else false_value
        return literal(chosen, dtype, "where") if isinstance(chosen, _LITERALS) else chosen
    if any(f._is_piecewise for f in fields):
        from . import _piecewise

        return _piecewise.map_fields(_where, operands)
    _require_ndarray_fields(fields, "where")
    xp = _namespace(fields, "where")
    function = _array_ns.function(xp, "where")
    domains = [f._domain for f in fields]
    first = domains[0]
    if all(d is first or d == first for d in domains[1:]):
        args = [
            _data_in(xp, o) if is_field(o) else _scalar_arg(xp, o, dtype, "where") for o in operands
        ]
        return _wrap(first, function(*args), xp)
    dims = _alignment.result_dims(domains)
    box = _lazy_where_box(xp, mask, true_value, false_value, dims)
    if box is None:  # some selected value is missing: fall back to the plain intersection
        ranges = _alignment.intersect_ranges(domains, dims)
        args = [
            _aligned(xp, o, dims, ranges) if is_field(o) else _scalar_arg(xp, o, dtype, "where")
            for o in operands
        ]
    else:
        ranges = box
        args = [_aligned(xp, mask, dims, ranges)] + [
            _clamped(xp, o, dims, ranges) if is_field(o) else _scalar_arg(xp, o, dtype, "where")
            for o in (true_value, false_value)
        ]
    return _wrap(Domain._make(dims, tuple(ranges)), function(*args), xp)


def _clamped(xp: Any, field: Any, dims: Sequence[Dimension], ranges: Sequence[UnitRange]) -> Any:
    data = _alignment.clamped_view(field, dims, ranges)
    return data if field.array_ns is xp else _array_ns.as_namespace_array(xp, data)


def _lazy_where_box(
    xp: Any, mask: Any, true_value: Any, false_value: Any, dims: Sequence[Dimension]
) -> tuple[UnitRange, ...] | None:
    """The mask's domain cut to the branches' hull, less edge slices where a point's chosen
    branch is not defined (None: no such box)."""
    box = []
    for dim in dims:
        t = _range_along(true_value, dim)
        f = _range_along(false_value, dim)
        hull = UnitRange._make(min(t.start, f.start), max(t.stop, f.stop))
        box.append(_range_along(mask, dim) & hull)
    # Along a dim where the mask and a scalar branch are unbounded, the mask is constant: a
    # bounded branch it selects is needed on its whole range, so the box stops where it does.
    for axis, dim in enumerate(dims):
        if _alignment.is_unbounded(box[axis]):
            for branch in (true_value, false_value):
                if is_field(branch):
                    box[axis] = box[axis] & _range_along(branch, dim)
    mask_view = None
    missing = None  # points whose chosen branch has no value
    for branch, selected in ((true_value, True), (false_value, False)):
        if not is_field(branch):
            continue
        inside = None
        for axis, (dim, target) in enumerate(zip(dims, box, strict=True)):
            own = _range_along(branch, dim)
            if _alignment.covers(own, target):
                continue
            if _alignment.is_unbounded(target):
                return None
            coords = xp.arange(int(target.start), int(target.stop))
            ok = (coords >= own.start) & (coords < own.stop)
            ok = xp.reshape(ok, tuple(-1 if i == axis else 1 for i in range(len(dims))))
            inside = ok if inside is None else inside & ok
        if inside is None:
            continue
        if mask_view is None:
            mask_view = _aligned(xp, mask, dims, box)
        needed = mask_view if selected else xp.logical_not(mask_view)
        lacking = needed & xp.logical_not(inside)
        missing = lacking if missing is None else missing | lacking
    if missing is None or not bool(xp.any(missing)):
        return tuple(box)
    return _peeled(xp, box, missing)


# More edge slices than this to peel: give up (the plain intersection is taken instead).
_PEEL_LIMIT = 64


def _peeled(xp: Any, box: list[UnitRange], missing: Any) -> tuple[UnitRange, ...] | None:
    """``box`` without the edge slices that hold points lacking their chosen value.

    The mask usually reaches beyond the points the caller needs (the whole field, not the
    output domain), so a branch missing a value at the far edge must not cost the whole
    result: peel off, one at a time, the edge slice with the largest share of such points."""
    bounded = [not _alignment.is_unbounded(r) for r in box]
    shape = tuple(len(r) if b else 1 for r, b in zip(box, bounded, strict=True))
    missing = xp.broadcast_to(missing, shape)
    lo = [0] * len(box)
    hi = list(shape)
    for _ in range(_PEEL_LIMIT):
        view = missing[tuple(slice(a, b) for a, b in zip(lo, hi, strict=True))]
        if view.size == 0 or not bool(xp.any(view)):
            return tuple(
                UnitRange._make(r.start + a, r.start + b) if bound else r
                for r, a, b, bound in zip(box, lo, hi, bounded, strict=True)
            )
        best: tuple[float, int, bool] | None = None
        for axis in range(len(box)):
            if not bounded[axis] or hi[axis] <= lo[axis]:
                continue
            for last in (False, True):
                index = view.shape[axis] - 1 if last else 0
                share = float(xp.mean(xp.take(view, index, axis=axis)))
                if best is None or share > best[0]:
                    best = (share, axis, last)
        if best is None:
            return None
        _, axis, last = best
        if last:
            hi[axis] -= 1
        else:
            lo[axis] += 1
    return None

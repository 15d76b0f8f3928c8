"""Pointwise operations on embedded fields: operators, math builtins, ``astype``, ``broadcast``.

Operands combine by dimension name over the intersection of their domains. Typed operands
(fields, numpy scalars) must share one dtype -- the DSL does not promote silently -- while
Python literals adapt to it like numpy 2 (NEP 50): ``int32_field + 7`` stays int32.
The operations themselves (:class:`~._ops.Op`, the ``OPS`` table) are in ``_ops``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from .._dimensions import Dimension
from .._domain import INFINITY, Domain, UnitRange
from .._field import scalar_dtype
from . import _alignment, _array_ns, _lazy, _scratch, nd_array_field
from ._ops import Op
from .exceptions import DomainError, FieldDTypeError
from .nd_array_field import NdArrayField, is_field


# -- operand handling ------------------------------------------------------------------------

_LITERALS: Final = (bool, int, float)
_INT_LIMITS: dict[np.dtype[Any], tuple[int, int]] = {}


def literal(value: Any, dtype: np.dtype[Any], what: str) -> Any:
    """A Python literal as a scalar of ``dtype``, following numpy 2's weak-scalar rules."""
    if isinstance(value, bool):
        return dtype.type(value)
    kind = dtype.kind
    if isinstance(value, int):
        if kind in "iu":
            limits = _INT_LIMITS.get(dtype)
            if limits is None:
                info = np.iinfo(dtype)
                limits = _INT_LIMITS[dtype] = (int(info.min), int(info.max))
            if not limits[0] <= value <= limits[1]:
                raise OverflowError(
                    f"{what}: the literal {value} does not fit in {dtype} "
                    f"({limits[0]}..{limits[1]})"
                )
            return dtype.type(value)
        if kind == "f":
            return dtype.type(value)
        raise FieldDTypeError(f"{what}: cannot combine the int literal {value} with a bool value")
    if isinstance(value, float):
        if kind == "f":
            return dtype.type(value)
        raise FieldDTypeError(
            f"{what}: cannot combine the float literal {value} with a {dtype} value; "
            f"cast with astype(..., float64) or write an integer literal"
        )
    raise TypeError(f"{what}: unsupported operand {value!r} of type {type(value).__name__}")


def _typed_dtype(value: Any, what: str) -> np.dtype[Any] | None:
    """The dtype a typed operand imposes, ``None`` for literals; refuses raw arrays."""
    if is_field(value):
        return value.dtype  # type: ignore[no-any-return]
    if isinstance(value, np.generic):  # before the literals: np.float64 subclasses float
        return scalar_dtype(value.dtype)
    if isinstance(value, _LITERALS):
        return None
    if getattr(value, "ndim", None) == 0 and _array_ns.namespace_of(value) is not None:
        return scalar_dtype(value.dtype)
    if _array_ns.namespace_of(value) is not None:
        raise TypeError(
            f"{what}: cannot combine a Field with a raw {type(value).__name__} (it has no "
            "dimensions); wrap it with gtx.as_field(domain, array)"
        )
    raise TypeError(f"{what}: unsupported operand {value!r} of type {type(value).__name__}")


def common_dtype(values: Sequence[Any], what: str) -> np.dtype[Any] | None:
    """The one dtype of the typed operands; an error naming both when they differ."""
    dtype = None
    for value in values:
        found = _typed_dtype(value, what)
        if found is None:
            continue
        if dtype is None:
            dtype = found
        elif found != dtype:
            raise FieldDTypeError(
                f"{what}: operands have different dtypes ({dtype} and {found}); gt4py.next does "
                f"not promote implicitly, convert one with astype(value, {dtype}) or "
                f"astype(value, {found})"
            )
    return dtype


def literal_dtype(values: Sequence[Any]) -> np.dtype[Any]:
    """The dtype of an expression made only of Python literals (float64 > int32 > bool)."""
    kinds = {type(v) for v in values if not isinstance(v, np.generic)}
    kinds |= {float for v in values if isinstance(v, np.floating)}
    kinds |= {int for v in values if isinstance(v, np.integer)}
    if float in kinds:
        return np.dtype(np.float64)
    if int in kinds:
        return np.dtype(np.int32)  # the DSL's default integer, as the frontend types literals
    return np.dtype(np.bool_)


def _namespace(fields: Sequence[Any], what: str) -> Any:
    xp = fields[0].array_ns
    for field in fields[1:]:
        if field.array_ns is not xp:
            if field._data.size == 1 or field._domain.dims == ():
                continue
            if fields[0]._data.size == 1:
                xp = field.array_ns
                continue
            raise TypeError(
                f"{what}: fields live on different array namespaces "
                f"({_array_ns.namespace_name(xp)} and {_array_ns.namespace_name(field.array_ns)}); "
                "allocate them with the same allocator"
            )
    return xp


def _data_in(xp: Any, field: Any) -> Any:
    data = field._data
    return data if field.array_ns is xp else _array_ns.as_namespace_array(xp, data)


def _require_ndarray_fields(fields: Sequence[Any], what: str) -> None:
    for field in fields:
        if not isinstance(field, NdArrayField):
            raise TypeError(f"{what}: embedded execution cannot use a {type(field).__name__}")


def _wrap(domain: Domain, data: Any, xp: Any) -> NdArrayField:
    if not domain.dims and getattr(data, "ndim", 0) == 0 and not hasattr(data, "__setitem__"):
        data = xp.asarray(data)  # numpy returns scalars for 0-d inputs
    return NdArrayField._make(domain, data, xp)


# -- pointwise application -------------------------------------------------------------------


# Python scalars numpy already treats exactly like the literal rules for these dtypes.
_NATIVE_LITERAL: Final = {
    (float, np.dtype(np.float64)),
    (int, np.dtype(np.int64)),
    (int, np.dtype(np.float64)),
    (bool, np.dtype(np.bool_)),
}


def binary(op: Op, left: Any, right: Any) -> Any:
    """``left <op> right`` with fast paths for fields over the same dims and for literals."""
    lcls = left.__class__
    rcls = right.__class__
    if lcls in _ND_CLASSES:
        if rcls in _ND_CLASSES:
            dtype = left.dtype
            if dtype == right.dtype and left.array_ns is right.array_ns:
                ldom = left._domain
                rdom = right._domain
                if ldom is rdom:
                    op.check(dtype)
                    return _result(op, ldom, dtype, left.array_ns, ((left, None), (right, None)))
                if ldom.dims == rdom.dims:
                    op.check(dtype)
                    domain, lcut, rcut = _overlap(ldom, rdom)
                    return _result(op, domain, dtype, left.array_ns, ((left, lcut), (right, rcut)))
        elif rcls in _LITERALS:
            dtype = left.dtype
            op.check(dtype)
            if (rcls, dtype) not in _NATIVE_LITERAL or (rcls is int and not -_I64 <= right < _I64):
                right = literal(right, dtype, op.symbol)
            return _result(
                op, left._domain, dtype, left.array_ns, ((left, None), (right, _lazy.SCALAR))
            )
    elif rcls in _ND_CLASSES and lcls in _LITERALS:
        dtype = right.dtype
        op.check(dtype)
        if (lcls, dtype) not in _NATIVE_LITERAL or (lcls is int and not -_I64 <= left < _I64):
            left = literal(left, dtype, op.symbol)
        return _result(
            op, right._domain, dtype, right.array_ns, ((left, _lazy.SCALAR), (right, None))
        )
    return apply(op, (left, right))


_I64: Final = 2**63
_ND_CLASSES: Final = (NdArrayField, _lazy.LazyNdArrayField)


def _result(
    op: Op, domain: Domain, dtype: np.dtype[Any], xp: Any, operands: tuple[tuple[Any, Any], ...]
) -> NdArrayField:
    """The field of ``op`` on ``operands``: deferred in lazy contexts, else computed now."""
    function = op.function(xp)
    result_dtype = op.result_dtype(dtype)
    pending = _lazy.deferred(
        domain, result_dtype, xp, function, operands, in_place=result_dtype == dtype
    )
    if pending is not None:
        return pending
    args = [
        value if cut is _lazy.SCALAR else (value._data if cut is None else value._data[cut])
        for value, cut in operands
    ]
    return NdArrayField._make(domain, _scratch.call(function, args), xp)


def _overlap(left: Domain, right: Domain) -> tuple[Domain, Any, Any]:
    """Two domains over the same dims: their intersection and the cut of each to it."""
    lranges = left.ranges
    rranges = right.ranges
    ranges = []
    lcut: list[slice] | None = None
    rcut: list[slice] | None = None
    for axis, (lr, rr) in enumerate(zip(lranges, rranges, strict=True)):
        lstart = lr.start
        lstop = lr.stop
        rstart = rr.start
        rstop = rr.stop
        if lstart == rstart and lstop == rstop:
            ranges.append(lr)
            continue
        start = max(lstart, rstart)
        stop = min(lstop, rstop)
        if start >= stop:
            start = stop = 0
        ranges.append(UnitRange._make(start, stop))
        if (start != lstart or stop != lstop) and lstart != -INFINITY and lstop != INFINITY:
            if lcut is None:
                lcut = [_ALL] * len(lranges)
            lcut[axis] = slice(int(start - lstart), int(stop - lstart))
        if (start != rstart or stop != rstop) and rstart != -INFINITY and rstop != INFINITY:
            if rcut is None:
                rcut = [_ALL] * len(rranges)
            rcut[axis] = slice(int(start - rstart), int(stop - rstart))
    if lcut is None and all(a is b for a, b in zip(ranges, lranges, strict=True)):
        domain = left
    else:
        domain = Domain._make(left.dims, tuple(ranges))
    return (
        domain,
        None if lcut is None else tuple(lcut),
        None if rcut is None else tuple(rcut),
    )


_ALL: Final = slice(None)


def apply(op: Op, operands: Sequence[Any]) -> Any:
    """``op`` applied pointwise to fields and scalars (at least one field)."""
    fields = [o for o in operands if is_field(o)]
    if not fields:
        raise TypeError(f"{op.symbol}: embedded field operations need at least one field")
    if any(f._is_piecewise for f in fields):
        from . import _piecewise

        return _piecewise.map_fields(lambda *ops: apply(op, ops), operands)
    _require_ndarray_fields(fields, op.symbol)
    dtype = common_dtype(operands, op.symbol)
    assert dtype is not None
    op.check(dtype)
    xp = _namespace(fields, op.symbol)
    domains = [f._domain for f in fields]
    first = domains[0]
    if all(d is first or d == first for d in domains[1:]):
        domain = first
        args = [
            _data_in(xp, o) if is_field(o) else _scalar_arg(xp, o, dtype, op.symbol)
            for o in operands
        ]
    else:
        dims = _alignment.result_dims(domains)
        ranges = _alignment.intersect_ranges(domains, dims)
        domain = Domain._make(dims, ranges)
        args = [
            _aligned(xp, o, dims, ranges) if is_field(o) else _scalar_arg(xp, o, dtype, op.symbol)
            for o in operands
        ]
    return _wrap(domain, _scratch.call(op.function(xp), args), xp)


def _scalar_arg(xp: Any, value: Any, dtype: np.dtype[Any], what: str) -> Any:
    if isinstance(value, _LITERALS):
        return literal(value, dtype, what)
    if isinstance(value, np.generic):
        return value
    return _array_ns.as_namespace_array(xp, value)


def _aligned(xp: Any, field: Any, dims: Sequence[Dimension], ranges: Sequence[UnitRange]) -> Any:
    data = _alignment.view(field, dims, ranges)
    return data if field.array_ns is xp else _array_ns.as_namespace_array(xp, data)


# -- tuples and ranges ------------------------------------------------------------------------


def map_structure(function: Callable[..., Any], *values: Any, what: str) -> Any:
    """Apply ``function`` leaf by leaf over matching tuple structures (non-tuples broadcast)."""
    tuples = [v for v in values if isinstance(v, tuple)]
    if not tuples:
        return function(*values)
    size = len(tuples[0])
    if any(len(t) != size for t in tuples):
        raise ValueError(
            f"{what}: tuple arguments must have the same length, got {[len(t) for t in tuples]}"
        )
    leaves = [
        map_structure(function, *(v[i] if isinstance(v, tuple) else v for v in values), what=what)
        for i in range(size)
    ]
    kind = type(tuples[0])
    if kind is not tuple and hasattr(kind, "_fields"):  # a NamedTuple stays one
        return kind(*leaves)
    return tuple(leaves)


def _range_along(value: Any, dim: Dimension) -> UnitRange:
    if is_field(value):
        pos = value._domain.dim_index(dim)
        if pos is not None:
            return value._domain.ranges[pos]  # type: ignore[no-any-return]
    return UnitRange.infinite()


# -- casts, broadcasts, assignment -------------------------------------------------------------


def astype(value: Any, dtype: Any) -> Any:
    """``value`` (a field, scalar or tuple of them) converted to ``dtype``."""
    target = scalar_dtype(dtype)
    if isinstance(value, tuple):
        return tuple(astype(v, target) for v in value)
    if is_field(value):
        if value._is_piecewise:
            from . import _piecewise

            return _piecewise.map_fields(lambda f: astype(f, target), (value,))
        _require_ndarray_fields([value], "astype")
        xp = value.array_ns
        return NdArrayField._make(value._domain, _array_ns.astype(xp, value._data, target), xp)
    return target.type(value)


def broadcast(value: Any, dims: Sequence[Dimension]) -> Any:
    """``value`` as a field over ``dims`` (new dimensions are unbounded; no copy)."""
    dims = tuple(dims)
    for dim in dims:
        if not isinstance(dim, Dimension):
            raise TypeError(f"broadcast: dims must be Dimension objects, got {dim!r}")
    if len(set(dims)) != len(dims):
        raise ValueError(f"broadcast: dims list a dimension twice: {dims}")
    if isinstance(value, tuple):
        return tuple(broadcast(v, dims) for v in value)
    if not is_field(value):
        value = scalar_field(value)
    missing = [d for d in value.domain.dims if d not in dims]
    if missing:
        raise DomainError(
            f"broadcast: cannot broadcast a field over {value.domain} to "
            f"({', '.join(map(str, dims))}): it would drop {', '.join(map(str, missing))}"
        )
    if value._is_piecewise:
        from . import _piecewise

        return _piecewise.map_fields(lambda f: broadcast(f, dims), (value,))
    ranges = tuple(_range_along(value, d) for d in dims)
    if value._domain.dims == dims:
        return value
    data = _alignment.view(value, dims, ranges)
    return NdArrayField._make(Domain._make(dims, ranges), data, value.array_ns)


def scalar_field(value: Any, dtype: np.dtype[Any] | None = None, xp: Any = np) -> NdArrayField:
    """A 0-dimensional field (defined everywhere) holding ``value``."""
    if isinstance(value, _LITERALS) and not isinstance(value, np.generic):
        dtype = dtype if dtype is not None else literal_dtype((value,))
        scalar = literal(value, dtype, "scalar")
    elif isinstance(value, np.generic) or getattr(value, "ndim", None) == 0:
        scalar = value
        if dtype is not None and scalar_dtype(value.dtype) != dtype:
            raise FieldDTypeError(f"expected a {dtype} scalar, got {value.dtype}")
    else:
        raise TypeError(f"expected a field or a scalar, got {value!r}")
    return NdArrayField._make(Domain._make((), ()), xp.asarray(scalar), xp)


def value_for_assignment(value: Any, target: Domain, dtype: np.dtype[Any]) -> Any:
    """The data of a field ``value`` for ``out[target] = value``."""
    if value.dtype != dtype:
        raise FieldDTypeError(
            f"cannot assign a {value.dtype} field to a {dtype} field; convert it with "
            f"astype(value, {dtype})"
        )
    if value._is_piecewise:
        value = value.restrict(_restriction_for(value, target))
    _require_ndarray_fields([value], "assignment")
    _alignment.check_covers(value, target.dims, target.ranges, "cannot assign")
    return _alignment.view(value, target.dims, target.ranges)


def _restriction_for(value: Any, target: Domain) -> Domain:
    dims = [d for d in target.dims if value.domain.dim_index(d) is not None]
    return Domain._make(tuple(dims), tuple(target[d].unit_range for d in dims))


def scalar_for_assignment(value: Any, dtype: np.dtype[Any]) -> Any:
    if isinstance(value, _LITERALS):
        return literal(value, dtype, "assignment")
    found = _typed_dtype(value, "assignment")
    if found != dtype:
        raise FieldDTypeError(f"cannot assign a {found} value to a {dtype} field")
    return value


nd_array_field.register_operations(  # the field classes' operators and assignments
    binary=binary,
    apply=apply,
    value_for_assignment=value_for_assignment,
    scalar_for_assignment=scalar_for_assignment,
)

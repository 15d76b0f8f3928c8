"""Embedded execution of operators: run the Python definition on fields, write into ``out``.

Operator bodies run inside ``embedded_context(lazy=True)`` (ADR 0005) so that dead temporaries
are reused in place. Scan operators run level by level along their axis, each level vectorized
over the other dimensions: arguments are sliced at the level (``f[K(k)]``) and the carry is
written into the outputs at that level.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from typing import Any

from .._dimensions import Dimension, NamedIndex, promote_dims
from .._domain import Domain, UnitRange, domain as as_domain
from .._field import Field
from ..embedded.context import embedded_context, pending_results


# True while an operator body runs: operators called from it return values (no `out`).
in_operator_body: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "gt4py_next_in_operator_body", default=False
)


def call_in_body(
    function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    token = in_operator_body.set(True)
    try:
        return function(*args, **kwargs)
    finally:
        in_operator_body.reset(token)


def run_returning(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    offset_provider: Mapping[str, Any] | None,
) -> Any:
    """A direct call without ``out``: the result (computed when the lazy block ends)."""
    with embedded_context(offset_provider=offset_provider, lazy=True):
        return call_in_body(function, args, kwargs)


def run_into(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    out: Any,
    domain: Any,
    offset_provider: Mapping[str, Any] | None,
) -> None:
    """Run ``function`` and assign its result into ``out`` over ``domain`` (default: out's)."""
    if offset_provider is None and pending_results() is not None:
        # already in a lazy context (a program body): no new context needed
        assign(out, call_in_body(function, args, kwargs), domain)
        return
    with embedded_context(offset_provider=offset_provider, lazy=True):
        assign(out, call_in_body(function, args, kwargs), domain)


def assign(out: Any, value: Any, domain: Any) -> None:
    if isinstance(out, tuple):
        if not isinstance(value, tuple) or len(value) != len(out):
            raise TypeError(
                f"the operator returns {_describe(value)} but 'out' is a tuple of {len(out)}"
            )
        domains = domain if isinstance(domain, tuple) else (domain,) * len(out)
        for o, v, d in zip(out, value, domains, strict=True):
            assign(o, v, d)
        return
    if not isinstance(out, Field):
        raise TypeError(f"'out' must be a field or a tuple of fields, got {out!r}")
    if isinstance(value, tuple):
        raise TypeError(f"the operator returns a tuple of {len(value)} but 'out' is one field")
    out[out.domain if domain is None else as_domain(domain)] = value


def _describe(value: Any) -> str:
    return f"a tuple of {len(value)}" if isinstance(value, tuple) else "one value"


# -- scans ------------------------------------------------------------------------------------


def run_scan(
    function: Callable[..., Any],
    axis: Dimension,
    forward: bool,
    init: Any,
    args: list[Any],
    out: Any,
    domain: Any,
    offset_provider: Mapping[str, Any] | None,
    result_dtypes: Any,
) -> Any:
    """Run a scan; with ``out=None`` allocate and return the outputs."""
    with embedded_context(offset_provider=offset_provider, lazy=True):
        if domain is not None:
            target = as_domain(domain)
        elif out is not None:
            target = _first_field(out).domain
        else:
            target = _common_domain(args, axis)
        if out is None:
            out = _allocate(result_dtypes, target, _first_field(args))
        levels = target[axis].unit_range
        if not levels.is_finite():
            raise ValueError(f"the scan over {axis.value} needs a finite range, got {levels}")
        order = range(int(levels.start), int(levels.stop))
        carry = init
        token = in_operator_body.set(True)
        try:
            for k in order if forward else reversed(order):
                index = NamedIndex(axis, k)
                level_args = [_at_level(a, axis, index) for a in args]
                carry = function(carry, *level_args)
                _write_level(out, carry, target, axis, k)
        finally:
            in_operator_body.reset(token)
    return out


def _at_level(value: Any, axis: Dimension, index: NamedIndex) -> Any:
    if isinstance(value, Field):
        if value.domain.dim_index(axis) is not None:
            return value[index]
        return value
    if isinstance(value, tuple):
        return tuple(_at_level(v, axis, index) for v in value)
    return value


def _write_level(out: Any, value: Any, target: Domain, axis: Dimension, k: int) -> None:
    if isinstance(out, tuple):
        if not isinstance(value, tuple) or len(value) != len(out):
            raise TypeError(
                f"the scan returns {_describe(value)} but 'out' is a tuple of {len(out)}"
            )
        for o, v in zip(out, value, strict=False):
            _write_level(o, v, target, axis, k)
        return
    dims = out.domain.dims
    ranges = tuple(UnitRange(k, k + 1) if d == axis else target[d].unit_range for d in dims)
    out[Domain._make(dims, ranges)] = value


def _first_field(value: Any) -> Any:
    if isinstance(value, Field):
        return value
    if isinstance(value, (tuple, list)):
        for v in value:
            found = _first_field(v)
            if found is not None:
                return found
    return None


def _fields(value: Any) -> list[Field]:
    if isinstance(value, Field):
        return [value]
    if isinstance(value, (tuple, list)):
        return [f for v in value for f in _fields(v)]
    return []


def _common_domain(args: list[Any], axis: Dimension) -> Domain:
    fields = _fields(args)
    if not fields:
        raise TypeError("a scan operator called without 'out' needs at least one field argument")
    dims = promote_dims(*(f.domain.dims for f in fields))
    if axis not in dims:
        raise ValueError(f"no argument of the scan has its axis {axis.value}")
    ranges = []
    for dim in dims:
        rng = UnitRange.infinite()
        for f in fields:
            if f.domain.dim_index(dim) is not None:
                rng = rng & f.domain[dim].unit_range
        ranges.append(rng)
    return Domain._make(dims, tuple(ranges))


def _allocate(dtypes: Any, target: Domain, like: Any) -> Any:
    from ..constructors import empty
    from ..embedded import _array_ns

    if isinstance(dtypes, tuple):
        return tuple(_allocate(d, target, like) for d in dtypes)
    array_ns = None if like is None else _array_ns.namespace_of(like.ndarray)
    return empty(target, dtype=dtypes, allocator=array_ns)

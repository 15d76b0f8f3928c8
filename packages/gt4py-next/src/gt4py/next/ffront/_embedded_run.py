"""Embedded execution of operators: run the Python definition on fields, write into ``out``.

Operator bodies run inside ``embedded_context(lazy=True)`` (ADR 0005) so that dead temporaries
are reused in place. Scan operators run level by level along their axis, each level vectorized
over the other dimensions: arguments are sliced at the level (``f[K(k)]``) and the carry is
written into the outputs at that level.
"""

from __future__ import annotations

import contextvars
import itertools
from collections.abc import Callable, Mapping
from typing import Any

from .._dimensions import Dimension, NamedIndex, promote_dims
from .._domain import Domain, UnitRange, domain as as_domain
from .._field import AmbiguousTruthValueError, Field, is_field
from ..embedded.context import embedded_context, pending_results
from ..embedded.exceptions import DomainError
from .fbuiltins import astype


# True while an operator body runs: operators called from it return values (no `out`).
in_operator_body: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "gt4py_next_in_operator_body", default=False
)


# The output domain the running field operator body was asked for (``out``'s or ``domain=``):
# scans called in the body iterate over its range along their axis. None where unknown, or
# where the body shifts operator results (see ``_result_shifts``).
requested_domain: contextvars.ContextVar[Domain | None] = contextvars.ContextVar(
    "gt4py_next_requested_domain", default=None
)


def call_in_body(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    requested: Domain | None = None,
) -> Any:
    token = in_operator_body.set(True)
    domain_token = requested_domain.set(requested)
    try:
        return function(*args, **kwargs)
    finally:
        requested_domain.reset(domain_token)
        in_operator_body.reset(token)


def call_nested(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    forwards_requested_domain: bool,
) -> Any:
    """An operator called from another operator's body (which set ``in_operator_body``)."""
    if forwards_requested_domain or requested_domain.get() is None:
        return function(*args, **kwargs)
    token = requested_domain.set(None)
    try:
        return function(*args, **kwargs)
    finally:
        requested_domain.reset(token)


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
    forwards_requested_domain: bool = False,
) -> None:
    """Run ``function`` and assign its result into ``out`` over ``domain`` (default: out's)."""
    requested = _requested(out, domain) if forwards_requested_domain else None
    if offset_provider is None and pending_results() is not None:
        # already in a lazy context (a program body): no new context needed
        assign(out, call_in_body(function, args, kwargs, requested), domain)
        return
    with embedded_context(offset_provider=offset_provider, lazy=True):
        assign(out, call_in_body(function, args, kwargs, requested), domain)


def _requested(out: Any, domain: Any) -> Domain | None:
    if isinstance(out, tuple) and isinstance(domain, tuple):
        # one domain per output (as `assign` reads it): only a shared one is a requested range
        domains = [as_domain(d) for d in _leaves(domain)]
        return domains[0] if all(d == domains[0] for d in domains[1:]) else None
    if domain is not None:
        return as_domain(domain)
    fields = _fields(out)
    if not fields:
        return None
    first = fields[0].domain
    return first if all(f.domain == first for f in fields[1:]) else None


def assign(out: Any, value: Any, domain: Any) -> None:
    if isinstance(out, tuple):
        if not isinstance(value, tuple) or len(value) != len(out):
            raise TypeError(
                f"the operator returns {_describe(value)} but 'out' is a tuple of {len(out)}"
            )
        if isinstance(domain, tuple):
            domains = domain
        else:  # one domain for all outputs: each takes the dims it has (as compiled backends)
            domains = tuple(_restricted(domain, o) for o in out)
        for o, v, d in zip(out, value, domains, strict=True):
            assign(o, v, d)
        return
    if not is_field(out):  # (a plain bool: `out` stays Any, since Field declares no []=)
        raise TypeError(f"'out' must be a field or a tuple of fields, got {out!r}")
    if isinstance(value, tuple):
        raise TypeError(f"the operator returns a tuple of {len(value)} but 'out' is one field")
    out[out.domain if domain is None else as_domain(domain)] = value


def _restricted(domain: Any, out: Any) -> Any:
    """A domain shared by the outputs of a tuple, cut to the dims ``out`` has (a nested
    ``out`` keeps the whole domain: its own outputs cut it)."""
    if domain is None or not is_field(out):
        return domain
    full = as_domain(domain)
    kept = [(d, r) for d, r in zip(full.dims, full.ranges, strict=True) if d in out.domain.dims]
    if len(kept) == len(full.dims):
        return full
    return Domain(dims=[d for d, _ in kept], ranges=[r for _, r in kept])


def _leaves(domain: tuple[Any, ...]) -> list[Any]:
    """The domains of a nested ``domain=`` tuple (one per output field), in order."""
    return [leaf for d in domain for leaf in (_leaves(d) if isinstance(d, tuple) else [d])]


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
    *,
    pointwise: bool = False,
) -> Any:
    """Run a scan; with ``out=None`` allocate and return the outputs.

    ``pointwise`` runs ``function`` once per point and level on scalars, for bodies whose
    Python conditionals could not be rewritten to run on whole levels.
    """
    with embedded_context(offset_provider=offset_provider, lazy=True):
        if domain is not None:
            target = as_domain(domain)
        elif out is not None:
            target = _first_field(out).domain
        else:
            target = _common_domain(args, axis)
            requested = requested_domain.get()
            if requested is not None and requested.dim_index(axis) is not None:
                # iterate over the caller's requested levels, as compiled backends do
                position = target.dim_index(axis)
                assert position is not None
                ranges = list(target.ranges)
                ranges[position] = ranges[position] & requested[axis].unit_range
                target = Domain._make(target.dims, tuple(ranges))
        if out is None:
            out = _allocate(result_dtypes, target, _first_field(args))
        else:
            from ._call_arguments import check_scan_out

            check_scan_out(getattr(function, "__name__", "scan"), axis, out)
        if target.dim_index(axis) is None:
            raise DomainError(
                f"the scan over {axis.value} needs a domain with {axis.value}, got {target}"
            )
        levels = target[axis].unit_range
        if not levels.is_finite():
            raise ValueError(f"the scan over {axis.value} needs a finite range, got {levels}")
        order = range(int(levels.start), int(levels.stop))
        carry = init
        token = in_operator_body.set(True)
        domain_token = requested_domain.set(None)
        levels_in_order = order if forward else reversed(order)
        try:
            if pointwise:
                _scan_pointwise(function, init, args, out, target, axis, levels_in_order)
                return out
            try:
                for k in levels_in_order:
                    index = NamedIndex(axis, k)
                    level_args = [_at_level(a, axis, index) for a in args]
                    # the checker typed the carry; literals in the body (`count + where(c, 1,
                    # 0)`) may widen it on fields, where they are no longer weak
                    carry = _as_dtypes(function(carry, *level_args), result_dtypes)
                    _write_level(out, carry, target, axis, k)
            except AmbiguousTruthValueError:
                # an operator called from the body branches on a value in Python (`if
                # snow_exists:`): that needs scalars, so run the scan point by point
                order = range(int(levels.start), int(levels.stop))
                levels_in_order = order if forward else reversed(order)
                _scan_pointwise(function, init, args, out, target, axis, levels_in_order)
        finally:
            requested_domain.reset(domain_token)
            in_operator_body.reset(token)
    return out


def _scan_pointwise(
    function: Callable[..., Any],
    init: Any,
    args: list[Any],
    out: Any,
    target: Domain,
    axis: Dimension,
    levels: Any,
) -> None:
    levels = list(levels)
    columns = [(d, target[d].unit_range) for d in target.dims if d != axis]
    for rng in (r for _, r in columns):
        if not rng.is_finite():
            raise ValueError(f"a point-by-point scan needs finite ranges, got {target}")
    for point in itertools.product(*(range(int(r.start), int(r.stop)) for _, r in columns)):
        indices = [NamedIndex(d, i) for (d, _), i in zip(columns, point, strict=True)]
        carry = init
        for k in levels:
            at = (*indices, NamedIndex(axis, k))
            carry = function(carry, *(_at_point(a, at) for a in args))
            _write_point(out, carry, at)


def _at_point(value: Any, at: tuple[NamedIndex, ...]) -> Any:
    if isinstance(value, Field):
        own = tuple(i for i in at if value.domain.dim_index(i.dim) is not None)
        point: Any = value.restrict(own) if own else value  # a 0-d embedded field
        return point.as_scalar()
    if isinstance(value, tuple):
        return _rebuilt(value, [_at_point(v, at) for v in value])
    return value


def _write_point(out: Any, value: Any, at: tuple[NamedIndex, ...]) -> None:
    if isinstance(out, tuple):
        if not isinstance(value, tuple) or len(value) != len(out):
            raise TypeError(
                f"the scan returns {_describe(value)} but 'out' is a tuple of {len(out)}"
            )
        for o, v in zip(out, value, strict=True):
            _write_point(o, v, at)
        return
    dims = out.domain.dims
    ranges = {i.dim: UnitRange(i.value, i.value + 1) for i in at}
    out[Domain._make(dims, tuple(ranges[d] for d in dims))] = out.dtype.type(value)


def _as_dtypes(value: Any, dtypes: Any) -> Any:
    if isinstance(dtypes, tuple):
        if not isinstance(value, tuple) or len(value) != len(dtypes):
            return value  # _write_level reports the mismatch
        return _rebuilt(dtypes, [_as_dtypes(v, d) for v, d in zip(value, dtypes, strict=True)])
    found = getattr(value, "dtype", None)
    if found is None or found == dtypes:
        return value
    return astype(value, dtypes)


def _at_level(value: Any, axis: Dimension, index: NamedIndex) -> Any:
    if isinstance(value, Field):
        if value.domain.dim_index(axis) is not None:
            return value.restrict(index)
        return value
    if isinstance(value, tuple):
        return _rebuilt(value, [_at_level(v, axis, index) for v in value])
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


def _rebuilt(like: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...]:
    """``items`` as a tuple of ``like``'s kind: a NamedTuple stays one (scan carries and
    arguments such as ICON's ``IntegrationState`` are read by member name)."""
    if type(like) is tuple or not hasattr(like, "_fields"):
        return tuple(items)
    return type(like)(*items)


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
    from .._constructors import empty
    from ..embedded import _array_ns

    if isinstance(dtypes, tuple):
        return _rebuilt(dtypes, [_allocate(d, target, like) for d in dtypes])
    # the namespace, not the data: `like` may be unbounded (a broadcast scalar) and have none
    array_ns = getattr(like, "array_ns", None)
    if array_ns is None and like is not None:
        array_ns = _array_ns.namespace_of(like.ndarray)
    return empty(target, dtype=dtypes, allocator=array_ns)

"""What decides the code of a compiled variant: :class:`VariantKey`, and static arguments.

A key is the frontend type of every argument, the values of the static arguments (constants
in the generated code, bound into the IR by :func:`bind_static`), the dims of an explicit
``domain=`` of a direct operator call, and the identity of the offset provider's tables.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import struct
from typing import Any

import numpy as np

from .. import ir
from .._domain import DomainError, fits_index_space, index_range_message
from ..ffront import type_specifications as ts


# compile-log lines and cache labels: longer signatures are summarised (VariantKey.summary)
_SUMMARY_LIMIT = 200


@dataclasses.dataclass(frozen=True)
class VariantKey:
    """What decides the code of one variant.

    Static values count bit for bit (``static_identity``): ``0.0`` and ``-0.0`` are two
    variants (``1 / x`` differs), and a NaN is one variant per bit pattern, found again by
    the next call with it (``==`` would never match a NaN)."""

    arguments: tuple[Any, ...]  # frontend types of the arguments (a direct call: then ``out``)
    # the static values (Python scalars of their declared dtypes); compared by identity below
    static: tuple[tuple[str, Any], ...] = dataclasses.field(default=(), compare=False)
    domain_dims: tuple[str, ...] | tuple[tuple[str, ...], ...] | None = None
    offset_provider: tuple[tuple[str, int], ...] = ()
    # ``static_domains``: per flattened field argument its (dim, start, stop) bounds
    domains: tuple[tuple[str, tuple[tuple[str, int, int], ...]], ...] = ()
    static_identity: tuple[tuple[str, Any], ...] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        identity = tuple((name, static_token(value)) for name, value in self.static)
        object.__setattr__(self, "static_identity", identity)

    def describe(self, names: list[str]) -> str:
        parts = [f"{n}: {t}" for n, t in zip(names, self.arguments, strict=False)]
        static = dict(self.static)
        parts = [
            f"{p} = {static_text(static[n])}" if n in static else p
            for p, n in zip(parts, names, strict=False)
        ]
        text = f"({', '.join(parts)})"
        if self.domain_dims is not None:
            text += f" domain over {_dims_text(self.domain_dims)}"
        if self.offset_provider:
            text += f" offset_provider {{{', '.join(n for n, _ in self.offset_provider)}}}"
        if self.domains:
            text += " static domains " + ", ".join(
                f"{name}[{', '.join(f'{d}: {a}..{b}' for d, a, b in bounds)}]"
                for name, bounds in self.domains
            )
        return text

    def summary(self, names: list[str], limit: int = _SUMMARY_LIMIT) -> str:
        """:meth:`describe`, or for a long signature (icon4py's programs have 50 parameters)
        what tells its variants apart: the argument count and the static values."""
        full = self.describe(names)
        if len(full) <= limit:
            return full
        static = ", ".join(f"{n}={static_text(v)}" for n, v in self.static)
        text = f"({len(self.arguments)} arguments{'; static ' + static if static else ''})"
        if len(text) > limit:
            text = text[: limit - 2] + "…)"
        return text

    def label(self, names: list[str]) -> str:
        """A short directory name for the variant's dumps, the same in every process."""
        return "variant-" + hashlib.sha1(self.describe(names).encode()).hexdigest()[:10]


def _dims_text(domain_dims: Any) -> str:
    if domain_dims and not isinstance(domain_dims[0], str):  # one domain per output
        return ", ".join(_dims_text(dims) for dims in domain_dims)
    return f"({', '.join(domain_dims)})"


_DOUBLE = struct.Struct("<d")
_DEFAULT_NAN = _DOUBLE.pack(math.nan)


def static_token(value: Any) -> Any:
    """What a static value counts as in keys: floats by type and IEEE bytes (``-0.0`` is not
    ``0.0``; a NaN equals itself), other values by type and value."""
    if isinstance(value, float):  # numpy.float64 too
        return (type(value), _DOUBLE.pack(value))
    if isinstance(value, np.floating):
        return (type(value), value.tobytes())
    return (type(value), value)


def static_text(value: Any) -> str:
    """A static value as variant descriptions show it (a NaN with other bits than Python's
    ``nan`` shows them)."""
    if isinstance(value, float) and math.isnan(value) and _DOUBLE.pack(value) != _DEFAULT_NAN:
        return f"nan(0x{_DOUBLE.pack(value)[::-1].hex()})"
    return repr(value)


def static_value(name: str, value: Any, declared: Any) -> Any:
    """A static argument's value as the Python scalar of its declared dtype."""
    dtype = np.dtype(ts.element_dtype(declared))
    if isinstance(value, (bool, np.bool_)) != (dtype.kind == "b") or not isinstance(
        value, (int, float, np.number, np.bool_)
    ):
        raise TypeError(f"static argument {name!r} is declared {dtype.name}, got {value!r}")
    converted = dtype.type(value).item()
    if dtype.kind in "iu" and converted != value:
        raise TypeError(f"static argument {name!r} is declared {dtype.name}, got {value!r}")
    return converted


def bind_static(program: ir.Program, values: dict[str, Any]) -> ir.Program:
    """The program with its static scalar parameters replaced by literals."""
    from gt4py.eve import NodeTranslator

    dtypes = {p.name: p.dtype for p in program.params if p.name in values}

    class BindStatic(NodeTranslator):
        def visit_SymRef(self, node: ir.SymRef) -> ir.Expr:
            if node.name in dtypes:
                return ir.Literal(value=repr(values[node.name]), dtype=dtypes[node.name])
            return node

        def visit_Let(self, node: ir.Let) -> ir.Let:
            if node.name in dtypes:  # a binding shadowing a static name keeps its own value
                raise NotImplementedError(f"a local value shadows static argument {node.name!r}")
            return self.generic_visit(node)  # type: ignore[no-any-return]

    bound: ir.Program = BindStatic().visit(program)
    return bound.replace(params=[p for p in bound.params if p.name not in dtypes])


def provider_key(offset_provider: Any) -> tuple[tuple[str, int], ...]:
    """Offset providers count by the identity of their tables (a fresh ``{}`` per call, or a
    new dict holding the same tables, reuses the variant; the pool keeps them alive)."""
    if not offset_provider:
        return ()
    return tuple([(name, id(value)) for name, value in offset_provider.items()])


def domain_bounds(domain: Any) -> tuple[Any, tuple[int, ...]]:
    """The dims of an explicit ``domain=`` and its bounds as flat (start, stop) arguments.

    One domain (a dict or a ``Domain``) gives a tuple of dim names; one domain per output (a
    tuple of them, nested like ``out``) gives a tuple of such tuples, in flattened output
    order (``lower_operator_call`` takes both)."""
    if domain is None:
        return None, ()
    if isinstance(domain, tuple):
        flat = list(_flat_domains(domain))
        parts = [_one_domain_bounds(d) for d in flat]
        return tuple(dims for dims, _ in parts), tuple(v for _, b in parts for v in b)
    return _one_domain_bounds(domain)


def _flat_domains(domain: tuple[Any, ...]) -> Any:
    for item in domain:
        if isinstance(item, tuple):
            yield from _flat_domains(item)
        else:
            yield item


def _one_domain_bounds(domain: Any) -> tuple[tuple[str, ...], tuple[int, ...]]:
    if isinstance(domain, dict):
        dims = tuple(d.value for d in domain)
        values: list[int] = []
        for dim, rng in zip(dims, domain.values(), strict=True):
            # a (start, stop) pair, a range-like value (range, UnitRange) or a size
            if isinstance(rng, tuple | list):
                start, stop = int(rng[0]), int(rng[1])
            elif isinstance(rng, int):
                start, stop = 0, rng
            else:
                start, stop = int(rng.start), int(rng.stop)
            if not fits_index_space(start, stop):  # as embedded's `gtx.domain(...)`
                raise DomainError(index_range_message(dim, start, stop))
            values.extend((start, stop))
        return dims, tuple(values)
    # the lowered program takes the bounds in the given order (lower_operator_call follows it)
    dims = tuple(d.value for d in domain.dims)
    return dims, tuple(int(v) for r in domain.ranges for v in (r.start, r.stop))


def domain_arity(domain_dims: Any) -> int:
    """How many dims the ``domain_dims`` of :func:`domain_bounds` has in all (each one is a
    (start, stop) pair of call arguments)."""
    if not domain_dims:
        return 0
    if isinstance(domain_dims[0], str):
        return len(domain_dims)
    return sum(len(dims) for dims in domain_dims)


__all__ = [
    "VariantKey",
    "bind_static",
    "bind_static_domains",
    "domain_arity",
    "domain_bounds",
    "field_domains",
    "provider_key",
    "static_text",
    "static_token",
    "static_value",
]


def field_domains(names: list[str], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The domains of the field arguments (tuples and dataclasses flattened, named as the IR
    parameters ``name__0``...) for ``static_domains`` keys."""
    from ..embedded.nd_array_field import NdArrayField

    found: list[Any] = []

    def visit(name: str, value: Any) -> None:
        if isinstance(value, NdArrayField):
            bounds = tuple(
                (d.value, int(r.start), int(r.stop))
                for d, r in zip(value._domain.dims, value._domain.ranges, strict=True)
            )
            found.append((name, bounds))
        elif isinstance(value, tuple):
            for i, item in enumerate(value):
                visit(f"{name}__{i}", item)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for i, f in enumerate(dataclasses.fields(value)):
                visit(f"{name}__{i}", getattr(value, f.name))

    for name, value in zip(names, args, strict=False):
        visit(name, value)
    return tuple(found)


def bind_static_domains(program: ir.Program, domains: tuple[Any, ...]) -> ir.Program:
    """The program with the bounds of its field parameters replaced by the literals of a
    ``static_domains`` key (the call checks still see the actual fields)."""
    from gt4py.eve import NodeTranslator

    bounds = {(name, dim): (start, stop) for name, dims in domains for dim, start, stop in dims}

    class BindDomains(NodeTranslator):
        def visit_FieldBound(self, node: ir.FieldBound) -> ir.Expr:
            known = bounds.get((node.field, node.dim))
            if known is None:
                return node
            return ir.literal(known[1] if node.upper else known[0], "int64")

    bound: ir.Program = BindDomains().visit(program)
    return bound

"""How operator calls bind and type their arguments (shared by operators and programs)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .._dimensions import Dimension, promote_dims
from ..errors import DSLTypeError
from . import type_specifications as ts
from ._ir import OperatorDefinition


class OperatorSignature:
    """The callable interface of a checked operator: parameters and result type."""

    __slots__ = (
        "axis",
        "definition",
        "forwards_requested_domain",
        "level_function",
        "name",
        "params",
    )

    def __init__(
        self,
        definition: OperatorDefinition,
        axis: Dimension | None = None,
        *,
        forwards_requested_domain: bool = False,
        level_function: Callable[..., Any] | None = None,
    ) -> None:
        self.definition = definition
        self.name = definition.name
        self.axis = axis
        # whether operators called in the body see its requested output domain (_result_shifts)
        self.forwards_requested_domain = forwards_requested_domain
        # scans: the body as run on whole levels (conditionals rewritten, see
        # _scan_conditionals); None when it must run point by point
        self.level_function = level_function
        params = [(p.name, p.type) for p in definition.params]
        # a scan's first parameter is the carry, not an argument
        self.params = params[1:] if definition.kind == "scan_operator" else params

    def bind(
        self,
        checker: Any,
        node: ast.AST,
        args: list[ts.TypeSpec],
        kwargs: dict[str | None, ts.TypeSpec],
    ) -> list[ts.TypeSpec]:
        """The argument types in parameter order, after checking count, names and types."""
        names = [name for name, _ in self.params]
        if len(args) > len(names):
            raise DSLTypeError(
                checker.location(node),
                f"{self.name} takes {len(names)} argument(s) but {len(args)} were given",
            )
        bound: dict[str, ts.TypeSpec] = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in names:
                raise DSLTypeError(
                    checker.location(node),
                    f"{self.name} has no parameter '{key}' (parameters: {', '.join(names)})",
                )
            if key in bound:
                raise DSLTypeError(
                    checker.location(node), f"{self.name} got two values for '{key}'"
                )
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise DSLTypeError(
                checker.location(node),
                f"{self.name} is missing the argument(s) {', '.join(repr(m) for m in missing)}",
            )
        for name, expected in self.params:
            actual = bound[name]
            if not self._accepts(actual, expected):
                raise DSLTypeError(
                    checker.location(node),
                    f"argument '{name}' of {self.name} must be {expected}, got {actual}",
                )
        return [bound[n] for n in names]

    def _accepts(self, actual: ts.TypeSpec, expected: ts.TypeSpec) -> bool:
        if self.definition.kind != "scan_operator":
            return ts.is_assignable(actual, expected)
        # scans take fields of their scalar parameter types (one column per point)
        if isinstance(expected, ts.TupleType):
            return (
                isinstance(actual, ts.TupleType)
                and len(actual.types) == len(expected.types)
                and all(
                    self._accepts(a, e) for a, e in zip(actual.types, expected.types, strict=False)
                )
            )
        if isinstance(expected, ts.NamedCollectionType):
            # a collection of fields for one of scalars with the same member names (icon4py's
            # `Q` of fields passed where the scan declares its scalar twin `Q_scalar`)
            return (
                isinstance(actual, ts.NamedCollectionType)
                and actual.names == expected.names
                and all(map(self._accepts, actual.types, expected.types))
            )
        if isinstance(actual, ts.FieldType) and isinstance(expected, ts.ScalarType):
            return actual.dtype == expected.dtype
        return ts.is_assignable(actual, expected)

    def result_type(self, checker: Any, node: ast.AST, bound: list[ts.TypeSpec]) -> ts.TypeSpec:
        returns: ts.TypeSpec = self.definition.returns
        if self.definition.kind != "scan_operator":
            return returns
        dims_lists = [t.dims or () for t in _flatten(bound) if isinstance(t, ts.FieldType)]
        assert self.axis is not None
        try:
            dims = promote_dims(*dims_lists, (self.axis,))
        except ValueError as error:
            raise DSLTypeError(checker.location(node), f"dimension mismatch: {error}") from None
        return _as_fields(returns, dims)


def _flatten(types: list[ts.TypeSpec]) -> list[ts.TypeSpec]:
    flat: list[ts.TypeSpec] = []
    for type_ in types:
        if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
            flat.extend(_flatten(list(type_.types)))
        else:
            flat.append(type_)
    return flat


def _as_fields(type_: ts.TypeSpec, dims: tuple[Dimension, ...]) -> ts.TypeSpec:
    if isinstance(type_, ts.TupleType):
        return ts.TupleType(tuple(_as_fields(t, dims) for t in type_.types))
    if isinstance(type_, ts.NamedCollectionType):
        members = tuple(_as_fields(t, dims) for t in type_.types)
        return ts.NamedCollectionType(type_.python_type, type_.names, members)
    if isinstance(type_, ts.FieldType):
        return type_
    dtype = ts.element_dtype(type_)
    assert dtype is not None
    return ts.FieldType(dims, dtype)

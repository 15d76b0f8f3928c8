"""Small constructors shared by lowering, the passes and the code generators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _nodes as ir


def literal(value: Any, dtype: np.dtype[Any] | str | None) -> ir.Literal:
    """``value`` as a literal of ``dtype`` (``None``, an element type with no dtype, takes
    numpy's default dtype, float64)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        text = repr(bool(value))
    elif dtype.kind in "iu":
        text = repr(int(value))
    else:
        text = repr(float(value))
    return ir.Literal(value=text, dtype=dtype.name)


def neighbour_key(axis: str, outer: int = 0) -> str:
    """The position key of the neighbour of the reduction over ``axis``, ``outer`` same-axis
    reductions out (codegen positions: the innermost is ``axis`` itself)."""
    return axis if outer == 0 else f"{axis}^{outer}"


def map_children(node: ir.Expr, fn: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """``node`` rebuilt with ``fn`` applied to each of its child expressions, in order (the
    rewriting passes' walk through the nodes they leave alone); a leaf is returned as is."""
    if isinstance(node, ir.Call):
        return ir.Call(fun=node.fun, args=[fn(a) for a in node.args])
    if isinstance(node, ir.Cast):
        return ir.Cast(value=fn(node.value), dtype=node.dtype)
    if isinstance(node, ir.Let):
        return ir.Let(name=node.name, value=fn(node.value), body=fn(node.body))
    if isinstance(node, ir.Reduce):
        return ir.Reduce(
            op=node.op, axis=node.axis, init=fn(node.init), body=fn(node.body), tables=node.tables
        )
    if isinstance(node, ir.Deref):
        return ir.Deref(field=node.field, shifts=map_shifts(node.shifts, fn))
    return node


def map_shifts(shifts: list[ir.Shift], fn: Callable[[ir.Expr], ir.Expr]) -> list[ir.Shift]:
    """``shifts`` with ``fn`` applied to the amount of each dynamic shift (the only shifts
    with an expression in them)."""
    return [
        ir.DynamicShift(dim=s.dim, amount=fn(s.amount)) if isinstance(s, ir.DynamicShift) else s
        for s in shifts
    ]


def statement_with(
    statement: ir.Apply | ir.Scan,
    *,
    domain: list[ir.Range],
    values: list[ir.Expr],
    init: list[ir.Expr] | None = None,
) -> ir.Apply | ir.Scan:
    """A new ``statement`` (same outputs; a scan: same axis, direction and carries) over
    ``domain`` computing ``values``, a scan starting from ``init`` (None: its own); the
    statement's bindings are not carried over."""
    if isinstance(statement, ir.Apply):
        return ir.Apply(outputs=statement.outputs, domain=domain, values=values)
    return ir.Scan(
        outputs=statement.outputs,
        domain=domain,
        axis=statement.axis,
        forward=statement.forward,
        carries=statement.carries,
        init=statement.init if init is None else init,
        values=values,
    )


__all__ = ["literal", "map_children", "map_shifts", "neighbour_key", "statement_with"]

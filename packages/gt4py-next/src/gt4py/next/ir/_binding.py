"""Binding a value once (``Let``) where it is used, shared by lowering and the passes.

A value used several times is bound once instead of being copied into every use: copies of
copies grow exponentially (a chain of locals each used twice, or of inlined operator calls).
A ``Let`` value is evaluated eagerly where the ``Let`` is, so where it goes matters:

- a value that is *safe* to compute at any point (:func:`eager_safe`: no shifted read, which
  may be out of bounds where a ``where`` guards it, no reduction, no trapping integer
  division) may be bound around the whole expression;
- any other value is bound *lazily* (:func:`bind_lazily`): around the outermost
  subexpressions that evaluate it whenever they are evaluated themselves (it is *strict*
  in them), so that it is computed exactly where an inlined copy would be — never above the
  branch of an ``if_`` or the second operand of ``and_`` / ``or_`` (evaluated lazily by the
  compiled backends) nor outside a reduction body that only some of its uses are in.
"""

from __future__ import annotations

from collections.abc import Mapping

from gt4py.eve import Node

from . import _nodes as ir
from ._helpers import map_children
from ._occurrences import Occurrences, children as _children


_TRAPPING_CALLS = frozenset({"floordiv", "mod"})  # integer division by zero traps
_LAZY_CALLS = frozenset({"if_", "and_", "or_"})  # arguments after the first are conditional


def is_leaf(value: ir.Expr) -> bool:
    """Cheaper to copy than to bind: a literal, a name, an index or a field read without a
    dynamic shift (a shifted read is one load)."""
    if isinstance(value, (ir.Literal, ir.SymRef, ir.FieldBound, ir.AxisIndex)):
        return True
    return isinstance(value, ir.Deref) and not any(
        isinstance(s, ir.DynamicShift) for s in value.shifts
    )


def eager_safe(value: ir.Expr) -> bool:
    """Whether ``value`` can be computed at any point of the domain: no shifted read (other
    than a local-dimension index), no reduction and no integer division that can trap."""
    for node in value.walk_values():
        if isinstance(node, ir.Deref) and any(
            not isinstance(s, ir.LocalIndex) for s in node.shifts
        ):
            return False
        if isinstance(node, ir.Reduce):
            return False
    return not may_trap(value)


def may_trap(value: ir.Expr) -> bool:
    """Whether computing ``value`` may trap: an integer division (``//``, ``%``) by zero."""
    return any(
        isinstance(node, ir.Call) and node.fun in _TRAPPING_CALLS for node in value.walk_values()
    )


def has_free_neighbour(value: ir.Expr, locals_of: Mapping[str, str | None]) -> bool:
    """Whether ``value`` reads the neighbour of a reduction around it (``V2E[*]`` outside a
    reduction over V2E's local dimension in ``value``): its meaning depends on where it is."""

    def visit(node: Node, depth: Mapping[str, int]) -> bool:
        if isinstance(node, ir.Deref):
            for shift in node.shifts:
                if isinstance(shift, ir.NeighbourShift) and shift.index is None:
                    axis = locals_of.get(shift.offset)
                    if axis is None or shift.outer >= depth.get(axis, 0):
                        return True
                if isinstance(shift, ir.DynamicShift) and visit(shift.amount, depth):
                    return True
            return False
        if isinstance(node, ir.Reduce):
            inner = {**depth, node.axis: depth.get(node.axis, 0) + 1}
            return visit(node.init, depth) or visit(node.body, inner)
        return any(visit(child, depth) for child in _children(node))

    return visit(value, {})


class _Usage:
    """Per node (by identity): whether ``name`` is used free in it, and whether every
    evaluation of the node evaluates it (strict)."""

    def __init__(self, name: str, occurrences: Occurrences | None = None) -> None:
        self.name = name
        self.occurrences = occurrences
        self.memo: dict[int, tuple[bool, bool]] = {}
        self.keep: list[Node] = []  # keeps memoized nodes alive (ids stay unique)

    def of(self, node: ir.Expr) -> tuple[bool, bool]:
        if self.occurrences is not None and self.name not in self.occurrences.names(node):
            return False, False
        key = id(node)
        found = self.memo.get(key)
        if found is None:
            found = self._compute(node)
            self.memo[key] = found
            self.keep.append(node)
        return found

    def _compute(self, node: ir.Expr) -> tuple[bool, bool]:
        if isinstance(node, ir.SymRef):
            hit = node.name == self.name
            return hit, hit
        if isinstance(node, ir.Let):
            used_v, strict_v = self.of(node.value)
            if node.name == self.name:  # shadowed in the body
                return used_v, strict_v
            used_b, strict_b = self.of(node.body)
            return used_v or used_b, strict_v or strict_b
        if isinstance(node, ir.Call) and node.fun in _LAZY_CALLS:
            results = [self.of(a) for a in node.args]
            used = any(u for u, _ in results)
            strict = results[0][1] or (
                node.fun == "if_" and len(results) == 3 and results[1][1] and results[2][1]
            )
            return used, strict
        if isinstance(node, ir.Reduce):
            used_i, strict_i = self.of(node.init)
            used_b, _ = self.of(node.body)
            return used_i or used_b, strict_i
        results = [self.of(c) for c in _children(node)]
        return any(u for u, _ in results), any(s for _, s in results)


def used_strictly(expr: ir.Expr, name: str) -> bool:
    """Whether every evaluation of ``expr`` evaluates ``name`` (not only under a condition:
    a branch of ``if_``, the right operand of ``and_`` / ``or_``)."""
    return _Usage(name).of(expr)[1]


def bind_lazily(
    expr: ir.Expr, name: str, value: ir.Expr, *, occurrences: Occurrences | None = None
) -> ir.Expr:
    """``expr`` with ``let name = value`` around each outermost subexpression that is strict
    in ``name``, together covering every free use of ``name`` (``occurrences``: a memo shared
    by several substitutions into the same large expression, to skip subtrees without
    ``name``)."""
    usage = _Usage(name, occurrences)

    def place(node: ir.Expr) -> ir.Expr:
        used, strict = usage.of(node)
        if not used:
            return node
        if strict:
            return ir.Let(name=name, value=value, body=node)
        if isinstance(node, ir.Let):
            body = node.body if node.name == name else place(node.body)
            return ir.Let(name=node.name, value=place(node.value), body=body)
        if isinstance(node, (ir.Call, ir.Cast, ir.Reduce, ir.Deref)):
            return map_children(node, place)
        raise TypeError(f"cannot bind inside {node!r}")

    return place(expr)


def bind(
    expr: ir.Expr,
    name: str,
    value: ir.Expr,
    *,
    eager: bool,
    occurrences: Occurrences | None = None,
) -> ir.Expr:
    """``expr`` with ``name`` bound to ``value``: around all of ``expr`` if ``eager`` (the value
    is safe to compute anywhere), else lazily (:func:`bind_lazily`)."""
    if eager:
        return ir.Let(name=name, value=value, body=expr)
    return bind_lazily(expr, name, value, occurrences=occurrences)


__all__ = ["bind", "bind_lazily", "eager_safe", "has_free_neighbour", "is_leaf"]

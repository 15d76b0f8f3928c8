"""Which fields and names occur in a subtree, worked out once per node object.

Passes that substitute into large expressions (inlining temporaries, binding values) only
need to descend into the subtrees that mention what they replace. ICON's graupel inlines
about a hundred intermediates into statements of a megabyte of IR: walking every node for
every intermediate made that pass quadratic. Nodes are immutable and shared between the old
and the new tree, so a memo keyed by node identity is reused across substitutions.
"""

from __future__ import annotations

from gt4py.eve import Node

from . import _nodes as ir


def children(node: Node) -> list[ir.Expr]:
    """The sub-expressions of an expression, in field order (the order a pre-order walk
    visits them)."""
    if isinstance(node, ir.Call):
        return list(node.args)
    if isinstance(node, ir.Cast):
        return [node.value]
    if isinstance(node, ir.Let):
        return [node.value, node.body]
    if isinstance(node, ir.Reduce):
        return [node.init, node.body]
    if isinstance(node, ir.Deref):
        return [s.amount for s in node.shifts if isinstance(s, ir.DynamicShift)]
    return []


_NOTHING: frozenset[str] = frozenset()


class Occurrences:
    """Per expression (by identity; memoized nodes are kept alive so ids stay unique): the
    fields it reads with :class:`~ir.Deref` and the names it refers to with
    :class:`~ir.SymRef` (free or bound: a superset of its free names)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[Node, frozenset[str], frozenset[str]]] = {}

    def fields(self, node: ir.Expr) -> frozenset[str]:
        return self._of(node)[1]

    def names(self, node: ir.Expr) -> frozenset[str]:
        return self._of(node)[2]

    def _of(self, node: ir.Expr) -> tuple[Node, frozenset[str], frozenset[str]]:
        found = self._memo.get(id(node))
        if found is None or found[0] is not node:
            fields, names = self._compute(node)
            found = self._memo[id(node)] = (node, fields, names)
        return found

    def _compute(self, node: ir.Expr) -> tuple[frozenset[str], frozenset[str]]:
        if isinstance(node, ir.SymRef):
            return _NOTHING, frozenset((node.name,))
        parts = [self._of(child) for child in children(node)]
        own = frozenset((node.field,)) if isinstance(node, ir.Deref) else _NOTHING
        if not parts:
            return own, _NOTHING
        if len(parts) == 1 and not own:
            return parts[0][1], parts[0][2]
        return own.union(*(p[1] for p in parts)), _NOTHING.union(*(p[2] for p in parts))


__all__ = ["Occurrences", "children"]

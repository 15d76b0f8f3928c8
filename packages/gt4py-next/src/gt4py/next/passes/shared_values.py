"""Values a statement's outputs share, computed once per point (``Apply``/``Scan`` bindings).

A statement with several values (the outputs of one operator call, the carries of a scan) keeps
each value a separate expression, and each carries its own copy of what it needs: ICON's
graupel scan has 22 carries whose values repeat the same hundreds of bound intermediates, which
the generated code then computes, and the compiler compiles, 22 times.

This pass, run last, moves the leading ``Let`` chain of every value (the bindings evaluated
unconditionally, before anything else, at the point) into the statement's ``bindings``, one
binding per distinct value: a ``Let`` whose value, after renaming the names hoisted before it,
is textually equal to a binding already made reuses that binding. Evaluation order and the
reads made at a point do not change (those ``Let`` values were evaluated at the point anyway,
before their value's body), so neither do guarded reads or the per-point checks.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping

from gt4py.eve import NodeTranslator

from .. import ir
from ..ir import expr_text


class _Rename(NodeTranslator):
    """``SymRef`` names replaced per ``names`` (a ``Let`` binding one of them again hides it)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = dict(names)

    def visit_SymRef(self, node: ir.SymRef) -> ir.SymRef:
        new = self.names.get(node.name)
        return node if new is None else ir.SymRef(name=new)

    def visit_Let(self, node: ir.Let) -> ir.Let:
        value = self.visit(node.value)
        if node.name not in self.names:
            return ir.Let(name=node.name, value=value, body=self.visit(node.body))
        hidden = self.names.pop(node.name)
        try:
            body = self.visit(node.body)
        finally:
            self.names[node.name] = hidden
        return ir.Let(name=node.name, value=value, body=body)


def _renamed(node: ir.Expr, names: Mapping[str, str]) -> ir.Expr:
    return _Rename(names).visit(node) if names else node


class _Sharing:
    """The bindings of one statement, one per distinct value (by text, after renaming)."""

    def __init__(self, statement: ir.Apply | ir.Scan, fresh: Iterator[str]) -> None:
        self.bindings = list(statement.bindings)
        self.by_text = {expr_text(b.value): b.name for b in self.bindings}
        self.fresh = fresh

    def hoisted(self, value: ir.Expr) -> ir.Expr:
        """``value`` without its leading ``Let`` chain, whose values (themselves without
        their own leading chains, recursively) became bindings."""
        names: dict[str, str] = {}  # the chain's Let names -> statement bindings
        node = value
        while isinstance(node, ir.Let):
            bound = self.hoisted(_renamed(node.value, names))
            text = expr_text(bound)
            name = self.by_text.get(text)
            if name is None:
                name = next(self.fresh)
                self.by_text[text] = name
                self.bindings.append(ir.Binding(name=name, value=bound))
            names[node.name] = name
            node = node.body
        return _renamed(node, names)


def _share(
    statement: ir.Apply | ir.Scan, fresh: Iterator[str]
) -> tuple[list[ir.Binding], list[ir.Expr]]:
    sharing = _Sharing(statement, fresh)
    values = [sharing.hoisted(v) for v in statement.values]
    return sharing.bindings, values


def share_values(program: ir.Program) -> ir.Program:
    """``program`` with the leading bindings of each multi-value statement's values shared
    (statements with one value keep their ``Let``s: nothing to share)."""
    used = {b.name for s in program.body for b in s.bindings}
    fresh = (n for n in (f"__shared{i}" for i in itertools.count()) if n not in used)
    body: list[ir.Apply | ir.Scan] = []
    for statement in program.body:
        if len(statement.values) < 2 or not any(isinstance(v, ir.Let) for v in statement.values):
            body.append(statement)
            continue
        bindings, values = _share(statement, fresh)
        body.append(statement.replace(values=values, bindings=bindings))
    return program.replace(body=body)

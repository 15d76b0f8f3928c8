"""Common subexpression elimination: a value computed twice at a point is bound once (``Let``).

Only subexpressions that are always evaluated are shared: nothing is taken out of an ``if_``
branch (a guarded read may be out of bounds where its guard is false) nor out of a reduction
body (it depends on the neighbour). The largest repeated subexpression is bound first.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

from gt4py.eve import NodeTranslator

from .. import ir
from ..ir import expr_text as text


def _unconditional_subexpressions(node: ir.Expr) -> Iterator[ir.Expr]:
    yield node
    if isinstance(node, ir.Call):
        args = node.args[:1] if node.fun == "if_" else node.args
        for arg in args:
            yield from _unconditional_subexpressions(arg)
    elif isinstance(node, ir.Cast):
        yield from _unconditional_subexpressions(node.value)
    elif isinstance(node, ir.Let):
        yield from _unconditional_subexpressions(node.value)
        yield from _unconditional_subexpressions(node.body)
    elif isinstance(node, ir.Deref):
        for shift in node.shifts:
            if isinstance(shift, ir.DynamicShift):
                yield from _unconditional_subexpressions(shift.amount)


def _worth_sharing(node: ir.Expr) -> bool:
    if isinstance(node, (ir.Literal, ir.SymRef, ir.AxisIndex, ir.FieldBound)):
        return False
    return not (isinstance(node, ir.Deref) and not node.shifts)


def _uses(node: ir.Expr, names: set[str]) -> bool:
    return bool(names) and any(
        ref.name in names for ref in node.walk_values().if_isinstance(ir.SymRef)
    )


class _Replace(NodeTranslator):
    def __init__(self, target: str, name: str) -> None:
        self.target = target
        self.name = name

    def generic_visit(self, node, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(node, ir.Expr) and text(node) == self.target:
            return ir.SymRef(name=self.name)
        return super().generic_visit(node, **kwargs)


def eliminate_common_subexpressions(expr: ir.Expr, names: Iterator[str]) -> ir.Expr:
    while True:
        counts: Counter[str] = Counter()
        nodes: dict[str, ir.Expr] = {}
        let_names = {let.name for let in expr.walk_values().if_isinstance(ir.Let)}
        for sub in _unconditional_subexpressions(expr):
            # the binding goes around the whole value: nothing that uses a Let's name moves
            if _worth_sharing(sub) and not _uses(sub, let_names):
                key = text(sub)
                counts[key] += 1
                nodes[key] = sub
        repeated = [k for k, c in counts.items() if c >= 2]
        if not repeated:
            return expr
        target = max(repeated, key=len)
        name = next(names)
        expr = ir.Let(name=name, value=nodes[target], body=_Replace(target, name).visit(expr))


def cse(program: ir.Program) -> ir.Program:
    """``program`` with repeated subexpressions of each computed value bound once."""
    counter = itertools.count()
    names = (f"__cse{i}" for i in counter)
    body: list[ir.Apply | ir.Scan] = []
    for statement in program.body:
        values = [eliminate_common_subexpressions(v, names) for v in statement.values]
        if isinstance(statement, ir.Apply):
            body.append(ir.Apply(outputs=statement.outputs, domain=statement.domain, values=values))
        else:
            body.append(
                ir.Scan(
                    outputs=statement.outputs,
                    domain=statement.domain,
                    axis=statement.axis,
                    forward=statement.forward,
                    carries=statement.carries,
                    init=statement.init,
                    values=values,
                )
            )
    return ir.Program(
        name=program.name,
        params=program.params,
        offsets=program.offsets,
        body=body,
        temporaries=program.temporaries,
    )

"""Does an operator body shift values computed by the operators it calls?

Embedded scans called inside a field operator iterate over the operator's requested output
range along their axis (as compiled backends do), so that ``domain={K: (k0, n)}`` starts the
scan at ``k0`` with ``init``. That is only right when the scan's result reaches the output
unshifted: ``running_sum(a)(K - 1)`` needs the scan one level lower. Embedded execution has no
domain inference, so a body that shifts anything derived from an operator call keeps the old
rule (the scan runs over its arguments' common range) for every call it makes.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from . import type_specifications as ts


def forwards_requested_domain(
    body: Sequence[ast.stmt], expression_types: Mapping[ast.AST, ts.TypeSpec]
) -> bool:
    """Whether operators called in ``body`` should see the body's requested output domain.

    True when the body calls operators and never shifts what they compute (an operator body
    calling none has nothing to forward it to: its calls skip the bookkeeping).
    """
    calls = any(
        isinstance(node, ast.Call) and _is_operator(node.func, expression_types)
        for statement in body
        for node in ast.walk(statement)
    )
    return calls and not shifts_operator_results(body, expression_types)


def shifts_operator_results(
    body: Sequence[ast.stmt], expression_types: Mapping[ast.AST, ts.TypeSpec]
) -> bool:
    """Whether some shift ``x(offset)`` in ``body`` reads a value derived from an operator call."""
    derived: set[str] = set()

    def depends(node: ast.AST) -> bool:
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and child.id in derived:
                return True
            if isinstance(child, ast.Call) and _is_operator(child.func, expression_types):
                return True
        return False

    def shifts(node: ast.AST) -> bool:
        for child in ast.walk(node):
            if (
                isinstance(child, ast.Call)
                and isinstance(expression_types.get(child.func), ts.FieldType)
                and depends(child.func)
            ):
                return True
        return False

    def block(statements: Sequence[ast.stmt]) -> bool:
        for statement in statements:
            if isinstance(statement, ast.If):
                if shifts(statement.test) or block(statement.body) or block(statement.orelse):
                    return True
                continue
            value = getattr(statement, "value", None)
            if value is not None and shifts(value):
                return True
            targets: list[ast.expr] = []
            if isinstance(statement, ast.Assign):
                targets = list(statement.targets)
            elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
                targets = [statement.target]
            if targets and value is not None:
                names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                is_derived = depends(value) or (
                    isinstance(statement, ast.AugAssign) and bool(names & derived)
                )
                if is_derived:
                    derived.update(names)
                elif not isinstance(statement, ast.AugAssign):
                    derived.difference_update(names)
        return False

    return block(body)


def _is_operator(func: ast.AST, expression_types: Mapping[ast.AST, ts.TypeSpec]) -> bool:
    callee = expression_types.get(func)
    return isinstance(callee, ts.CallableType) and callee.kind == "operator"

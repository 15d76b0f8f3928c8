"""Constant folding: calls on literals become literals; ``if_`` on a literal picks a branch.

The calls folded, and the numpy function that computes each, are the vocabulary's rows marked
``foldable``: exact operations whose result every backend computes the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gt4py.eve import NodeTranslator

from .. import _builtin_vocabulary as vocabulary, ir


_FOLDABLE: dict[str, vocabulary.Builtin] = {
    name: row for name, row in vocabulary.IR_CALLS.items() if row.foldable
}


def _value(node: ir.Literal) -> Any:
    return np.dtype(node.dtype).type(
        node.value == "True"
        if node.dtype == "bool"
        else float(node.value)
        if np.dtype(node.dtype).kind == "f"
        else int(node.value)
    )


class ConstantFolding(NodeTranslator):
    def visit_Call(self, node: ir.Call) -> ir.Expr:
        args: list[ir.Expr] = [self.visit(a) for a in node.args]
        if node.fun == "if_" and isinstance(args[0], ir.Literal):
            return args[1] if args[0].value == "True" else args[2]
        row = _FOLDABLE.get(node.fun)
        literals = [a for a in args if isinstance(a, ir.Literal)]
        if row is not None and row.numpy is not None and len(literals) == len(args):
            dtypes = {a.dtype for a in literals}
            if len(dtypes) == 1:
                with np.errstate(all="ignore"):
                    result = getattr(np, row.numpy)(*[_value(a) for a in literals])
                dtype = "bool" if row.result is vocabulary.Result.BOOL else dtypes.pop()
                result = np.dtype(dtype).type(result)
                text = repr(bool(result)) if dtype == "bool" else repr(result.item())
                return ir.Literal(value=text, dtype=dtype)
        return ir.Call(fun=node.fun, args=args)


def fold_constants(program: ir.Program) -> ir.Program:
    """``program`` with every constant subexpression computed."""
    return ConstantFolding().visit(program)  # type: ignore[no-any-return]

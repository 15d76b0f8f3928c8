"""Element types of GTScript expressions (numpy rules; ``int / int`` is float64)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import _ir as ir


BUILTIN_ARITY = {"min": 2, "max": 2, "mod": 2}
_PREDICATES = frozenset({"isfinite", "isinf", "isnan"})
_SAME_TYPE = frozenset({"abs", "min", "max", "mod"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!=", "and", "or"})


def infer_dtype(expr: ir.Expr, dtype_of: Callable[[ir.FieldRef | ir.ScalarRef], str]) -> str:
    """The dtype name of ``expr``; ``dtype_of`` gives those of fields and scalars."""

    def walk(e: ir.Expr) -> str:
        if isinstance(e, ir.Constant):
            return e.dtype
        if isinstance(e, ir.FieldRef | ir.ScalarRef):
            return dtype_of(e)
        if isinstance(e, ir.Cast):
            return e.dtype
        if isinstance(e, ir.KIndex):
            return "int64"
        if isinstance(e, ir.UnaryOp):
            return "bool" if e.op == "not" else walk(e.operand)
        if isinstance(e, ir.TernaryOp):
            return _promote(walk(e.true_value), walk(e.false_value))
        if isinstance(e, ir.BinaryOp):
            if e.op in _COMPARISONS:
                return "bool"
            result = _promote(walk(e.left), walk(e.right))
            if e.op == "/" and np.dtype(result).kind in "biu":
                return "float64"  # true division of integers, in float64 on every backend
            return result
        if isinstance(e, ir.Call):
            args = [walk(a) for a in e.args]
            if e.func in _PREDICATES:
                return "bool"
            if e.func in _SAME_TYPE:
                result = args[0]
                for other in args[1:]:
                    result = _promote(result, other)
                return result
            return args[0] if np.dtype(args[0]).kind == "f" else "float64"
        raise TypeError(f"unknown expression {e!r}")

    return walk(expr)


def _promote(a: str, b: str) -> str:
    return np.result_type(np.dtype(a), np.dtype(b)).name

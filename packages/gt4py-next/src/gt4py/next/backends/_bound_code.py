"""Domain bounds of the IR as Python code over the names the check code defines
(``f_a_lo_I`` for the start of field ``a`` along ``I``, ``s_n`` for a scalar parameter ``n``).
"""

from __future__ import annotations

from .. import _builtin_vocabulary as vocabulary, ir
from ..ir import expr_text


# the integer operators of domain bounds -> their Python text (from the builtin vocabulary)
_PY_BINARY = {
    name: vocabulary.IR_CALLS[name].symbol
    for name in ("plus", "minus", "multiplies", "floordiv", "mod")
}


class UnsupportedBound(Exception):
    """A domain bound the check code cannot evaluate (then nothing is checked statically)."""


def bound_code(node: ir.Expr) -> str:
    """Python code of a domain bound (an IR expression over scalars and field bounds)."""
    if isinstance(node, ir.Literal):
        if node.dtype == "bool":
            return node.value
        return str(int(float(node.value)))
    if isinstance(node, ir.SymRef):
        return f"s_{node.name}"
    if isinstance(node, ir.FieldBound):
        return field_bound(node.field, node.dim, node.upper)
    if isinstance(node, ir.Cast):
        return f"int({bound_code(node.value)})"
    if isinstance(node, ir.Call):
        args = [bound_code(a) for a in node.args]
        if node.fun in _PY_BINARY and len(args) == 2:
            return f"({args[0]} {_PY_BINARY[node.fun]} {args[1]})"
        if node.fun in ("minimum", "maximum") and len(args) == 2:
            return f"{node.fun[:3]}({args[0]}, {args[1]})"
        if node.fun == "neg":
            return f"(-{args[0]})"
    raise UnsupportedBound(expr_text(node))


def field_bound(field: str, dim: str, upper: bool) -> str:
    """The name of a field argument's first (or one-past-last) index in the check code."""
    return f"f_{field}_{'hi' if upper else 'lo'}_{dim}"

"""Lowering of the expressions of an operator body (Python syntax + deduced types) to IR.

Names of locals and parameters are looked up in an environment of lowered values; globals are
the constants the frontend recorded; calls of other operators are lowered inline (or written
to candidate temporaries); shifting a value pushes the shift into every field read it contains.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _builtin_vocabulary as vocabulary, ir
from .._dimensions import Dimension
from ..ffront import fbuiltins, type_specifications as ts
from ..ir import literal
from ._errors import LoweringError
from ._shifting import ShiftPusher
from ._values import Value, dtype_of, first_leaf_type, is_weak, map_leaves, select


if TYPE_CHECKING:
    from ._operators import OperatorLowering


_MISSING = object()

# Python operator -> IR call, and reduction builtin -> ir.Reduce op, from the builtin vocabulary
_BINARY = [row for row in vocabulary.IR_CALLS.values() if row.arity == 2]
ARITHMETIC = {
    op: row.ir_name
    for row in _BINARY
    if row.kind in (vocabulary.Kind.ARITHMETIC, vocabulary.Kind.LOGICAL)
    for op in row.python_operators
}
COMPARISON = {
    op: row.ir_name
    for row in _BINARY
    if row.kind is vocabulary.Kind.COMPARISON
    for op in row.python_operators
}
#: unary Python operators: ``-`` -> neg; ``~`` and ``not`` (on scalar bools, checked) -> not_
UNARY = {
    op: row.ir_name
    for row in vocabulary.IR_CALLS.values()
    if row.arity == 1
    for op in row.python_operators
}
REDUCTIONS = {name: row.ir_name for name, row in vocabulary.REDUCTIONS.items()}


class ExpressionLowering:
    """Lowers expressions of one operator body in one environment of local values."""

    def __init__(self, owner: OperatorLowering, env: dict[str, Value]) -> None:
        self.owner = owner
        self.env = env
        self.types = owner.types

    def type_of(self, node: ast.AST) -> Any:
        return self.types.get(node)

    def error(self, node: ast.AST, what: str) -> LoweringError:
        return LoweringError(
            f"{self.owner.operator.__name__} (line {getattr(node, 'lineno', '?')}): {what}"
        )

    # -- entry ----------------------------------------------------------------------------------

    def expr(self, node: ast.expr, dtype: np.dtype[Any] | None = None) -> Value:
        """Lower ``node``; weak literals take ``dtype`` (the dtype of the other operands)."""
        type_ = self.type_of(node)
        if is_weak(type_) and not isinstance(node, ast.Call):
            value = self.constant_value(node)
            if value is not _MISSING:
                return literal(value, dtype if dtype is not None else dtype_of(type_))
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"{type(node).__name__} expressions cannot be lowered")
        result: Value = method(node, dtype)
        return result

    def constant_value(self, node: ast.expr) -> Any:
        """The Python value of a compile-time constant expression, or _MISSING."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = self.constant_value(node.operand)
            if inner is _MISSING:
                return _MISSING
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.Name) and node.id not in self.env:
            return self.owner.constants.get(node, _MISSING)
        if isinstance(node, ast.Attribute):
            return self.owner.constants.get(node, _MISSING)
        if isinstance(node, ast.BinOp):
            type_ = self.type_of(node)
            if isinstance(type_, ts.IntConstantType):
                return type_.value
        return _MISSING

    def common_dtype(self, nodes: list[ast.expr]) -> np.dtype[Any] | None:
        for node in nodes:
            type_ = self.type_of(node)
            if not is_weak(type_):
                dtype = dtype_of(type_)
                if dtype is not None:
                    return dtype
        for node in nodes:
            dtype = dtype_of(self.type_of(node))
            if dtype is not None:
                return dtype
        return None

    # -- leaves ---------------------------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant, dtype: Any) -> Value:
        type_ = self.type_of(node)
        return literal(node.value, dtype if dtype is not None else dtype_of(type_))

    def visit_Name(self, node: ast.Name, dtype: Any) -> Value:
        if node.id in self.env:
            return self.env[node.id]
        value = self.owner.constants.get(node, _MISSING)
        type_ = self.type_of(node)
        dtype_ = dtype_of(type_)
        if isinstance(value, (bool, int, float, np.generic)) and dtype_ is not None:
            return literal(value, dtype or dtype_)
        raise self.error(node, f"'{node.id}' ({type_}) cannot be used as a value here")

    def visit_Attribute(self, node: ast.Attribute, dtype: Any) -> Value:
        base = self.type_of(node.value)
        if isinstance(base, ts.NamedCollectionType) and node.attr in base.names:
            members = self.expr(node.value)
            assert isinstance(members, tuple) and len(members) == len(base.names)
            return members[base.names.index(node.attr)]
        value = self.owner.constants.get(node, _MISSING)
        dtype_ = dtype_of(self.type_of(node))
        if isinstance(value, (bool, int, float, np.generic)) and dtype_ is not None:
            return literal(value, dtype or dtype_)
        raise self.error(node, f"'{ast.unparse(node)}' cannot be used as a value")

    def visit_Tuple(self, node: ast.Tuple, dtype: Any) -> Value:
        return tuple(self.expr(e) for e in node.elts)

    def visit_Subscript(self, node: ast.Subscript, dtype: Any) -> Value:
        base = self.expr(node.value)
        index = self.type_of(node.slice)
        if isinstance(index, ts.LocalIndexType):
            shift = ir.LocalIndex(dim=index.dim.value, index=index.index)
            return ShiftPusher(shift).apply(self.owner.close(base))
        assert isinstance(base, tuple) and isinstance(index, ts.IntConstantType)
        return base[index.value]

    # -- operators ------------------------------------------------------------------------------

    def visit_UnaryOp(self, node: ast.UnaryOp, dtype: Any) -> Value:
        operand = self.expr(node.operand, dtype)
        if isinstance(node.op, ast.UAdd):
            return operand
        fun = UNARY.get(type(node.op))
        if fun is None:
            raise self.error(node, "unsupported unary operator")
        return map_leaves(lambda v: ir.Call(fun=fun, args=[v]), operand)

    def visit_BinOp(self, node: ast.BinOp, dtype: Any) -> Value:
        fun = ARITHMETIC[type(node.op)]
        operand_dtype = self.common_dtype([node.left, node.right]) or dtype
        left = self.expr(node.left, operand_dtype)
        right = self.expr(node.right, operand_dtype)
        result_dtype = dtype_of(self.type_of(node))
        if (
            vocabulary.IR_CALLS[fun].result is vocabulary.Result.FLOAT  # `/` on integers
            and operand_dtype is not None
            and operand_dtype.kind in "iu"
            and result_dtype is not None
            and result_dtype.kind == "f"
        ):
            left = ir.Cast(value=left, dtype=result_dtype.name)  # type: ignore[arg-type]
            right = ir.Cast(value=right, dtype=result_dtype.name)  # type: ignore[arg-type]
        return ir.Call(fun=fun, args=[left, right])  # type: ignore[list-item]

    def visit_Compare(self, node: ast.Compare, dtype: Any) -> Value:
        fun = COMPARISON[type(node.ops[0])]
        left_type = self.type_of(node.left)
        right_node = node.comparators[0]
        if isinstance(left_type, ts.DimensionType):
            bound = self.expr(right_node, np.dtype("int32"))
            index = ir.AxisIndex(dim=left_type.dim.value)
            return ir.Call(fun=fun, args=[index, _as_index(bound)])
        operand_dtype = self.common_dtype([node.left, right_node])
        left = self.expr(node.left, operand_dtype)
        right = self.expr(right_node, operand_dtype)
        return ir.Call(fun=fun, args=[left, right])  # type: ignore[list-item]

    def visit_IfExp(self, node: ast.IfExp, dtype: Any) -> Value:
        condition = self.expr(node.test)
        result_dtype = dtype_of(self.type_of(node)) if dtype is None else dtype
        then = self.expr(node.body, result_dtype)
        otherwise = self.expr(node.orelse, result_dtype)
        return select(condition, then, otherwise)  # type: ignore[arg-type]

    # -- calls ----------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call, dtype: Any) -> Value:
        callee = self.type_of(node.func)
        if isinstance(callee, ts.FieldType):
            value = self.expr(node.func)
            for argument in node.args:
                value = self.shift(argument, value)
            return value
        if isinstance(callee, ts.DTypeType):
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                return literal(callee.dtype.type(argument.value), callee.dtype)
            value = self.expr(argument, callee.dtype)
            return map_leaves(lambda v: ir.Cast(value=v, dtype=callee.dtype.name), value)
        if isinstance(callee, ts.CallableType) and callee.kind == "builtin":
            return self.builtin(node, callee.target, dtype)
        if isinstance(callee, ts.CallableType) and callee.kind == "operator":
            return self.operator_call(node, callee.target)
        if isinstance(callee, ts.CallableType) and callee.kind == "constructor":
            constructed = self.type_of(node)
            assert isinstance(constructed, ts.NamedCollectionType)
            members = dict(zip(constructed.names, node.args, strict=False))
            members.update({k.arg: k.value for k in node.keywords if k.arg is not None})
            return tuple(self.expr(members[name]) for name in constructed.names)
        raise self.error(node, f"calling {callee} cannot be lowered")

    def operator_call(self, node: ast.Call, operator: Any) -> Value:
        signature = operator.__gt_signature__
        names = [name for name, _ in signature.params]
        params = dict(signature.params)
        values: dict[str, Value] = {}
        for name, argument in zip(names, node.args, strict=False):
            values[name] = self.expr(argument, dtype_of(params[name]))
        for keyword in node.keywords:
            assert keyword.arg is not None
            values[keyword.arg] = self.expr(keyword.value, dtype_of(params[keyword.arg]))
        context = self.owner.context
        result_type = self.type_of(node)
        close = self.owner.close
        if signature.definition.kind == "scan_operator":
            # a scan's result is a whole column: it is always materialized in a temporary
            args = [close(values[n]) for n in names]
            try:
                return context.materialize_scan(  # type: ignore[no-any-return]
                    operator, args, [params[n] for n in names], result_type
                )
            except LoweringError as error:
                raise self.error(node, str(error)) from None
        # called inline: the callee shares this operator's bound locals (its arguments are
        # names, not copies); closed only if it is written to a temporary
        # (the owner's class: an OperatorLowering, which creates this module's lowerings)
        result = type(self.owner)(context, operator, values, caller=self.owner).lower_inline()
        if self.owner.open_reason(tuple(values.values())) is not None:
            return result
        return context.materialize(close(result), result_type, [])  # type: ignore[no-any-return]

    def shift(self, node: ast.expr, value: Value) -> Value:
        value = self.owner.close(value)  # a shift moves the values of the locals it uses too
        offset_type = self.type_of(node)
        if isinstance(offset_type, ts.CartesianShiftType):
            assert isinstance(node, ast.BinOp)
            amount = self.owner.context.int_constant(self, node.right)
            amount = -amount if isinstance(node.op, ast.Sub) else amount
            return ShiftPusher(ir.CartesianShift(dim=offset_type.dim.value, amount=amount)).apply(
                value
            )
        if isinstance(offset_type, ts.DynamicShiftType):
            assert isinstance(node, ast.Call)
            offset = offset_type.offset
            amounts = self.expr(node.args[1])
            if not offset.is_cartesian_like:
                raise self.error(node, "as_offset needs a Cartesian-like offset (source == target)")
            return ShiftPusher(ir.DynamicShift(dim=offset.source.value, amount=amounts)).apply(  # type: ignore[arg-type]
                value
            )
        if isinstance(offset_type, ts.OffsetType):
            offset = offset_type.offset
            index: int | None = None
            if offset_type.indexed:
                assert isinstance(node, ast.Subscript)
                index = self.owner.context.int_constant(self, node.slice)
            if offset.is_cartesian_like:
                return ShiftPusher(
                    ir.CartesianShift(dim=offset.source.value, amount=index or 0)
                ).apply(value)
            self.owner.context.declare_offset(offset)
            locals_of = {n: d.local for n, d in self.owner.context.offsets.items()}
            shift = ir.NeighbourShift(offset=offset.value, index=index)
            return ShiftPusher(shift, locals_of).apply(value)
        raise self.error(node, f"{offset_type} is not an offset the compiled backends know")

    def builtin(self, node: ast.Call, builtin: fbuiltins.BuiltInFunction, dtype: Any) -> Value:
        name = builtin.name
        if name in REDUCTIONS:
            return self.reduction(node, name)
        if name == "astype":
            target = self.type_of(node.args[1])
            value = self.expr(node.args[0], target.dtype)
            return map_leaves(lambda v: ir.Cast(value=v, dtype=target.dtype.name), value)
        if name == "broadcast":
            return self.expr(node.args[0], dtype_of(self.type_of(node)))
        if name in ("where", "concat_where"):
            condition = self.expr(node.args[0])
            result_dtype = dtype_of(first_leaf_type(self.type_of(node)))
            then = self.expr(node.args[1], result_dtype)
            otherwise = self.expr(node.args[2], result_dtype)
            return select(condition, then, otherwise)  # type: ignore[arg-type]
        if name in fbuiltins.MATH_BUILTIN_NAMES:
            operand_dtype = self.common_dtype(list(node.args))
            args = [self.expr(a, operand_dtype) for a in node.args]
            result = dtype_of(self.type_of(node))
            if (
                vocabulary.DSL_BUILTINS[name].result is vocabulary.Result.FLOAT
                and operand_dtype is not None
                and operand_dtype.kind in "iu"
                and result is not None
            ):
                args = [ir.Cast(value=a, dtype=result.name) for a in args]  # type: ignore[arg-type]
            return ir.Call(fun=name, args=args)  # type: ignore[arg-type]
        raise self.error(node, f"the builtin {name} cannot be lowered")

    def reduction(self, node: ast.Call, name: str) -> Value:
        axis_type = self.type_of(node.keywords[0].value)
        axis: Dimension = axis_type.dim
        body = self.expr(node.args[0])
        if isinstance(body, tuple):
            raise self.error(node, "reductions over tuples are not supported")
        dtype = dtype_of(self.type_of(node))
        assert dtype is not None
        op = REDUCTIONS[name]
        if op == "plus":
            init = literal(0, dtype)
        elif dtype.kind == "f":
            init = literal(-np.inf if op == "maximum" else np.inf, dtype)
        elif dtype.kind == "b":
            init = literal(op == "minimum", dtype)
        else:
            info = np.iinfo(dtype)
            init = literal(info.min if op == "maximum" else info.max, dtype)
        tables = self.owner.context.tables_over(body, axis.value)
        return ir.Reduce(op=op, axis=axis.value, init=init, body=body, tables=tables)


def _as_index(value: Value) -> ir.Expr:
    assert not isinstance(value, tuple)
    return value


__all__ = ["ARITHMETIC", "COMPARISON", "REDUCTIONS", "UNARY", "ExpressionLowering"]

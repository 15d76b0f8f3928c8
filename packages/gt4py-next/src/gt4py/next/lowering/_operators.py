"""Lowering of operator bodies (Python syntax + deduced types) to pointwise IR expressions.

A lowered value is an :class:`ir.Expr` (the value at the current point) or a Python tuple of
lowered values (tuples are split here, so the IR never sees them). Local variables and called
operators are substituted (inlined); shifting a value pushes the shift into every field read
it contains. A called operator's result is written to a candidate temporary where it can be
(scans always are); :mod:`gt4py.next.passes.temporaries` keeps or inlines candidates again.
Common subexpressions are re-extracted by :mod:`gt4py.next.passes.common_subexpressions`.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

import numpy as np

from gt4py.eve import Node

from .. import _builtin_vocabulary as vocabulary, ir
from .._dimensions import Dimension
from .._offsets import IndexedFieldOffset
from ..ffront import fbuiltins, type_specifications as ts
from ..ir import literal
from ._errors import LoweringError
from ._shifting import ShiftPusher, Value


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
REDUCTIONS = {name: row.ir_name for name, row in vocabulary.REDUCTIONS.items()}


def dtype_of(type_: Any) -> np.dtype[Any] | None:
    return ts.element_dtype(type_) if isinstance(type_, ts.TypeSpec) else None


def is_weak(type_: Any) -> bool:
    return isinstance(type_, ts.IntConstantType) or (
        isinstance(type_, ts.ScalarType) and type_.weak
    )


class _Scope:
    """The bound locals of one lowered value (shared by the operators it calls inline): their
    values, the bound names each needs (transitively, itself included), whether it is safe to
    compute everywhere (then it is bound eagerly) and why it cannot be materialized (None: it
    can)."""

    def __init__(self) -> None:
        self.lets: dict[str, ir.Expr] = {}
        self.needs: dict[str, frozenset[str]] = {}
        self.safe: dict[str, bool] = {}
        self.open: dict[str, str | None] = {}


class OperatorLowering:
    """Lowers one call of a field operator (or a scan body) given lowered arguments."""

    def __init__(
        self,
        context: Any,
        operator: Any,
        env: dict[str, Value],
        caller: OperatorLowering | None = None,
    ) -> None:
        self.context = context  # the program lowering: offsets, fresh names
        self.operator = operator
        body = operator.checked.body  # the frontend's typed tree (a checked.TypedBody)
        self.tree: ast.FunctionDef = body.tree
        self.types: Mapping[Any, Any] = body.expression_types
        self.constants: Mapping[Any, Any] = body.constants
        # locals bound once (name -> value) instead of copied into each use: a value used twice
        # and copied is a tree of 2**n nodes after n such locals (icon4py's graupel scan). An
        # operator called inline (``caller``) shares its caller's bindings: its arguments are
        # bound names, not copies of everything they use.
        self.scope: _Scope = caller.scope if caller is not None else _Scope()
        self.env = {name: self._local(name, value) for name, value in env.items()}

    # -- statements -----------------------------------------------------------------------------

    def lower(self) -> Value:
        """The operator's value, self-contained (the bound locals it uses around it)."""
        return self.close(self.lower_inline())

    def lower_inline(self) -> Value:
        """The operator's value; it may use the bound locals of the (shared) scope."""
        result = self._block(list(self.tree.body), self.env)
        if result is None:
            raise LoweringError(f"{self.operator.__name__}: no value is returned on some path")
        return result

    def close(self, value: Value) -> Value:
        """``value`` with the bound locals it uses wrapped around it (``Let``): self-contained,
        so that it can be shifted, materialized or returned."""
        return _map(self._close_leaf, value)

    def _close_leaf(self, expr: ir.Expr) -> ir.Expr:
        scope = self.scope
        if not scope.lets:
            return expr
        needed: set[str] = set()
        for name in _free_names(expr, scope.lets):
            needed |= scope.needs[name]
        if not needed:
            return expr
        order = [n for n in scope.lets if n in needed]  # definition order
        # a value that is not safe to compute everywhere goes where its uses are evaluated
        # (inside the branch of a where...); the later ones first: they use the earlier ones
        for name in reversed(order):
            if not scope.safe[name]:
                expr = ir.bind_lazily(expr, name, scope.lets[name])
        for name in reversed(order):  # the safe ones around it all, earliest outermost
            if scope.safe[name]:
                expr = ir.Let(name=name, value=scope.lets[name], body=expr)
        return expr

    def open_reason(self, value: Value) -> str | None:
        """Why ``value`` (closed) cannot be computed on a temporary's own domain: it uses a
        scan carry or the neighbour of a reduction, itself or through a bound local."""
        scope = self.scope
        bound = frozenset(scope.lets)
        for leaf in _leaves(value):
            reason = self.context._free_reference(leaf, frozenset(), bound)
            if reason is not None:
                return reason  # type: ignore[no-any-return]
            for name in _free_names(leaf, scope.lets):
                for needed in scope.needs[name]:
                    if scope.open[needed] is not None:
                        return scope.open[needed]
        return None

    def _local(self, name: str, value: Value) -> Value:
        """``value`` as the value of the local ``name``: bound once (a name referring to it)
        unless it is a leaf or reads the neighbour of a reduction it is used in."""
        if isinstance(value, tuple):
            return tuple(self._local(f"{name}_{i}", v) for i, v in enumerate(value))
        scope = self.scope
        if ir.is_leaf(value):
            return value
        locals_of = {n: d.local for n, d in self.context.offsets.items()}
        if ir.has_free_neighbour(value, locals_of):
            return value
        bound = self.context.fresh_local(name)
        needed = {bound}
        safe = ir.eager_safe(value)
        for used in _free_names(value, scope.lets):
            needed |= scope.needs[used]
            safe = safe and scope.safe[used]
        scope.lets[bound] = value
        scope.needs[bound] = frozenset(needed)
        scope.safe[bound] = safe
        scope.open[bound] = self.context._free_reference(value, frozenset(), frozenset(scope.lets))
        return ir.SymRef(name=bound)

    def _block(self, statements: list[ast.stmt], env: dict[str, Value]) -> Value | None:
        for index, node in enumerate(statements):
            if isinstance(node, ast.Return):
                assert node.value is not None
                return self._with(env).expr(node.value)
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                assert node.value is not None
                value = self._with(env).expr(node.value)
                if isinstance(node, ast.AnnAssign):
                    declared = self.types.get(node.value)
                    target_dtype = dtype_of(declared)
                    value = self._cast_weak(value, declared, target_dtype)
                self._bind(target, value, env)
                continue
            if isinstance(node, ast.AugAssign):
                assert isinstance(node.target, ast.Name)
                left = env[node.target.id]
                right = self._with(env).expr(node.value)
                fun = ARITHMETIC[type(node.op)]
                updated = ir.Call(fun=fun, args=[left, right])  # type: ignore[list-item]
                env[node.target.id] = self._local(node.target.id, updated)
                continue
            if isinstance(node, ast.If) and not _returns(node):
                # both branches fall through: lower each once and merge what they assign, so
                # that the statements after the `if` are lowered once (not once per path:
                # 2**n for n ifs in a row, as in icon4py's graupel scan)
                condition = self._with(env).expr(node.test)
                then_env, else_env = dict(env), dict(env)
                self._block(list(node.body), then_env)
                self._block(list(node.orelse), else_env)
                # in assignment order: a set's order changes with the hash seed, and so would
                # the fresh names, the IR and its persistent cache key in every new process
                for name in [n for n in then_env if n in else_env]:
                    then_value, else_value = then_env[name], else_env[name]
                    if then_value is not else_value:
                        selected = _select(condition, then_value, else_value)  # type: ignore[arg-type]
                        env[name] = self._local(name, selected)
                continue
            if isinstance(node, ast.If):
                rest = statements[index + 1 :]
                condition = self._with(env).expr(node.test)
                then = self._block([*node.body, *rest], dict(env))
                otherwise = self._block([*node.orelse, *rest], dict(env))
                if then is None or otherwise is None:
                    return None
                return _select(condition, then, otherwise)  # type: ignore[arg-type]
            if isinstance(node, (ast.Pass, ast.Expr)):
                continue
            raise LoweringError(f"statement {type(node).__name__} cannot be lowered")
        return None

    def _cast_weak(self, value: Value, declared: Any, dtype: Any) -> Value:
        return value

    def _bind(self, target: ast.expr, value: Value, env: dict[str, Value]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = self._local(target.id, value)
            return
        assert isinstance(target, ast.Tuple) and isinstance(value, tuple)
        for element, part in zip(target.elts, value, strict=True):
            self._bind(element, part, env)

    def _with(self, env: dict[str, Value]) -> ExpressionLowering:
        return ExpressionLowering(self, env)


def _free_names(expr: ir.Expr, names: Any) -> set[str]:
    """The names of ``names`` that ``expr`` refers to outside any ``Let`` binding them."""
    found: set[str] = set()

    def visit(node: Any, bound: frozenset[str]) -> None:
        if isinstance(node, ir.SymRef):
            if node.name in names and node.name not in bound:
                found.add(node.name)
        elif isinstance(node, ir.Let):
            visit(node.value, bound)
            visit(node.body, bound | {node.name})
        elif isinstance(node, Node):
            for child in node.iter_children_values():
                for item in child if isinstance(child, list) else (child,):
                    visit(item, bound)

    visit(expr, frozenset())
    return found


def _returns(node: ast.If) -> bool:
    """Whether a branch of ``node`` returns (then the rest of the block depends on the path)."""
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _select(condition: ir.Expr, then: Value, otherwise: Value) -> Value:
    if isinstance(then, tuple) or isinstance(otherwise, tuple):
        size = len(then) if isinstance(then, tuple) else len(otherwise)  # type: ignore[arg-type]
        parts = [v if isinstance(v, tuple) else (v,) * size for v in (then, otherwise)]
        return tuple(_select(condition, a, b) for a, b in zip(*parts, strict=True))
    return ir.Call(fun="if_", args=[condition, then, otherwise])


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
        if isinstance(node.op, ast.USub):
            return _map(lambda v: ir.Call(fun="neg", args=[v]), operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, (ast.Invert, ast.Not)):  # `not` only on scalar bools (checked)
            return _map(lambda v: ir.Call(fun="not_", args=[v]), operand)
        raise self.error(node, "unsupported unary operator")

    def visit_BinOp(self, node: ast.BinOp, dtype: Any) -> Value:
        fun = ARITHMETIC[type(node.op)]
        operand_dtype = self.common_dtype([node.left, node.right]) or dtype
        left = self.expr(node.left, operand_dtype)
        right = self.expr(node.right, operand_dtype)
        result_dtype = dtype_of(self.type_of(node))
        if (
            fun == "divides"
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
        return _select(condition, then, otherwise)  # type: ignore[arg-type]

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
            return _map(lambda v: ir.Cast(value=v, dtype=callee.dtype.name), value)
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
        result = OperatorLowering(context, operator, values, caller=self.owner).lower_inline()
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
            return _map(lambda v: ir.Cast(value=v, dtype=target.dtype.name), value)
        if name == "broadcast":
            return self.expr(node.args[0], dtype_of(self.type_of(node)))
        if name in ("where", "concat_where"):
            condition = self.expr(node.args[0])
            result_dtype = dtype_of(_first_leaf(self.type_of(node)))
            then = self.expr(node.args[1], result_dtype)
            otherwise = self.expr(node.args[2], result_dtype)
            return _select(condition, then, otherwise)  # type: ignore[arg-type]
        if name in fbuiltins.MATH_BUILTIN_NAMES:
            operand_dtype = self.common_dtype(list(node.args))
            args = [self.expr(a, operand_dtype) for a in node.args]
            result = dtype_of(self.type_of(node))
            if (
                name not in fbuiltins.BINARY_MATH_NUMBER_BUILTIN_NAMES
                and name not in fbuiltins.UNARY_MATH_NUMBER_BUILTIN_NAMES
                and name not in fbuiltins.UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES
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


def _leaves(value: Value) -> list[ir.Expr]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _first_leaf(type_: Any) -> Any:
    while isinstance(type_, ts.TupleType):
        type_ = type_.types[0]
    return type_


def _map(function: Any, value: Value) -> Value:
    if isinstance(value, tuple):
        return tuple(_map(function, v) for v in value)
    return function(value)  # type: ignore[no-any-return]


__all__ = ["IndexedFieldOffset", "LoweringError", "OperatorLowering", "Value"]

"""Lowering of operator bodies (statements, with :mod:`._expressions`) to pointwise IR values.

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

from gt4py.eve import Node

from .. import ir
from ._errors import LoweringError
from ._expressions import ARITHMETIC, ExpressionLowering
from ._values import Value, dtype_of, leaves, map_leaves, select


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
        return map_leaves(self._close_leaf, value)

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
        # the safe ones around it all, earliest outermost, if the value uses them wherever it
        # is computed; one used only under a condition (a branch of a where / concat_where)
        # goes there too: "safe" assumes its unshifted reads fall inside the fields, which
        # holds only where the branch is selected (a full-level field read in a branch of a
        # half-level result, ICON's `with_boundaries_on_half_levels_on_cells`; ADR 0035)
        for name in reversed(order):
            if scope.safe[name]:
                if ir.used_strictly(expr, name):
                    expr = ir.Let(name=name, value=scope.lets[name], body=expr)
                else:
                    expr = ir.bind_lazily(expr, name, scope.lets[name])
        return expr

    def open_reason(self, value: Value) -> str | None:
        """Why ``value`` (closed) cannot be computed on a temporary's own domain: it uses a
        scan carry or the neighbour of a reduction, itself or through a bound local."""
        scope = self.scope
        bound = frozenset(scope.lets)
        for leaf in leaves(value):
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
                        selected = select(condition, then_value, else_value)  # type: ignore[arg-type]
                        env[name] = self._local(name, selected)
                continue
            if isinstance(node, ast.If):
                rest = statements[index + 1 :]
                condition = self._with(env).expr(node.test)
                then = self._block([*node.body, *rest], dict(env))
                otherwise = self._block([*node.orelse, *rest], dict(env))
                if then is None or otherwise is None:
                    return None
                return select(condition, then, otherwise)  # type: ignore[arg-type]
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


__all__ = ["OperatorLowering"]

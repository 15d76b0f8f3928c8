"""Expressions: field accesses with offsets, operators, builtin calls and casts.

Calls of ``gtscript.function``s are inlined by :mod:`._frontend_inlining` (the layer above).
"""

from __future__ import annotations

import abc
import ast
import difflib
from typing import Any

import numpy as np

from . import _dsl_names as dsl, _ir as ir, _types
from ._errors import GTScriptDefinitionError, GTScriptSymbolError
from ._frontend_base import BINOPS, CMPOPS, PY_BUILTIN_CASTS, PY_BUILTIN_FUNCS, NotConstant
from ._frontend_constants import ConstantEvaluation, literal


class ExpressionParsing(ConstantEvaluation, abc.ABC):
    @abc.abstractmethod
    def _inline(self, func: Any, node: ast.Call) -> ir.Expr | tuple[ir.Expr, ...]:
        """The value of the call ``node`` of the GTScript function ``func``, inlined."""

    @abc.abstractmethod
    def _dtype_of(self, ref: ir.FieldRef | ir.ScalarRef) -> str:
        """The dtype name of a field or scalar the definition names."""

    def _condition(self, node: ast.expr, what: str) -> ir.Expr:
        """The condition of ``what`` (an ``if``, a ``while``, a conditional expression): a
        boolean expression, as in released gt4py (a float field is no condition); the operands
        of its ``and``/``or``/``not`` are boolean too."""
        condition = self._expr(node)
        self._check_boolean(condition, node, what)
        return condition

    def _check_boolean(self, expr: ir.Expr, node: ast.expr, what: str) -> None:
        """Refuse a non-boolean ``expr`` (parsed from ``node``) in the condition of ``what``."""
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.Not)
            and isinstance(expr, ir.UnaryOp)
            and expr.op == "not"
        ):
            self._check_operand(expr.operand, node.operand, "not", what)
            return
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            operands: list[ir.Expr] = []
            rest = expr
            for _ in node.values[1:]:  # _expr folds a BoolOp to the left: ((a op b) op c)
                if not (isinstance(rest, ir.BinaryOp) and rest.op == op):
                    break
                operands.append(rest.right)
                rest = rest.left
            else:
                operands.append(rest)
                for operand, operand_node in zip(reversed(operands), node.values, strict=True):
                    self._check_operand(operand, operand_node, op, what)
                return
        dtype = _types.infer_dtype(expr, self._dtype_of)
        if dtype != "bool":
            raise self._syntax(
                f"the condition of {what} must be boolean, got a {dtype} expression; compare "
                "it explicitly (e.g. `x != 0.0`)",
                node,
            )

    def _check_operand(self, expr: ir.Expr, node: ast.expr, op: str, what: str) -> None:
        if isinstance(node, ast.BoolOp) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            self._check_boolean(expr, node, what)
            return
        dtype = _types.infer_dtype(expr, self._dtype_of)
        if dtype != "bool":
            raise self._syntax(
                f"the condition of {what} must be boolean: the operand `{ast.unparse(node)}` "
                f"of '{op}' is a {dtype} expression; compare it explicitly (e.g. `x != 0.0`)",
                node,
            )

    def _expr_or_tuple(self, node: ast.expr) -> ir.Expr | tuple[ir.Expr, ...]:
        if isinstance(node, ast.Tuple):
            return tuple(self._expr(e) for e in node.elts)
        if isinstance(node, ast.Call):
            func = self._lookup_callable(node.func)
            if dsl.is_gtscript_function(func):
                return self._inline(func, node)
        return self._expr(node)

    def _expr(self, node: ast.expr) -> ir.Expr:  # one dispatch
        try:
            return literal(self._const_eval(node), node, self)
        except NotConstant:
            pass
        if isinstance(node, ast.Name):
            ref = self._name(node)
            if self._is_table(ref):
                raise self._definition(
                    f"'{node.id}' is a GlobalTable: read one element as {node.id}.A[i, ...]",
                    node,
                )
            return ref
        if isinstance(node, ast.BinOp):
            op = BINOPS.get(type(node.op))
            if op is None:
                raise self._syntax(f"operator {type(node.op).__name__} is not supported", node)
            return ir.BinaryOp(op=op, left=self._expr(node.left), right=self._expr(node.right))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return ir.UnaryOp(op="not", operand=self._expr(node.operand))
            if isinstance(node.op, ast.USub | ast.UAdd):
                op = "-" if isinstance(node.op, ast.USub) else "+"
                return ir.UnaryOp(op=op, operand=self._expr(node.operand))
            raise self._syntax("operator ~ is not supported", node)
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            values = [self._expr(v) for v in node.values]
            result = values[0]
            for value in values[1:]:
                result = ir.BinaryOp(op=op, left=result, right=value)
            return result
        if isinstance(node, ast.Compare):
            parts: list[ir.Expr] = []
            left = self._expr(node.left)
            for op_node, right_node in zip(node.ops, node.comparators, strict=True):
                op = CMPOPS.get(type(op_node))
                if op is None:
                    raise self._syntax(
                        f"comparison {type(op_node).__name__} is not supported", node
                    )
                right = self._expr(right_node)
                parts.append(ir.BinaryOp(op=op, left=left, right=right))
                left = right
            result = parts[0]
            for part in parts[1:]:
                result = ir.BinaryOp(op="and", left=result, right=part)
            return result
        if isinstance(node, ast.IfExp):
            return ir.TernaryOp(
                condition=self._condition(node.test, "'... if ... else ...'"),
                true_value=self._expr(node.body),
                false_value=self._expr(node.orelse),
            )
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute) and (axis := self._axis_value(node)) is not None:
            return axis
        raise self._syntax(f"{type(node).__name__} expressions are not supported in GTScript", node)

    def _name(self, node: ast.Name) -> ir.Expr:
        name = node.id
        if name in self._scope.aliases:
            return self._scope.aliases[name]
        decl = self._params.get(name)
        if isinstance(decl, ir.ScalarDecl):
            return ir.ScalarRef(name=name)
        if isinstance(decl, ir.FieldDecl) or name in self._temps:
            return ir.FieldRef(name=name, offset=(0, 0, 0))
        axis = self._axis_value(node)
        if axis is not None:
            return axis
        raise GTScriptSymbolError(
            f"undefined symbol '{name}': not a parameter, an assigned temporary, an external "
            f"(externals=) or a GTScript builtin{self._did_you_mean(name, values=True)}",
            loc=self._loc(node),
        )

    def _name_or_none(self, node: ast.Name) -> ir.Expr | None:
        """What a parameter, temporary or function alias ``node`` names; None otherwise."""
        if node.id in self._scope.aliases:
            return self._scope.aliases[node.id]
        if node.id in self._params or node.id in self._temps:
            return self._name(node)
        return None

    def _axis_value(self, node: ast.expr) -> ir.Expr | None:
        """``K`` (or ``gtscript.K``) as a value: the level index; None if ``node`` is no axis."""
        try:
            value = self._const_eval(node, allow_callables=True)
        except NotConstant:
            return None
        if value is dsl.K:
            return ir.KIndex()
        if isinstance(value, dsl.Axis):
            raise self._definition(
                f"the axis {value.name} cannot be used as a value: only K is (the current "
                "level's index); I and J are always computed in parallel",
                node,
            )
        return None

    def _field_ref(self, node: ast.expr) -> tuple[ir.FieldRef, ir.FieldDecl]:
        expr = self._expr(node) if not isinstance(node, ast.Name) else self._name(node)
        if not isinstance(expr, ir.FieldRef):
            raise self._definition("only fields can be indexed with offsets", node)
        decl = self._params.get(expr.name) or self._temps.get(expr.name)
        assert isinstance(decl, ir.FieldDecl)
        return expr, decl

    def _subscript(self, node: ast.Subscript) -> ir.Expr:
        if isinstance(node.value, ast.Attribute) and node.value.attr == "A":
            return self._table_read(node)
        base, decl = self._field_ref(node.value)
        if not decl.axes:
            raise self._definition(
                f"'{base.name}' is a GlobalTable (no grid axes): read it as "
                f"{base.name}.A[i, ...] with one index per data dimension",
                node,
            )
        if base.k_absolute is not None or base.k_variable is not None:
            raise self._definition("cannot index an absolute or variable K access again", node)
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if (
            base.data_index
            or isinstance(node.value, ast.Subscript)
            or (any(base.offset) and decl.data_dims and len(elts) != len(decl.axes))
        ):
            # The second subscript of a[0, 0, 0][1] indexes data dimensions (also when a
            # function parameter stands for a[0, 0, 1] and is indexed with data indices only).
            # Otherwise offsets compose: f(q[1, 0, 0]) reading q[-1, 0, 0] reads q[0, 0, 0].
            index = self._data_index(node.slice, node)
            self._check_data_index(decl, base.data_index + index, node, allow_missing=True)
            return ir.FieldRef(
                name=base.name, offset=base.offset, data_index=base.data_index + index
            )
        by_axis = self._axis_offsets(base.name, decl, elts)
        if by_axis is not None:  # a[K - 1], a[I + 1, J]: offsets along the named axes
            offset = tuple(base.offset[i] + by_axis.get(a, 0) for i, a in enumerate("IJK"))
            return ir.FieldRef(name=base.name, offset=offset)  # type: ignore[arg-type]
        if len(elts) != len(decl.axes):
            raise self._definition(
                f"'{base.name}' has axes {decl.axes}: index it with {len(decl.axes)} offset(s), "
                f"got {len(elts)} (or name the axes: {base.name}[K - 1], {base.name}[I + 1, J])",
                node,
            )
        offsets = {"I": 0, "J": 0, "K": 0}
        k_variable: ir.Expr | None = None
        for axis, elt in zip(decl.axes, elts, strict=True):
            try:
                value = self._const_eval(elt)
            except NotConstant:
                if axis != "K":
                    raise self._definition(
                        f"the {axis} offset of '{base.name}' must be a compile-time integer", elt
                    ) from None
                k_variable = self._expr(elt)
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise self._definition(f"offset {value!r} is not an integer", elt)
            offsets[axis] = value
        offset = (
            base.offset[0] + offsets["I"],
            base.offset[1] + offsets["J"],
            base.offset[2] + offsets["K"],
        )
        return ir.FieldRef(name=base.name, offset=offset, k_variable=k_variable)

    def _axis_offsets(
        self, name: str, decl: ir.FieldDecl, elts: list[ast.expr]
    ) -> dict[str, int] | None:
        """The axis form of a field index, as released GTScript reads it: each element names an
        axis, shifted or not (``a[K - 1]``, ``a[I + 1, J - 1]``, ``a[K]``); axes not named are
        offset 0. None when no element names an axis (the positional form)."""
        named = [self._axis_offset(elt) for elt in elts]
        if all(n is None for n in named):
            return None
        offsets: dict[str, int] = {}
        for elt, item in zip(elts, named, strict=True):
            if item is None:
                raise self._definition(
                    f"'{ast.unparse(elt)}': index '{name}' either by position "
                    f"({name}[0, 0, -1]) or by axis ({name}[K - 1]) in every element",
                    elt,
                )
            axis, shift = item
            if axis not in decl.axes:
                raise self._definition(
                    f"'{name}' has axes {decl.axes}: it has no {axis} to offset", elt
                )
            if axis in offsets:
                raise self._definition(f"'{name}' is offset along {axis} twice", elt)
            offsets[axis] = shift
        return offsets

    def _axis_offset(self, elt: ast.expr) -> tuple[str, int] | None:
        """``K - 1`` -> ("K", -1), ``I`` -> ("I", 0); None if ``elt`` names no axis."""
        node, shift, sign = elt, None, 1
        if isinstance(elt, ast.BinOp) and isinstance(elt.op, ast.Add | ast.Sub):
            node, shift = elt.left, elt.right
            sign = 1 if isinstance(elt.op, ast.Add) else -1
        if not isinstance(node, ast.Name | ast.Attribute):
            return None
        try:
            axis = self._const_eval(node, allow_callables=True)
        except (NotConstant, GTScriptDefinitionError):
            return None
        if not isinstance(axis, dsl.Axis):
            return None
        if shift is None:
            return axis.name, 0
        try:
            value = self._const_eval(shift)
        except NotConstant:
            value = None
        if not isinstance(value, int | np.integer) or isinstance(value, bool | np.bool_):
            raise self._definition(
                f"'{ast.unparse(elt)}': an offset along {axis.name} is a compile-time integer",
                elt,
            )
        return axis.name, sign * int(value)

    def _is_table(self, expr: ir.Expr | None) -> bool:
        """Whether ``expr`` is a whole GlobalTable (a parameter with data dimensions only)."""
        if not isinstance(expr, ir.FieldRef) or expr.data_index:
            return False
        decl = self._params.get(expr.name)
        return isinstance(decl, ir.FieldDecl) and not decl.axes

    def _table_read(self, node: ast.Subscript) -> ir.FieldRef:
        """``table.A[i, ...]``: one element of a GlobalTable, at compile-time indices."""
        assert isinstance(node.value, ast.Attribute)
        base, decl = self._field_ref(node.value.value)
        if decl.axes or any(base.offset) or base.data_index:
            raise self._definition(
                f"'.A[...]' reads a GlobalTable; '{base.name}' is a field with axes "
                f"{decl.axes}: index its data dimensions as {base.name}[0, 0, 0][i]",
                node,
            )
        index = self._const_index(node.slice, node)
        self._check_data_index(decl, index, node, allow_missing=False)
        return ir.FieldRef(name=base.name, offset=(0, 0, 0), data_index=index)

    def _check_data_index(
        self,
        decl: ir.FieldDecl,
        index: tuple[int | ir.Expr, ...],
        node: ast.AST,
        *,
        allow_missing: bool,
    ) -> None:
        dims = decl.data_dims
        if len(index) > len(dims) or (not allow_missing and len(index) != len(dims)):
            raise self._definition(
                f"'{decl.name}' has data dimensions {dims}: index it with {len(dims)} data "
                f"index(es), got {len(index)}",
                node,
            )
        for i, size in zip(index, dims, strict=False):
            if isinstance(i, int) and not -size <= i < size:
                raise self._definition(
                    f"data index {i} is out of range for '{decl.name}' (size {size})", node
                )

    def _const_index(self, node: ast.expr, where: ast.AST) -> tuple[int, ...]:
        """Offsets: compile-time integers."""
        index = self._data_index(node, where, run_time=False)
        assert all(isinstance(i, int) for i in index)
        return index  # type: ignore[return-value]

    def _data_index(
        self, node: ast.expr, where: ast.AST, *, run_time: bool = True
    ) -> tuple[int | ir.Expr, ...]:
        """The elements of a data index: compile-time integers as ``int``; with ``run_time``,
        any other integer expression as its ``ir.Expr`` (checked when the stencil runs)."""
        elts = node.elts if isinstance(node, ast.Tuple) else [node]
        values: list[int | ir.Expr] = []
        for elt in elts:
            try:
                value = self._const_eval(elt)
            except NotConstant:
                if not run_time:
                    raise self._definition(
                        "this index must be a compile-time integer", where
                    ) from None
                values.append(self._run_time_index(elt))
                continue
            if isinstance(value, np.integer) and not isinstance(value, np.bool_):
                value = int(value)
            if not isinstance(value, int) or isinstance(value, bool):
                raise self._definition(f"index {value!r} is not an integer", where)
            values.append(value)
        return tuple(values)

    def _run_time_index(self, elt: ast.expr) -> ir.Expr:
        """A data index computed at run time: an integer expression (not a bool)."""
        expr = self._expr(elt)
        dtype = _types.infer_dtype(expr, self._dtype_of)
        if np.dtype(dtype).kind not in "iu":
            raise self._definition(
                f"the data index '{ast.unparse(elt)}' is of type {dtype}: a data index is an "
                "integer",
                elt,
            )
        return expr

    def _call(self, node: ast.Call) -> ir.Expr:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "at":
            base, decl = self._field_ref(node.func.value)
            if "K" not in decl.axes or node.args or [k.arg for k in node.keywords] != ["K"]:
                raise self._syntax("use field.at(K=index) on a field with a K axis", node)
            if any(base.offset):
                raise self._syntax("field.at(K=...) cannot follow an offset", node)
            return ir.FieldRef(
                name=base.name, offset=(0, 0, 0), k_absolute=self._expr(node.keywords[0].value)
            )
        func = self._lookup_callable(node.func)
        if dsl.is_gtscript_function(func):
            result = self._inline(func, node)
            if isinstance(result, tuple):
                raise self._syntax(
                    f"'{func.__name__}' returns {len(result)} values: unpack them (a, b = f(...))",
                    node,
                )
            return result
        marker = self._markers.get(id(func))
        if node.keywords:
            raise self._syntax("builtin functions take positional arguments only", node)
        args = [self._expr(a) for a in node.args]
        if marker in dsl.CAST_BUILTINS or func in PY_BUILTIN_CASTS:
            dtype = PY_BUILTIN_CASTS.get(func, marker)
            assert dtype is not None
            if len(args) != 1:
                raise self._syntax(f"{dtype}() takes one argument", node)
            return ir.Cast(dtype="bool" if dtype == "bool_" else dtype, value=args[0])
        name = marker if marker in dsl.MATH_BUILTINS else PY_BUILTIN_FUNCS.get(func)
        if name is None:
            raise self._syntax(f"'{ast.unparse(node.func)}' is not a GTScript function", node)
        arity = _types.BUILTIN_ARITY.get(name, 1)
        if len(args) != arity:
            raise self._syntax(f"{name}() takes {arity} argument(s), got {len(args)}", node)
        return ir.Call(func=name, args=args)

    def _lookup_callable(self, node: ast.expr) -> Any:
        if (
            isinstance(node, ast.Name)
            and node.id in ("float", "int", "bool", *PY_BUILTIN_FUNCS)
            and node.id not in self._scope.namespace
            and node.id not in self._externals
        ):
            return node.id
        try:
            return self._const_eval(node, allow_callables=True)
        except NotConstant:
            message = f"'{ast.unparse(node)}' is not a callable GTScript name"
            if isinstance(node, ast.Name):
                message += self._did_you_mean(node.id)
            raise self._syntax(message, node) from None

    def _did_you_mean(self, name: str, *, values: bool = False) -> str:
        """Python's "did you mean" over GTScript's builtins and the names the stencil sees
        (``values``: a name read as a value, so also parameters and temporaries)."""
        dsl_names = {*dsl.MATH_BUILTINS, *dsl.CAST_BUILTINS, *PY_BUILTIN_FUNCS, *PY_BUILTIN_CASTS}
        visible = {*self._scope.namespace, *self._externals}
        if values:
            visible |= {*self._params, *self._temps, *self._scope.aliases}
        close = difflib.get_close_matches(name, sorted(dsl_names | visible), n=1, cutoff=0.75)
        if not close:
            return ""
        if close[0] in visible or close[0] in PY_BUILTIN_FUNCS or close[0] in PY_BUILTIN_CASTS:
            return f"; did you mean '{close[0]}'?"
        return (
            f"; did you mean '{close[0]}'? (a GTScript builtin: "
            f"`from gt4py.cartesian.gtscript import {close[0]}`)"
        )

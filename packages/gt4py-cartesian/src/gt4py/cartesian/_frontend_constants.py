"""Compile-time evaluation: externals, constants, axis indices and GTScript markers.

A name or expression that depends only on externals, module constants and literals is folded
to its Python value; anything that depends on run time raises :class:`NotConstant`.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dsl_names as dsl, _ir as ir
from ._errors import GTScriptDefinitionError, GTScriptError
from ._frontend_base import BINOPS, CMPOPS, LANGUAGE_NAMES, NotConstant, ParserBase
from ._literal_precision import literal_dtype


class ConstantEvaluation(ParserBase):
    def _const_condition(self, node: ast.expr) -> bool | None:
        try:
            value = self._const_eval(node)
        except NotConstant:
            return None
        return bool(value)

    def _const_eval(self, node: ast.expr, *, allow_callables: bool = False) -> Any:
        """The compile-time value of ``node``; ``NotConstant`` if it depends on run time."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            name = node.id
            if name in self._scope.aliases:
                alias = self._scope.aliases[name]
                if isinstance(alias, ir.Constant):
                    return constant_value(alias)
                raise NotConstant
            if name in self._params or name in self._temps:
                raise NotConstant
            if name in self._externals:
                value = self._externals[name]
            elif name in self._scope.namespace:
                value = self._scope.namespace[name]
            elif name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
            elif name in LANGUAGE_NAMES:
                # GTScript keywords work without an import, as in released GTScript.
                value = getattr(dsl, name)
            else:
                raise NotConstant
            return self._check_const(value, node, allow_callables)
        if isinstance(node, ast.Attribute):
            base = self._const_eval(node.value, allow_callables=True)
            try:
                value = getattr(base, node.attr)
            except AttributeError:
                raise self._definition(f"'{ast.unparse(node)}' does not exist", node) from None
            return self._check_const(value, node, allow_callables)
        if isinstance(node, ast.UnaryOp):
            operand = self._const_eval(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return +operand
            if isinstance(node.op, ast.Not):
                return not operand
            raise NotConstant
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            left, right = self._const_eval(node.left), self._const_eval(node.right)
            binop = BINOPS[type(node.op)]
            if any(isinstance(v, dsl.AxisIndex) for v in (left, right)):
                if binop not in ("+", "-") or isinstance(right, dsl.AxisIndex):
                    raise self._definition(
                        f"'{ast.unparse(node)}': an axis index such as I[0] can only be "
                        "shifted by an integer (I[0] + 1, I[-1] - 2)",
                        node,
                    )
                if not isinstance(right, int | np.integer) or isinstance(right, bool | np.bool_):
                    raise self._definition(
                        f"'{ast.unparse(node)}': an axis index is shifted by an integer, "
                        f"not by {right!r}",
                        node,
                    )
                return eval_binop(binop, left, right)
            if not all(isinstance(v, numbers.Number) for v in (left, right)):
                raise NotConstant
            try:
                return eval_binop(binop, left, right)
            except ArithmeticError:  # 2.0 / 0.0: left to run time, with numpy's result
                raise NotConstant from None
        if isinstance(node, ast.Subscript):
            # I[n]: an axis index (any other subscript depends on run time)
            base = self._const_eval(node.value, allow_callables=True)
            if not isinstance(base, dsl.Axis):
                raise NotConstant
            index = self._const_eval(node.slice)
            try:
                return base[index]
            except GTScriptError as error:
                raise self._definition(str(error), node) from None
        if isinstance(node, ast.BoolOp):
            values = [self._const_eval(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            left = self._const_eval(node.left)
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self._const_eval(comp)
                if type(op) in (ast.Is, ast.IsNot):
                    result = (left is right) == isinstance(op, ast.Is)
                elif type(op) in CMPOPS:
                    try:
                        result = eval_binop(CMPOPS[type(op)], left, right)
                    except TypeError as error:
                        raise self._definition(
                            f"cannot compare at compile time: {error}", node
                        ) from None
                else:
                    raise NotConstant
                if not result:
                    return False
                left = right
            return True
        if isinstance(node, ast.Call) and self._marker_name(node.func) == "__INLINED":
            if len(node.args) != 1:
                raise self._syntax("__INLINED() takes one argument", node)
            try:
                return self._const_eval(node.args[0])
            except NotConstant:
                raise self._definition(
                    "__INLINED() needs a compile-time condition (externals and constants)", node
                ) from None
        if isinstance(node, ast.Constant | ast.Tuple) and isinstance(node, ast.Tuple):
            return tuple(self._const_eval(e) for e in node.elts)
        raise NotConstant

    def _check_const(self, value: Any, node: ast.AST, allow_callables: bool) -> Any:
        if isinstance(value, bool | numbers.Number | np.generic | dsl.AxisIndex):
            return value
        if value is None:
            return value
        if allow_callables:
            return value
        if value is Ellipsis:
            return value
        if id(value) in self._markers or inspect.ismodule(value) or callable(value):
            raise NotConstant
        raise self._definition(
            f"'{ast.unparse(node)}' is a {type(value).__name__}, which GTScript cannot use "
            "(externals must be numbers, booleans, axis indices such as I[0] or GTScript "
            "functions)",
            node,
        )

    def _marker_name(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name) and node.id == "__INLINED":
            return "__INLINED"
        try:
            value = self._const_eval(node, allow_callables=True)
        except (NotConstant, GTScriptDefinitionError):
            return None
        return self._markers.get(id(value))

    def _marker_call(self, node: ast.expr) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        return self._marker_name(node.func)


def eval_binop(op: str, left: Any, right: Any) -> Any:
    table: dict[str, Callable[[Any, Any], Any]] = {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<": operator.lt,
        "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne,
    }  # fmt: skip
    return table[op](left, right)


def constant_value(constant: ir.Constant) -> Any:
    return (
        {"True": True, "False": False}.get(constant.value)
        if constant.dtype == "bool"
        else (float(constant.value) if constant.dtype.startswith("float") else int(constant.value))
    )


def literal(value: Any, node: ast.AST, parser: ParserBase) -> ir.Constant:
    if isinstance(value, dsl.AxisIndex):
        raise parser._definition(
            f"'{ast.unparse(node)}' is the axis index {value!r}: axis indices bound regions "
            "(region[...]) and intervals, they are not values (K alone is the level index)",
            node,
        )
    if isinstance(value, bool | np.bool_):
        return ir.Constant(value=repr(bool(value)), dtype="bool")
    if isinstance(value, np.generic) and value.dtype.kind in "iuf":
        return ir.Constant(value=repr(value.item()), dtype=value.dtype.name)
    if isinstance(value, int):  # untyped: GT4PY_LITERAL_INT_PRECISION (64 by default)
        return ir.Constant(value=repr(value), dtype=literal_dtype("int"))
    if isinstance(value, float):
        return ir.Constant(value=repr(value), dtype=literal_dtype("float"))
    raise parser._definition(f"{value!r} cannot be used as a value in GTScript", node)

"""``gtscript.function`` calls, inlined: arguments become aliases (or temporaries when they
are general expressions), the body's locals are renamed apart, and the return value replaces
the call."""

from __future__ import annotations

import ast
from typing import Any

from . import _ir as ir
from ._frontend_base import Scope, is_docstring
from ._frontend_statements import StatementParsing
from ._source import closure_namespace, source_info


class FunctionInlining(StatementParsing):
    def _inline(self, func: Any, node: ast.Call) -> ir.Expr | tuple[ir.Expr, ...]:
        info = source_info(func)
        tree = info.tree
        params = [a.arg for a in tree.args.args]
        if len(node.args) > len(params):
            raise self._syntax(f"'{func.__name__}' takes {len(params)} arguments", node)
        bound: dict[str, ast.expr] = dict(zip(params, node.args, strict=False))
        for keyword in node.keywords:
            if keyword.arg not in params or keyword.arg in bound:
                raise self._syntax(
                    f"unexpected argument '{keyword.arg}' to '{func.__name__}'", node
                )
            bound[keyword.arg] = keyword.value
        defaults = tree.args.defaults
        for param, default in zip(params[len(params) - len(defaults) :], defaults, strict=True):
            bound.setdefault(param, default)
        missing = [p for p in params if p not in bound]
        if missing:
            raise self._syntax(f"'{func.__name__}' is missing argument(s) {missing}", node)
        prefix = f"__{func.__name__}_{next(self._call_ids)}_"
        # A parameter the body assigns is the function's own copy (Python's semantics, and
        # released gt4py's): the caller's variable keeps its value, only the return flows back.
        assigned = _assigned_names(tree)
        aliases: dict[str, ir.Expr] = {}
        for param in params:
            arg_node = bound[param]
            value: ir.Expr | None
            if isinstance(arg_node, ast.Name) and self._is_table(self._name_or_none(arg_node)):
                value = self._name(arg_node)  # a GlobalTable passed whole, read as t.A[...]
            else:
                value = self._expr(arg_node) if arg_node not in defaults else None
            if value is None:  # a default, evaluated in the function's own scope
                outer = self._scope
                self._scope = Scope(info, closure_namespace(func), {}, prefix)
                try:
                    value = self._expr(arg_node)
                finally:
                    self._scope = outer
            if param not in assigned and (
                (
                    isinstance(value, ir.FieldRef)
                    and not (value.data_index or value.k_absolute or value.k_variable)
                )
                or isinstance(value, ir.Constant | ir.ScalarRef)
            ):
                aliases[param] = value
            else:  # an expression or an assigned parameter: a temporary, then aliased
                ref = self._new_temporary(f"{prefix}{param}", value, arg_node)
                self._emitted[-1].append(ir.Assign(target=ref, value=value, loc=self._loc(node)))
                aliases[param] = ref
        outer = self._scope
        self._scope = Scope(info, closure_namespace(func), aliases, prefix)
        try:
            body = [s for s in tree.body if not is_docstring(s)]
            if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
                raise self._syntax(
                    f"GTScript function '{func.__name__}' must end with 'return <value>'", tree
                )
            for stmt in body[:-1]:
                self._emitted.append([])
                parsed = self._parse_stmt(stmt)
                emitted = self._emitted.pop()
                self._emitted[-1].extend(emitted)
                self._emitted[-1].extend(parsed)
            return_value = body[-1].value
            assert return_value is not None
            return self._expr_or_tuple(return_value)
        finally:
            self._scope = outer


def _assigned_names(tree: ast.FunctionDef) -> set[str]:
    """The plain names the function body assigns (``q = ...``, ``q += ...``, ``a, q = ...``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                    names.add(leaf.id)
    return names

"""Scan bodies with Python conditionals, made runnable on whole levels.

A scan body is typed over scalars, so ``count + (1 if a > 0.0 else 0)`` and ``if a > 0.0: ...``
are legal there. Embedded scans run the body once per level on fields (vectorized over the
other dimensions), where ``a > 0.0`` is a bool field with no single truth value. This module
rewrites the body into straight-line code: each ternary becomes ``where(c, a, b)``, and each
``if`` statement evaluates its condition once, runs both branches on renamed variables and
merges what they assign (or return) with ``where``. Both branches are evaluated, which is fine
for the DSL's pure expressions. A body that cannot be linearized (a branch that may fall off
the end of the function) is reported as ``None``; the scan then runs point by point.
"""

from __future__ import annotations

import ast
import copy
import itertools
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import fbuiltins, type_specifications as ts
from ._source import SourceDefinition


_WHERE = "__gt4py_where"
_ASTYPE = "__gt4py_astype"


class _NotLinear(Exception):
    """The body has control flow this rewrite does not turn into straight-line code."""


def has_conditionals(tree: ast.FunctionDef) -> bool:
    return any(isinstance(node, (ast.If, ast.IfExp)) for node in ast.walk(tree))


def level_function(
    source: SourceDefinition, expression_types: Mapping[ast.AST, ts.TypeSpec]
) -> Callable[..., Any] | None:
    """The scan body as a function that runs on whole levels, or None if it must run per point.

    Bodies without conditionals are returned unchanged. ``expression_types`` (the checker's)
    find weak operands: ``count + (1 if c else 0)`` is int32 for an int32 ``count``, but the
    rewritten ``where(c, 1, 0)`` is an int64 field, so such operands are cast to the dtype
    the checker gave the other side.
    """
    tree = source.tree
    if not has_conditionals(tree):
        return source.function
    try:
        body = _Linearizer(tree, expression_types).run()
    except _NotLinear:
        return None
    return _compile(source, body)


def _always_returns(statements: Sequence[ast.stmt]) -> bool:
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and _always_returns(last.orelse)


class _Linearizer:
    def __init__(
        self, tree: ast.FunctionDef, expression_types: Mapping[ast.AST, ts.TypeSpec]
    ) -> None:
        self.tree = tree
        self.counter = itertools.count()
        self.original_types = expression_types
        self.types: dict[ast.AST, ts.TypeSpec] = {}

    def run(self) -> list[ast.stmt]:
        arguments = self.tree.args
        env = {a.arg: a.arg for a in [*arguments.posonlyargs, *arguments.args]}
        env.update({a.arg: a.arg for a in arguments.kwonlyargs})
        copies: dict[int, Any] = {}
        body = copy.deepcopy(self.tree.body, copies)
        self.types = {
            copies[id(node)]: type_
            for node, type_ in self.original_types.items()
            if id(node) in copies
        }
        statements, returned, _ = self.block(body, env)
        if returned is None:
            raise _NotLinear
        return [*statements, ast.Return(value=returned)]

    def fresh(self, name: str) -> str:
        return f"__gt4py_{next(self.counter)}_{name}"

    def block(
        self, statements: list[ast.stmt], env: dict[str, str]
    ) -> tuple[list[ast.stmt], ast.expr | None, dict[str, str]]:
        """Straight-line statements, the returned expression (if the block returns), new names."""
        emitted: list[ast.stmt] = []
        remaining = list(statements)
        while remaining:
            statement = remaining.pop(0)
            if isinstance(statement, ast.Return):
                assert statement.value is not None  # the checker requires a value
                return emitted, self.expression(statement.value, env), env
            if isinstance(statement, ast.Assign):
                value = self.expression(statement.value, env)
                for target in statement.targets:
                    emitted.append(ast.Assign(targets=[self.target(target, env)], value=value))
            elif isinstance(statement, ast.AnnAssign):
                assert statement.value is not None
                value = self.expression(statement.value, env)
                emitted.append(
                    ast.Assign(targets=[self.target(statement.target, env)], value=value)
                )
            elif isinstance(statement, ast.AugAssign):
                assert isinstance(statement.target, ast.Name)
                current = ast.Name(id=env[statement.target.id], ctx=ast.Load())
                value = ast.BinOp(
                    left=current, op=statement.op, right=self.expression(statement.value, env)
                )
                emitted.append(
                    ast.Assign(targets=[self.target(statement.target, env)], value=value)
                )
            elif isinstance(statement, ast.If):
                returned = self.if_statement(statement, remaining, emitted, env)
                if returned is not None:  # (also when the rest of the block moved into it)
                    return emitted, returned, env
            elif isinstance(statement, (ast.Expr, ast.Pass)):
                continue  # docstrings (the checker rejects other expression statements)
            else:
                raise _NotLinear
        return emitted, None, env

    def if_statement(
        self,
        statement: ast.If,
        remaining: list[ast.stmt],
        emitted: list[ast.stmt],
        env: dict[str, str],
    ) -> ast.expr | None:
        condition = self.fresh("condition")
        emitted.append(
            ast.Assign(
                targets=[ast.Name(id=condition, ctx=ast.Store())],
                value=self.expression(statement.test, env),
            )
        )
        body, orelse = list(statement.body), list(statement.orelse)
        body_returns, else_returns = _always_returns(body), _always_returns(orelse)
        # `if c: return x` followed by more code: that code is the else branch
        if body_returns and not else_returns:
            orelse += remaining
        elif else_returns and not body_returns:
            body += remaining
        then_code, then_value, then_env = self.block(body, dict(env))
        else_code, else_value, else_env = self.block(orelse, dict(env))
        emitted.extend(then_code)
        emitted.extend(else_code)
        if then_value is not None and else_value is not None:
            return _where(condition, then_value, else_value)
        if then_value is not None or else_value is not None:
            raise _NotLinear  # one branch may fall off the end of the function
        for name in sorted(then_env.keys() & else_env.keys()):
            if then_env[name] == env.get(name) and else_env[name] == env.get(name):
                continue
            merged = self.fresh(name)
            emitted.append(
                ast.Assign(
                    targets=[ast.Name(id=merged, ctx=ast.Store())],
                    value=_where(
                        condition,
                        ast.Name(id=then_env[name], ctx=ast.Load()),
                        ast.Name(id=else_env[name], ctx=ast.Load()),
                    ),
                )
            )
            env[name] = merged
        # names assigned in one branch only are not usable afterwards (the checker says so)
        return None

    def target(self, target: ast.expr, env: dict[str, str]) -> ast.expr:
        if isinstance(target, ast.Name):
            env[target.id] = self.fresh(target.id)
            return ast.Name(id=env[target.id], ctx=ast.Store())
        if isinstance(target, ast.Tuple):
            return ast.Tuple(elts=[self.target(e, env) for e in target.elts], ctx=ast.Store())
        raise _NotLinear

    def expression(self, node: ast.expr, env: dict[str, str]) -> ast.expr:
        result = _Substitute(env, self.types).visit(node)
        assert isinstance(result, ast.expr)
        return result


class _Substitute(ast.NodeTransformer):
    """Renamed variables, and ``where`` for ternaries."""

    def __init__(self, env: dict[str, str], types: Mapping[ast.AST, ts.TypeSpec]) -> None:
        self.env = env
        self.types = types

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        before = (node.left, node.right)
        self.generic_visit(node)
        node.left, node.right = self._concrete(before, (node.left, node.right))
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        before = (node.left, node.comparators[0])
        self.generic_visit(node)
        node.left, node.comparators[0] = self._concrete(before, (node.left, node.comparators[0]))
        return node

    def _concrete(
        self, before: tuple[ast.expr, ast.expr], after: tuple[ast.expr, ast.expr]
    ) -> tuple[ast.expr, ast.expr]:
        """The operands, a weak non-literal one cast to the other's (concrete) dtype."""
        left_type, right_type = (self.types.get(b) for b in before)
        left, right = after
        if _weak(left_type) and not _weak(right_type) and not _literal(before[0]):
            left = _astype(left, right_type)
        elif _weak(right_type) and not _weak(left_type) and not _literal(before[1]):
            right = _astype(right, left_type)
        return left, right

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return ast.Name(id=self.env[node.id], ctx=ast.Load())
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        return ast.Call(
            func=ast.Name(id=_WHERE, ctx=ast.Load()),
            args=[node.test, node.body, node.orelse],
            keywords=[],
        )


def _weak(type_: ts.TypeSpec | None) -> bool:
    return isinstance(type_, ts.IntConstantType) or (
        isinstance(type_, ts.ScalarType) and type_.weak
    )


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    return isinstance(node, ast.Constant)


def _astype(node: ast.expr, type_: ts.TypeSpec | None) -> ast.expr:
    dtype = None if type_ is None else ts.element_dtype(type_)
    if dtype is None:
        return node
    return ast.Call(
        func=ast.Name(id=_ASTYPE, ctx=ast.Load()),
        args=[node, ast.Constant(dtype.name)],
        keywords=[],
    )


def _where(condition: str, a: ast.expr, b: ast.expr) -> ast.expr:
    return ast.Call(
        func=ast.Name(id=_WHERE, ctx=ast.Load()),
        args=[ast.Name(id=condition, ctx=ast.Load()), a, b],
        keywords=[],
    )


def _compile(source: SourceDefinition, body: list[ast.stmt]) -> Callable[..., Any]:
    """A function with ``body`` and the original's globals and closure cells."""
    original = source.function
    assert isinstance(original, types.FunctionType)
    tree = copy.deepcopy(source.tree)
    tree.body = body
    tree.decorator_list = []
    tree.returns = None
    for argument in [*tree.args.posonlyargs, *tree.args.args, *tree.args.kwonlyargs]:
        argument.annotation = None
    # Free variables of the original (and the `where` helper) are locals of an enclosing
    # function, so the compiled body refers to them as closure cells we can supply.
    helpers = {_WHERE: fbuiltins.where, _ASTYPE: fbuiltins.astype}
    enclosing_names = [*original.__code__.co_freevars, *helpers]
    outer = ast.FunctionDef(
        name="__gt4py_enclosing",
        args=ast.arguments(
            posonlyargs=[],
            args=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[
            *(
                ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=ast.Constant(None))
                for n in enclosing_names
            ),
            tree,
            ast.Return(value=ast.Name(id=tree.name, ctx=ast.Load())),
        ],
        decorator_list=[],
    )
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    ast.increment_lineno(module, source.line_offset)
    code = compile(module, source.filename, "exec")
    outer_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    body_code = next(
        c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == tree.name
    )
    cells = dict(zip(original.__code__.co_freevars, original.__closure__ or (), strict=True))
    closure = tuple(
        cells[name] if name in cells else types.CellType(helpers[name])
        for name in body_code.co_freevars
    )
    function = types.FunctionType(body_code, original.__globals__, original.__name__, None, closure)
    function.__qualname__ = original.__qualname__
    return function

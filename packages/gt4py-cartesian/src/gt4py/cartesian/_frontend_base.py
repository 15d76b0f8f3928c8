"""The GTScript parser's state, the names it knows, and how it reports errors.

The parser (:class:`~._frontend.DefinitionParser`) is built in layers, one concept per module:
compile-time evaluation of externals (:mod:`._frontend_constants`), expressions
(:mod:`._frontend_expressions`), statements and regions (:mod:`._frontend_statements`),
``gtscript.function`` inlining (:mod:`._frontend_inlining`), then computations and the
signature (:mod:`._frontend`). Every error points at the user's ``file:line:column``: an
inlined function's nodes are located in that function's own file.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gt4py.eve import SourceLocation
from gt4py.eve.sources import FunctionSource

from . import _dsl_names as dsl, _ir as ir
from ._errors import GTScriptDefinitionError, GTScriptSyntaxError
from ._source import closure_namespace, source_info


ORDERS = {"PARALLEL": "PARALLEL", "FORWARD": "FORWARD", "BACKWARD": "BACKWARD"}
BINOPS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**",
}  # fmt: skip
CMPOPS: dict[type, str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}  # fmt: skip
LANGUAGE_NAMES = frozenset(
    {
        "computation",
        "interval",
        "horizontal",
        "region",
        "PARALLEL",
        "FORWARD",
        "BACKWARD",
        "I",
        "J",
        "K",
        "compile_assert",
    }
    | set(dsl.MATH_BUILTINS)
    | set(dsl.CAST_BUILTINS)
)
PY_BUILTIN_FUNCS = {"abs": "abs", "min": "min", "max": "max", "round": "round"}
PY_BUILTIN_CASTS = {"float": "float64", "int": "int64", "bool": "bool"}


class NotConstant(Exception):
    """The expression depends on run-time values."""


@dataclasses.dataclass
class Scope:
    """The names one function body (the stencil or an inlined GTScript function) sees."""

    info: FunctionSource
    namespace: Mapping[str, Any]
    aliases: dict[str, ir.Expr]  # inlined function parameters and renamed locals
    rename_prefix: str | None  # None for the stencil itself


class ParserBase:
    """What every layer of the parser shares: the definition's names and the error helpers."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        externals: Mapping[str, Any],
        dtypes: Mapping[str, Any],
        name: str,
        annotation_locals: Mapping[str, Any] | None = None,
        source: FunctionSource | None = None,
    ) -> None:
        self._func = func
        # The local names of the scope that defined the stencil: string annotations (``from
        # __future__ import annotations``) may name a local type alias the body never uses.
        self._annotation_locals = dict(annotation_locals or {})
        self._externals = dict(externals)
        self._dtypes = dict(dtypes)
        self._stencil_name = name
        self._params: dict[str, ir.FieldDecl | ir.ScalarDecl] = {}
        self._temps: dict[str, ir.FieldDecl] = {}
        self._emitted: list[list[ir.Stmt]] = []
        self._call_ids = itertools.count()
        self._markers = {id(v): k for k, v in dsl._builtin_markers().items()}
        # ``source``: the definition already read (the build's frontend stage), not read again
        info = source if source is not None else source_info(func)
        self._scope = Scope(info, closure_namespace(func), {}, None)

    # -- locations and errors -------------------------------------------------------------------
    def _loc(self, node: ast.AST) -> SourceLocation:
        return self._scope.info.location(node)

    def _syntax(self, message: str, node: ast.AST) -> GTScriptSyntaxError:
        return GTScriptSyntaxError(message, loc=self._loc(node))

    def _definition(self, message: str, node: ast.AST) -> GTScriptDefinitionError:
        return GTScriptDefinitionError(message, loc=self._loc(node))

    def _resolve_dtype(self, spec: Any, name: str, node: ast.AST) -> str:
        if isinstance(spec, str) and spec in self._dtypes:
            spec = self._dtypes[spec]
        try:
            dtype = np.dtype(spec)
        except TypeError:
            raise self._definition(
                f"'{name}' has type {spec!r}, which is not a numeric type "
                "(is it missing from dtypes=?)",
                node,
            ) from None
        if dtype.kind not in "biuf":
            raise self._definition(f"'{name}' has unsupported type {dtype}", node)
        name_of_dtype: str = dtype.name
        return name_of_dtype


def is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def position(value: int, *, shift: int = 0) -> ir.AxisPosition:
    """A bound counted from the start (``value >= 0``) or from the end (``value < 0``)."""
    if value < 0:
        return ir.AxisPosition(level="end", offset=value + shift)
    return ir.AxisPosition(level="start", offset=value + shift)

"""GTScript frontend: Python source of a definition -> definition IR (:mod:`._ir`).

Resolves every name (parameters, temporaries, externals, GTScript functions, builtins),
inlines GTScript functions, folds compile-time ``if``s and reports errors at the user's
``file:line:column``. The parser's layers are listed in :mod:`._frontend_base`; this module
adds the stencil's signature and its ``computation``/``interval`` blocks.
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

from . import _dsl_names as dsl, _ir as ir
from ._errors import GTScriptDefinitionError
from ._frontend_base import ORDERS, NotConstant, is_docstring
from ._frontend_inlining import FunctionInlining


class DefinitionParser(FunctionInlining):
    """Parses one stencil definition: ``DefinitionParser(func, externals=..., dtypes=...,
    name=...).parse()`` gives its :class:`~._ir.Stencil`."""

    # -- entry points -----------------------------------------------------------------------------
    def signature(self) -> list[ir.FieldDecl | ir.ScalarDecl]:
        """The parameter declarations alone (types resolved), without parsing the body."""
        self._params.clear()
        self._parse_signature(self._scope.info.tree)
        return list(self._params.values())

    def parse(self) -> ir.Stencil:
        tree = self._scope.info.tree
        self._params.clear()
        self._parse_signature(tree)
        computations: list[ir.Computation] = []
        self._parse_top_level(tree.body, computations)
        if not computations:
            raise GTScriptDefinitionError(
                "the stencil has no 'with computation(...), interval(...)' block",
                loc=self._loc(tree),
            )
        return ir.Stencil(
            name=self._stencil_name,
            params=list(self._params.values()),
            temporaries=list(self._temps.values()),
            computations=computations,
            loc=self._loc(tree),
        )

    # -- signature --------------------------------------------------------------------------------
    def _parse_signature(self, tree: ast.FunctionDef) -> None:
        args = tree.args
        if args.vararg or args.kwarg or args.posonlyargs:
            raise self._syntax("stencil parameters must be plain named parameters", tree)
        annotations = self._func.__annotations__
        for arg in [*args.args, *args.kwonlyargs]:
            if arg.arg not in annotations:
                raise self._definition(
                    f"parameter '{arg.arg}' needs a type annotation "
                    "(gtscript.Field[...] or a scalar type such as float)",
                    arg,
                )
            self._params[arg.arg] = self._declare(arg.arg, annotations[arg.arg], arg)
        if args.defaults or (args.kw_defaults and any(d is not None for d in args.kw_defaults)):
            raise self._syntax("stencil parameters cannot have default values", tree)

    def _declare(self, name: str, annotation: Any, node: ast.AST) -> ir.FieldDecl | ir.ScalarDecl:
        if isinstance(annotation, str):
            if annotation in self._dtypes:
                annotation = self._dtypes[annotation]
            else:
                try:  # the user's own annotation, evaluated as typing.get_type_hints does
                    annotation = eval(
                        annotation, dict(self._scope.namespace), self._annotation_locals
                    )
                except Exception as error:
                    raise self._definition(
                        f"cannot evaluate the annotation {annotation!r} of '{name}': {error}",
                        node,
                    ) from None
        if isinstance(annotation, dsl.FieldDescriptor):
            return ir.FieldDecl(
                name=name,
                dtype=self._resolve_dtype(annotation.dtype, name, node),
                axes=annotation.axes,
                data_dims=annotation.data_dims,
            )
        return ir.ScalarDecl(name=name, dtype=self._resolve_dtype(annotation, name, node))

    # -- top level: computations ----------------------------------------------------------------
    def _parse_top_level(self, body: list[ast.stmt], out: list[ir.Computation]) -> None:
        for stmt in body:
            if is_docstring(stmt) or isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.ImportFrom):
                self._parse_import(stmt)
            elif self._is_compile_assert(stmt):
                pass
            elif isinstance(stmt, ast.With):
                out.append(self._parse_computation(stmt))
            elif isinstance(stmt, ast.If):
                taken = self._const_condition(stmt.test)
                if taken is None:
                    raise self._syntax(
                        "an 'if' outside 'with computation(...)' must depend on compile-time "
                        "values (externals) only",
                        stmt,
                    )
                self._parse_top_level(stmt.body if taken else stmt.orelse, out)
            else:
                raise self._syntax(
                    "statements of a stencil must be inside 'with computation(...), interval(...)'",
                    stmt,
                )

    def _parse_computation(self, stmt: ast.With) -> ir.Computation:
        order: str | None = None
        interval: tuple[ir.AxisPosition, ir.AxisPosition] | None = None
        for item in stmt.items:
            call = item.context_expr
            kind = self._marker_call(call)
            if kind == "computation":
                assert isinstance(call, ast.Call)
                if len(call.args) != 1 or call.keywords:
                    raise self._syntax(
                        "computation() takes one order: PARALLEL, FORWARD or BACKWARD", call
                    )
                order = self._marker_name(call.args[0])
                if order not in ORDERS:
                    raise self._syntax(
                        "computation() takes PARALLEL, FORWARD or BACKWARD", call.args[0]
                    )
            elif kind == "interval":
                assert isinstance(call, ast.Call)
                interval = self._parse_interval(call)
            else:
                raise self._syntax("expected 'with computation(ORDER), interval(...)'", stmt)
        if order is None:
            raise self._syntax("'with interval(...)' must be inside 'with computation(...)'", stmt)
        intervals: list[ir.IntervalBlock] = []
        if interval is not None:
            intervals.append(self._interval_block(interval, stmt.body, stmt))
        else:
            for inner in stmt.body:
                if is_docstring(inner):
                    continue
                if not (
                    isinstance(inner, ast.With)
                    and len(inner.items) == 1
                    and self._marker_call(inner.items[0].context_expr) == "interval"
                ):
                    raise self._syntax(
                        "inside 'with computation(...)' every statement must be in a "
                        "'with interval(...)' block",
                        inner,
                    )
                call = inner.items[0].context_expr
                assert isinstance(call, ast.Call)
                intervals.append(
                    self._interval_block(self._parse_interval(call), inner.body, inner)
                )
        self._check_intervals(intervals, order, stmt)
        return ir.Computation(order=order, intervals=intervals, loc=self._loc(stmt))  # type: ignore[arg-type]

    def _check_intervals(
        self, intervals: list[ir.IntervalBlock], order: str, node: ast.AST
    ) -> None:
        # Intervals of one computation must not overlap where that is decidable statically.
        def key(pos: ir.AxisPosition) -> tuple[int, int]:
            return (0 if pos.level == "start" else 1, pos.offset)

        spans = sorted((key(b.start), key(b.end)) for b in intervals)
        for (_, end), (start, _) in itertools.pairwise(spans):
            if end[0] == start[0] and end[1] > start[1]:
                raise self._definition(f"intervals of this {order} computation overlap", node)

    def _interval_block(
        self, bounds: tuple[ir.AxisPosition, ir.AxisPosition], body: list[ast.stmt], node: ast.AST
    ) -> ir.IntervalBlock:
        stmts = self._parse_body(body)
        return ir.IntervalBlock(start=bounds[0], end=bounds[1], body=stmts, loc=self._loc(node))

    def _parse_interval(self, call: ast.Call) -> tuple[ir.AxisPosition, ir.AxisPosition]:
        if call.keywords:
            raise self._syntax("interval() takes positional bounds only", call)
        if (
            len(call.args) == 1
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value is Ellipsis
        ):
            return (
                ir.AxisPosition(level="start", offset=0),
                ir.AxisPosition(level="end", offset=0),
            )
        if len(call.args) != 2:
            raise self._syntax("use interval(...) or interval(start, end)", call)
        for arg in call.args:
            try:
                value = self._const_eval(arg)
            except NotConstant:
                continue  # reported by _axis_bound
            if isinstance(value, bool | float):
                raise self._syntax(f"interval bound {value!r} is not an integer or None", arg)
        start = self._axis_bound(call.args[0], "K", "interval")
        end = self._axis_bound(call.args[1], "K", "interval")
        lo = ir.AxisPosition(level="start", offset=0) if start is None else start
        hi = ir.AxisPosition(level="end", offset=0) if end is None else end
        if lo.level == hi.level and hi.offset <= lo.offset:
            bounds = ", ".join(ast.unparse(a) for a in call.args)
            raise self._syntax(f"interval({bounds}) is empty", call)
        return lo, hi

"""GTScript frontend: Python source of a definition -> definition IR (:mod:`._ir`).

Resolves every name (parameters, temporaries, externals, GTScript functions, builtins),
inlines GTScript functions, folds compile-time ``if``s and reports errors at the user's
``file:line``.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import itertools
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from . import _ir as ir, _types, gtscript
from ._errors import (
    GTScriptDefinitionError,
    GTScriptError,
    GTScriptSymbolError,
    GTScriptSyntaxError,
)
from ._source import SourceInfo, closure_namespace, source_info


_ORDERS = {"PARALLEL": "PARALLEL", "FORWARD": "FORWARD", "BACKWARD": "BACKWARD"}
_BINOPS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**",
}  # fmt: skip
_CMPOPS: dict[type, str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}  # fmt: skip
_LANGUAGE_NAMES = frozenset(
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
    | set(gtscript.MATH_BUILTINS)
    | set(gtscript.CAST_BUILTINS)
)
_PY_BUILTIN_FUNCS = {"abs": "abs", "min": "min", "max": "max", "round": "round"}
_PY_BUILTIN_CASTS = {"float": "float64", "int": "int64", "bool": "bool"}


class _NotConstant(Exception):
    pass


@dataclasses.dataclass
class _Scope:
    """The names one function body (the stencil or an inlined GTScript function) sees."""

    info: SourceInfo
    namespace: Mapping[str, Any]
    aliases: dict[str, ir.Expr]  # inlined function parameters and renamed locals
    rename_prefix: str | None  # None for the stencil itself


class DefinitionParser:
    def __init__(
        self,
        func: Callable[..., Any],
        *,
        externals: Mapping[str, Any],
        dtypes: Mapping[str, Any],
        name: str,
        annotation_locals: Mapping[str, Any] | None = None,
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
        self._markers = {id(v): k for k, v in gtscript._builtin_markers().items()}
        self._scope = _Scope(source_info(func), closure_namespace(func), {}, None)

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

    # -- locations and errors -------------------------------------------------------------------
    def _loc(self, node: ast.AST) -> str:
        info = self._scope.info
        return f"{info.filename}:{info.first_line + getattr(node, 'lineno', 1) - 1}"

    def _syntax(self, message: str, node: ast.AST) -> GTScriptSyntaxError:
        return GTScriptSyntaxError(message, loc=self._loc(node))

    def _definition(self, message: str, node: ast.AST) -> GTScriptDefinitionError:
        return GTScriptDefinitionError(message, loc=self._loc(node))

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
        if isinstance(annotation, gtscript.FieldDescriptor):
            return ir.FieldDecl(
                name=name,
                dtype=self._resolve_dtype(annotation.dtype, name, node),
                axes=annotation.axes,
                data_dims=annotation.data_dims,
            )
        return ir.ScalarDecl(name=name, dtype=self._resolve_dtype(annotation, name, node))

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
        return dtype.name

    # -- top level: computations ----------------------------------------------------------------
    def _parse_top_level(self, body: list[ast.stmt], out: list[ir.Computation]) -> None:
        for stmt in body:
            if _is_docstring(stmt) or isinstance(stmt, ast.Pass):
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

    def _is_compile_assert(self, stmt: ast.stmt) -> bool:
        """Check ``compile_assert(condition)`` now; True if ``stmt`` is one."""
        if not (isinstance(stmt, ast.Expr) and self._marker_call(stmt.value) == "compile_assert"):
            return False
        call = stmt.value
        assert isinstance(call, ast.Call)
        if len(call.args) != 1 or call.keywords:
            raise self._syntax("compile_assert() takes one condition", stmt)
        holds = self._const_condition(call.args[0])
        if holds is None:
            raise self._definition(
                "compile_assert() needs a compile-time condition (externals and constants)", stmt
            )
        if not holds:
            raise self._definition(f"compile_assert({ast.unparse(call.args[0])}) failed", stmt)
        return True

    def _parse_import(self, stmt: ast.ImportFrom) -> None:
        if stmt.module == "__gtscript__":
            return
        if stmt.module != "__externals__":
            raise self._syntax(
                "only 'from __externals__ import ...' and 'from __gtscript__ import ...' are "
                "allowed in a stencil",
                stmt,
            )
        for alias in stmt.names:
            if alias.name not in self._externals:
                raise GTScriptSymbolError(
                    f"external '{alias.name}' is imported but not given in externals=",
                    loc=self._loc(stmt),
                )
            if alias.asname:
                self._externals[alias.asname] = self._externals[alias.name]

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
                if order not in _ORDERS:
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
                if _is_docstring(inner):
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
            except _NotConstant:
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

    # -- statements ---------------------------------------------------------------------------
    def _parse_body(self, body: list[ast.stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for stmt in body:
            self._emitted.append([])
            parsed = self._parse_stmt(stmt)
            out.extend(self._emitted.pop())
            out.extend(parsed)
        return out

    def _parse_stmt(self, stmt: ast.stmt) -> list[ir.Stmt]:  # one dispatch
        loc = self._loc(stmt)
        if _is_docstring(stmt) or isinstance(stmt, ast.Pass):
            return []
        if isinstance(stmt, ast.ImportFrom):
            self._parse_import(stmt)
            return []
        if self._is_compile_assert(stmt):
            return []
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise self._syntax("chained assignment (a = b = ...) is not supported", stmt)
            return self._parse_assign(stmt.targets[0], stmt.value, stmt)
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                raise self._syntax("a declaration needs a value", stmt)
            self._declare_temporary(stmt.target, stmt.annotation)
            return self._parse_assign(stmt.target, stmt.value, stmt)
        if isinstance(stmt, ast.AugAssign):
            op = _BINOPS.get(type(stmt.op))
            if op is None:
                raise self._syntax(f"operator {type(stmt.op).__name__} is not supported", stmt)
            target = self._parse_target(stmt.target, None)
            value = ir.BinaryOp(op=op, left=target, right=self._expr(stmt.value))
            return [ir.Assign(target=target, value=value, loc=loc)]
        if isinstance(stmt, ast.If):
            taken = self._const_condition(stmt.test)
            if taken is not None:
                return self._parse_body(stmt.body if taken else stmt.orelse)
            condition = self._expr(stmt.test)
            return [
                ir.If(
                    condition=condition,
                    body=self._parse_body(stmt.body),
                    orelse=self._parse_body(stmt.orelse),
                    loc=loc,
                )
            ]
        if isinstance(stmt, ast.While):
            if stmt.orelse:
                raise self._syntax("'while ... else' is not supported", stmt)
            condition = self._expr(stmt.test)
            if self._emitted[-1]:
                raise self._syntax(
                    "a while condition cannot call a GTScript function with statements", stmt
                )
            return [ir.While(condition=condition, body=self._parse_body(stmt.body), loc=loc)]
        if isinstance(stmt, ast.With):
            return self._parse_region(stmt)
        if isinstance(stmt, ast.Return):
            raise self._syntax("'return' is only allowed at the end of a GTScript function", stmt)
        raise self._syntax(f"{type(stmt).__name__} statements are not supported in GTScript", stmt)

    def _parse_assign(self, target: ast.expr, value: ast.expr, stmt: ast.stmt) -> list[ir.Stmt]:
        loc = self._loc(stmt)
        if isinstance(target, ast.Tuple):
            values = self._expr_or_tuple(value)
            if not isinstance(values, tuple) or len(values) != len(target.elts):
                raise self._syntax(
                    f"cannot unpack into {len(target.elts)} targets: the value is not a "
                    f"{len(target.elts)}-tuple",
                    stmt,
                )
            return [
                ir.Assign(target=self._parse_target(t, v), value=v, loc=loc)
                for t, v in zip(target.elts, values, strict=True)
            ]
        parsed_value = self._expr(value)
        return [
            ir.Assign(target=self._parse_target(target, parsed_value), value=parsed_value, loc=loc)
        ]

    def _parse_target(self, target: ast.expr, value: ir.Expr | None) -> ir.FieldRef:
        data_index: tuple[int, ...] = ()
        node = target
        if isinstance(node, ast.Subscript):
            inner = node.value
            index = self._const_index(node.slice, node)
            if isinstance(inner, ast.Subscript):  # a[0, 0, 0][1]
                data_index = index
                index = self._const_index(inner.slice, inner)
                node = inner
            if any(index):
                name = inner.id if isinstance(inner, ast.Name) else "a field"
                raise self._definition(
                    f"assignment to '{name}' with an offset {list(index)}: writes must be at "
                    "offset 0 (write the value at the point that computes it)",
                    target,
                )
            node = node.value
        if not isinstance(node, ast.Name):
            raise self._syntax("only fields and temporaries can be assigned to", target)
        name = node.id
        if name in self._scope.aliases:
            alias = self._scope.aliases[name]
            if isinstance(alias, ir.FieldRef) and alias.name.startswith("__") and not data_index:
                return alias
            raise self._definition(
                f"cannot assign to parameter '{name}' of a GTScript function", target
            )
        if self._scope.rename_prefix is not None:
            renamed = f"{self._scope.rename_prefix}{name}"
            ref = self._new_temporary(renamed, value, target)
            self._scope.aliases[name] = ref
            return ref
        decl = self._params.get(name)
        if isinstance(decl, ir.ScalarDecl):
            raise self._definition(
                f"cannot assign to scalar parameter '{name}': scalar parameters are read-only",
                target,
            )
        if isinstance(decl, ir.FieldDecl):
            if decl.axes not in ("IJK", "IJ"):
                raise self._definition(
                    f"cannot write to '{name}': a field with axes {decl.axes} lacks a horizontal "
                    "axis, so every point of the domain would write the same element (only IJK "
                    "fields, and IJ fields in FORWARD/BACKWARD computations, can be written)",
                    target,
                )
            self._check_data_index(decl, data_index, target, allow_missing=False)
            return ir.FieldRef(name=name, offset=(0, 0, 0), data_index=data_index)
        if name in self._externals:
            raise self._definition(f"cannot assign to external '{name}'", target)
        if data_index:
            raise self._definition(f"temporary '{name}' has no data dimensions", target)
        return self._new_temporary(name, value, target)

    def _declare_temporary(self, target: ast.expr, annotation: ast.expr) -> None:
        """``name: T = value``: declare the temporary ``name`` with the type ``T``, a
        ``Field[IJK | IJ, dtype]`` or a scalar dtype (an IJK temporary of that dtype)."""
        if not isinstance(target, ast.Name):
            raise self._syntax("only a temporary's name can be annotated", target)
        name = target.id
        if name in self._params:
            raise self._definition(
                f"'{name}' is a parameter: its type is the one in the stencil's signature", target
            )
        if self._scope.rename_prefix is not None:
            if name in self._scope.aliases:
                raise self._definition(
                    f"'{name}' is already defined in this GTScript function: annotate a name "
                    "where it is first assigned",
                    target,
                )
            temp_name = f"{self._scope.rename_prefix}{name}"
        else:
            temp_name = name
        spec = self._eval_annotation(annotation)
        if isinstance(spec, gtscript.FieldDescriptor):
            if spec.axes not in ("IJK", "IJ"):
                raise self._definition(
                    f"temporary '{name}' has axes {spec.axes}: temporaries have axes IJK or IJ",
                    annotation,
                )
            if spec.data_dims:
                raise self._definition(
                    f"temporary '{name}' has data dimensions {spec.data_dims}: temporaries "
                    "with data dimensions are not supported (pass a field instead)",
                    annotation,
                )
            decl = ir.FieldDecl(
                name=temp_name,
                dtype=self._resolve_dtype(spec.dtype, name, annotation),
                axes=spec.axes,
            )
        else:
            decl = ir.FieldDecl(
                name=temp_name, dtype=self._resolve_dtype(spec, name, annotation), axes="IJK"
            )
        existing = self._temps.get(temp_name)
        if existing is not None and existing != decl:
            raise self._definition(
                f"temporary '{name}' is declared as Field[{decl.axes}, {decl.dtype}] here but "
                f"is already a Field[{existing.axes}, {existing.dtype}]: a temporary has one type",
                annotation,
            )
        self._temps[temp_name] = decl

    def _eval_annotation(self, node: ast.expr) -> Any:
        """The value of a type annotation inside the definition, as Python evaluates it in the
        defining scope (GTScript's names such as ``Field`` and ``IJ`` need no import);
        a name given in ``dtypes=`` stands for its value."""
        if isinstance(node, ast.Name) and node.id in self._dtypes:
            return self._dtypes[node.id]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in self._dtypes:
                return self._dtypes[node.value]
            text = node.value
        else:
            text = ast.unparse(node)
        scope = {**gtscript._builtin_markers(), **self._scope.namespace}
        local = {**self._annotation_locals, **self._externals}
        try:
            return eval(text, scope, local)
        except Exception as error:
            raise self._definition(
                f"cannot evaluate the annotation {text!r}: {type(error).__name__}: {error}", node
            ) from None

    def _new_temporary(self, name: str, value: ir.Expr | None, node: ast.AST) -> ir.FieldRef:
        if name not in self._temps:
            if value is None:
                raise GTScriptSymbolError(
                    f"'{name}' is updated before it is assigned", loc=self._loc(node)
                )
            dtype = _types.infer_dtype(value, self._dtype_of)
            self._temps[name] = ir.FieldDecl(name=name, dtype=dtype, axes="IJK")
        return ir.FieldRef(name=name, offset=(0, 0, 0))

    def _dtype_of(self, ref: ir.FieldRef | ir.ScalarRef) -> str:
        decl = self._params.get(ref.name) or self._temps.get(ref.name)
        assert decl is not None, ref.name
        return decl.dtype

    def _parse_region(self, stmt: ast.With) -> list[ir.Stmt]:
        """``with horizontal(region[...], ...)``: one region statement per region, in order,
        each running the body (a point in two regions runs it twice, as in released GTScript)."""
        if len(stmt.items) != 1 or self._marker_call(stmt.items[0].context_expr) != "horizontal":
            raise self._syntax(
                "inside an interval, only 'with horizontal(region[...])' is allowed", stmt
            )
        call = stmt.items[0].context_expr
        assert isinstance(call, ast.Call)
        if not call.args or call.keywords:
            raise self._syntax("use horizontal(region[i_spec, j_spec], ...)", call)
        bounds = []
        for arg in call.args:
            if not (isinstance(arg, ast.Subscript) and self._marker_name(arg.value) == "region"):
                raise self._syntax(
                    f"horizontal(...) takes region[i_spec, j_spec] specs, got '{ast.unparse(arg)}'",
                    arg,
                )
            if not (isinstance(arg.slice, ast.Tuple) and len(arg.slice.elts) == 2):
                raise self._syntax("region[...] takes two specs: region[i_spec, j_spec]", arg)
            bounds.append(
                (
                    *self._region_axis(arg.slice.elts[0], "I"),
                    *self._region_axis(arg.slice.elts[1], "J"),
                )
            )
        return [
            ir.HorizontalRegion(
                i_start=i0,
                i_end=i1,
                j_start=j0,
                j_end=j1,
                body=self._parse_body(stmt.body),
                loc=self._loc(stmt),
            )
            for i0, i1, j0, j1 in bounds
        ]

    def _region_axis(
        self, node: ast.expr, axis: str
    ) -> tuple[ir.AxisPosition | None, ir.AxisPosition | None]:
        if isinstance(node, ast.Slice):
            if node.step is not None:
                raise self._syntax("region slices cannot have a step", node)
            lo = None if node.lower is None else self._axis_bound(node.lower, axis, "region")
            hi = None if node.upper is None else self._axis_bound(node.upper, axis, "region")
            return lo, hi
        point = self._axis_bound(node, axis, "region")
        if point is None:
            raise self._definition(
                f"region[...]: '{ast.unparse(node)}' is None; a single {axis} point must be "
                f"{axis}[n] + k or an integer (use ':' for the whole axis)",
                node,
            )
        return point, ir.AxisPosition(level=point.level, offset=point.offset + 1)

    def _axis_bound(self, node: ast.expr, axis: str, where: str) -> ir.AxisPosition | None:
        """A compile-time bound on ``axis``: ``I[n] + k`` (an :class:`gtscript.AxisIndex`,
        written here or passed as an external), an integer (from the start if >= 0, else from
        the end) or None (unbounded)."""
        what = f"'{ast.unparse(node)}'"
        try:
            value = self._const_eval(node)
        except _NotConstant:
            raise self._definition(
                f"{where} bound {what} is not a compile-time value: use {axis}[n] + k, an "
                "integer, None, or an external holding one",
                node,
            ) from None
        if value is None:
            return None
        if isinstance(value, gtscript.AxisIndex):
            if value.axis != axis:
                raise self._definition(
                    f"{where} bound {what} is {value!r}, an index on axis {value.axis}, where "
                    f"a bound on {axis} is expected"
                    + (" (region[i_spec, j_spec]: I first, then J)" if where == "region" else ""),
                    node,
                )
            return ir.AxisPosition(
                level="start" if value.index >= 0 else "end", offset=value.index + value.offset
            )
        if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
            return _position(int(value))
        raise self._definition(
            f"{where} bound {what} is {value!r}: expected {axis}[n] + k, an integer or None",
            node,
        )

    # -- expressions ------------------------------------------------------------------------------
    def _expr_or_tuple(self, node: ast.expr) -> ir.Expr | tuple[ir.Expr, ...]:
        if isinstance(node, ast.Tuple):
            return tuple(self._expr(e) for e in node.elts)
        if isinstance(node, ast.Call):
            func = self._lookup_callable(node.func)
            if gtscript.is_gtscript_function(func):
                return self._inline(func, node)
        return self._expr(node)

    def _expr(self, node: ast.expr) -> ir.Expr:  # one dispatch
        try:
            return _literal(self._const_eval(node), node, self)
        except _NotConstant:
            pass
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
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
                op = _CMPOPS.get(type(op_node))
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
                condition=self._expr(node.test),
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
            "(externals=) or a GTScript builtin",
            loc=self._loc(node),
        )

    def _axis_value(self, node: ast.expr) -> ir.Expr | None:
        """``K`` (or ``gtscript.K``) as a value: the level index; None if ``node`` is no axis."""
        try:
            value = self._const_eval(node, allow_callables=True)
        except _NotConstant:
            return None
        if value is gtscript.K:
            return ir.KIndex()
        if isinstance(value, gtscript.Axis):
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
        base, decl = self._field_ref(node.value)
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
            index = self._const_index(node.slice, node)
            self._check_data_index(decl, base.data_index + index, node, allow_missing=True)
            return ir.FieldRef(
                name=base.name, offset=base.offset, data_index=base.data_index + index
            )
        if len(elts) != len(decl.axes):
            raise self._definition(
                f"'{base.name}' has axes {decl.axes}: index it with {len(decl.axes)} offset(s), "
                f"got {len(elts)}",
                node,
            )
        offsets = {"I": 0, "J": 0, "K": 0}
        k_variable: ir.Expr | None = None
        for axis, elt in zip(decl.axes, elts, strict=True):
            try:
                value = self._const_eval(elt)
            except _NotConstant:
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

    def _check_data_index(
        self, decl: ir.FieldDecl, index: tuple[int, ...], node: ast.AST, *, allow_missing: bool
    ) -> None:
        dims = decl.data_dims
        if len(index) > len(dims) or (not allow_missing and len(index) != len(dims)):
            raise self._definition(
                f"'{decl.name}' has data dimensions {dims}: index it with {len(dims)} data "
                f"index(es), got {len(index)}",
                node,
            )
        for i, size in zip(index, dims, strict=False):
            if not -size <= i < size:
                raise self._definition(
                    f"data index {i} is out of range for '{decl.name}' (size {size})", node
                )

    def _const_index(self, node: ast.expr, where: ast.AST) -> tuple[int, ...]:
        elts = node.elts if isinstance(node, ast.Tuple) else [node]
        values = []
        for elt in elts:
            try:
                value = self._const_eval(elt)
            except _NotConstant:
                raise self._definition("this index must be a compile-time integer", where) from None
            if not isinstance(value, int) or isinstance(value, bool):
                raise self._definition(f"index {value!r} is not an integer", where)
            values.append(value)
        return tuple(values)

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
        if gtscript.is_gtscript_function(func):
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
        if marker in gtscript.CAST_BUILTINS or func in _PY_BUILTIN_CASTS:
            dtype = _PY_BUILTIN_CASTS.get(func, marker)
            assert dtype is not None
            if len(args) != 1:
                raise self._syntax(f"{dtype}() takes one argument", node)
            return ir.Cast(dtype="bool" if dtype == "bool_" else dtype, value=args[0])
        name = marker if marker in gtscript.MATH_BUILTINS else _PY_BUILTIN_FUNCS.get(func)
        if name is None:
            raise self._syntax(f"'{ast.unparse(node.func)}' is not a GTScript function", node)
        arity = _types.BUILTIN_ARITY.get(name, 1)
        if len(args) != arity:
            raise self._syntax(f"{name}() takes {arity} argument(s), got {len(args)}", node)
        return ir.Call(func=name, args=args)

    def _lookup_callable(self, node: ast.expr) -> Any:
        if (
            isinstance(node, ast.Name)
            and node.id in ("float", "int", "bool", *_PY_BUILTIN_FUNCS)
            and node.id not in self._scope.namespace
            and node.id not in self._externals
        ):
            return node.id
        try:
            return self._const_eval(node, allow_callables=True)
        except _NotConstant:
            raise self._syntax(
                f"'{ast.unparse(node)}' is not a callable GTScript name", node
            ) from None

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
        aliases: dict[str, ir.Expr] = {}
        for param in params:
            arg_node = bound[param]
            value = self._expr(arg_node) if arg_node not in defaults else None
            if value is None:  # a default, evaluated in the function's own scope
                outer = self._scope
                self._scope = _Scope(info, closure_namespace(func), {}, prefix)
                try:
                    value = self._expr(arg_node)
                finally:
                    self._scope = outer
            if (
                isinstance(value, ir.FieldRef)
                and not (value.data_index or value.k_absolute or value.k_variable)
            ) or isinstance(value, ir.Constant | ir.ScalarRef):
                aliases[param] = value
            else:  # a general expression: computed once into a temporary, then aliased
                ref = self._new_temporary(f"{prefix}{param}", value, arg_node)
                self._emitted[-1].append(ir.Assign(target=ref, value=value, loc=self._loc(node)))
                aliases[param] = ref
        outer = self._scope
        self._scope = _Scope(info, closure_namespace(func), aliases, prefix)
        try:
            body = [s for s in tree.body if not _is_docstring(s)]
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

    # -- compile-time evaluation ----------------------------------------------------------------
    def _const_condition(self, node: ast.expr) -> bool | None:
        try:
            value = self._const_eval(node)
        except _NotConstant:
            return None
        return bool(value)

    def _const_eval(self, node: ast.expr, *, allow_callables: bool = False) -> Any:
        """The compile-time value of ``node``; ``_NotConstant`` if it depends on run time."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            name = node.id
            if name in self._scope.aliases:
                alias = self._scope.aliases[name]
                if isinstance(alias, ir.Constant):
                    return _constant_value(alias)
                raise _NotConstant
            if name in self._params or name in self._temps:
                raise _NotConstant
            if name in self._externals:
                value = self._externals[name]
            elif name in self._scope.namespace:
                value = self._scope.namespace[name]
            elif name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
            elif name in _LANGUAGE_NAMES:
                # GTScript keywords work without an import, as in released GTScript.
                value = getattr(gtscript, name)
            else:
                raise _NotConstant
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
            raise _NotConstant
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = self._const_eval(node.left), self._const_eval(node.right)
            binop = _BINOPS[type(node.op)]
            if any(isinstance(v, gtscript.AxisIndex) for v in (left, right)):
                if binop not in ("+", "-") or isinstance(right, gtscript.AxisIndex):
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
                return _eval_binop(binop, left, right)
            if not all(isinstance(v, numbers.Number) for v in (left, right)):
                raise _NotConstant
            return _eval_binop(binop, left, right)
        if isinstance(node, ast.Subscript):
            # I[n]: an axis index (any other subscript depends on run time)
            base = self._const_eval(node.value, allow_callables=True)
            if not isinstance(base, gtscript.Axis):
                raise _NotConstant
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
                elif type(op) in _CMPOPS:
                    try:
                        result = _eval_binop(_CMPOPS[type(op)], left, right)
                    except TypeError as error:
                        raise self._definition(
                            f"cannot compare at compile time: {error}", node
                        ) from None
                else:
                    raise _NotConstant
                if not result:
                    return False
                left = right
            return True
        if isinstance(node, ast.Call) and self._marker_name(node.func) == "__INLINED":
            if len(node.args) != 1:
                raise self._syntax("__INLINED() takes one argument", node)
            try:
                return self._const_eval(node.args[0])
            except _NotConstant:
                raise self._definition(
                    "__INLINED() needs a compile-time condition (externals and constants)", node
                ) from None
        if isinstance(node, ast.Constant | ast.Tuple) and isinstance(node, ast.Tuple):
            return tuple(self._const_eval(e) for e in node.elts)
        raise _NotConstant

    def _check_const(self, value: Any, node: ast.AST, allow_callables: bool) -> Any:
        if isinstance(value, bool | numbers.Number | np.generic | gtscript.AxisIndex):
            return value
        if value is None:
            return value
        if allow_callables:
            return value
        if value is Ellipsis:
            return value
        if id(value) in self._markers or inspect.ismodule(value) or callable(value):
            raise _NotConstant
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
        except (_NotConstant, GTScriptDefinitionError):
            return None
        return self._markers.get(id(value))

    def _marker_call(self, node: ast.expr) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        return self._marker_name(node.func)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _position(value: int, *, shift: int = 0) -> ir.AxisPosition:
    """A bound counted from the start (``value >= 0``) or from the end (``value < 0``)."""
    if value < 0:
        return ir.AxisPosition(level="end", offset=value + shift)
    return ir.AxisPosition(level="start", offset=value + shift)


def _eval_binop(op: str, left: Any, right: Any) -> Any:
    import operator

    table: dict[str, Callable[[Any, Any], Any]] = {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<": operator.lt,
        "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne,
    }  # fmt: skip
    return table[op](left, right)


def _constant_value(constant: ir.Constant) -> Any:
    return (
        {"True": True, "False": False}.get(constant.value)
        if constant.dtype == "bool"
        else (float(constant.value) if constant.dtype.startswith("float") else int(constant.value))
    )


def _literal(value: Any, node: ast.AST, parser: DefinitionParser) -> ir.Constant:
    if isinstance(value, gtscript.AxisIndex):
        raise parser._definition(
            f"'{ast.unparse(node)}' is the axis index {value!r}: axis indices bound regions "
            "(region[...]) and intervals, they are not values (K alone is the level index)",
            node,
        )
    if isinstance(value, bool | np.bool_):
        return ir.Constant(value=repr(bool(value)), dtype="bool")
    if isinstance(value, np.generic) and value.dtype.kind in "iuf":
        return ir.Constant(value=repr(value.item()), dtype=value.dtype.name)
    if isinstance(value, int):
        return ir.Constant(value=repr(value), dtype="int64")
    if isinstance(value, float):
        return ir.Constant(value=repr(value), dtype="float64")
    raise parser._definition(f"{value!r} cannot be used as a value in GTScript", node)


_ = builtins  # the names of Python builtins GTScript accepts are listed above

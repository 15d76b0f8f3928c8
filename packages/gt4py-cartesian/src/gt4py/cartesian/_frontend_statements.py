"""Statements inside an interval: assignments, temporaries, if/while and horizontal regions.

``compile_assert`` and ``from __externals__ import ...`` are checked where they appear;
``if``s on compile-time conditions are folded.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from . import _dsl_names as dsl, _ir as ir, _types
from ._errors import GTScriptSymbolError
from ._frontend_base import BINOPS, NotConstant, is_docstring, position
from ._frontend_expressions import ExpressionParsing


class StatementParsing(ExpressionParsing):
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
        if is_docstring(stmt) or isinstance(stmt, ast.Pass):
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
            op = BINOPS.get(type(stmt.op))
            if op is None:
                raise self._syntax(f"operator {type(stmt.op).__name__} is not supported", stmt)
            target = self._parse_target(stmt.target, None)
            value = ir.BinaryOp(op=op, left=target, right=self._expr(stmt.value))
            return [ir.Assign(target=target, value=value, loc=loc)]
        if isinstance(stmt, ast.If):
            taken = self._const_condition(stmt.test)
            if taken is not None:
                return self._parse_body(stmt.body if taken else stmt.orelse)
            condition = self._condition(stmt.test, "'if'")
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
            condition = self._condition(stmt.test, "'while'")
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
        data_index: tuple[int | ir.Expr, ...] = ()
        node = target
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "A"
        ):
            raise self._definition(
                f"cannot assign to '{ast.unparse(node)}': a GlobalTable is read-only", target
            )
        if isinstance(node, ast.Subscript):
            inner = node.value
            if isinstance(inner, ast.Subscript):  # a[0, 0, 0][1], a[0, 0, 0][n]
                data_index = self._data_index(node.slice, node)
                index = self._const_index(inner.slice, inner)
                node = inner
            else:
                index = self._const_index(node.slice, node)
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
        if isinstance(spec, dsl.FieldDescriptor):
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
        scope = {**dsl._builtin_markers(), **self._scope.namespace}
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
        except NotConstant:
            raise self._definition(
                f"{where} bound {what} is not a compile-time value: use {axis}[n] + k, an "
                "integer, None, or an external holding one",
                node,
            ) from None
        if value is None:
            return None
        if isinstance(value, dsl.AxisIndex):
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
            return position(int(value))
        raise self._definition(
            f"{where} bound {what} is {value!r}: expected {axis}[n] + k, an integer or None",
            node,
        )

"""Type deduction of calls inside operators (other operators, builtins, shifts, constructors,
dtype casts) and the pointwise promotion rules they share with arithmetic.

:class:`CallTyping` is a base of :class:`._type_deduction.OperatorTypeDeduction`, which
provides ``visit``, ``error`` and ``location``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any, NoReturn, cast

import numpy as np

from .._dimensions import Dimension, DimensionKind, promote_dims
from ..errors import DSLError, DSLTypeError, UnsupportedPythonFeatureError
from . import fbuiltins, type_specifications as ts
from ._annotations import member_names
from ._assignability import literal_fits
from ._type_rules import (
    BOOL,
    FLOAT64,
    INT32,
    concrete,
    contains_field,
    dims_of,
    is_str_constant,
    is_weak,
)


class CallTyping:
    """Types calls and pointwise operations; the deduction of the whole body subclasses it."""

    def visit(self, node: ast.expr) -> ts.TypeSpec:
        raise NotImplementedError  # OperatorTypeDeduction.visit

    def location(self, node: ast.AST) -> Any:
        raise NotImplementedError  # OperatorTypeDeduction.location

    def error(self, node: ast.AST, message: str, kind: type[DSLError] = DSLTypeError) -> NoReturn:
        raise NotImplementedError  # OperatorTypeDeduction.error

    # -- calls ----------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> ts.TypeSpec:
        callee = self.visit(node.func)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise UnsupportedPythonFeatureError(self.location(keyword), "'**' arguments")
        if isinstance(callee, ts.FieldType):
            return self._shift(node, callee)
        if isinstance(callee, ts.CallableType):
            if callee.kind == "builtin":
                return self._builtin_call(node, callee.target)
            if callee.kind == "operator":
                return self._operator_call(node, callee.target)
            if callee.kind == "constructor":
                return self._construct(node, callee.target)
            self.error(node, "programs cannot be called from operators")
        if isinstance(callee, ts.DTypeType):
            name = callee.dtype.name
            if is_str_constant(node):
                try:
                    callee.dtype.type(node.args[0].value)  # type: ignore[attr-defined]
                except ValueError:
                    self.error(node, f"{ast.unparse(node)}: the string is not a {name} number")
                return ts.ScalarType(callee.dtype)
            args = self._positional(node, 1, name)
            if contains_field(args[0]):
                self.error(
                    node,
                    f"{name}(...) converts scalars; cast a field with astype(value, {name})",
                )
            return _with_dtype(self, node, args[0], callee.dtype)
        if isinstance(callee, ts.DimensionType):
            if callee.dim.kind is DimensionKind.LOCAL:
                (index,) = self._positional(node, 1, callee.dim.value)
                if isinstance(index, ts.IntConstantType) and index.value >= 0:
                    return ts.LocalIndexType(callee.dim, index.value)
                self.error(node, f"{callee.dim.value}(...) needs a non-negative integer constant")
            self.error(node, f"{callee} cannot be called inside an operator")
        self.error(node, f"{callee} is not callable")

    def _construct(self, node: ast.Call, cls: type) -> ts.TypeSpec:
        """``State(u=a, v=b)``: a named collection of the members' own types."""
        names = member_names(cls)
        values: dict[str, ts.TypeSpec] = {}
        if len(node.args) > len(names):
            self.error(node, f"{cls.__name__} has {len(names)} members, got {len(node.args)}")
        for name, argument in zip(names, node.args, strict=False):
            values[name] = self.visit(argument)
        for keyword in node.keywords:
            if keyword.arg not in names or keyword.arg in values:
                self.error(keyword, f"{cls.__name__}: unexpected or repeated '{keyword.arg}'")
            values[keyword.arg] = self.visit(keyword.value)
        missing = [n for n in names if n not in values]
        if missing:
            self.error(node, f"{cls.__name__}(...) misses {', '.join(missing)}")
        return ts.NamedCollectionType(cls, names, tuple(values[n] for n in names))

    def _positional(self, node: ast.Call, count: int, name: str) -> list[ts.TypeSpec]:
        if node.keywords or len(node.args) != count:
            self.error(node, f"{name}(...) takes {count} positional argument(s)")
        return [self.visit(a) for a in node.args]

    def _shift(self, node: ast.Call, field: ts.FieldType) -> ts.TypeSpec:
        if node.keywords or not node.args:
            self.error(node, "a field is called with offsets only: a(I + 1), a(E2V[0]), a(E2V)")
        result: ts.FieldType = field
        for arg in node.args:
            offset = self.visit(arg)
            result = self._shift_one(arg, result, offset)
        return result

    def _shift_one(self, node: ast.expr, field: ts.FieldType, offset: ts.TypeSpec) -> ts.FieldType:
        dims = field.dims
        if isinstance(offset, ts.CartesianShiftType):
            if dims is not None and offset.dim not in dims:
                self.error(
                    node,
                    f"cannot shift {field} along {offset.dim.value}: "
                    "the field has no such dimension",
                )
            return field
        if isinstance(offset, ts.DynamicShiftType):
            return field
        if not isinstance(offset, ts.OffsetType):
            self.error(
                node,
                f"{offset} is not an offset; shift with a FieldOffset (a(E2V[0]), "
                "a(Koff[1])) or a Cartesian offset (a(I + 1))",
            )
        source, target = offset.offset.source, offset.offset.target
        if dims is None:
            return field
        if source not in dims:
            self.error(
                node,
                f"cannot shift {field} with {offset.offset.value}: it reads along "
                f"{source.value}, which the field does not have",
            )
        if offset.offset.is_cartesian_like:
            return field
        if len(target) == 2 and offset.indexed:
            new_dims: tuple[Dimension, ...] = (target[0],)
        elif len(target) == 2:
            new_dims = target
        else:
            new_dims = target
        replaced: list[Dimension] = []
        for dim in dims:
            replaced.extend(new_dims if dim == source else (dim,))
        if len(set(replaced)) != len(replaced):
            self.error(node, f"shifting {field} with {offset.offset.value} repeats a dimension")
        return ts.FieldType(tuple(replaced), field.dtype)

    def _operator_call(self, node: ast.Call, operator: Any) -> ts.TypeSpec:
        signature = operator.__gt_signature__
        arg_types = [self.visit(a) for a in node.args]
        kwarg_types = {k.arg: self.visit(k.value) for k in node.keywords}
        if "out" in kwarg_types or "domain" in kwarg_types or "offset_provider" in kwarg_types:
            self.error(
                node,
                "'out', 'domain' and 'offset_provider' can only be given in programs "
                "or direct calls, not between operators",
            )
        bound = signature.bind(self, node, arg_types, kwarg_types)
        result: ts.TypeSpec = signature.result_type(self, node, bound)
        return result

    def _builtin_call(self, node: ast.Call, builtin: fbuiltins.BuiltInFunction) -> ts.TypeSpec:
        name = builtin.name
        rule = getattr(self, f"_builtin_{name}", None)
        if rule is not None:
            return rule(node)  # type: ignore[no-any-return]
        if name in fbuiltins.MATH_BUILTIN_NAMES:
            return self._math_builtin(node, name)
        self.error(node, f"the builtin {name} cannot be used here")

    def _math_builtin(self, node: ast.Call, name: str) -> ts.TypeSpec:
        if name in fbuiltins.BINARY_MATH_NUMBER_BUILTIN_NAMES:
            args = self._positional(node, 2, name)
            return self._elementwise(node, name, tuple(args), accepts="iuf", result=None)
        (arg,) = self._positional(node, 1, name)
        if name in fbuiltins.UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES:
            return self._elementwise(node, name, (arg,), accepts="iuf", result="bool")
        if name in fbuiltins.UNARY_MATH_NUMBER_BUILTIN_NAMES:
            return self._elementwise(node, name, (arg,), accepts="iuf", result=None)
        return self._elementwise(node, name, (arg,), accepts="iuf", result="float")

    def _builtin_astype(self, node: ast.Call) -> ts.TypeSpec:
        value, dtype = self._positional(node, 2, "astype")
        if not isinstance(dtype, ts.DTypeType):
            self.error(node.args[1], f"astype's second argument must be a scalar type, got {dtype}")
        return _with_dtype(self, node, value, dtype.dtype)

    def _builtin_broadcast(self, node: ast.Call) -> ts.TypeSpec:
        value, dims = self._positional(node, 2, "broadcast")
        if isinstance(dims, ts.DimensionType):
            dims = ts.DimsTupleType((dims.dim,))
        if not isinstance(dims, ts.DimsTupleType):
            self.error(node.args[1], f"broadcast needs a tuple of dimensions, got {dims}")
        repeated = sorted({d.value for d in dims.dims if dims.dims.count(d) > 1})
        if repeated:
            self.error(
                node.args[1],
                f"broadcast to {dims} names the dimension(s) {', '.join(repeated)} more than "
                "once; a field has each dimension once",
            )
        if isinstance(value, ts.FieldType):
            if value.dims is not None and not set(value.dims) <= set(dims.dims):
                missing = ", ".join(d.value for d in value.dims if d not in dims.dims)
                self.error(
                    node,
                    f"cannot broadcast {value} to ({', '.join(d.value for d in dims.dims)}): "
                    f"dimension(s) {missing} would be lost",
                )
            return ts.FieldType(dims.dims, value.dtype)
        dtype = ts.element_dtype(value)
        if dtype is None:
            self.error(node.args[0], f"broadcast needs a field or a scalar, got {value}")
        return ts.FieldType(dims.dims, concrete(dtype, value))

    def _builtin_where(self, node: ast.Call) -> ts.TypeSpec:
        mask, true_value, false_value = self._positional(node, 3, "where")
        if ts.element_dtype(mask) != BOOL:
            self.error(node.args[0], f"where's condition must be a bool field, got {mask}")
        return self._select(node, mask, true_value, false_value, "where")

    def _select(
        self, node: ast.Call, mask: ts.TypeSpec, a: ts.TypeSpec, b: ts.TypeSpec, name: str
    ) -> ts.TypeSpec:
        if isinstance(a, ts.NamedCollectionType) and isinstance(b, ts.NamedCollectionType):
            if a.names != b.names:
                self.error(node, f"{name}'s branches are different collections, {a} and {b}")
            members = tuple(
                self._select(node, mask, x, y, name) for x, y in zip(a.types, b.types, strict=True)
            )
            return ts.NamedCollectionType(a.python_type, a.names, members)
        if isinstance(a, ts.TupleType) or isinstance(b, ts.TupleType):
            size = len(a.types) if isinstance(a, ts.TupleType) else len(cast(ts.TupleType, b).types)
            parts = [t.types if isinstance(t, ts.TupleType) else (t,) * size for t in (a, b)]
            if len(parts[0]) != len(parts[1]):
                self.error(node, f"{name}'s branches are tuples of different lengths")
            return ts.TupleType(
                tuple(self._select(node, mask, x, y, name) for x, y in zip(*parts, strict=False))
            )
        value = self._elementwise(node, name, (a, b), accepts="biuf", result=None)
        if isinstance(mask, ts.DomainType):
            dims = dims_of(value)
            dtype = ts.element_dtype(value)
            assert dtype is not None  # _elementwise gives a scalar or field type
            return ts.FieldType(self._promote(node, (dims or (), mask.dims)), dtype)
        return self._elementwise(node, name, (mask, value), accepts="biuf", result="second")

    def _builtin_concat_where(self, node: ast.Call) -> ts.TypeSpec:
        condition, true_value, false_value = self._positional(node, 3, "concat_where")
        if not isinstance(condition, ts.DomainType):
            self.error(
                node.args[0],
                f"concat_where's condition must be a domain condition such as K < 5 or "
                f"(I == 0) | (I >= n), got {condition}",
            )
        return self._select(node, condition, true_value, false_value, "concat_where")

    def _builtin_as_offset(self, node: ast.Call) -> ts.TypeSpec:
        offset, offsets = self._positional(node, 2, "as_offset")
        if not isinstance(offset, ts.OffsetType) or offset.indexed:
            self.error(node.args[0], f"as_offset needs a FieldOffset first, got {offset}")
        dtype = ts.element_dtype(offsets)
        if not isinstance(offsets, ts.FieldType) or dtype is None or dtype.kind not in "iu":
            self.error(node.args[1], f"as_offset needs an integer field of offsets, got {offsets}")
        return ts.DynamicShiftType(offset.offset)

    def _reduction(self, node: ast.Call, name: str) -> ts.TypeSpec:
        if len(node.args) != 1 or [k.arg for k in node.keywords] != ["axis"]:
            self.error(node, f"{name} is called as {name}(field, axis=LocalDim)")
        value = self.visit(node.args[0])
        axis = self.visit(node.keywords[0].value)
        if not isinstance(axis, ts.DimensionType) or axis.dim.kind is not DimensionKind.LOCAL:
            self.error(
                node.keywords[0].value, f"{name}'s axis must be a local dimension, got {axis}"
            )
        if not isinstance(value, ts.FieldType):
            self.error(node.args[0], f"{name} needs a field, got {value}")
        if value.dims is None:
            return value
        if axis.dim not in value.dims:
            self.error(
                node,
                f"cannot reduce {value} over {axis.dim.value}: the field has no such dimension "
                "(shift it with an offset first, e.g. a(E2V))",
            )
        if name != "neighbor_sum" and value.dtype.kind not in "iuf":
            self.error(node, f"{name} needs a numeric field, got {value}")
        return ts.FieldType(tuple(d for d in value.dims if d != axis.dim), value.dtype)

    def _builtin_neighbor_sum(self, node: ast.Call) -> ts.TypeSpec:
        return self._reduction(node, "neighbor_sum")

    def _builtin_max_over(self, node: ast.Call) -> ts.TypeSpec:
        return self._reduction(node, "max_over")

    def _builtin_min_over(self, node: ast.Call) -> ts.TypeSpec:
        return self._reduction(node, "min_over")

    # -- pointwise typing -----------------------------------------------------------------------

    def _promote(
        self, node: ast.AST, dims_lists: Sequence[Sequence[Dimension]]
    ) -> tuple[Dimension, ...]:
        try:
            return promote_dims(*dims_lists)
        except ValueError as error:
            self.error(node, f"dimension mismatch: {error}")

    def _elementwise(
        self,
        node: ast.AST,
        symbol: str,
        operands: tuple[ts.TypeSpec, ...],
        *,
        accepts: str,
        result: str | None,
    ) -> ts.TypeSpec:
        """The type of a pointwise operation; ``result``: None (operand dtype), bool, float."""
        if result == "second":
            _mask, value = operands
            dims = self._field_dims(node, operands)
            dtype = ts.element_dtype(value)
            assert dtype is not None
            if dims is None:
                return value
            return ts.FieldType(dims, concrete(dtype, value))
        for operand in operands:
            dtype = ts.element_dtype(operand)
            if dtype is None or dtype.kind not in accepts:
                what = {"b": "bool", "iuf": "numbers", "biuf": "numbers or bools"}.get(
                    accepts, accepts
                )
                self.error(node, f"'{symbol}' needs {what}, got {operand}")
        dtype, weak = self._common_dtype(node, symbol, operands)
        if result == "bool":
            dtype, weak = BOOL, False
        elif result == "float" and dtype.kind in "iu":
            dtype = FLOAT64
        dims = self._field_dims(node, operands)
        if dims is None:
            if weak:
                return ts.ScalarType(dtype, weak=True)
            return ts.ScalarType(dtype)
        return ts.FieldType(dims, dtype)

    def _field_dims(
        self, node: ast.AST, operands: Sequence[ts.TypeSpec]
    ) -> tuple[Dimension, ...] | None:
        fields = [o for o in operands if isinstance(o, ts.FieldType)]
        if not fields:
            return None
        return self._promote(node, [f.dims or () for f in fields])

    def _common_dtype(
        self, node: ast.AST, symbol: str, operands: Sequence[ts.TypeSpec]
    ) -> tuple[np.dtype[Any], bool]:
        strong = [o for o in operands if not is_weak(o)]
        weak = [o for o in operands if is_weak(o)]
        strong_dtypes = {ts.element_dtype(o) for o in strong}
        if len(strong_dtypes) > 1:
            names = " and ".join(str(o) for o in strong)
            target = max(strong_dtypes, key=lambda d: (d.kind == "f", d.itemsize))  # type: ignore[union-attr]
            self.error(
                node,
                f"'{symbol}' cannot combine {names}: the dtypes differ; convert one operand with "
                f"astype(..., {target.name})",  # type: ignore[union-attr]
            )
        if strong_dtypes:
            (dtype,) = strong_dtypes
            assert dtype is not None
            for operand in weak:
                literal_dtype = ts.element_dtype(operand)
                assert literal_dtype is not None
                if not literal_fits(literal_dtype, dtype):
                    self.error(
                        node,
                        f"'{symbol}' cannot combine {operand} with {dtype.name} values; write the "
                        f"literal as a {dtype.name} value",
                    )
            return dtype, False
        kinds = {ts.element_dtype(o).kind for o in weak}  # type: ignore[union-attr]
        if "f" in kinds:
            return FLOAT64, True
        if kinds & set("iu"):
            # Only integer literals: int32, the DSL's default integer (as in released gt4py,
            # where `where(mask, 1, 0)` is an int32 field).
            return INT32, True
        return BOOL, True


def _with_dtype(
    checker: CallTyping, node: ast.AST, value: ts.TypeSpec, dtype: np.dtype[Any]
) -> ts.TypeSpec:
    if isinstance(value, ts.TupleType):
        return ts.TupleType(tuple(_with_dtype(checker, node, t, dtype) for t in value.types))
    if isinstance(value, ts.FieldType):
        return ts.FieldType(value.dims, dtype)
    if isinstance(value, (ts.ScalarType, ts.IntConstantType)):
        return ts.ScalarType(dtype)
    checker.error(node, f"cannot convert {value} to {dtype.name}")


__all__ = ["CallTyping"]

"""Type deduction for field and scan operator bodies: every expression gets a type or a DSLError.

The checker walks the Python syntax tree of the definition (``ast.NodeVisitor`` style, one
``visit_<Node>`` per supported construct) with a table of the types of parameters and local
variables. Anything without a ``visit_`` method is Python the DSL does not support.
Each typed expression is recorded in ``expression_types`` (node -> type).
"""

from __future__ import annotations

import ast
import types
from collections.abc import Sequence
from typing import Any, NoReturn, cast

import numpy as np

from .._dimensions import Dimension, DimensionKind, promote_dims
from ..errors import (
    DSLError,
    DSLTypeError,
    InvalidParameterAnnotationError,
    MissingAttributeError,
    MissingParameterAnnotationError,
    UndefinedSymbolError,
    UnsupportedPythonFeatureError,
)
from . import fbuiltins, type_specifications as ts
from ._annotations import AnnotationError, member_names, type_from_annotation, type_of_value
from ._source import SourceDefinition, global_value, is_missing


_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
_INT32 = np.dtype(np.int32)
_FLOAT64 = np.dtype(np.float64)

_ARITHMETIC = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}
_LOGICAL = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_COMPARISON = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_UNSUPPORTED_STATEMENTS = {
    ast.For: (
        "'for' loops",
        "express loops over points as field expressions, and loops along "
        "a dimension with a scan_operator",
    ),
    ast.While: ("'while' loops", "use a scan_operator for sequential dependencies"),
    ast.With: ("'with' blocks", ""),
    ast.Try: ("'try' blocks", ""),
    ast.Raise: ("'raise'", ""),
    ast.Import: ("imports inside operators", "import at module level"),
    ast.ImportFrom: ("imports inside operators", "import at module level"),
    ast.FunctionDef: ("nested function definitions", "define another field_operator instead"),
    ast.Global: ("'global'", ""),
    ast.Nonlocal: ("'nonlocal'", ""),
    ast.Delete: ("'del'", ""),
    ast.Assert: ("'assert'", ""),
}
_UNSUPPORTED_EXPRESSIONS = {
    ast.Lambda: ("lambda expressions", "define a field_operator instead"),
    ast.ListComp: ("list comprehensions", ""),
    ast.DictComp: ("dict comprehensions", ""),
    ast.SetComp: ("set comprehensions", ""),
    ast.GeneratorExp: ("generator expressions", ""),
    ast.List: ("lists", "use a tuple"),
    ast.Dict: ("dicts", ""),
    ast.Set: ("sets", ""),
    ast.JoinedStr: ("f-strings", ""),
    ast.Starred: ("starred arguments", ""),
    ast.NamedExpr: ("':=' assignments", ""),
    ast.Await: ("'await'", ""),
    ast.Yield: ("'yield'", ""),
    ast.Slice: ("slices", ""),
}


class OperatorTypeDeduction:
    """Checks one field operator (or scan operator) definition and deduces its types."""

    def __init__(self, source: SourceDefinition, *, is_scan: bool = False) -> None:
        self.source = source
        self.is_scan = is_scan
        self.symbols: dict[str, ts.TypeSpec] = {}
        self.expression_types: dict[ast.AST, ts.TypeSpec] = {}
        # global scalars the body names, by node: lowering reads their values from here
        self.constants: dict[ast.AST, Any] = {}
        self.parameters: list[tuple[str, ts.TypeSpec]] = []
        self.declared_return: ts.TypeSpec | None = None
        self.return_type: ts.TypeSpec | None = None

    # -- entry point ----------------------------------------------------------------------------

    def run(self) -> OperatorTypeDeduction:
        tree = self.source.tree
        self._check_signature(tree)
        self._block(tree.body, top_level=True)
        if self.return_type is None:
            self.error(tree, "the operator must end with a 'return' statement", DSLError)
        if self.declared_return is not None and not _same_type(
            self.return_type, self.declared_return
        ):
            node = tree.returns if tree.returns is not None else tree
            self.error(
                node,
                f"the annotated return type {self.declared_return} does not match the returned "
                f"{self.return_type}",
            )
        return self

    def _check_signature(self, tree: ast.FunctionDef) -> None:
        arguments = tree.args
        for kind, values in (
            ("*args", [arguments.vararg] if arguments.vararg else []),
            ("**kwargs", [arguments.kwarg] if arguments.kwarg else []),
        ):
            for arg in values:
                raise UnsupportedPythonFeatureError(self.location(arg), f"{kind} parameters")
        if arguments.defaults or (arguments.kw_defaults and any(arguments.kw_defaults)):
            node = (arguments.defaults or [d for d in arguments.kw_defaults if d])[0]
            raise UnsupportedPythonFeatureError(self.location(node), "default parameter values")
        annotations = self.source.annotations()
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if arg.arg not in annotations:
                raise MissingParameterAnnotationError(self.location(arg), arg.arg)
            type_ = self._annotation_type(arg, annotations[arg.arg], f"parameter '{arg.arg}'")
            self.parameters.append((arg.arg, type_))
            self.symbols[arg.arg] = type_
        if "return" in annotations and annotations["return"] not in (None, type(None)):
            where: ast.AST = tree.returns if tree.returns is not None else tree
            self.declared_return = self._annotation_type(where, annotations["return"], "return")

    def _annotation_type(self, node: ast.AST, annotation: Any, what: str) -> ts.TypeSpec:
        try:
            return type_from_annotation(annotation)
        except AnnotationError as error:
            raise InvalidParameterAnnotationError(
                self.location(node), f"invalid annotation of {what}: {error}"
            ) from None

    # -- helpers --------------------------------------------------------------------------------

    def location(self, node: ast.AST) -> Any:
        return self.source.location(node)

    def error(self, node: ast.AST, message: str, kind: type[DSLError] = DSLTypeError) -> NoReturn:
        raise kind(self.location(node), message)

    # -- statements -----------------------------------------------------------------------------

    def _block(self, statements: Sequence[ast.stmt], *, top_level: bool) -> bool:
        """Check statements; return whether the block always returns."""
        for index, statement in enumerate(statements):
            returns = self._statement(statement)
            if returns:
                if index != len(statements) - 1:
                    self.error(
                        statements[index + 1],
                        "code after 'return' is never executed; remove it",
                        DSLError,
                    )
                return True
        return False

    def _statement(self, node: ast.stmt) -> bool:
        if isinstance(node, ast.Return):
            if node.value is None:
                self.error(node, "'return' needs a value", DSLError)
            type_ = self.visit(node.value)
            if self.return_type is not None and not _same_type(type_, self.return_type):
                self.error(
                    node,
                    f"this 'return' gives {type_} but an earlier one gave {self.return_type}",
                )
            self.return_type = type_
            return True
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                self.error(node, "chained assignments 'a = b = ...' are not supported", DSLError)
            self._assign(node.targets[0], self.visit(node.value))
            return False
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                self.error(node, "a declaration needs a value: 'name: type = value'", DSLError)
            value_type = self.visit(node.value)
            annotation = self._eval_annotation(node.annotation)
            declared = self._annotation_type(node.annotation, annotation, "assignment")
            if not ts.is_assignable(value_type, declared):
                self.error(node, f"cannot assign a {value_type} to a variable declared {declared}")
            self._assign(node.target, declared)
            return False
        if isinstance(node, ast.AugAssign):
            if not isinstance(node.target, ast.Name):
                self.error(node, "augmented assignment needs a plain name on the left", DSLError)
            left = self._name_type(node.target)
            right = self.visit(node.value)
            self.symbols[node.target.id] = self._binary(node, node.op, left, right)
            return False
        if isinstance(node, ast.If):
            return self._if(node)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return False  # docstring
            self.error(
                node, "an expression statement has no effect here; assign or return it", DSLError
            )
        if isinstance(node, ast.Pass):
            return False
        feature, hint = _UNSUPPORTED_STATEMENTS.get(type(node), (type(node).__name__, ""))
        raise UnsupportedPythonFeatureError(self.location(node), feature, hint)

    def _eval_annotation(self, node: ast.expr) -> Any:
        text = ast.unparse(node)
        try:
            return eval(text, self.source.function.__globals__, self.source.closure)
        except Exception as error:
            self.error(
                node,
                f"cannot evaluate the annotation {text!r}: {error}",
                InvalidParameterAnnotationError,
            )

    def _assign(self, target: ast.expr, type_: ts.TypeSpec) -> None:
        if isinstance(target, ast.Name):
            self.symbols[target.id] = type_
            return
        if isinstance(target, ast.Tuple):
            if not isinstance(type_, ts.TupleType):
                self.error(target, f"cannot unpack {type_}: it is not a tuple")
            if len(target.elts) != len(type_.types):
                self.error(
                    target,
                    f"cannot unpack a tuple of {len(type_.types)} values into "
                    f"{len(target.elts)} names",
                )
            for element, element_type in zip(target.elts, type_.types, strict=False):
                self._assign(element, element_type)
            return
        self.error(target, "only names and tuples of names can be assigned to here", DSLError)

    def _if(self, node: ast.If) -> bool:
        condition = self.visit(node.test)
        if not (isinstance(condition, ts.ScalarType) and condition.dtype == _BOOL):
            hint = (
                "; to choose values point by point use where(condition, a, b)"
                if isinstance(condition, ts.FieldType)
                else ""
            )
            self.error(node.test, f"an 'if' condition must be a scalar bool, got {condition}{hint}")
        before = dict(self.symbols)
        body_returns = self._block(node.body, top_level=False)
        after_body = self.symbols
        self.symbols = dict(before)
        else_returns = self._block(node.orelse, top_level=False) if node.orelse else False
        after_else = self.symbols
        merged = dict(before)
        for name in after_body.keys() & after_else.keys():
            if body_returns:
                merged[name] = after_else[name]
            elif else_returns or _same_type(after_body[name], after_else[name]):
                merged[name] = after_body[name]
            else:
                self.error(
                    node,
                    f"'{name}' is {after_body[name]} in the 'if' branch but {after_else[name]} "
                    "in the 'else' branch; both branches must give it the same type",
                )
        for names, returns in ((after_body, body_returns), (after_else, else_returns)):
            if not returns and (body_returns or else_returns):
                merged.update({k: v for k, v in names.items() if k not in before})
        self.symbols = merged
        return body_returns and else_returns

    # -- expressions ----------------------------------------------------------------------------

    def visit(self, node: ast.expr) -> ts.TypeSpec:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            feature, hint = _UNSUPPORTED_EXPRESSIONS.get(type(node), (type(node).__name__, ""))
            raise UnsupportedPythonFeatureError(self.location(node), feature, hint)
        type_: ts.TypeSpec = method(node)
        self.expression_types[node] = type_
        return type_

    def visit_Constant(self, node: ast.Constant) -> ts.TypeSpec:
        value = node.value
        if isinstance(value, bool):
            return ts.ScalarType(_BOOL, weak=True)
        if isinstance(value, int):
            return ts.IntConstantType(value)
        if isinstance(value, float):
            return ts.ScalarType(_FLOAT64, weak=True)
        raise UnsupportedPythonFeatureError(
            self.location(node), f"{type(value).__name__} constants", "use numbers or booleans"
        )

    def visit_Name(self, node: ast.Name) -> ts.TypeSpec:
        return self._name_type(node)

    def _name_type(self, node: ast.Name) -> ts.TypeSpec:
        if node.id in self.symbols:
            return self.symbols[node.id]
        value = self.source.lookup(node.id)
        if is_missing(value):
            raise UndefinedSymbolError(self.location(node), node.id)
        self._note_constant(node, value)
        type_ = type_of_value(value)
        if type_ is None:
            self.error(
                node,
                f"'{node.id}' refers to {_describe(value)}, which cannot be used inside an "
                "operator; pass it as an argument",
            )
        return type_

    def visit_Attribute(self, node: ast.Attribute) -> ts.TypeSpec:
        value = global_value(node, self.source.lookup, self.symbols)
        if not is_missing(value) and not isinstance(value, types.ModuleType):
            self._note_constant(node, value)
            type_ = type_of_value(value)
            if type_ is None:
                self.error(node, f"'{ast.unparse(node)}' cannot be used inside an operator")
            return type_
        base = self.visit(node.value)
        if isinstance(base, ts.ModuleType):
            value = getattr(base.value, node.attr, None)
            if value is None:
                self.error(
                    node,
                    f"module '{base.value.__name__}' has no attribute '{node.attr}'",
                    MissingAttributeError,
                )
            self._note_constant(node, value)
            type_ = type_of_value(value)
            if type_ is None:
                self.error(node, f"'{ast.unparse(node)}' cannot be used inside an operator")
            return type_
        if isinstance(base, ts.NamedCollectionType):
            member = base.member(node.attr)
            if member is None:
                self.error(
                    node,
                    f"{base} has no member '{node.attr}' (members: {', '.join(base.names)})",
                    MissingAttributeError,
                )
            return member
        self.error(node, f"{base} has no attribute '{node.attr}'", MissingAttributeError)

    def _note_constant(self, node: ast.expr, value: Any) -> None:
        if isinstance(value, (bool, int, float, np.generic)):
            self.constants[node] = value

    def visit_Tuple(self, node: ast.Tuple) -> ts.TypeSpec:
        types_ = tuple(self.visit(e) for e in node.elts)
        if types_ and all(isinstance(t, ts.DimensionType) for t in types_):
            return ts.DimsTupleType(tuple(t.dim for t in types_))  # type: ignore[attr-defined]
        return ts.TupleType(types_)

    def visit_Subscript(self, node: ast.Subscript) -> ts.TypeSpec:
        base = self.visit(node.value)
        index = self.visit(node.slice)
        if isinstance(base, ts.OffsetType) and not base.indexed:
            if not isinstance(index, ts.IntConstantType):
                self.error(node.slice, f"{base.offset.value}[...] needs an integer constant")
            return ts.OffsetType(base.offset, indexed=True)
        if isinstance(base, ts.TupleType):
            if not isinstance(index, ts.IntConstantType):
                self.error(node.slice, "a tuple index must be an integer constant")
            if not -len(base.types) <= index.value < len(base.types):
                self.error(
                    node.slice,
                    f"index {index.value} is out of range for a tuple of {len(base.types)}",
                )
            return base.types[index.value]
        if isinstance(base, ts.FieldType) and isinstance(index, ts.LocalIndexType):
            if base.dims is None or index.dim not in base.dims:
                self.error(node, f"{base} has no dimension {index.dim.value} to index")
            return ts.FieldType(tuple(d for d in base.dims if d != index.dim), base.dtype)
        if isinstance(base, ts.FieldType):
            self.error(
                node,
                "fields cannot be indexed inside operators (except one neighbour of a local "
                "dimension, a[E2CDim(0)]); shift them with offsets (a(I + 1), "
                "a(E2V[0])) and choose the output domain in the program",
                DSLError,
            )
        self.error(node, f"{base} cannot be indexed")

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ts.TypeSpec:
        operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            if not (isinstance(operand, ts.ScalarType) and operand.dtype == _BOOL):
                self.error(
                    node,
                    f"'not' negates a scalar bool, got {operand}; use '~' on bool fields",
                )
            return operand
        if isinstance(node.op, ast.Invert):
            if isinstance(operand, ts.DomainType):
                return operand
            if ts.element_dtype(operand) != _BOOL:
                self.error(node, f"'~' needs a bool operand, got {operand}")
            return operand
        if isinstance(operand, ts.IntConstantType):
            return ts.IntConstantType(
                -operand.value if isinstance(node.op, ast.USub) else operand.value
            )
        dtype = ts.element_dtype(operand)
        if dtype is None or dtype.kind not in "iuf":
            symbol = "-" if isinstance(node.op, ast.USub) else "+"
            self.error(node, f"unary '{symbol}' needs a number, got {operand}")
        return operand

    def visit_BinOp(self, node: ast.BinOp) -> ts.TypeSpec:
        left = self.visit(node.left)
        right = self.visit(node.right)
        return self._binary(node, node.op, left, right)

    def _binary(
        self, node: ast.AST, op: ast.operator, left: ts.TypeSpec, right: ts.TypeSpec
    ) -> ts.TypeSpec:
        if isinstance(op, tuple(_LOGICAL)):
            symbol = _LOGICAL[type(op)]
            if isinstance(left, ts.DomainType) and isinstance(right, ts.DomainType):
                if isinstance(op, ast.BitXor):
                    self.error(node, "'^' is not defined for domain conditions; use '|' and '&'")
                return ts.DomainType(tuple(dict.fromkeys((*left.dims, *right.dims))))
            return self._elementwise(node, symbol, (left, right), accepts="b", result=None)
        arithmetic: str | None = _ARITHMETIC.get(type(op))
        if arithmetic is None:
            raise UnsupportedPythonFeatureError(
                self.location(node), f"the operator {type(op).__name__}"
            )
        symbol = arithmetic
        if (
            isinstance(left, ts.DimensionType)
            and isinstance(right, ts.IntConstantType)
            and symbol in "+-"
        ):
            return ts.CartesianShiftType(left.dim)
        if isinstance(left, ts.IntConstantType) and isinstance(right, ts.IntConstantType):
            try:
                value = {
                    "+": int.__add__,
                    "-": int.__sub__,
                    "*": int.__mul__,
                    "//": int.__floordiv__,
                    "%": int.__mod__,
                }[symbol](left.value, right.value)
                return ts.IntConstantType(value)
            except (KeyError, ZeroDivisionError):
                pass
        result = "float" if symbol == "/" else None
        return self._elementwise(node, symbol, (left, right), accepts="iuf", result=result)

    def visit_Compare(self, node: ast.Compare) -> ts.TypeSpec:
        if len(node.ops) != 1:
            raise UnsupportedPythonFeatureError(
                self.location(node), "chained comparisons", "write (a < b) & (b < c)"
            )
        op = node.ops[0]
        symbol = _COMPARISON.get(type(op))
        if symbol is None:
            raise UnsupportedPythonFeatureError(self.location(node), f"'{type(op).__name__}'")
        left = self.visit(node.left)
        right = self.visit(node.comparators[0])
        if isinstance(left, ts.DimensionType):
            dtype = ts.element_dtype(right)
            if not (
                isinstance(right, (ts.IntConstantType, ts.ScalarType))
                and dtype is not None
                and dtype.kind in "iu"
            ):
                self.error(node, f"a domain condition compares {left} with an integer, got {right}")
            return ts.DomainType((left.dim,))
        accepts = "biuf" if symbol in ("==", "!=") else "iuf"
        return self._elementwise(node, symbol, (left, right), accepts=accepts, result="bool")

    def visit_BoolOp(self, node: ast.BoolOp) -> ts.TypeSpec:
        word, symbol = ("and", "&") if isinstance(node.op, ast.And) else ("or", "|")
        raise UnsupportedPythonFeatureError(
            self.location(node),
            f"'{word}'",
            f"use '{symbol}' with parentheses: (a < b) {symbol} (c > d)",
        )

    def visit_IfExp(self, node: ast.IfExp) -> ts.TypeSpec:
        condition = self.visit(node.test)
        if not (isinstance(condition, ts.ScalarType) and condition.dtype == _BOOL):
            self.error(
                node.test,
                f"the condition of 'a if c else b' must be a scalar bool, got {condition}; "
                "use where(c, a, b) for fields",
            )
        true_type = self.visit(node.body)
        false_type = self.visit(node.orelse)
        if not _same_type(true_type, false_type):
            self.error(node, f"both branches must have one type, got {true_type} and {false_type}")
        if _is_weak(true_type) and not _is_weak(false_type):
            return false_type
        if isinstance(true_type, ts.IntConstantType):
            return ts.ScalarType(_INT64, weak=True)
        return true_type

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
            if _is_str_constant(node):
                try:
                    callee.dtype.type(node.args[0].value)  # type: ignore[attr-defined]
                except ValueError:
                    self.error(node, f"{ast.unparse(node)}: the string is not a {name} number")
                return ts.ScalarType(callee.dtype)
            args = self._positional(node, 1, name)
            if _contains_field(args[0]):
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
        return ts.FieldType(dims.dims, _concrete(dtype, value))

    def _builtin_where(self, node: ast.Call) -> ts.TypeSpec:
        mask, true_value, false_value = self._positional(node, 3, "where")
        if ts.element_dtype(mask) != _BOOL:
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
            dims = _dims_of(value)
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
            return ts.FieldType(dims, _concrete(dtype, value))
        for operand in operands:
            dtype = ts.element_dtype(operand)
            if dtype is None or dtype.kind not in accepts:
                what = {"b": "bool", "iuf": "numbers", "biuf": "numbers or bools"}.get(
                    accepts, accepts
                )
                self.error(node, f"'{symbol}' needs {what}, got {operand}")
        dtype, weak = self._common_dtype(node, symbol, operands)
        if result == "bool":
            dtype, weak = _BOOL, False
        elif result == "float" and dtype.kind in "iu":
            dtype = _FLOAT64
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
        strong = [o for o in operands if not _is_weak(o)]
        weak = [o for o in operands if _is_weak(o)]
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
                if not ts._literal_fits(literal_dtype, dtype):
                    self.error(
                        node,
                        f"'{symbol}' cannot combine {operand} with {dtype.name} values; write the "
                        f"literal as a {dtype.name} value",
                    )
            return dtype, False
        kinds = {ts.element_dtype(o).kind for o in weak}  # type: ignore[union-attr]
        if "f" in kinds:
            return _FLOAT64, True
        if kinds & set("iu"):
            # Only integer literals: int32, the DSL's default integer (as in released gt4py,
            # where `where(mask, 1, 0)` is an int32 field).
            return _INT32, True
        return _BOOL, True


def _is_weak(type_: ts.TypeSpec) -> bool:
    return isinstance(type_, ts.IntConstantType) or (
        isinstance(type_, ts.ScalarType) and type_.weak
    )


def _concrete(dtype: np.dtype[Any], type_: ts.TypeSpec) -> np.dtype[Any]:
    return dtype


def _dims_of(type_: ts.TypeSpec) -> tuple[Dimension, ...] | None:
    return type_.dims if isinstance(type_, ts.FieldType) else None


def _is_str_constant(call: ast.Call) -> bool:
    """``wpfloat("0.85")``: a number spelled as a string for its dtype (exact in float32)."""
    return (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    )


def _contains_field(value: ts.TypeSpec) -> bool:
    if isinstance(value, ts.TupleType):
        return any(_contains_field(t) for t in value.types)
    return isinstance(value, ts.FieldType)


def _with_dtype(
    checker: OperatorTypeDeduction, node: ast.AST, value: ts.TypeSpec, dtype: np.dtype[Any]
) -> ts.TypeSpec:
    if isinstance(value, ts.TupleType):
        return ts.TupleType(tuple(_with_dtype(checker, node, t, dtype) for t in value.types))
    if isinstance(value, ts.FieldType):
        return ts.FieldType(value.dims, dtype)
    if isinstance(value, (ts.ScalarType, ts.IntConstantType)):
        return ts.ScalarType(dtype)
    checker.error(node, f"cannot convert {value} to {dtype.name}")


def _same_type(a: ts.TypeSpec | None, b: ts.TypeSpec | None) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, ts.IntConstantType):
        a = ts.ScalarType(_INT64, weak=True)
    if isinstance(b, ts.IntConstantType):
        b = ts.ScalarType(_INT64, weak=True)
    if (
        isinstance(a, ts.IntConstantType)
        or isinstance(b, ts.IntConstantType)
        or (isinstance(a, ts.ScalarType) and a.weak)
        or (isinstance(b, ts.ScalarType) and b.weak)
    ):
        return ts.is_assignable(a, b) or ts.is_assignable(b, a)
    if isinstance(a, ts.FieldType) and isinstance(b, ts.FieldType):
        return a.dtype == b.dtype and ts.same_field_dims(a.dims, b.dims)
    if isinstance(a, ts.TupleType) and isinstance(b, ts.TupleType):
        return len(a.types) == len(b.types) and all(map(_same_type, a.types, b.types))
    if isinstance(a, ts.NamedCollectionType) and isinstance(b, ts.NamedCollectionType):
        return (
            a.python_type is b.python_type
            and a.names == b.names
            and all(map(_same_type, a.types, b.types))
        )
    return a == b


def _describe(value: Any) -> str:
    return f"a {type(value).__name__}"

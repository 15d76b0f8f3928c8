"""Type deduction for field and scan operator bodies: every expression gets a type or a DSLError.

The checker walks the Python syntax tree of the definition (``ast.NodeVisitor`` style, one
``visit_<Node>`` per supported construct) with a table of the types of parameters and local
variables. Anything without a ``visit_`` method is Python the DSL does not support.
Each typed expression is recorded in ``expression_types`` (node -> type); calls and the
pointwise promotion rules are typed by the base class, :class:`._call_types.CallTyping`.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import types
from collections.abc import Sequence
from typing import Any, Final, NoReturn

import numpy as np

from .. import _builtin_vocabulary as vocabulary
from ..errors import (
    DSLError,
    DSLTypeError,
    InvalidParameterAnnotationError,
    MissingAttributeError,
    MissingParameterAnnotationError,
    UndefinedSymbolError,
    UnsupportedPythonFeatureError,
)
from . import type_specifications as ts
from ._annotations import AnnotationError, type_from_annotation, type_of_value
from ._call_types import CallTyping
from ._source import SourceDefinition, global_value, is_missing
from ._type_rules import BOOL, FLOAT64, INT64, describe, is_weak, same_type


# Python builtins users reach for in an operator -> the gt4py.next builtin that does it there
_GT4PY_SPELLING: Final = {"abs": "abs", "max": "maximum", "min": "minimum", "pow": "power"}


# Python operator (``ast`` class) -> its row of the builtin vocabulary: binary operators and
# comparisons (the unary ones are typed by hand in ``visit_UnaryOp``)
_BINARY_OPERATORS: Final = {
    op: row
    for row in vocabulary.IR_CALLS.values()
    if row.arity == 2 and row.kind in (vocabulary.Kind.ARITHMETIC, vocabulary.Kind.LOGICAL)
    for op in row.python_operators
}
_COMPARISONS: Final = {
    op: row
    for row in vocabulary.IR_CALLS.values()
    if row.kind is vocabulary.Kind.COMPARISON
    for op in row.python_operators
}


def _accepts(row: vocabulary.Builtin) -> str:
    """The operand dtype kinds of ``row``, spelled as :meth:`CallTyping._elementwise` names them."""
    return "".join(kind for kind in "biuf" if kind in row.accepts)


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


class OperatorTypeDeduction(CallTyping):
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
        if self.declared_return is not None and not same_type(
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
            if self.return_type is not None and not same_type(type_, self.return_type):
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
        if not (isinstance(condition, ts.ScalarType) and condition.dtype == BOOL):
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
            elif else_returns or same_type(after_body[name], after_else[name]):
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
            return ts.ScalarType(BOOL, weak=True)
        if isinstance(value, int):
            return ts.IntConstantType(value)
        if isinstance(value, float):
            return ts.ScalarType(FLOAT64, weak=True)
        raise UnsupportedPythonFeatureError(
            self.location(node), f"{type(value).__name__} constants", "use numbers or booleans"
        )

    def visit_Name(self, node: ast.Name) -> ts.TypeSpec:
        return self._name_type(node)

    def _did_you_mean(self, name: str) -> str:
        """Python's "did you mean" for an undefined name, over the names the definition sees
        (its locals, closure and module globals) and the DSL's builtins (``maximum``, ...)."""
        from . import _builtin_catalog

        visible = {*self.symbols, *self.source.closure, *self.source.function.__globals__}
        dsl = set(_builtin_catalog.__all__) - {"IndexType"}
        close = difflib.get_close_matches(name, sorted(visible | dsl), n=1, cutoff=0.75)
        if not close:
            return ""
        if close[0] in visible:
            return f"did you mean '{close[0]}'?"
        return (
            f"did you mean '{close[0]}'? (a gt4py.next builtin: "
            f"`from gt4py.next import {close[0]}`, or `gtx.{close[0]}`)"
        )

    def _name_type(self, node: ast.Name) -> ts.TypeSpec:
        if node.id in self.symbols:
            return self.symbols[node.id]
        value = self.source.lookup(node.id)
        if is_missing(value):
            raise UndefinedSymbolError(self.location(node), node.id, self._did_you_mean(node.id))
        self._note_constant(node, value)
        type_ = type_of_value(value)
        if type_ is None:
            instead = _GT4PY_SPELLING.get(node.id)
            if instead is not None and value is getattr(builtins, node.id, None):
                self.error(
                    node,
                    f"'{node.id}' is Python's builtin, which cannot be used inside an operator; "
                    f"use gt4py.next's {instead} (`from gt4py.next import {instead}`)",
                )
            self.error(
                node,
                f"'{node.id}' refers to {describe(value)}, which cannot be used inside an "
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
            if not (isinstance(operand, ts.ScalarType) and operand.dtype == BOOL):
                self.error(
                    node,
                    f"'not' negates a scalar bool, got {operand}; use '~' on bool fields",
                )
            return operand
        if isinstance(node.op, ast.Invert):
            if isinstance(operand, ts.DomainType):
                return operand
            if ts.element_dtype(operand) != BOOL:
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
        row = _BINARY_OPERATORS.get(type(op))
        if row is None:
            raise UnsupportedPythonFeatureError(
                self.location(node), f"the operator {type(op).__name__}"
            )
        symbol = row.symbol
        assert symbol is not None
        if row.kind is vocabulary.Kind.LOGICAL:
            if isinstance(left, ts.DomainType) and isinstance(right, ts.DomainType):
                if isinstance(op, ast.BitXor):
                    self.error(node, "'^' is not defined for domain conditions; use '|' and '&'")
                return ts.DomainType(tuple(dict.fromkeys((*left.dims, *right.dims))))
            # the operands are bools already: their dtype (and weakness) is the result's
            return self._elementwise(
                node, symbol, (left, right), accepts=_accepts(row), result=None
            )
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
        result = "float" if row.result is vocabulary.Result.FLOAT else None
        return self._elementwise(node, symbol, (left, right), accepts=_accepts(row), result=result)

    def visit_Compare(self, node: ast.Compare) -> ts.TypeSpec:
        if len(node.ops) != 1:
            raise UnsupportedPythonFeatureError(
                self.location(node), "chained comparisons", "write (a < b) & (b < c)"
            )
        op = node.ops[0]
        row = _COMPARISONS.get(type(op))
        if row is None:
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
        assert row.symbol is not None and row.result is vocabulary.Result.BOOL
        return self._elementwise(
            node, row.symbol, (left, right), accepts=_accepts(row), result="bool"
        )

    def visit_BoolOp(self, node: ast.BoolOp) -> ts.TypeSpec:
        word, symbol = ("and", "&") if isinstance(node.op, ast.And) else ("or", "|")
        raise UnsupportedPythonFeatureError(
            self.location(node),
            f"'{word}'",
            f"use '{symbol}' with parentheses: (a < b) {symbol} (c > d)",
        )

    def visit_IfExp(self, node: ast.IfExp) -> ts.TypeSpec:
        condition = self.visit(node.test)
        if not (isinstance(condition, ts.ScalarType) and condition.dtype == BOOL):
            self.error(
                node.test,
                f"the condition of 'a if c else b' must be a scalar bool, got {condition}; "
                "use where(c, a, b) for fields",
            )
        true_type = self.visit(node.body)
        false_type = self.visit(node.orelse)
        if not same_type(true_type, false_type):
            self.error(node, f"both branches must have one type, got {true_type} and {false_type}")
        if is_weak(true_type) and not is_weak(false_type):
            return false_type
        if isinstance(true_type, ts.IntConstantType):
            return ts.ScalarType(INT64, weak=True)
        return true_type

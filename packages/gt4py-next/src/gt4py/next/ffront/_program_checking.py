"""Type checking of program bodies: a sequence of operator calls with ``out=`` and ``domain=``."""

from __future__ import annotations

import ast

from ..errors import DSLError, DSLTypeError, UnsupportedPythonFeatureError
from . import type_specifications as ts
from ._ir import OperatorCall
from ._type_deduction import OperatorTypeDeduction
from ._type_rules import same_type
from .checked import ProgramCall


class ProgramTypeDeduction(OperatorTypeDeduction):
    """Checks a program: each statement calls a field or scan operator into ``out``."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls: list[OperatorCall] = []
        self.bound_calls: list[ProgramCall] = []  # the same calls, bound for lowering

    def run(self) -> ProgramTypeDeduction:
        tree = self.source.tree
        self._check_signature(tree)
        if self.declared_return is not None:
            self.error(
                tree.returns or tree,
                "programs return nothing; write results into 'out' fields instead",
                DSLError,
            )
        for statement in tree.body:
            if isinstance(statement, ast.Pass):
                continue
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # docstring
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
                self._program_call(statement.value)
                continue
            if isinstance(statement, ast.Return):
                self.error(
                    statement,
                    "programs cannot return values; write results into 'out' fields",
                    DSLError,
                )
            if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                raise UnsupportedPythonFeatureError(
                    self.location(statement),
                    "assignments in programs",
                    "programs only call operators: op(a, b, out=c)",
                )
            self._statement(statement)  # reports the unsupported construct
            raise UnsupportedPythonFeatureError(
                self.location(statement),
                "this statement in a program",
                "programs only call operators: op(a, b, out=c)",
            )
        return self

    def _program_call(self, node: ast.Call) -> None:
        callee = self.visit(node.func)
        if isinstance(callee, ts.CallableType) and callee.kind == "program":
            self.error(node, "programs cannot call other programs; call their operators")
        if not (isinstance(callee, ts.CallableType) and callee.kind == "operator"):
            self.error(node, f"programs can only call field and scan operators, not {callee}")
        operator = callee.target
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords:
            raise UnsupportedPythonFeatureError(self.location(node), "'**' arguments")
        out_node = keywords.pop("out", None)
        domain_node = keywords.pop("domain", None)
        if "offset_provider" in keywords:
            self.error(node, "'offset_provider' is given when calling the program, not inside it")
        if out_node is None:
            self.error(
                node,
                f"missing required keyword argument 'out' in the call of {operator.__name__}: "
                "write the result into a field, op(..., out=result)",
            )
        signature = operator.__gt_signature__
        arg_types = [self.visit(a) for a in node.args]
        kwarg_types = {k: self.visit(v) for k, v in keywords.items()}
        bound = signature.bind(self, node, arg_types, kwarg_types)
        result = signature.result_type(self, node, bound)
        out = self._out_type(out_node)
        if not _fits_out(result, out):
            self.error(
                out_node,
                f"{operator.__name__} returns {result}, which does not fit 'out' of type {out}",
            )
        if domain_node is not None:
            self._check_domain(domain_node, out)
        self.calls.append(OperatorCall(callee=operator.__name__, location=self.location(node)))
        names = [name for name, _ in signature.params]
        arguments: dict[str | None, ast.expr] = {**dict(zip(names, node.args, strict=False))}
        arguments.update(keywords)
        unsliced_out, slices = _unsliced(out_node)
        self.bound_calls.append(
            ProgramCall(
                node=node,
                operator=operator,
                arguments=tuple(arguments[name] for name in names),
                out=unsliced_out,
                out_slices=tuple(slices),
                domain=domain_node,
            )
        )

    def _out_type(self, node: ast.expr) -> ts.TypeSpec:
        if isinstance(node, ast.Tuple):
            slicings = {
                repr(out_slices(e)) if isinstance(e, ast.Subscript) else "[]" for e in node.elts
            }
            if len(slicings) > 1:
                self.error(
                    node,
                    "the outputs of one call must be sliced alike (one domain is computed): "
                    f"got {ast.unparse(node)}",
                )
            return ts.TupleType(tuple(self._out_type(e) for e in node.elts))
        if isinstance(node, ast.Subscript):
            return self._sliced_out(node)
        type_ = self.visit(node)
        if not _is_fields(type_):
            self.error(node, f"'out' must be a field or a tuple of fields, got {type_}")
        return type_

    def _sliced_out(self, node: ast.Subscript) -> ts.TypeSpec:
        """``out=f[:, 1:]``: the operator writes the part of ``f`` the slices select."""
        type_ = self.visit(node.value)
        if not isinstance(type_, ts.FieldType):
            self.error(node, f"only fields can be sliced in 'out', got {type_}")
        slices = out_slices(node)
        if slices is None:
            self.error(
                node.slice,
                "'out' slices are written f[a:b, :] with integer constants (or none) and no step",
            )
        if type_.dims is not None and len(slices) > len(type_.dims):
            self.error(node.slice, f"{len(slices)} slices for a field of {len(type_.dims)} dims")
        self.expression_types[node] = type_
        return type_

    def _check_domain(self, node: ast.expr, out: ts.TypeSpec) -> None:
        if isinstance(node, ast.Tuple):
            for element in node.elts:
                self._check_domain(element, out)
            return
        if not isinstance(node, ast.Dict):
            self.error(node, "'domain' must be a dict literal: domain={I: (0, n), J: (1, m - 1)}")
        out_dims = {d for f in _leaves(out) if isinstance(f, ts.FieldType) for d in (f.dims or ())}
        for key, value in zip(node.keys, node.values, strict=False):
            assert key is not None
            dim = self.visit(key)
            if not isinstance(dim, ts.DimensionType):
                self.error(key, f"domain keys must be dimensions, got {dim}")
            if out_dims and dim.dim not in out_dims:
                self.error(key, f"the output has no dimension {dim.dim.value}")
            if not (isinstance(value, ast.Tuple) and len(value.elts) == 2):
                self.error(value, f"the range of {dim.dim.value} must be a pair (start, stop)")
            for bound in value.elts:
                bound_type = self.visit(bound)
                dtype = ts.element_dtype(bound_type)
                if not isinstance(bound_type, (ts.ScalarType, ts.IntConstantType)) or (
                    dtype is None or dtype.kind not in "iu"
                ):
                    self.error(bound, f"domain bounds must be integers, got {bound_type}")


def _leaves(type_: ts.TypeSpec) -> list[ts.TypeSpec]:
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return [leaf for t in type_.types for leaf in _leaves(t)]
    return [type_]


def _as_tuple(type_: ts.TypeSpec) -> ts.TypeSpec:
    """A NamedTuple / dataclass of fields written as ``out`` is a tuple of its members."""
    if isinstance(type_, ts.NamedCollectionType):
        return ts.TupleType(tuple(type_.types))
    return type_


def _is_fields(type_: ts.TypeSpec) -> bool:
    return all(isinstance(t, ts.FieldType) for t in _leaves(type_))


def _fits_out(result: ts.TypeSpec, out: ts.TypeSpec) -> bool:
    result, out = _as_tuple(result), _as_tuple(out)
    if isinstance(result, ts.TupleType) or isinstance(out, ts.TupleType):
        return (
            isinstance(result, ts.TupleType)
            and isinstance(out, ts.TupleType)
            and len(result.types) == len(out.types)
            and all(_fits_out(r, o) for r, o in zip(result.types, out.types, strict=False))
        )
    if isinstance(result, ts.FieldType):
        return same_type(result, out)
    dtype = ts.element_dtype(result)
    return (
        isinstance(out, ts.FieldType)
        and dtype is not None
        and (ts.is_assignable(result, ts.ScalarType(out.dtype)))
    )


__all__ = ["DSLTypeError", "ProgramTypeDeduction"]


def out_slices(node: ast.Subscript) -> list[tuple[int | None, int | None]] | None:
    """The ``(start, stop)`` of each positional slice of ``f[a:b, :]``; None if not that form."""
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    result: list[tuple[int | None, int | None]] = []
    for item in items:
        if not isinstance(item, ast.Slice) or item.step is not None:
            return None
        bounds: list[int | None] = []
        for bound in (item.lower, item.upper):
            if bound is None:
                bounds.append(None)
                continue
            value = _int_constant(bound)
            if value is None:
                return None
            bounds.append(value)
        result.append((bounds[0], bounds[1]))
    return result


def _unsliced(node: ast.expr) -> tuple[ast.expr, list[tuple[int | None, int | None]]]:
    """``out=(f[:, 1:], g[:, 1:])`` -> ``(f, g)`` and the slices of the first output (checked
    alike for all outputs)."""
    if isinstance(node, ast.Subscript):
        return node.value, out_slices(node) or []
    if isinstance(node, ast.Tuple):
        parts = [_unsliced(e) for e in node.elts]
        unsliced = ast.Tuple(elts=[p[0] for p in parts], ctx=ast.Load())
        return ast.copy_location(unsliced, node), parts[0][1] if parts else []
    return node, []


def _int_constant(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_constant(node.operand)
        return None if inner is None else -inner
    return None

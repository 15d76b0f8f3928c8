"""Lowering of programs and of direct operator calls (``op(a, out=b, domain=...)``) to IR.

A program becomes one :class:`ir.Program`: its parameters (tuples flattened to
``name__0, name__1, ...``), the neighbour tables its shifts use, and one :class:`ir.Apply` or
:class:`ir.Scan` per operator call, with the call's domain (from ``domain=``, whose bounds are
expressions over scalar parameters, or the bounds of ``out``).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ir
from ..ffront import type_specifications as ts
from ..ffront.checked import CheckedProgram, TypedBody
from ..ir import literal
from ._calls import lower_call
from ._context import LoweringContext
from ._errors import LoweringError
from ._expressions import ARITHMETIC, UNARY
from ._outputs import INDEX_DTYPE, domain_leaves, out_domain, per_output_domains, sliced
from ._values import Value, dtype_of


def flat_params(name: str, type_: Any) -> list[ir.FieldParam | ir.ScalarParam]:
    """The IR parameters of one argument (tuples and dataclass / NamedTuple members flattened
    to ``name__0, name__1, ...`` in member order)."""
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return [p for i, t in enumerate(type_.types) for p in flat_params(f"{name}__{i}", t)]
    if isinstance(type_, ts.FieldType):
        if type_.dims is None:
            raise LoweringError(f"parameter '{name}': Field[..., dtype] needs concrete dimensions")
        return [
            ir.FieldParam(name=name, dims=[d.value for d in type_.dims], dtype=type_.dtype.name)
        ]
    dtype = dtype_of(type_)
    if dtype is None:
        raise LoweringError(f"parameter '{name}' of type {type_} is not supported")
    return [ir.ScalarParam(name=name, dtype=dtype.name)]


def param_value(name: str, type_: Any) -> Value:
    """The lowered value a parameter stands for inside operator bodies (a named collection is
    a tuple of its members; attribute access picks by the declared member order)."""
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return tuple(param_value(f"{name}__{i}", t) for i, t in enumerate(type_.types))
    if isinstance(type_, ts.FieldType):
        return ir.Deref(field=name, shifts=[])
    return ir.SymRef(name=name)


def _names(value: Any) -> list[str]:
    if isinstance(value, tuple):
        return [n for v in value for n in _names(v)]
    assert isinstance(value, ir.Deref) and not value.shifts
    return [value.field]


def _finish(
    name: str,
    params: list[ir.FieldParam | ir.ScalarParam],
    context: LoweringContext,
    body: list[ir.Apply | ir.Scan],
) -> ir.Program:
    return ir.Program(
        name=name,
        params=params,
        offsets=list(context.offsets.values()),
        body=body,
        temporaries=context.temporaries,
    )


# -- direct operator calls --------------------------------------------------------------------


def lower_operator_call(
    operator: Any,
    arg_types: list[Any],
    out_type: Any,
    domain_dims: Sequence[str] | Sequence[Sequence[str]] | None,
) -> ir.Program:
    """The program of ``operator(*args, out=out, domain=...)`` for these argument types.

    Parameters: the operator's arguments, then ``__out`` (flattened for tuples), then, if a
    domain is given, ``__domain_<dim>_start`` / ``_stop`` for each of ``domain_dims`` (one
    domain for every output: each output takes the dims it has), or, for one domain per
    output (``domain_dims`` a sequence of dim sequences, in output order),
    ``__domain<i>_<dim>_start`` / ``_stop`` for each output ``i``. Without a domain each
    output is written over its own bounds.
    """
    signature = operator.__gt_signature__
    context = LoweringContext()
    params: list[ir.FieldParam | ir.ScalarParam] = []
    args: list[Value] = []
    for (name, _), type_ in zip(signature.params, arg_types, strict=True):
        params.extend(flat_params(name, type_))
        args.append(param_value(name, type_))
    out_params = [_field_param(p) for p in flat_params("__out", out_type)]
    params.extend(out_params)
    outputs = [p.name for p in out_params]
    domains = [out_domain(p) for p in out_params]
    if domain_dims is not None:
        per_output = bool(domain_dims) and not isinstance(domain_dims[0], str)
        if per_output and len(domain_dims) != len(outputs):
            raise LoweringError(
                f"domain= gives {len(domain_dims)} domains for {len(outputs)} outputs"
            )
        groups: list[list[str]] = (
            [[str(d) for d in dims] for dims in domain_dims]
            if per_output
            else [[str(d) for d in domain_dims]]
        )
        given: list[dict[str, ir.Range]] = []
        for i, dims in enumerate(groups):
            known = {d for p in (out_params if not per_output else [out_params[i]]) for d in p.dims}
            unknown = [d for d in dims if d not in known]
            if unknown:
                which = f"'out' element {i}" if per_output else "'out'"
                raise LoweringError(
                    f"domain= names {', '.join(unknown)}, which {which} does not have"
                )
            prefix = f"__domain{i}" if per_output else "__domain"
            ranges: dict[str, ir.Range] = {}
            for dim in dims:  # parameters in the order the caller gave the bounds
                start, stop = f"{prefix}_{dim}_start", f"{prefix}_{dim}_stop"
                params.append(ir.ScalarParam(name=start, dtype=INDEX_DTYPE))
                params.append(ir.ScalarParam(name=stop, dtype=INDEX_DTYPE))
                ranges[dim] = ir.Range(
                    dim=dim, start=ir.SymRef(name=start), stop=ir.SymRef(name=stop)
                )
            given.append(ranges)
        domains = [
            [given[i if per_output else 0].get(r.dim, r) for r in domain]
            for i, domain in enumerate(domains)
        ]
    if _is_scan(operator) and not (domain_dims is not None and per_output):
        # a scan sweeps one domain for all its outputs: the first output's, as embedded does
        domains = [domains[0]] * len(outputs)
    context.set_params(params)
    statements = lower_call(context, operator, args, arg_types, outputs, domains[0])
    statements = per_output_domains(statements, domains, operator)
    return _finish(operator.__name__, params, context, statements)


# -- programs ---------------------------------------------------------------------------------


class _ProgramExpressions:
    """Lowers the (scalar and field-name) expressions of program bodies."""

    def __init__(self, body: TypedBody, env: dict[str, Value]) -> None:
        self.types = body.expression_types
        self.constants = body.constants
        self.env = env

    def expr(self, node: ast.expr, dtype: Any = None) -> Value:
        type_ = self.types.get(node)
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            if node in self.constants:
                return literal(self.constants[node], dtype or dtype_of(type_))
            raise LoweringError(f"'{node.id}' cannot be used as a value in a program")
        if isinstance(node, ast.Constant):
            return literal(node.value, dtype or dtype_of(type_))
        if isinstance(node, ast.Tuple):
            return tuple(self.expr(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.expr(node.operand, dtype)
            if isinstance(inner, ir.Literal):
                return literal(
                    -float(inner.value) if "." in inner.value else -int(inner.value), inner.dtype
                )
            return ir.Call(fun=UNARY[ast.USub], args=[inner])  # type: ignore[list-item]
        if isinstance(node, ast.Call) and not node.keywords:
            callee = self.types.get(node.func)
            name = getattr(getattr(callee, "target", None), "name", None)
            if name in ("maximum", "minimum"):  # domain bounds: maximum(1, nflatlev)
                args = [self.expr(a, dtype) for a in node.args]
                return ir.Call(fun=name, args=args)  # type: ignore[arg-type]
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            left = self.expr(node.left, dtype)
            right = self.expr(node.right, dtype)
            return ir.Call(fun=ARITHMETIC[type(node.op)], args=[left, right])  # type: ignore[list-item]
        raise LoweringError(f"'{ast.unparse(node)}' cannot be lowered in a program")


def _field_param(param: ir.FieldParam | ir.ScalarParam) -> ir.FieldParam:
    assert isinstance(param, ir.FieldParam)  # checked: 'out' is fields
    return param


def _is_scan(operator: Any) -> bool:
    return bool(operator.__gt_signature__.definition.kind == "scan_operator")


def _given_domain(node: ast.expr, expressions: _ProgramExpressions) -> dict[str, ir.Range]:
    """``{Dim: (start, stop), ...}`` of ``domain=`` as ranges by dimension name."""
    assert isinstance(node, ast.Dict)
    given: dict[str, ir.Range] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        assert key is not None  # a ``**mapping`` has no key
        dim_type = expressions.types[key]
        assert isinstance(dim_type, ts.DimensionType)
        dim = dim_type.dim.value
        assert isinstance(value, ast.Tuple)
        start, stop = (expressions.expr(v, np.dtype(INDEX_DTYPE)) for v in value.elts)
        assert isinstance(start, ir.Expr) and isinstance(stop, ir.Expr)  # checked: integers
        given[dim] = ir.Range(dim=dim, start=start, stop=stop)
    return given


def lower_program(program: Any) -> ir.Program:
    """The IR of a ``@program`` (its declared parameter types), from the typed tree its
    frontend check kept (``program.checked``, or a :class:`CheckedProgram` itself)."""
    checked: CheckedProgram = program if isinstance(program, CheckedProgram) else program.checked
    context = LoweringContext()
    params: list[ir.FieldParam | ir.ScalarParam] = []
    env: dict[str, Value] = {}
    for param in checked.params:
        params.extend(flat_params(param.name, param.type))
        env[param.name] = param_value(param.name, param.type)
    by_name = {p.name: p for p in params}
    context.set_params(params)
    expressions = _ProgramExpressions(checked.body, env)
    body: list[ir.Apply | ir.Scan] = []
    for call in checked.calls:
        operator = call.operator
        declared = [type_ for _, type_ in operator.__gt_signature__.params]
        args = [
            expressions.expr(node, dtype_of(type_))
            for node, type_ in zip(call.arguments, declared, strict=True)
        ]
        arg_types = [expressions.types[node] for node in call.arguments]
        outputs = _names(expressions.expr(call.out))
        # each output over its own dims and bounds (the slices apply to each, checked alike)
        domains = [
            sliced(out_domain(_field_param(by_name[o])), list(call.out_slices)) for o in outputs
        ]
        if call.domain is not None:
            nodes = domain_leaves(call.domain)
            if len(nodes) not in (1, len(outputs)):
                raise LoweringError(
                    f"domain= gives {len(nodes)} domains for {len(outputs)} outputs"
                )
            given = [_given_domain(n, expressions) for n in nodes]
            domains = [
                [given[i if len(given) > 1 else 0].get(r.dim, r) for r in domain]
                for i, domain in enumerate(domains)
            ]
        if _is_scan(operator) and (call.domain is None or len(domain_leaves(call.domain)) == 1):
            # a scan sweeps one domain for all its outputs: the first output's, as embedded
            domains = [domains[0]] * len(outputs)
        statements = lower_call(context, operator, args, arg_types, outputs, domains[0])
        body.extend(per_output_domains(statements, domains, operator))
    return _finish(checked.name, params, context, body)


__all__ = ["flat_params", "lower_operator_call", "lower_program", "param_value"]

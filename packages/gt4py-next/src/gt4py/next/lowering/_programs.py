"""Lowering of programs and of direct operator calls (``op(a, out=b, domain=...)``) to IR.

A program becomes one :class:`ir.Program`: its parameters (tuples flattened to
``name__0, name__1, ...``), the neighbour tables its shifts use, and one :class:`ir.Apply` or
:class:`ir.Scan` per operator call, with the call's domain (from ``domain=``, whose bounds are
expressions over scalar parameters, or the bounds of ``out``).
"""

from __future__ import annotations

import ast
import itertools
from typing import Any

import numpy as np

from .. import ir
from .._offsets import FieldOffset
from ..ffront import type_specifications as ts
from ..ffront.checked import CheckedProgram, TypedBody
from ..ir import literal
from ._operators import (
    ARITHMETIC,
    ExpressionLowering,
    LoweringError,
    OperatorLowering,
    Value,
    dtype_of,
)


INDEX_DTYPE = "int64"


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


class LoweringContext:
    """What all operator lowerings of one program share: offsets used, fresh names, and the
    intermediates materialized so far (temporaries with the statements writing them)."""

    def __init__(self, params: list[ir.FieldParam | ir.ScalarParam] | None = None) -> None:
        self.offsets: dict[str, ir.OffsetDecl] = {}
        self.temporaries: list[ir.Temporary] = []
        self.pending: list[ir.Apply | ir.Scan] = []  # written before the statement being lowered
        self.scalar_names: set[str] = set()
        self._locals = itertools.count()
        self.set_params(params or [])

    def fresh_local(self, name: str) -> str:
        """A program-wide unique name for a bound local of an operator body."""
        return f"__l{next(self._locals)}_{name}"

    def set_params(self, params: list[ir.FieldParam | ir.ScalarParam]) -> None:
        self.scalar_names = {p.name for p in params if isinstance(p, ir.ScalarParam)}

    # -- temporaries ----------------------------------------------------------------------------

    def _temporaries_for(self, result_type: Any) -> list[ir.Temporary] | None:
        """Fresh temporaries for an operator result of ``result_type`` (None: not a field)."""
        leaves = _type_leaves(result_type)
        if not all(isinstance(t, ts.FieldType) and t.dims is not None for t in leaves):
            return None
        created = [
            ir.Temporary(
                name=f"__tmp{len(self.temporaries) + i}",
                dims=[d.value for d in t.dims],
                dtype=t.dtype.name,
                domain=[],
            )
            for i, t in enumerate(leaves)
        ]
        self.temporaries.extend(created)
        return created

    def materializable(self, values: list[Value]) -> str | None:
        """Why arguments evaluated at the current point cannot be evaluated on a temporary's
        own domain (None: they can): they use scan carries or a reduction's neighbour."""
        for value in values:
            for leaf in _leaves(value):
                reason = self._free_reference(leaf, frozenset(), frozenset())
                if reason is not None:
                    return reason
        return None

    def _free_reference(
        self, node: ir.Expr, axes: frozenset[str], names: frozenset[str]
    ) -> str | None:
        """A carry / local value, or the neighbour of an enclosing reduction, that ``node``
        uses without binding it itself (reductions and lets inside it bind theirs)."""
        if isinstance(node, ir.SymRef):
            if node.name in self.scalar_names or node.name in names:
                return None
            return f"it uses the local value '{node.name}'"
        if isinstance(node, ir.Deref):
            for shift in node.shifts:
                if isinstance(shift, ir.NeighbourShift) and shift.index is None:
                    decl = self.offsets.get(shift.offset)
                    if decl is None or decl.local not in axes:
                        return "it is inside a reduction over neighbours"
                if isinstance(shift, ir.DynamicShift):
                    reason = self._free_reference(shift.amount, axes, names)
                    if reason is not None:
                        return reason
            return None
        if isinstance(node, ir.Reduce):
            return self._free_reference(node.init, axes, names) or self._free_reference(
                node.body, axes | {node.axis}, names
            )
        if isinstance(node, ir.Let):
            return self._free_reference(node.value, axes, names) or self._free_reference(
                node.body, axes, names | {node.name}
            )
        if isinstance(node, ir.Call):
            for arg in node.args:
                reason = self._free_reference(arg, axes, names)
                if reason is not None:
                    return reason
            return None
        if isinstance(node, ir.Cast):
            return self._free_reference(node.value, axes, names)
        return None  # literals, axis indices, field bounds

    def materialize(self, result: Value, result_type: Any, args: list[Value]) -> Value:
        """A field-operator result as temporaries written by a pending ``Apply`` — a candidate
        the ``temporaries`` pass keeps or inlines again — or ``result`` itself if it cannot
        be computed on its own domain."""
        if self.materializable(args) is not None:
            return result
        temporaries = self._temporaries_for(result_type)
        if temporaries is None:
            return result
        values = _leaves(result)
        if len(values) != len(temporaries):
            self._forget(temporaries)
            return result
        self.pending.append(
            ir.Apply(outputs=[t.name for t in temporaries], domain=[], values=values)
        )
        return _rebuild(result, iter(ir.Deref(field=t.name, shifts=[]) for t in temporaries))

    def materialize_scan(
        self, operator: Any, args: list[Value], arg_types: list[Any], result_type: Any
    ) -> Value:
        """A scan called inside a field operator: always a temporary (its column is needed)."""
        name = operator.__name__
        reason = self.materializable(args)
        if reason is not None:
            raise LoweringError(f"scan operator {name} cannot be computed on its own: {reason}")
        temporaries = self._temporaries_for(result_type)
        if temporaries is None:
            raise LoweringError(f"scan operator {name} does not return fields here")
        carries, init, values = _scan_lowering(self, operator, args, arg_types)
        if len(values) != len(temporaries):
            raise LoweringError(f"{name} gives {len(values)} value(s) for {len(temporaries)}")
        signature = operator.__gt_signature__
        self.pending.append(
            ir.Scan(
                outputs=[t.name for t in temporaries],
                domain=[],
                axis=signature.axis.value,
                forward=operator.forward,
                carries=carries,
                init=init,
                values=values,
            )
        )
        leaves = iter(ir.Deref(field=t.name, shifts=[]) for t in temporaries)
        return _rebuild_type(result_type, leaves)

    def _forget(self, temporaries: list[ir.Temporary]) -> None:
        names = {t.name for t in temporaries}
        self.temporaries = [t for t in self.temporaries if t.name not in names]

    def take_pending(self) -> list[ir.Apply | ir.Scan]:
        pending, self.pending = self.pending, []
        return pending

    def declare_offset(self, offset: FieldOffset) -> None:
        target = offset.target
        self.offsets[offset.value] = ir.OffsetDecl(
            name=offset.value,
            domain_dim=target[0].value,
            local=target[1].value if len(target) == 2 else None,
            codomain=offset.source.value,
        )

    def tables_over(self, body: ir.Expr, axis: str) -> list[str]:
        """The tables whose neighbours along local dimension ``axis`` ``body`` visits."""
        found: list[str] = []
        for node in body.walk_values().if_isinstance(ir.NeighbourShift):
            decl = self.offsets.get(node.offset)
            used = node.index is None and decl is not None and decl.local == axis
            if used and node.offset not in found:
                found.append(node.offset)
        return found

    def int_constant(self, lowering: ExpressionLowering, node: ast.expr) -> int:
        type_ = lowering.type_of(node)
        if isinstance(type_, ts.IntConstantType):
            return type_.value
        value = lowering.constant_value(node)
        if isinstance(value, int):
            return value
        raise lowering.error(node, "offset amounts and indices must be integer constants")


def _scan_lowering(
    context: LoweringContext, operator: Any, args: list[Value], arg_dtypes: list[Any]
) -> tuple[list[str], list[ir.Expr], list[ir.Expr]]:
    """(carry names, init, new carry values) of a scan operator applied to ``args``."""
    definition = operator.__gt_signature__.definition
    carry_param = definition.params[0]
    carry_type = carry_param.type
    carry_names: list[str] = []

    def carry_value(type_: Any, prefix: str) -> Value:
        if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
            return tuple(carry_value(t, f"{prefix}_{i}") for i, t in enumerate(type_.types))
        carry_names.append(prefix)
        return ir.SymRef(name=prefix)

    env: dict[str, Value] = {carry_param.name: carry_value(carry_type, "__carry")}
    for param, value in zip(definition.params[1:], args, strict=True):
        env[param.name] = value
    result = OperatorLowering(context, operator, env).lower()
    values = _leaves(result)
    carry_dtypes = [dtype_of(t) for t in _type_leaves(carry_type)]
    init_values = _leaves_py(operator.init)
    init: list[ir.Expr] = [literal(v, d) for v, d in zip(init_values, carry_dtypes, strict=True)]
    values = [_cast_to(v, d) for v, d in zip(values, carry_dtypes, strict=True)]
    return carry_names, init, values


def _cast_to(value: ir.Expr, dtype: Any) -> ir.Expr:
    if isinstance(value, ir.Literal) and value.dtype != dtype.name:
        return literal(float(value.value) if dtype.kind == "f" else value.value, dtype)
    return value


def _leaves(value: Value) -> list[ir.Expr]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _type_leaves(type_: Any) -> list[Any]:
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return [leaf for t in type_.types for leaf in _type_leaves(t)]
    return [type_]


def _rebuild(shape: Value, leaves: Any) -> Value:
    if isinstance(shape, tuple):
        return tuple(_rebuild(v, leaves) for v in shape)
    return next(leaves)  # type: ignore[no-any-return]


def _rebuild_type(type_: Any, leaves: Any) -> Value:
    if isinstance(type_, (ts.TupleType, ts.NamedCollectionType)):
        return tuple(_rebuild_type(t, leaves) for t in type_.types)
    return next(leaves)  # type: ignore[no-any-return]


def _leaves_py(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves_py(v)]
    return [value]


def _names(value: Any) -> list[str]:
    if isinstance(value, tuple):
        return [n for v in value for n in _names(v)]
    assert isinstance(value, ir.Deref) and not value.shifts
    return [value.field]


def lower_call(
    context: LoweringContext,
    operator: Any,
    args: list[Value],
    arg_types: list[Any],
    outputs: list[str],
    domain: list[ir.Range],
) -> list[ir.Apply | ir.Scan]:
    """One operator call writing into ``outputs`` over ``domain``, preceded by the statements
    writing the temporaries it reads."""
    statement = _lower_one_call(context, operator, args, arg_types, outputs, domain)
    return [*context.take_pending(), statement]


def _lower_one_call(
    context: LoweringContext,
    operator: Any,
    args: list[Value],
    arg_types: list[Any],
    outputs: list[str],
    domain: list[ir.Range],
) -> ir.Apply | ir.Scan:
    signature = operator.__gt_signature__
    if signature.definition.kind == "scan_operator":
        carries, init, values = _scan_lowering(
            context, operator, args, [dtype_of(t) for t in arg_types]
        )
        if len(values) != len(outputs):
            raise LoweringError(
                f"{operator.__name__} gives {len(values)} value(s) for {len(outputs)} output(s)"
            )
        return ir.Scan(
            outputs=outputs,
            domain=domain,
            axis=signature.axis.value,
            forward=operator.forward,
            carries=carries,
            init=init,
            values=values,
        )
    env = {name: value for (name, _), value in zip(signature.params, args, strict=True)}
    result = OperatorLowering(context, operator, env).lower()
    values = _leaves(result)
    if len(values) == 1 and len(outputs) > 1:
        values = values * len(outputs)
    if len(values) != len(outputs):
        raise LoweringError(
            f"{operator.__name__} gives {len(values)} value(s) for {len(outputs)} output(s)"
        )
    out_dtypes = [None] * len(outputs)
    return ir.Apply(outputs=outputs, domain=domain, values=[*values][: len(out_dtypes)])


def out_domain(out_param: ir.FieldParam) -> list[ir.Range]:
    return [
        ir.Range(
            dim=d,
            start=ir.FieldBound(field=out_param.name, dim=d, upper=False),
            stop=ir.FieldBound(field=out_param.name, dim=d, upper=True),
        )
        for d in out_param.dims
    ]


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
    operator: Any, arg_types: list[Any], out_type: Any, domain_dims: list[str] | None
) -> ir.Program:
    """The program of ``operator(*args, out=out, domain=...)`` for these argument types.

    Parameters: the operator's arguments, then ``__out`` (flattened for tuples), then, if a
    domain is given, ``__domain_<dim>_start`` / ``_stop`` for each of ``domain_dims``.
    """
    signature = operator.__gt_signature__
    context = LoweringContext()
    params: list[ir.FieldParam | ir.ScalarParam] = []
    args: list[Value] = []
    for (name, _), type_ in zip(signature.params, arg_types, strict=True):
        params.extend(flat_params(name, type_))
        args.append(param_value(name, type_))
    out_params = flat_params("__out", out_type)
    params.extend(out_params)
    outputs = [p.name for p in out_params]
    first = out_params[0]
    assert isinstance(first, ir.FieldParam)
    if domain_dims is None:
        domain = out_domain(first)
    else:
        unknown = [d for d in domain_dims if d not in first.dims]
        if unknown:
            raise LoweringError(f"domain= names {', '.join(unknown)}, which 'out' does not have")
        given: dict[str, ir.Range] = {}
        for dim in domain_dims:  # parameters in the order the caller gave the bounds
            start, stop = f"__domain_{dim}_start", f"__domain_{dim}_stop"
            params.append(ir.ScalarParam(name=start, dtype=INDEX_DTYPE))
            params.append(ir.ScalarParam(name=stop, dtype=INDEX_DTYPE))
            given[dim] = ir.Range(dim=dim, start=ir.SymRef(name=start), stop=ir.SymRef(name=stop))
        domain = [given.get(r.dim, r) for r in out_domain(first)]
    context.set_params(params)
    statements = lower_call(context, operator, args, arg_types, outputs, domain)
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
            return ir.Call(fun="neg", args=[inner])  # type: ignore[list-item]
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


def _sliced(domain: list[ir.Range], slices: list[tuple[int | None, int | None]]) -> list[ir.Range]:
    """The output domain cut by positional slices relative to the field's own bounds."""

    def bound(r: ir.Range, value: int | None, default: ir.Expr) -> ir.Expr:
        if value is None:
            return default
        base = r.stop if value < 0 else r.start
        return ir.Call(fun="plus", args=[base, literal(value, INDEX_DTYPE)])

    result = list(domain)
    for position, (start, stop) in enumerate(slices):
        r = result[position]
        result[position] = ir.Range(
            dim=r.dim, start=bound(r, start, r.start), stop=bound(r, stop, r.stop)
        )
    return result


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


def _domain_leaves(node: ast.expr) -> list[ast.expr]:
    """The domains of ``domain=``, one per output field: nested tuples (for an output that is
    a tuple or NamedTuple of fields) flattened in order."""
    if isinstance(node, ast.Tuple):
        return [leaf for element in node.elts for leaf in _domain_leaves(element)]
    return [node]


def _per_output_domains(
    statements: list[ir.Apply | ir.Scan], domains: list[list[ir.Range]], operator: Any
) -> list[ir.Apply | ir.Scan]:
    """``domain=({...}, {...})``: each output written over its own domain. An ``Apply`` is
    split into one statement per distinct domain (the values are pure: recomputing them is
    safe); a scan's outputs must share one domain."""
    *pending, last = statements
    if all(_same_domain(d, domains[0]) for d in domains[1:]):
        return statements
    if isinstance(last, ir.Scan):
        raise LoweringError(
            f"the outputs of scan operator {operator.__name__} are given different domains; "
            "a scan computes all its outputs over one domain"
        )
    entries = list(zip(last.outputs, last.values, domains, strict=True))
    # An output is written only once no other value reads it: directly or, preferably, through
    # the temporaries of ``pending`` (computed before the split statements, but the
    # ``temporaries`` pass may inline them into them: it keeps them only where it must).
    through = _temporary_sources(pending)
    order = _write_order(entries, through) or _write_order(entries, {})
    if order is None:
        names = ", ".join(repr(o) for o, _, _ in entries)
        raise LoweringError(
            f"{operator.__name__} writes {names} over different domains and each is read "
            "for another: pass separate output fields"
        )
    split = [ir.Apply(outputs=[o], domain=d, values=[v]) for o, v, d in order]
    return [*pending, *split]


def _write_order(
    entries: list[tuple[str, ir.Expr, list[ir.Range]]], through: dict[str, set[str]]
) -> list[tuple[str, ir.Expr, list[ir.Range]]] | None:
    """``entries`` ordered so that no output is written before another value reads it (None:
    there is a cycle); reads of a temporary count as reads of the fields in ``through``."""
    reads = [_fields_read(value, through) for _, value, _ in entries]
    remaining = list(range(len(entries)))
    order = []
    while remaining:
        for index in remaining:
            output = entries[index][0]
            if not any(output in reads[i] for i in remaining if i != index):
                order.append(entries[index])
                remaining.remove(index)
                break
        else:
            return None
    return order


def _fields_read(value: ir.Expr, through: dict[str, set[str]]) -> set[str]:
    fields: set[str] = set()
    for deref in value.walk_values().if_isinstance(ir.Deref):
        fields |= through.get(deref.field, {deref.field})
    return fields


def _temporary_sources(pending: list[ir.Apply | ir.Scan]) -> dict[str, set[str]]:
    """The fields each temporary written by ``pending`` is computed from, through the
    temporaries it reads in turn (each output of a scan: everything the scan reads)."""
    through: dict[str, set[str]] = {}
    for statement in pending:
        if isinstance(statement, ir.Apply):
            for output, value in zip(statement.outputs, statement.values, strict=True):
                through[output] = _fields_read(value, through)
        else:
            fields = set().union(
                *(_fields_read(v, through) for v in [*statement.init, *statement.values])
            )
            through.update(dict.fromkeys(statement.outputs, fields))
    return through


def _same_domain(a: list[ir.Range], b: list[ir.Range]) -> bool:
    from ..ir import expr_text

    return [(r.dim, expr_text(r.start), expr_text(r.stop)) for r in a] == [
        (r.dim, expr_text(r.start), expr_text(r.stop)) for r in b
    ]


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
        first = by_name[outputs[0]]
        assert isinstance(first, ir.FieldParam)
        domain = _sliced(out_domain(first), list(call.out_slices))
        domains = [domain] * len(outputs)
        if call.domain is not None:
            nodes = _domain_leaves(call.domain)
            if len(nodes) not in (1, len(outputs)):
                raise LoweringError(
                    f"domain= gives {len(nodes)} domains for {len(outputs)} outputs"
                )
            given = [_given_domain(n, expressions) for n in nodes]
            domains = [
                [given[i if len(given) > 1 else 0].get(r.dim, r) for r in domain]
                for i in range(len(outputs))
            ]
        statements = lower_call(context, operator, args, arg_types, outputs, domains[0])
        body.extend(_per_output_domains(statements, domains, operator))
    return _finish(checked.name, params, context, body)

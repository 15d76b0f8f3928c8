"""Lowering of one operator call into the statements that write its outputs: an ``Apply`` of
its (inlined) body, or a ``Scan`` with carries, init and new carry values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import ir
from ..ffront import type_specifications as ts
from ..ir import literal
from ._errors import LoweringError
from ._operators import OperatorLowering
from ._values import Value, dtype_of, leaves, type_leaves


if TYPE_CHECKING:
    from ._context import LoweringContext


def scan_lowering(
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
    values = leaves(result)
    carry_dtypes = [dtype_of(t) for t in type_leaves(carry_type)]
    init_values = _leaves_py(operator.init)
    init: list[ir.Expr] = [literal(v, d) for v, d in zip(init_values, carry_dtypes, strict=True)]
    values = [_cast_to(v, d) for v, d in zip(values, carry_dtypes, strict=True)]
    return carry_names, init, values


def _cast_to(value: ir.Expr, dtype: Any) -> ir.Expr:
    if isinstance(value, ir.Literal) and value.dtype != dtype.name:
        return literal(float(value.value) if dtype.kind == "f" else value.value, dtype)
    return value


def _leaves_py(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves_py(v)]
    return [value]


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
    signature = operator.__gt_signature__
    statement: ir.Apply | ir.Scan
    if signature.definition.kind == "scan_operator":
        carries, init, values = scan_lowering(
            context, operator, args, [dtype_of(t) for t in arg_types]
        )
        _check_value_count(operator, values, outputs)
        statement = ir.Scan(
            outputs=outputs,
            domain=domain,
            axis=signature.axis.value,
            forward=operator.forward,
            carries=carries,
            init=init,
            values=values,
        )
    else:
        env = {name: value for (name, _), value in zip(signature.params, args, strict=True)}
        result = OperatorLowering(context, operator, env).lower()
        values = leaves(result)
        if len(values) == 1 and len(outputs) > 1:
            values = values * len(outputs)
        _check_value_count(operator, values, outputs)
        statement = ir.Apply(outputs=outputs, domain=domain, values=[*values])
    return [*context.take_pending(), statement]


def _check_value_count(operator: Any, values: list[ir.Expr], outputs: list[str]) -> None:
    if len(values) != len(outputs):
        raise LoweringError(
            f"{operator.__name__} gives {len(values)} value(s) for {len(outputs)} output(s)"
        )


__all__ = ["lower_call", "scan_lowering"]

"""The frontend entry points: from a Python function to a checked definition (or a DSLError)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .._dimensions import Dimension
from ..errors import DSLError, DSLTypeError
from . import type_specifications as ts
from ._annotations import member_names, type_of_value
from ._ir import OperatorDefinition, Parameter, ProgramDefinition
from ._program_checking import ProgramTypeDeduction
from ._result_shifts import forwards_requested_domain
from ._scan_conditionals import level_function
from ._signature import OperatorSignature
from ._source import SourceDefinition
from ._type_deduction import OperatorTypeDeduction
from ._type_rules import same_type
from .checked import CheckedOperator, CheckedProgram, TypedBody


def _parameters(checker: OperatorTypeDeduction) -> list[Parameter]:
    arguments = checker.source.tree.args
    nodes = {a.arg: a for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    return [
        Parameter(name=name, type=type_, location=checker.location(nodes[name]))
        for name, type_ in checker.parameters
    ]


def _typed_body(checker: OperatorTypeDeduction) -> TypedBody:
    return TypedBody(
        tree=checker.source.tree,
        expression_types=checker.expression_types,
        constants=checker.constants,
    )


def check_operator(
    function: Callable[..., Any],
    *,
    scan_axis: Dimension | None = None,
    init: Any = None,
) -> CheckedOperator:
    """Parse and type-check a field operator (or, with ``scan_axis``, a scan operator)."""
    source = SourceDefinition.from_function(function)
    is_scan = scan_axis is not None
    checker = OperatorTypeDeduction(source, is_scan=is_scan).run()
    assert checker.return_type is not None
    if is_scan:
        _check_scan(checker, init)
    definition = OperatorDefinition(
        name=function.__name__,
        kind="scan_operator" if is_scan else "field_operator",
        params=_parameters(checker),
        returns=checker.declared_return or checker.return_type,
        location=source.location(source.tree),
        body=source.tree,
        expression_types=checker.expression_types,
    )
    signature = OperatorSignature(
        definition,
        scan_axis,
        forwards_requested_domain=forwards_requested_domain(
            source.tree.body, checker.expression_types
        ),
        level_function=level_function(source, checker.expression_types) if is_scan else None,
    )
    return CheckedOperator(signature=signature, body=_typed_body(checker))


def _check_scan(checker: OperatorTypeDeduction, init: Any) -> None:
    tree = checker.source.tree
    if not checker.parameters:
        raise DSLError(
            checker.location(tree),
            "a scan operator's first parameter is the carry (the value of the previous level)",
        )
    carry_name, carry_type = checker.parameters[0]
    if not same_type(checker.return_type, carry_type):
        raise DSLTypeError(
            checker.location(tree.returns or tree),
            f"a scan operator returns its new carry: the return type {checker.return_type} must "
            f"be the type of '{carry_name}', {carry_type}",
        )
    init_type = _init_type(init)
    if init_type is None or not ts.is_assignable(init_type, carry_type):
        raise DSLTypeError(
            checker.location(tree),
            f"init={init!r} does not fit the carry '{carry_name}' of type {carry_type}",
        )


def _init_type(init: Any) -> ts.TypeSpec | None:
    cls = type(init)
    if dataclasses.is_dataclass(init) or (isinstance(init, tuple) and hasattr(cls, "_fields")):
        names = member_names(init)
        members = [_init_type(getattr(init, n)) for n in names]
        if any(t is None for t in members):
            return None
        return ts.NamedCollectionType(cls, names, tuple(members))  # type: ignore[arg-type]
    if isinstance(init, tuple):
        types_ = [_init_type(v) for v in init]
        if any(t is None for t in types_):
            return None
        return ts.TupleType(tuple(types_))  # type: ignore[arg-type]
    return type_of_value(init)


def check_program(function: Callable[..., Any]) -> CheckedProgram:
    """Parse and type-check a program; lowering reads the result (it parses nothing again)."""
    source = SourceDefinition.from_function(function)
    checker = ProgramTypeDeduction(source).run()
    definition = ProgramDefinition(
        name=function.__name__,
        params=_parameters(checker),
        calls=checker.calls,
        location=source.location(source.tree),
    )
    return CheckedProgram(
        definition=definition, body=_typed_body(checker), calls=tuple(checker.bound_calls)
    )

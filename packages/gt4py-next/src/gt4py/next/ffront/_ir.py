"""The checked frontend definition of an operator or program, as eve nodes.

The frontend keeps the Python syntax tree as the body (annotated with types by
:mod:`._type_deduction`) and records what callers and backends need: parameters with types
and locations, the return type, and for programs the operator calls of the body.
"""

from __future__ import annotations

import ast
from typing import Any

from gt4py.eve import Node, SourceLocation, datamodels


class Parameter(Node):
    name: str
    type: Any  # a type_specifications.TypeSpec
    location: SourceLocation


class OperatorDefinition(Node):
    """A type-checked field operator (``kind="field_operator"``) or scan operator."""

    name: str
    kind: str
    params: list[Parameter]
    returns: Any  # the deduced return type
    location: SourceLocation
    body: ast.FunctionDef = datamodels.field(fingerprint=False)
    expression_types: dict[Any, Any] = datamodels.field(fingerprint=False)


class OperatorCall(Node):
    """``op(args..., out=..., domain=...)`` inside a program."""

    callee: str
    location: SourceLocation


class ProgramDefinition(Node):
    name: str
    params: list[Parameter]
    calls: list[OperatorCall]
    location: SourceLocation

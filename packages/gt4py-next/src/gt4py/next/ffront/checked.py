"""What the frontend hands to lowering: checked definitions that keep their typed syntax tree.

This module, :mod:`.type_specifications` and :mod:`.fbuiltins` are all lowering may import
of the frontend (a tach interface says so): lowering reads the tree the frontend parsed, the
types it deduced and the globals it resolved, and never parses or type-checks again.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from typing import Any

from . import type_specifications as ts
from ._ir import Parameter, ProgramDefinition
from ._signature import OperatorSignature


@dataclasses.dataclass(frozen=True, eq=False)
class TypedBody:
    """A definition's syntax tree with what the type deduction learned about it."""

    tree: ast.FunctionDef
    expression_types: Mapping[ast.AST, ts.TypeSpec]
    #: names and ``module.CONST`` chains that refer to a global Python or numpy scalar, with the
    #: value they had when the definition was checked
    constants: Mapping[ast.AST, Any]


@dataclasses.dataclass(frozen=True, eq=False)
class CheckedOperator:
    """A checked field or scan operator: its callable interface and its typed body."""

    signature: OperatorSignature
    body: TypedBody


@dataclasses.dataclass(frozen=True, eq=False)
class ProgramCall:
    """One ``op(args..., out=..., domain=...)`` statement of a program, bound and checked."""

    node: ast.Call
    operator: Any  # the FieldOperator / ScanOperator called
    arguments: tuple[ast.expr, ...]  # in the operator's parameter order
    out: ast.expr  # the output field(s), slices removed
    out_slices: tuple[tuple[int | None, int | None], ...]  # of the first output, by position
    domain: ast.expr | None  # the ``domain=`` expression as written


@dataclasses.dataclass(frozen=True, eq=False)
class CheckedProgram:
    """A checked program: its definition node, typed body and operator calls."""

    definition: ProgramDefinition
    body: TypedBody
    calls: tuple[ProgramCall, ...]

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def params(self) -> list[Parameter]:
        return self.definition.params


__all__ = ["CheckedOperator", "CheckedProgram", "ProgramCall", "TypedBody"]

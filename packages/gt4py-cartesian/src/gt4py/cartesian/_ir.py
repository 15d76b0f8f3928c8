"""The definition IR: a GTScript stencil after parsing, inlining and external substitution.

Every name is resolved: parameters and temporaries are declared, externals are literals,
GTScript functions are inlined. Statements keep where they are in the user's file in ``loc``.
"""

from __future__ import annotations

from typing import Literal as TypingLiteral

from gt4py.eve import Node, SourceLocation as SourceLocation  # the type of every `loc`


class Expr(Node):
    pass


class Stmt(Node):
    loc: SourceLocation


class Constant(Expr):
    """A literal; ``value`` is its Python repr."""

    value: str
    dtype: str


class ScalarRef(Expr):
    name: str


class FieldRef(Expr):
    """A field read or write: relative offset, optional absolute or variable K, data index.

    Each data index is an ``int`` (a compile-time index, checked against the data dimension's
    size when the stencil is defined) or an integer ``Expr`` computed at run time (checked
    when the stencil runs, ADR 0046); negative ones count from the end as in Python."""

    name: str
    offset: tuple[int, int, int]
    data_index: tuple[int | Expr, ...] = ()
    k_absolute: Expr | None = None  # a.at(K=expr): K index counted from the field's origin
    k_variable: Expr | None = None  # a[0, 0, expr]: K offset computed at run time


def has_checked_index(ref: FieldRef) -> bool:
    """Whether ``ref`` has an index checked at run time: absolute or variable K, or a data
    index computed at run time."""
    return (
        ref.k_absolute is not None
        or ref.k_variable is not None
        or any(isinstance(i, Expr) for i in ref.data_index)
    )


class BinaryOp(Expr):
    op: str  # a Python operator token: + - * / // % ** < <= > >= == != and or
    left: Expr
    right: Expr


class UnaryOp(Expr):
    op: str  # - + not
    operand: Expr


class TernaryOp(Expr):
    condition: Expr
    true_value: Expr
    false_value: Expr


class KIndex(Expr):
    """``K`` used as a value: the current level's index, counted from the compute domain's
    first level (int64)."""


class Call(Expr):
    func: str  # a name of gtscript.MATH_BUILTINS
    args: list[Expr]


class Cast(Expr):
    dtype: str
    value: Expr


class Assign(Stmt):
    target: FieldRef
    value: Expr


class If(Stmt):
    condition: Expr
    body: list[Stmt]
    orelse: list[Stmt]


class While(Stmt):
    condition: Expr
    body: list[Stmt]


class AxisPosition(Node):
    """A position on an axis relative to the compute domain: ``start + offset`` or ``end + offset``."""

    level: TypingLiteral["start", "end"]
    offset: int


class HorizontalRegion(Stmt):
    """``with horizontal(region[i, j])``; a missing bound is unbounded.

    ``horizontal(r1, r2, ...)`` is one of these per region, in order, each with the body.
    """

    i_start: AxisPosition | None
    i_end: AxisPosition | None
    j_start: AxisPosition | None
    j_end: AxisPosition | None
    body: list[Stmt]


class IntervalBlock(Node):
    start: AxisPosition
    end: AxisPosition
    body: list[Stmt]
    loc: SourceLocation


class Computation(Node):
    order: TypingLiteral["PARALLEL", "FORWARD", "BACKWARD"]
    intervals: list[IntervalBlock]
    loc: SourceLocation


class FieldDecl(Node):
    name: str
    dtype: str
    axes: str  # "IJK", "IJ", "K", ...
    data_dims: tuple[int, ...] = ()


class ScalarDecl(Node):
    name: str
    dtype: str


class Stencil(Node):
    name: str
    params: list[FieldDecl | ScalarDecl]
    temporaries: list[FieldDecl]
    computations: list[Computation]
    loc: SourceLocation

"""A small expression IR for the eve tests (module level, so strict fingerprints can name it)."""

from __future__ import annotations

import enum

from gt4py import eve


class BinaryOperator(enum.Enum):
    ADD = "+"
    SUB = "-"
    MUL = "*"


class SymbolName(eve.ConstrainedStr):
    """A declared name (a str subclass, as IRs' identifier types are)."""

    __slots__ = ()
    pattern = r"[A-Za-z_][A-Za-z0-9_]*"


class SymbolRef(eve.ConstrainedStr):
    """A use of a declared name."""

    __slots__ = ()
    pattern = r"[A-Za-z_][A-Za-z0-9_]*"


class Expr(eve.Node):
    pass


class Literal(Expr):
    value: int


class Name(Expr):
    id: SymbolRef


class BinOp(Expr):
    op: BinaryOperator
    left: Expr
    right: Expr


class Call(Expr):
    func: str
    args: list[Expr]


class Sym(eve.Node):
    id: SymbolName


class Assign(eve.Node):
    target: Sym
    value: Expr
    loc: eve.SourceLocation | None = eve.field(default=None, compare=False, repr=False)


class Lambda(Expr):
    params: list[Sym]
    body: Expr


class Module(eve.Node):
    name: str
    body: list[Assign]
    comment: str = eve.field(default="", fingerprint=False)


def balanced_expr(depth: int, leaf_start: int = 0) -> Expr:
    """A complete binary tree of BinOps with ``2**depth`` Literal leaves."""
    if depth == 0:
        return Literal(value=leaf_start)
    half = 2 ** (depth - 1)
    return BinOp(
        op=BinaryOperator.ADD,
        left=balanced_expr(depth - 1, leaf_start),
        right=balanced_expr(depth - 1, leaf_start + half),
    )


def large_module(n_statements: int = 1500, depth: int = 5) -> Module:
    """A module of ``n_statements`` assignments ``v<i> = <balanced tree> * v<i-1>``.

    Each statement has 4 + (2**(depth+1) - 1) nodes; the defaults give 1500 * 67 + 1 = 100 501.
    """
    body = [
        Assign(
            target=Sym(id=f"v{i}"),
            value=BinOp(
                op=BinaryOperator.MUL,
                left=balanced_expr(depth, i),
                right=Name(id=f"v{i - 1}") if i else Literal(value=0),
            ),
        )
        for i in range(n_statements)
    ]
    return Module(name="big", body=body)

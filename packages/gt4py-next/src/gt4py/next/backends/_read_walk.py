"""The walk over a field read's shifts, shared by the generators; each spells its own language.

A read (``ir.Deref``) applies its shifts in order to the position of the point being
computed: a Cartesian shift adds to one index, a dynamic one moves by a value read at run time
and is clamped to the field (as on embedded, ADR 0005), a local index fixes a neighbour axis,
and a neighbour shift replaces the index of its domain dimension by a table entry. What the
C++ and the Python generators differ in is how each of those is written, and how a neighbour
entry is loaded; :class:`ReadSpelling` is that difference.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .. import ir


class ReadSpelling(Protocol):
    """How a generator writes the parts of a read (all arguments and results are code)."""

    def clamped_move(
        self, field: str, dim: str, at: str, amount: ir.Expr, position: Mapping[str, str]
    ) -> str:
        """``at`` moved by ``amount`` (an expression evaluated at ``position``, the read's own),
        clamped to the field."""
        ...

    def row_inside(self, at: str, table: str) -> str:
        """The condition that row ``at`` is inside neighbour table ``table``."""
        ...

    def column_inside(self, column: str, table: str) -> str:
        """The condition that column ``column`` is inside neighbour table ``table``."""
        ...

    def neighbour_entry(
        self,
        decl: ir.OffsetDecl,
        at: str,
        column: str | None,
        checked: bool,
        *,
        iterated: bool,
        outer: int,
    ) -> str:
        """The index a neighbour table gives for row ``at`` (and ``column``; None: a table of
        one column). An ``iterated`` column (a neighbour loop's, not a fixed index) may hit a
        skip value: the spelling records its mask (``outer``: enclosing loops to pass)."""
        ...


def walk_read(
    spelling: ReadSpelling,
    node: ir.Deref,
    position: Mapping[str, str],
    offsets: Mapping[str, ir.OffsetDecl],
    checked: bool,
) -> tuple[dict[str, str], list[str]]:
    """The read's position, index by dimension, and (if ``checked``) the conditions that its
    table lookups are inside their tables; the field's own bounds are the caller's to add."""
    pos = dict(position)
    inside: list[str] = []
    for shift in node.shifts:
        if isinstance(shift, ir.CartesianShift):
            pos[shift.dim] = f"({pos[shift.dim]} + {shift.amount})"
        elif isinstance(shift, ir.DynamicShift):
            pos[shift.dim] = spelling.clamped_move(
                node.field, shift.dim, pos[shift.dim], shift.amount, position
            )
        elif isinstance(shift, ir.LocalIndex):
            pos[shift.dim] = str(shift.index)
        else:
            assert isinstance(shift, ir.NeighbourShift)
            decl = offsets[shift.offset]
            at = pos.pop(decl.domain_dim)
            column = None
            if decl.local is not None:
                column = (
                    str(shift.index)
                    if shift.index is not None
                    else pos[ir.neighbour_key(decl.local, shift.outer)]
                )
            if checked:
                inside.append(spelling.row_inside(at, decl.name))
                if column is not None:
                    inside.append(spelling.column_inside(column, decl.name))
            pos[decl.codomain] = spelling.neighbour_entry(
                decl, at, column, checked, iterated=shift.index is None, outer=shift.outer
            )
    return pos, inside


__all__ = ["ReadSpelling", "walk_read"]

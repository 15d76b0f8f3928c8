"""The walk over a field read's shifts, shared by the generators; each spells its own language.

A read (``ir.Deref``) applies its shifts in order to the position of the point being
computed: a Cartesian shift adds to one index, a dynamic one moves by a value read at run time
and is clamped to the field (as on embedded, ADR 0005), a local index fixes a neighbour axis,
and a neighbour shift replaces the index of its domain dimension by a table entry. What the
C++ and the Python generators differ in is how each of those is written, and how a neighbour
entry is loaded: the methods :class:`ReadWalker` leaves to each generator. The state both keep
for a program's reads (its fields, offsets, status codes, enclosing reductions) is set up here.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping

from .. import ir
from ._extents import checked_at_run_time, field_codes


class ReadWalker(abc.ABC):
    """The base of a generator: the fields (temporaries included) and offsets of ``program``,
    the walk over a read's shifts, and the parts of a read each generator writes in its own
    language (all their arguments and results are code)."""

    def __init__(self, program: ir.Program, *, check_every_read: bool = False) -> None:
        self.program = program
        self.check_every_read = check_every_read
        self.fields = {p.name: p for p in program.params if isinstance(p, ir.FieldParam)}
        for temporary in program.temporaries:  # read and written like fields
            self.fields[temporary.name] = ir.FieldParam(
                name=temporary.name, dims=temporary.dims, dtype=temporary.dtype
            )
        self.offsets = {o.name: o for o in program.offsets}
        self.codes = field_codes(program)
        # per enclosing reduction (innermost last): its local dimension and the skip checks
        # of the table lookups its body makes, at the points they are really made
        self._masks: list[tuple[str, list[str]]] = []
        self._guards = 0  # > 0 inside a branch that is only evaluated conditionally

    def checked_per_point(self, node: ir.Deref, guarded: bool) -> bool:
        """Whether the generated code checks this read per point (the others are checked
        before the call: backends/_extents.py)."""
        return node.field in self.codes and (
            self.check_every_read or checked_at_run_time(node, guarded)
        )

    def walk_read(
        self, node: ir.Deref, position: Mapping[str, str], checked: bool
    ) -> tuple[dict[str, str], list[str]]:
        """The read's position, index by dimension, and (if ``checked``) the conditions that
        its table lookups are inside their tables; the field's own bounds are the caller's
        to add."""
        pos = dict(position)
        inside: list[str] = []
        for shift in node.shifts:
            if isinstance(shift, ir.CartesianShift):
                pos[shift.dim] = f"({pos[shift.dim]} + {shift.amount})"
            elif isinstance(shift, ir.DynamicShift):
                pos[shift.dim] = self.clamped_move(
                    node.field, shift.dim, pos[shift.dim], shift.amount, position
                )
            elif isinstance(shift, ir.LocalIndex):
                pos[shift.dim] = str(shift.index)
            else:
                assert isinstance(shift, ir.NeighbourShift)
                decl = self.offsets[shift.offset]
                at = pos.pop(decl.domain_dim)
                column = None
                if decl.local is not None:
                    column = (
                        str(shift.index)
                        if shift.index is not None
                        else pos[ir.neighbour_key(decl.local, shift.outer)]
                    )
                if checked:
                    inside.append(self.row_inside(at, decl.name))
                    if column is not None:
                        inside.append(self.column_inside(column, decl.name))
                pos[decl.codomain] = self.neighbour_entry(
                    decl, at, column, checked, iterated=shift.index is None, outer=shift.outer
                )
        return pos, inside

    # -- the parts of a read, in the generator's language ---------------------------------------

    @abc.abstractmethod
    def clamped_move(
        self, field: str, dim: str, at: str, amount: ir.Expr, position: Mapping[str, str]
    ) -> str:
        """``at`` moved by ``amount`` (an expression evaluated at ``position``, the read's own),
        clamped to the field."""

    @abc.abstractmethod
    def row_inside(self, at: str, table: str) -> str:
        """The condition that row ``at`` is inside neighbour table ``table``."""

    @abc.abstractmethod
    def column_inside(self, column: str, table: str) -> str:
        """The condition that column ``column`` is inside neighbour table ``table``."""

    @abc.abstractmethod
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
        skip value: the generator records its mask (``outer``: enclosing loops to pass)."""


__all__ = ["ReadWalker"]

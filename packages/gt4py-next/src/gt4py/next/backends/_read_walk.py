"""The walk over a field read's shifts, shared by the generators; each spells its own language.

A read (``ir.Deref``) applies its shifts in order to the position of the point being
computed: a Cartesian shift adds to one index, a dynamic one moves by a value read at run time
and is clamped to the field (as on embedded, ADR 0005), a local index fixes a neighbour axis,
and a neighbour shift replaces the index of its domain dimension by a table entry. What the
C++ and the Python generators differ in is how each of those is written, and how a neighbour
entry is loaded: the methods :class:`ReadWalker` leaves to each generator. The state both keep
for a program's reads (its fields, offsets, status codes, enclosing reductions and the skip
checks they collect, conditionally evaluated call arguments) is kept here.
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
        to add (:meth:`field_inside`)."""
        pos = dict(position)
        inside: list[str] = []
        for shift in node.shifts:
            if isinstance(shift, ir.CartesianShift):
                pos[shift.dim] = f"({pos[shift.dim]} + {shift.amount})"
            elif isinstance(shift, ir.DynamicShift):
                amount = self.expr(shift.amount, dict(position))
                pos[shift.dim] = self.clamped_move(node.field, shift.dim, pos[shift.dim], amount)
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
                    inside.append(self.in_range(at, "0", self.table_rows(decl.name)))
                    if column is not None:
                        inside.append(self.in_range(column, "0", self.table_columns(decl.name)))
                entry = self.table_entry(decl.name, at, column, checked)
                if column is not None and shift.index is None:
                    # a neighbour loop's column may hit a skip value: mask it out of the
                    # reduction (``outer``: enclosing same-axis loops to pass)
                    skip_check = self.skip_check(entry, decl.name)
                    if skip_check is not None:
                        self._record_mask(decl, skip_check, shift.outer)
                pos[decl.codomain] = self.as_index(entry)
        return pos, inside

    def field_inside(self, field: str, pos: Mapping[str, str]) -> list[str]:
        """The conditions that position ``pos`` is inside ``field``'s bounds."""
        return [
            self.in_range(pos[d], f"{field}_lo_{d}", f"{field}_hi_{d}")
            for d in self.fields[field].dims
        ]

    def call_args(self, node: ir.Call, position: dict[str, str]) -> list[str]:
        """The code of a call's arguments; the later ones of ``if_``/``and_``/``or_`` are
        evaluated only conditionally (guarded: their reads are checked per point)."""
        lazy = 1 if node.fun in ("if_", "and_", "or_") else len(node.args)
        args = [self.expr(a, position) for a in node.args[:lazy]]
        self._guards += 1
        try:
            args.extend(self.expr(a, position) for a in node.args[lazy:])
        finally:
            self._guards -= 1
        return args

    def _record_mask(self, decl: ir.OffsetDecl, check: str, outer: int = 0) -> None:
        """Add ``check`` to the skip checks of the enclosing reduction over ``decl``'s local
        dimension, ``outer`` same-axis reductions out."""
        for depth, (axis, checks) in enumerate(reversed(self._masks)):
            if axis == decl.local and outer:
                outer -= 1
            elif axis == decl.local:
                check = self.mask_at_depth(check, depth)
                if check not in checks:
                    checks.append(check)
                return

    # -- the parts of a read, in the generator's language ---------------------------------------

    @abc.abstractmethod
    def expr(self, node: ir.Expr, position: dict[str, str]) -> str:
        """The code of ``node`` evaluated at ``position``."""

    @abc.abstractmethod
    def clamped_move(self, field: str, dim: str, at: str, amount: str) -> str:
        """``at`` moved by ``amount`` (the code of a value read at the read's own position),
        clamped to the field."""

    @abc.abstractmethod
    def in_range(self, value: str, lo: str, hi: str) -> str:
        """The condition ``lo <= value < hi``."""

    @abc.abstractmethod
    def table_rows(self, table: str) -> str:
        """The number of rows of neighbour table ``table``."""

    @abc.abstractmethod
    def table_columns(self, table: str) -> str:
        """The number of columns of neighbour table ``table``."""

    @abc.abstractmethod
    def table_entry(self, table: str, at: str, column: str | None, checked: bool) -> str:
        """The entry of neighbour table ``table`` at row ``at`` (and ``column``; None: a table
        of one column); ``checked``: the row and column may be outside the table."""

    @abc.abstractmethod
    def skip_check(self, entry: str, table: str) -> str | None:
        """The condition that ``entry`` of ``table`` is not its skip value (None: the table
        has none)."""

    def as_index(self, entry: str) -> str:
        """A table entry as an index of the dimension it points into."""
        return entry

    def mask_at_depth(self, check: str, depth: int) -> str:
        """A skip check made ``depth`` reductions inside the one it masks, as that one's."""
        return check


__all__ = ["ReadWalker"]

"""Moving a lowered value to a shifted point (lowering; the temporaries pass inlines with it)."""

from __future__ import annotations

from collections.abc import Mapping

from .. import ir
from ..ir import literal
from ._errors import LoweringError
from ._values import Value


class ShiftPusher:
    """Moves a lowered value: every field read (and index) happens at the shifted point."""

    def __init__(self, shift: ir.Shift, locals_of: Mapping[str, str | None] | None = None) -> None:
        self.shift = shift
        # offset name -> its local dimension: a neighbour shift pushed into a reduction over
        # the same local dimension must skip it (``outer``); needed for ``index=None`` shifts
        self.locals_of = locals_of

    def apply(self, value: Value) -> Value:
        if isinstance(value, tuple):
            return tuple(self.apply(v) for v in value)
        return self._expr(value)

    def _expr(self, node: ir.Expr) -> ir.Expr:
        if isinstance(node, ir.Deref):
            return ir.Deref(field=node.field, shifts=[self.shift, *map(self._shift, node.shifts)])
        if isinstance(node, ir.AxisIndex):
            shift = self.shift
            if isinstance(shift, ir.CartesianShift):
                if shift.dim != node.dim:
                    return node
                return ir.Call(fun="plus", args=[node, literal(shift.amount, "int32")])
            if isinstance(shift, ir.DynamicShift) and shift.dim != node.dim:
                return node
            raise LoweringError(
                "shifting a concat_where / domain-condition result by a neighbour or dynamic "
                "offset is not supported by the compiled backends yet"
            )
        if isinstance(node, (ir.Literal, ir.SymRef, ir.FieldBound)):
            return node
        if isinstance(node, (ir.Call, ir.Cast, ir.Let)):
            return ir.map_children(node, self._expr)
        if isinstance(node, ir.Reduce):
            return ir.Reduce(
                op=node.op,
                axis=node.axis,
                init=node.init,
                body=self._into_reduction(node.axis)._expr(node.body),
                tables=node.tables,
            )
        raise TypeError(f"cannot shift {node!r}")

    def _into_reduction(self, axis: str) -> ShiftPusher:
        shift = self.shift
        if not (isinstance(shift, ir.NeighbourShift) and shift.index is None):
            return self
        if self.locals_of is None:
            raise LoweringError(
                f"internal: pushing {shift.offset}[*] into a reduction needs the offsets' "
                "local dimensions"
            )
        if self.locals_of.get(shift.offset) != axis:
            return self
        outer = ir.NeighbourShift(offset=shift.offset, index=None, outer=shift.outer + 1)
        return ShiftPusher(outer, self.locals_of)

    def _shift(self, shift: ir.Shift) -> ir.Shift:
        if isinstance(shift, ir.DynamicShift):
            return ir.DynamicShift(dim=shift.dim, amount=self._expr(shift.amount))
        return shift


__all__ = ["ShiftPusher"]

"""What the operator lowerings of one program share (:class:`LoweringContext`): the offsets
used, fresh names, and the intermediates materialized so far (candidate temporaries)."""

from __future__ import annotations

import ast
import itertools
from typing import Any

from .. import ir
from .._offsets import FieldOffset
from ..ffront import type_specifications as ts
from ._calls import scan_lowering
from ._errors import LoweringError
from ._expressions import ExpressionLowering
from ._values import Value, leaves, rebuild, rebuild_from_type, type_leaves


class LoweringContext:
    """What all operator lowerings of one program share: offsets used, fresh names, and the
    intermediates materialized so far (temporaries with the statements writing them)."""

    def __init__(self, params: list[ir.FieldParam | ir.ScalarParam] | None = None) -> None:
        self.offsets: dict[str, ir.OffsetDecl] = {}
        self.temporaries: list[ir.Temporary] = []
        self.pending: list[ir.Apply | ir.Scan] = []  # written before the statement being lowered
        self.scalar_names: set[str] = set()
        self._locals = itertools.count()
        self.set_params(params or [])

    def fresh_local(self, name: str) -> str:
        """A program-wide unique name for a bound local of an operator body."""
        return f"__l{next(self._locals)}_{name}"

    def set_params(self, params: list[ir.FieldParam | ir.ScalarParam]) -> None:
        self.scalar_names = {p.name for p in params if isinstance(p, ir.ScalarParam)}

    # -- temporaries ----------------------------------------------------------------------------

    def _temporaries_for(self, result_type: Any) -> list[ir.Temporary] | None:
        """Fresh temporaries for an operator result of ``result_type`` (None: not a field)."""
        leaves = type_leaves(result_type)
        if not all(isinstance(t, ts.FieldType) and t.dims is not None for t in leaves):
            return None
        created = [
            ir.Temporary(
                name=f"__tmp{len(self.temporaries) + i}",
                dims=[d.value for d in t.dims],
                dtype=t.dtype.name,
                domain=[],
            )
            for i, t in enumerate(leaves)
        ]
        self.temporaries.extend(created)
        return created

    def materializable(self, values: list[Value]) -> str | None:
        """Why arguments evaluated at the current point cannot be evaluated on a temporary's
        own domain (None: they can): they use scan carries or a reduction's neighbour."""
        for value in values:
            for leaf in leaves(value):
                reason = self._free_reference(leaf, frozenset(), frozenset())
                if reason is not None:
                    return reason
        return None

    def _free_reference(
        self, node: ir.Expr, axes: frozenset[str], names: frozenset[str]
    ) -> str | None:
        """A carry / local value, or the neighbour of an enclosing reduction, that ``node``
        uses without binding it itself (reductions and lets inside it bind theirs)."""
        if isinstance(node, ir.SymRef):
            if node.name in self.scalar_names or node.name in names:
                return None
            return f"it uses the local value '{node.name}'"
        if isinstance(node, ir.Deref):
            for shift in node.shifts:
                if isinstance(shift, ir.NeighbourShift) and shift.index is None:
                    decl = self.offsets.get(shift.offset)
                    if decl is None or decl.local not in axes:
                        return "it is inside a reduction over neighbours"
                if isinstance(shift, ir.DynamicShift):
                    reason = self._free_reference(shift.amount, axes, names)
                    if reason is not None:
                        return reason
            return None
        if isinstance(node, ir.Reduce):
            return self._free_reference(node.init, axes, names) or self._free_reference(
                node.body, axes | {node.axis}, names
            )
        if isinstance(node, ir.Let):
            return self._free_reference(node.value, axes, names) or self._free_reference(
                node.body, axes, names | {node.name}
            )
        if isinstance(node, ir.Call):
            for arg in node.args:
                reason = self._free_reference(arg, axes, names)
                if reason is not None:
                    return reason
            return None
        if isinstance(node, ir.Cast):
            return self._free_reference(node.value, axes, names)
        return None  # literals, axis indices, field bounds

    def materialize(self, result: Value, result_type: Any, args: list[Value]) -> Value:
        """A field-operator result as temporaries written by a pending ``Apply`` — a candidate
        the ``temporaries`` pass keeps or inlines again — or ``result`` itself if it cannot
        be computed on its own domain."""
        if self.materializable(args) is not None:
            return result
        temporaries = self._temporaries_for(result_type)
        if temporaries is None:
            return result
        values = leaves(result)
        if len(values) != len(temporaries):
            self._forget(temporaries)
            return result
        self.pending.append(
            ir.Apply(outputs=[t.name for t in temporaries], domain=[], values=values)
        )
        return rebuild(result, iter(ir.Deref(field=t.name, shifts=[]) for t in temporaries))

    def materialize_scan(
        self, operator: Any, args: list[Value], arg_types: list[Any], result_type: Any
    ) -> Value:
        """A scan called inside a field operator: always a temporary (its column is needed)."""
        name = operator.__name__
        reason = self.materializable(args)
        if reason is not None:
            raise LoweringError(f"scan operator {name} cannot be computed on its own: {reason}")
        temporaries = self._temporaries_for(result_type)
        if temporaries is None:
            raise LoweringError(f"scan operator {name} does not return fields here")
        carries, init, values = scan_lowering(self, operator, args, arg_types)
        if len(values) != len(temporaries):
            raise LoweringError(f"{name} gives {len(values)} value(s) for {len(temporaries)}")
        signature = operator.__gt_signature__
        self.pending.append(
            ir.Scan(
                outputs=[t.name for t in temporaries],
                domain=[],
                axis=signature.axis.value,
                forward=operator.forward,
                carries=carries,
                init=init,
                values=values,
            )
        )
        leaves = iter(ir.Deref(field=t.name, shifts=[]) for t in temporaries)
        return rebuild_from_type(result_type, leaves)

    def _forget(self, temporaries: list[ir.Temporary]) -> None:
        names = {t.name for t in temporaries}
        self.temporaries = [t for t in self.temporaries if t.name not in names]

    def take_pending(self) -> list[ir.Apply | ir.Scan]:
        pending, self.pending = self.pending, []
        return pending

    def declare_offset(self, offset: FieldOffset) -> None:
        target = offset.target
        self.offsets[offset.value] = ir.OffsetDecl(
            name=offset.value,
            domain_dim=target[0].value,
            local=target[1].value if len(target) == 2 else None,
            codomain=offset.source.value,
        )

    def tables_over(self, body: ir.Expr, axis: str) -> list[str]:
        """The tables whose neighbours along local dimension ``axis`` ``body`` visits."""
        found: list[str] = []
        for node in body.walk_values().if_isinstance(ir.NeighbourShift):
            decl = self.offsets.get(node.offset)
            used = node.index is None and decl is not None and decl.local == axis
            if used and node.offset not in found:
                found.append(node.offset)
        return found

    def int_constant(self, lowering: ExpressionLowering, node: ast.expr) -> int:
        type_ = lowering.type_of(node)
        if isinstance(type_, ts.IntConstantType):
            return type_.value
        value = lowering.constant_value(node)
        if isinstance(value, int):
            return value
        raise lowering.error(node, "offset amounts and indices must be integer constants")


__all__ = ["LoweringContext"]

"""Domain inference: which points of each temporary are needed.

Statements are visited last to first. A read ``$t(I+1, I+1, J-2)`` inside a statement over
domain ``D`` needs ``t`` on ``D`` moved by the read's total Cartesian offset per dimension;
a temporary's domain is the bounding box of everything its readers need, and the statement
writing it runs over that box (so a temporary read by another temporary's statement extends
in turn). Bounds are IR expressions: over the same base range the box is ``start + min
offset .. stop + max offset``; different base ranges are combined with ``minimum`` /
``maximum``.

A read in a branch of an ``if_`` whose condition bounds the point's index (``concat_where``'s
``K < n``, also shifted: ``K + 1 < n``, and ``&`` of such) is needed only where the condition
selects that branch: the base range is cut to those points first. Without the cut a scan read
as ``concat_where(K + 1 < n, s(K + 1), ...)`` would be swept from level ``n``, where its own
inputs do not exist (``if_`` only evaluates the branch it takes, so the cut is safe).

A temporary read through a neighbour table or a dynamic (``as_offset``) shift has no
statically known box: :class:`DomainInferenceError` names it. Temporaries nobody reads are
dropped with the statement writing them.
"""

from __future__ import annotations

from collections.abc import Iterator

from gt4py.eve import Node, NodeTranslator

from .. import ir
from ..ir import expr_text
from ..lowering import LoweringError


class DomainInferenceError(LoweringError):
    """The points of a temporary its readers need cannot be worked out statically."""


def _index(value: int) -> ir.Literal:
    return ir.Literal(value=str(value), dtype="int64")


def _moved(bound: ir.Expr, amount: int) -> ir.Expr:
    if amount == 0:
        return bound
    if isinstance(bound, ir.Literal) and bound.dtype == "int64":
        return _index(int(bound.value) + amount)
    return ir.Call(fun="plus", args=[bound, _index(amount)])


class _Need:
    """The bounding box of a temporary's needed points along one dimension."""

    def __init__(self) -> None:
        # base range (as text) -> (range, lowest offset, highest offset)
        self.by_base: dict[tuple[str, str], tuple[ir.Range, int, int]] = {}

    def add(self, base: ir.Range, amount: int) -> None:
        key = (expr_text(base.start), expr_text(base.stop))
        known = self.by_base.get(key)
        if known is None:
            self.by_base[key] = (base, amount, amount)
        else:
            self.by_base[key] = (known[0], min(known[1], amount), max(known[2], amount))

    def range(self, dim: str) -> ir.Range:
        starts = [_moved(r.start, lo) for r, lo, _ in self.by_base.values()]
        stops = [_moved(r.stop, hi) for r, _, hi in self.by_base.values()]
        start, stop = starts[0], stops[0]
        for other in starts[1:]:
            start = ir.Call(fun="minimum", args=[start, other])
        for other in stops[1:]:
            stop = ir.Call(fun="maximum", args=[stop, other])
        return ir.Range(dim=dim, start=start, stop=stop)


#: ``(dim, first, stop)``: the point's index along ``dim`` lies in ``[first, stop)`` (``None``:
#: unbounded on that side).
_Guard = tuple[str, ir.Expr | None, ir.Expr | None]

_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq"}
_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}


def _index_plus(node: ir.Expr, bound: dict[str, ir.Expr]) -> tuple[str, int] | None:
    """``index<D> + a`` (as a shifted condition reads) -> ``(D, a)``."""
    if isinstance(node, ir.SymRef) and node.name in bound:
        return _index_plus(bound[node.name], bound)
    if isinstance(node, ir.AxisIndex):
        return node.dim, 0
    if isinstance(node, ir.Call) and node.fun in ("plus", "minus") and len(node.args) == 2:
        left, right = node.args
        if node.fun == "plus" and _int_literal(left) is not None:
            left, right = right, left
        amount = _int_literal(right)
        inner = _index_plus(left, bound)
        if inner is not None and amount is not None:
            return inner[0], inner[1] + (amount if node.fun == "plus" else -amount)
    return None


def _int_literal(node: ir.Expr) -> int | None:
    if isinstance(node, ir.Literal) and node.dtype.startswith(("int", "uint")):
        return int(node.value)
    return None


def _point_independent(node: ir.Expr, scalars: set[str], bound: dict[str, ir.Expr]) -> bool:
    for n in node.walk_values():
        if isinstance(n, (ir.Deref, ir.AxisIndex, ir.Reduce, ir.Let)):
            return False
        if (
            isinstance(n, ir.SymRef)
            and n.name not in scalars
            and (n.name not in bound or not _point_independent(bound[n.name], scalars, bound))
        ):
            return False
    return True


class _Resolve(NodeTranslator):
    """Replaces names bound by ``Let``s (around a condition) by their values."""

    def __init__(self, bound: dict[str, ir.Expr]) -> None:
        self.bound = bound

    def visit_SymRef(self, node: ir.SymRef) -> ir.Expr:
        value = self.bound.get(node.name)
        return node if value is None else self.visit(value)


def _resolved(node: ir.Expr, bound: dict[str, ir.Expr]) -> ir.Expr:
    """``node`` (point-independent) with no ``Let``-bound names: a domain bound has none."""
    return _Resolve(bound).visit(node) if bound else node


def _guards(
    condition: ir.Expr, holds: bool, scalars: set[str], bound: dict[str, ir.Expr]
) -> list[_Guard]:
    """What ``condition`` being ``holds`` says about the point's indices (conservatively:
    possibly less than all)."""
    if isinstance(condition, ir.SymRef) and condition.name in bound:
        return _guards(bound[condition.name], holds, scalars, bound)
    if not isinstance(condition, ir.Call):
        return []
    fun, args = condition.fun, condition.args
    if fun == "not_":
        return _guards(args[0], not holds, scalars, bound)
    if (fun == "and_" and holds) or (fun == "or_" and not holds):
        return [g for a in args for g in _guards(a, holds, scalars, bound)]
    if fun not in _NEGATED or len(args) != 2:
        return []
    op = fun if holds else _NEGATED[fun]
    index, limit = _index_plus(args[0], bound), args[1]
    if index is None:
        index, limit, op = _index_plus(args[1], bound), args[0], _FLIPPED.get(op, "ne")
    if index is None or op == "ne" or not _point_independent(limit, scalars, bound):
        return []
    dim, amount = index
    at = _moved(_resolved(limit, bound), -amount)  # index + amount <op> limit <=> index <op> at
    if op == "lt":
        return [(dim, None, at)]
    if op == "le":
        return [(dim, None, _moved(at, 1))]
    if op == "gt":
        return [(dim, _moved(at, 1), None)]
    if op == "ge":
        return [(dim, at, None)]
    return [(dim, at, _moved(at, 1))]  # eq


def guarded_reads(
    node: Node,
    scalars: set[str],
    guards: tuple[_Guard, ...] = (),
    bound: dict[str, ir.Expr] | None = None,
    in_branch: bool = False,
) -> Iterator[tuple[ir.Deref, tuple[_Guard, ...], bool]]:
    """Every field read in ``node`` with the index bounds of the ``if_`` branches it is in
    and whether it is in one at all (a branch whose condition bounds no index: no bounds)."""
    bound = bound or {}
    if isinstance(node, ir.Deref):
        yield node, guards, in_branch
        for shift in node.shifts:
            if isinstance(shift, ir.DynamicShift):
                yield from guarded_reads(shift.amount, scalars, guards, bound, in_branch)
        return
    if isinstance(node, ir.Call) and node.fun == "if_" and len(node.args) == 3:
        condition, then, otherwise = node.args
        yield from guarded_reads(condition, scalars, guards, bound, in_branch)
        for branch, holds in ((then, True), (otherwise, False)):
            cut = _guards(condition, holds, scalars, bound)
            yield from guarded_reads(branch, scalars, (*guards, *cut), bound, True)
        return
    if isinstance(node, ir.Let):
        yield from guarded_reads(node.value, scalars, guards, bound, in_branch)
        inner = {**bound, node.name: node.value}
        yield from guarded_reads(node.body, scalars, guards, inner, in_branch)
        return
    for child in node.iter_children_values():
        for item in child if isinstance(child, list) else [child]:
            if isinstance(item, Node):
                yield from guarded_reads(item, scalars, guards, bound, in_branch)


def bounded_by_guards(read: ir.Deref, guards: tuple[_Guard, ...]) -> bool:
    """Whether a read in a branch needs no point beyond its statement's domain cut by
    ``guards``: each dimension it is shifted along is bounded by them on the side it moves
    to (``concat_where(K < n, t(K + 1), ...)``)."""
    offsets: dict[str, int] = {}
    for shift in read.shifts:
        if not isinstance(shift, (ir.CartesianShift, ir.LocalIndex)):
            return False
        if isinstance(shift, ir.CartesianShift):
            offsets[shift.dim] = offsets.get(shift.dim, 0) + shift.amount
    for dim, amount in offsets.items():
        sides = [(first, end) for d, first, end in guards if d == dim]
        if amount > 0 and not any(end is not None for _, end in sides):
            return False
        if amount < 0 and not any(first is not None for first, _ in sides):
            return False
    return True


def _cut(base: ir.Range, guards: tuple[_Guard, ...]) -> ir.Range:
    start, stop = base.start, base.stop
    for dim, first, end in guards:
        if dim != base.dim:
            continue
        if first is not None:
            start = ir.Call(fun="maximum", args=[start, first])
        if end is not None:
            stop = ir.Call(fun="minimum", args=[stop, end])
    if start is base.start and stop is base.stop:
        return base
    return ir.Range(dim=base.dim, start=start, stop=stop)


def _record_reads(
    statement: ir.Apply | ir.Scan,
    temporaries: dict[str, ir.Temporary],
    needs: dict[str, dict[str, _Need]],
    scalars: set[str],
) -> None:
    ranges = {r.dim: r for r in statement.domain}
    for value in statement.values:
        for read, guards, _ in guarded_reads(value, scalars):
            temporary = temporaries.get(read.field)
            if temporary is None:
                continue
            offsets = dict.fromkeys(temporary.dims, 0)
            for shift in read.shifts:
                if isinstance(shift, ir.LocalIndex):
                    continue
                if not isinstance(shift, ir.CartesianShift):
                    kind = (
                        "a neighbour table" if isinstance(shift, ir.NeighbourShift) else "as_offset"
                    )
                    raise DomainInferenceError(
                        f"temporary {read.field} (an intermediate result over "
                        f"{', '.join(temporary.dims)}) is read through {kind} "
                        f"({expr_text(read)}): the points it is needed at are not known "
                        "statically; compute it in a separate field operator call instead"
                    )
                if shift.dim in offsets:
                    offsets[shift.dim] += shift.amount
            per_dim = needs.setdefault(read.field, {})
            for dim, amount in offsets.items():
                if dim not in ranges:
                    raise DomainInferenceError(
                        f"temporary {read.field} has dimension {dim}, which the domain of the "
                        f"statement reading it ({', '.join(ranges) or 'none'}) lacks"
                    )
                per_dim.setdefault(dim, _Need()).add(_cut(ranges[dim], guards), amount)


def infer_domains(program: ir.Program) -> ir.Program:
    """``program`` with each temporary's domain (and its writer's domain) inferred."""
    temporaries = {t.name: t for t in program.temporaries}
    scalars = {p.name for p in program.params if isinstance(p, ir.ScalarParam)}
    needs: dict[str, dict[str, _Need]] = {}
    body: list[ir.Apply | ir.Scan] = []
    domains: dict[str, list[ir.Range]] = {}
    for original in reversed(program.body):
        statement = original
        written = [o for o in statement.outputs if o in temporaries]
        if written:
            if set(written) != set(statement.outputs):
                raise DomainInferenceError(
                    f"statement writing {', '.join(statement.outputs)} mixes temporaries "
                    "and program fields"
                )
            # one statement computes all its outputs over one domain: the union of their needs
            merged: dict[str, _Need] = {}
            for name in written:
                for dim, need in needs.get(name, {}).items():
                    target = merged.setdefault(dim, _Need())
                    for base, lo, hi in need.by_base.values():
                        target.add(base, lo)
                        target.add(base, hi)
            if not merged:
                continue  # nobody reads it
            dims = temporaries[written[0]].dims
            domain = [merged[d].range(d) for d in dims]
            statement = ir.statement_with(statement, domain=domain, values=statement.values)
            for name in written:
                domains[name] = domain
        _record_reads(statement, temporaries, needs, scalars)
        body.insert(0, statement)
    return ir.Program(
        name=program.name,
        params=program.params,
        offsets=program.offsets,
        body=body,
        temporaries=[
            ir.Temporary(name=t.name, dims=t.dims, dtype=t.dtype, domain=domains[t.name])
            for t in program.temporaries
            if t.name in domains
        ],
    )

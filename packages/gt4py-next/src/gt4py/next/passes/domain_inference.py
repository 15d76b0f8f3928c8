"""Domain inference: which points of each temporary are needed.

Statements are visited last to first. A read ``$t(I+1, I+1, J-2)`` inside a statement over
domain ``D`` needs ``t`` on ``D`` moved by the read's total Cartesian offset per dimension;
a temporary's domain is the bounding box of everything its readers need, and the statement
writing it runs over that box (so a temporary read by another temporary's statement extends
in turn). Bounds are IR expressions: over the same base range the box is ``start + min
offset .. stop + max offset``; different base ranges are combined with ``minimum`` /
``maximum``.

A temporary read through a neighbour table or a dynamic (``as_offset``) shift has no
statically known box: :class:`DomainInferenceError` names it. Temporaries nobody reads are
dropped with the statement writing them.
"""

from __future__ import annotations

from .. import ir
from ..ir import LoweringError, expr_text


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


def _record_reads(
    statement: ir.Apply | ir.Scan,
    temporaries: dict[str, ir.Temporary],
    needs: dict[str, dict[str, _Need]],
) -> None:
    ranges = {r.dim: r for r in statement.domain}
    for value in statement.values:
        for read in value.walk_values().if_isinstance(ir.Deref):
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
                per_dim.setdefault(dim, _Need()).add(ranges[dim], amount)


def _with_domain(statement: ir.Apply | ir.Scan, domain: list[ir.Range]) -> ir.Apply | ir.Scan:
    if isinstance(statement, ir.Apply):
        return ir.Apply(outputs=statement.outputs, domain=domain, values=statement.values)
    return ir.Scan(
        outputs=statement.outputs,
        domain=domain,
        axis=statement.axis,
        forward=statement.forward,
        carries=statement.carries,
        init=statement.init,
        values=statement.values,
    )


def infer_domains(program: ir.Program) -> ir.Program:
    """``program`` with each temporary's domain (and its writer's domain) inferred."""
    temporaries = {t.name: t for t in program.temporaries}
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
            statement = _with_domain(statement, domain)
            for name in written:
                domains[name] = domain
        _record_reads(statement, temporaries, needs)
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

"""Temporaries vs recomputation: which intermediates stay materialized (heuristic: ADR 0013).

Lowering writes every field-operator result that *could* be computed on its own domain into
a candidate temporary (an ``Apply`` into ``__tmpN``) and every scan called inside a field
operator into a required one (a ``Scan`` into ``__tmpN``). This pass keeps the required ones
and, per ``policy``, keeps or inlines the candidates: an inlined candidate's value replaces
each read of it, moved by the read's shifts (exactly what lowering without temporaries gives).

Policies:

- ``"recompute"``: inline every candidate (scans are still materialized: they must be).
- ``"materialize"``: keep every candidate whose reads a domain can be inferred for: only
  Cartesian shifts, and a read shifted inside a ``where`` branch only where the branch's
  index condition bounds the shift (``concat_where(K < n, t(K + 1), t)``: domain inference
  cuts the box to the levels it selects; a data-dependent condition would leave the box
  reaching past what is read). A candidate read in a branch is also kept only if it cannot
  trap (integer division) at the points the branch would have skipped.
- ``"auto"`` (default): keep a candidate only where recomputing it costs clearly more than a
  store and a load: it must qualify for ``"materialize"``, be read at several distinct points
  (offsets, counted per reading statement: each statement recomputes its own copy), and
  (reads - 1) x its cost in loads and operations must reach ``AUTO_MIN_SAVED_WORK``.

Whatever the policy, a candidate is kept where inlining would change what it reads: when a
statement between it and a reader overwrites a field its values read (lowering orders the
writes of per-output domains to avoid that where it can; this is the fallback).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Literal

from .. import ir
from ..lowering import LoweringError, ShiftPusher
from .domain_inference import bounded_by_guards, guarded_reads


Policy = Literal["auto", "materialize", "recompute"]
POLICIES: tuple[Policy, ...] = ("auto", "materialize", "recompute")

#: Work (loads + operations per point) recomputation must repeat before ``auto`` materializes.
#: Chosen from ``benchmarks/next_temporaries_bench.py`` (ADR 0013): recomputing lap(lap(a))'s
#: inner Laplacian (5 reads, 4 extra points: 4 x 9 = 36) is faster than materializing it.
AUTO_MIN_SAVED_WORK = 64


def _reads(
    node: ir.Expr, targets: frozenset[str], occurrences: ir.Occurrences, guarded: bool = False
) -> Iterator[tuple[ir.Deref, bool]]:
    """The reads of ``targets`` in ``node`` with whether they sit in a ``where`` branch, in
    pre-order (which fixes the order of the names inlining binds); subtrees that read none
    of them are skipped."""
    if targets.isdisjoint(occurrences.fields(node)):
        return
    if isinstance(node, ir.Deref):
        if node.field in targets:
            yield node, guarded
        for shift in node.shifts:
            if isinstance(shift, ir.DynamicShift):
                yield from _reads(shift.amount, targets, occurrences, guarded)
        return
    if isinstance(node, ir.Call) and node.fun == "if_":
        yield from _reads(node.args[0], targets, occurrences, guarded)
        for branch in node.args[1:]:
            yield from _reads(branch, targets, occurrences, True)
        return
    for child in ir.children(node):
        yield from _reads(child, targets, occurrences, guarded)


def _offset(shifts: list[ir.CartesianShift]) -> tuple[tuple[str, int], ...]:
    total: dict[str, int] = {}
    for shift in shifts:
        total[shift.dim] = total.get(shift.dim, 0) + shift.amount
    return tuple(sorted((d, a) for d, a in total.items() if a != 0))


def _cost(value: ir.Expr) -> int:
    """Loads plus operations of evaluating ``value`` at one point."""
    return sum(
        1
        for node in value.walk_values()
        if isinstance(node, (ir.Deref, ir.Call, ir.Cast, ir.Reduce))
    )


class _Inline:
    """Replaces reads of inlined temporaries by their values, moved by the read's shifts; a
    read repeated at the same point becomes a name bound once (``shared``: read key -> name),
    not a copy of the value per read (copies of copies: exponential in a chain of calls).
    Subtrees reading none of the temporaries are kept as they are (the same objects)."""

    def __init__(
        self,
        values: dict[str, ir.Expr],
        locals_of: dict[str, str | None],
        memo: _PassMemo,
        shared: dict[tuple[object, ...], str] | None = None,
    ) -> None:
        self.values = values
        self.targets = frozenset(values)
        self.locals_of = locals_of
        self.occurrences = memo.occurrences
        self.moved_memo = memo.moved
        self.shared = shared or {}

    def expr(self, node: ir.Expr) -> ir.Expr:
        if self.targets.isdisjoint(self.occurrences.fields(node)):
            return node
        if isinstance(node, ir.Deref):
            return self._deref(node)
        if isinstance(node, (ir.Call, ir.Cast, ir.Let, ir.Reduce)):
            return ir.map_children(node, self.expr)
        raise TypeError(f"cannot inline into {node!r}")

    def range(self, node: ir.Range) -> ir.Range:
        start, stop = self.expr(node.start), self.expr(node.stop)
        if start is node.start and stop is node.stop:
            return node
        return ir.Range(dim=node.dim, start=start, stop=stop)

    def _deref(self, node: ir.Deref) -> ir.Expr:
        shifts = ir.map_shifts(node.shifts, self.expr)
        value = self.values.get(node.field)
        if value is None:
            return ir.Deref(field=node.field, shifts=shifts)
        key = _read_key(node)
        name = self.shared.get(key) if key is not None else None
        if name is not None:
            return ir.SymRef(name=name)
        return self.moved(value, shifts)

    def moved(self, value: ir.Expr, shifts: list[ir.Shift]) -> ir.Expr:
        """``value`` read at the point ``shifts`` lead to; one shared copy per value and
        static shifts in the whole pass (statements reading an intermediate at the same
        offset share it: equal trees, less to build and to walk)."""
        key = _shifts_key(shifts)
        if key is not None:
            found = self.moved_memo.get((id(value), key))
            if found is not None and found[0] is value:
                return found[1]
        moved: ir.Expr = value
        for shift in reversed(shifts):  # each push prepends: the first shift ends up first
            moved = ShiftPusher(shift, self.locals_of).apply(moved)  # type: ignore[assignment]
        if key is not None:
            self.moved_memo[id(value), key] = (value, moved)
        return moved


def _shifts_key(shifts: list[ir.Shift]) -> tuple[object, ...] | None:
    """Shifts by value (None: a dynamic shift, whose amount is an expression)."""
    key: list[object] = []
    for shift in shifts:
        if isinstance(shift, ir.CartesianShift):
            key.append((shift.dim, shift.amount))
        elif isinstance(shift, ir.NeighbourShift):
            key.append((shift.offset, shift.index, shift.outer))
        elif isinstance(shift, ir.LocalIndex):
            key.append((shift.dim, "@", shift.index))
        else:
            return None
    return tuple(key)


def _read_key(read: ir.Deref) -> tuple[object, ...] | None:
    """What identifies a read's value wherever it is (None: it depends on where it is: the
    neighbour of an enclosing reduction, or a position read from a field)."""
    if any(isinstance(s, ir.NeighbourShift) and s.index is None for s in read.shifts):
        return None
    shifts = _shifts_key(read.shifts)
    return None if shifts is None else (read.field, *shifts)


def _inline_into(
    expr: ir.Expr,
    values: dict[str, ir.Expr],
    locals_of: dict[str, str | None],
    names: Iterator[str],
    memo: _PassMemo,
) -> ir.Expr:
    """``expr`` with the reads of the temporaries ``values`` replaced by their values, each
    value read more than once at the same point bound once (eagerly if it is safe to compute
    everywhere, else where its reads are evaluated: ``ir.bind``)."""
    counts: dict[tuple[object, ...], list[ir.Deref]] = {}
    occurrences = memo.occurrences
    for read, _ in _reads(expr, frozenset(values), occurrences):
        key = _read_key(read)
        if key is not None:
            counts.setdefault(key, []).append(read)
    plain = _Inline(values, locals_of, memo)
    moved: dict[tuple[object, ...], ir.Expr] = {}
    for key, reads in counts.items():
        value = plain.moved(values[reads[0].field], reads[0].shifts)
        if len(reads) >= 2 and not ir.is_leaf(value):
            moved[key] = value
    if not moved:
        return plain.expr(expr)
    shared = {key: next(names) for key in moved}
    result: ir.Expr = _Inline(values, locals_of, memo, shared).expr(expr)
    for key, name in shared.items():
        value = moved[key]
        result = ir.bind(result, name, value, eager=ir.eager_safe(value), occurrences=occurrences)
    return result


class _PassMemo:
    """What one run of the pass works out once: which fields each subtree reads (the pass
    asks per candidate, which re-walking every statement would make quadratic in the
    program's size: ICON's graupel has over a hundred candidates) and the moved copies of
    inlined values."""

    def __init__(self, scalars: set[str]) -> None:
        self.scalars = scalars  # the program's scalar parameters (bounds of index conditions)
        self.occurrences = ir.Occurrences()
        self.moved: dict[tuple[int, tuple[object, ...]], tuple[ir.Expr, ir.Expr]] = {}

    def reads(
        self, statement: ir.Apply | ir.Scan, targets: frozenset[str]
    ) -> Iterator[tuple[ir.Deref, bool]]:
        for value in statement.values:
            yield from _reads(value, targets, self.occurrences)

    def shifts_bounded(self, statement: ir.Apply | ir.Scan, targets: frozenset[str]) -> bool:
        """Whether every shifted read of ``targets`` in a branch of ``statement`` is bounded
        by its branches' index conditions (domain inference cuts the box to them)."""
        return all(
            bounded_by_guards(read, guards)
            for value in statement.values
            for read, guards, in_branch in guarded_reads(value, self.scalars)
            if in_branch and read.field in targets
        )

    def fields(self, statement: ir.Apply | ir.Scan) -> frozenset[str]:
        return frozenset().union(*(self.occurrences.fields(v) for v in statement.values))


def _keep(
    statement: ir.Apply,
    later: list[ir.Apply | ir.Scan],
    policy: Policy,
    min_saved_work: int,
    memo: _PassMemo,
) -> bool:
    if policy == "recompute":
        return False
    outputs = frozenset(statement.outputs)
    # the distinct computations inlining makes: per reading statement, per offset read at
    # (each statement evaluates its own copy: ICON's graupel writes 28 outputs, one statement
    # each, from the same intermediates)
    points: set[tuple[int, tuple[tuple[str, int], ...]]] = set()
    read_in_branch = False
    for position, other in enumerate(later):
        shifted_in_branch = False
        for read, guarded in memo.reads(other, outputs):
            if not all(isinstance(s, ir.CartesianShift) for s in read.shifts):
                return False  # through a neighbour table or as_offset: no box to infer
            offset = _offset(read.shifts)  # type: ignore[arg-type]
            read_in_branch = read_in_branch or guarded
            shifted_in_branch = shifted_in_branch or (guarded and bool(offset))
            points.add((position, offset))
        if shifted_in_branch and not memo.shifts_bounded(other, outputs):
            return False  # a shifted read in a branch would widen the box past its need
    if not points:
        return False
    if read_in_branch and any(ir.may_trap(v) for v in statement.values):
        return False  # the branch kept it from trapping (integer division) where not taken
    if policy == "materialize":
        return True
    distinct = len(points)
    cost = max(_cost(v) for v in statement.values)
    return distinct > 1 and (distinct - 1) * cost >= min_saved_work


def _overwritten_before_read(
    statement: ir.Apply, later: list[ir.Apply | ir.Scan], memo: _PassMemo
) -> bool:
    """Whether a statement of ``later`` overwrites a field that ``statement``'s values read
    before another one reads what ``statement`` wrote: inlined there, the values would see
    the new contents (e.g. ``out=(a, b)`` written over different domains, ``b`` computed
    by a candidate from the old ``a``)."""
    sources = memo.fields(statement)
    outputs = set(statement.outputs)
    overwritten = False
    for other in later:
        if overwritten and not outputs.isdisjoint(memo.fields(other)):
            return True
        overwritten = overwritten or not sources.isdisjoint(other.outputs)
    return False


def _inline_statement(
    statement: ir.Apply | ir.Scan,
    values: dict[str, ir.Expr],
    locals_of: dict[str, str | None],
    names: Iterator[str],
    memo: _PassMemo,
) -> ir.Apply | ir.Scan:
    inline = _Inline(values, locals_of, memo)
    new = [_inline_into(v, values, locals_of, names, memo) for v in statement.values]
    domain = [inline.range(r) for r in statement.domain]
    init = [inline.expr(i) for i in statement.init] if isinstance(statement, ir.Scan) else None
    return ir.statement_with(statement, domain=domain, values=new, init=init)


def choose_temporaries(
    program: ir.Program, policy: Policy = "auto", *, min_saved_work: int = AUTO_MIN_SAVED_WORK
) -> ir.Program:
    """``program`` with the candidate temporaries ``policy`` does not keep inlined."""
    if policy not in POLICIES:
        raise ValueError(
            f"unknown temporaries policy {policy!r}; expected one of {', '.join(POLICIES)}"
        )
    temporaries = {t.name: t for t in program.temporaries}
    names = (f"__inl{i}" for i in itertools.count())
    kept: list[ir.Apply | ir.Scan] = []
    dropped: set[str] = set()
    memo = _PassMemo({p.name for p in program.params if isinstance(p, ir.ScalarParam)})
    for statement in reversed(program.body):
        writes_candidate = isinstance(statement, ir.Apply) and any(
            o in temporaries for o in statement.outputs
        )
        if not writes_candidate or _keep(statement, kept, policy, min_saved_work, memo):  # type: ignore[arg-type]
            kept.insert(0, statement)
            continue
        if _overwritten_before_read(statement, kept, memo):  # type: ignore[arg-type]
            if not _keep(statement, kept, "materialize", min_saved_work, memo):  # type: ignore[arg-type]
                raise LoweringError(
                    f"{', '.join(statement.outputs)} is computed from a field the program "
                    "overwrites before it is read, and cannot be kept as a temporary (read "
                    "through a neighbour table or under a where): pass separate output fields"
                )
            kept.insert(0, statement)
            continue
        locals_of = {o.name: o.local for o in program.offsets}
        values = dict(zip(statement.outputs, statement.values, strict=True))
        outputs = set(statement.outputs)
        kept = [  # only the statements reading it change (domains read no temporaries)
            _inline_statement(s, values, locals_of, names, memo)
            if not outputs.isdisjoint(memo.fields(s))
            else s
            for s in kept
        ]
        dropped.update(statement.outputs)
    return ir.Program(
        name=program.name,
        params=program.params,
        offsets=program.offsets,
        body=kept,
        temporaries=[t for t in program.temporaries if t.name not in dropped],
    )

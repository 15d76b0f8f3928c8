"""Common subexpression elimination: a value computed twice at a point is bound once (``Let``).

Only subexpressions that are always evaluated are shared: nothing is taken out of an ``if_``
branch or the second operand of ``and_`` / ``or_`` (a guarded read may be out of bounds where
its guard is false) nor out of a reduction body (it depends on the neighbour). The largest
repeated subexpression is bound first.

Subexpressions are compared by hash-consing (each distinct subexpression gets a number, built
bottom-up in one walk), so the pass is linear in the size of the expression rather than
quadratic. A name bound by a ``Let`` is numbered by the ``Let`` that binds it: a subexpression
using it is shared only with copies under the same binding and bound at the top of that
``Let``'s body (everything else at the top of the value).
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from collections.abc import Iterator
from typing import Any

from .. import ir


_LAZY_CALLS = frozenset({"if_", "and_", "or_"})


@dataclasses.dataclass(slots=True, eq=False)  # compared (and hashed) by identity
class _Occ:
    """One occurrence of a subexpression: its number (equal numbers: equal values), size,
    the occurrences of its children, and for a ``Let`` (or a name bound by one) the binding."""

    node: ir.Expr
    key: int
    size: int
    kids: list[_Occ]
    binding: int | None


class _Numbering:
    """Hash-consing of the occurrences of one expression."""

    def __init__(self) -> None:
        self.table: dict[tuple[Any, ...], int] = {}
        self.order: dict[int, int] = {}  # binding (Let occurrence) -> pre-order position
        self.bindings = itertools.count()

    def number(self, key: tuple[Any, ...]) -> int:
        return self.table.setdefault(key, len(self.table))

    def occ(self, node: ir.Expr, env: dict[str, int]) -> _Occ:
        if isinstance(node, ir.SymRef):
            binding = env.get(node.name)
            return _Occ(node, self.number(("ref", node.name, binding)), 1, [], binding)
        if isinstance(node, ir.Literal):
            return _Occ(node, self.number(("lit", node.value, node.dtype)), 1, [], None)
        if isinstance(node, ir.AxisIndex):
            return _Occ(node, self.number(("index", node.dim)), 1, [], None)
        if isinstance(node, ir.FieldBound):
            key: tuple[Any, ...] = ("bound", node.field, node.dim, node.upper)
            return _Occ(node, self.number(key), 1, [], None)
        if isinstance(node, ir.Deref):
            kids = []
            shifts: list[Any] = []
            for shift in node.shifts:
                if isinstance(shift, ir.DynamicShift):
                    kid = self.occ(shift.amount, env)
                    kids.append(kid)
                    shifts.append(("dyn", shift.dim, kid.key))
                elif isinstance(shift, ir.CartesianShift):
                    shifts.append(("cartesian", shift.dim, shift.amount))
                elif isinstance(shift, ir.NeighbourShift):
                    shifts.append(("neighbour", shift.offset, shift.index, shift.outer))
                else:
                    assert isinstance(shift, ir.LocalIndex)
                    shifts.append(("local", shift.dim, shift.index))
            return _Occ(node, self.number(("deref", node.field, *shifts)), _size(kids), kids, None)
        if isinstance(node, ir.Call):
            kids = [self.occ(a, env) for a in node.args]
            key = ("call", node.fun, *(k.key for k in kids))
            return _Occ(node, self.number(key), _size(kids), kids, None)
        if isinstance(node, ir.Cast):
            kid = self.occ(node.value, env)
            return _Occ(node, self.number(("cast", node.dtype, kid.key)), kid.size + 1, [kid], None)
        if isinstance(node, ir.Let):
            value = self.occ(node.value, env)
            binding = next(self.bindings)
            self.order[binding] = len(self.order)
            body = self.occ(node.body, {**env, node.name: binding})
            key = ("let", node.name, binding, value.key, body.key)
            return _Occ(node, self.number(key), _size([value, body]), [value, body], binding)
        if isinstance(node, ir.Reduce):
            init, body = self.occ(node.init, env), self.occ(node.body, env)
            key = ("reduce", node.op, node.axis, *node.tables, init.key, body.key)
            return _Occ(node, self.number(key), _size([init, body]), [init, body], None)
        raise TypeError(f"not an IR expression: {node!r}")


def _size(kids: list[_Occ]) -> int:
    return 1 + sum(k.size for k in kids)


def _unconditional_kids(occ: _Occ) -> list[_Occ]:
    node = occ.node
    if isinstance(node, ir.Call) and node.fun in _LAZY_CALLS:
        return occ.kids[:1]
    if isinstance(node, ir.Reduce):
        return []
    return occ.kids


def _unconditional(occ: _Occ) -> Iterator[_Occ]:
    stack = [occ]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(_unconditional_kids(current)))


def _worth_sharing(node: ir.Expr) -> bool:
    if isinstance(node, (ir.Literal, ir.SymRef, ir.AxisIndex, ir.FieldBound, ir.Let)):
        return False
    return not (isinstance(node, ir.Deref) and not node.shifts)


def _scope(occ: _Occ, numbering: _Numbering) -> int | None:
    """The innermost ``Let`` binding a name ``occ`` uses (None: no such name); the bindings
    a subexpression uses all enclose it, so the innermost is the last in pre-order."""
    inner: set[int] = set()
    used: set[int] = set()
    stack = [occ]
    while stack:
        current = stack.pop()
        if isinstance(current.node, ir.Let):
            inner.add(current.binding)  # type: ignore[arg-type]
        elif isinstance(current.node, ir.SymRef) and current.binding is not None:
            used.add(current.binding)
        stack.extend(current.kids)
    free = used - inner
    return max(free, key=numbering.order.__getitem__) if free else None


def eliminate_common_subexpressions(expr: ir.Expr, names: Iterator[str]) -> ir.Expr:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        return _eliminate(expr, names)
    finally:
        sys.setrecursionlimit(limit)


def _eliminate(expr: ir.Expr, names: Iterator[str]) -> ir.Expr:
    numbering = _Numbering()
    root = numbering.occ(expr, {})
    copies: dict[int, list[_Occ]] = {}
    for occ in _unconditional(root):
        if _worth_sharing(occ.node):
            copies.setdefault(occ.key, []).append(occ)
    # largest first; binding one leaves one copy of it: the subexpressions in the other copies
    # are gone (a subexpression using a Let inside it has its own number per copy)
    shared: dict[int, str] = {}
    first: dict[int, _Occ] = {}
    gone: set[int] = set()
    repeated = [k for k, found in copies.items() if len(found) >= 2]
    for key in sorted(repeated, key=lambda k: -copies[k][0].size):
        alive = [o for o in copies[key] if id(o) not in gone]
        if len(alive) < 2:
            continue
        shared[key] = next(names)
        first[key] = alive[0]
        for other in alive[1:]:
            gone.update(id(o) for o in _unconditional(other))
    if not shared:
        return expr
    # where each binding goes: the top of the value, or of the body of the innermost Let
    # binding a name it uses (all its copies are inside that body)
    placed: dict[int | None, list[int]] = {}
    for key in shared:
        placed.setdefault(_scope(first[key], numbering), []).append(key)

    def wrap(body: ir.Expr, scope: int | None) -> ir.Expr:
        for key in sorted(placed.get(scope, ()), key=lambda k: -first[k].size):
            # the smaller ones outermost: a larger one may use them
            body = ir.Let(name=shared[key], value=rebuild(first[key]), body=body)
        return body

    def rewrite(occ: _Occ) -> ir.Expr:
        name = shared.get(occ.key)
        if name is not None:
            return ir.SymRef(name=name)
        return rebuild(occ)

    def rebuild(occ: _Occ) -> ir.Expr:
        node = occ.node
        if not occ.kids:
            return node
        if isinstance(node, ir.Call):
            return ir.Call(fun=node.fun, args=[rewrite(k) for k in occ.kids])
        if isinstance(node, ir.Cast):
            return ir.Cast(value=rewrite(occ.kids[0]), dtype=node.dtype)
        if isinstance(node, ir.Let):
            value, body = occ.kids
            return ir.Let(
                name=node.name, value=rewrite(value), body=wrap(rewrite(body), occ.binding)
            )
        if isinstance(node, ir.Reduce):
            init, body = occ.kids
            return ir.Reduce(
                op=node.op,
                axis=node.axis,
                init=rewrite(init),
                body=rewrite(body),
                tables=node.tables,
            )
        assert isinstance(node, ir.Deref)
        amounts = iter(occ.kids)
        shifts: list[ir.Shift] = [
            ir.DynamicShift(dim=s.dim, amount=rewrite(next(amounts)))
            if isinstance(s, ir.DynamicShift)
            else s
            for s in node.shifts
        ]
        return ir.Deref(field=node.field, shifts=shifts)

    return wrap(rewrite(root), None)


def cse(program: ir.Program) -> ir.Program:
    """``program`` with repeated subexpressions of each computed value bound once."""
    counter = itertools.count()
    names = (f"__cse{i}" for i in counter)
    body: list[ir.Apply | ir.Scan] = []
    for statement in program.body:
        values = [eliminate_common_subexpressions(v, names) for v in statement.values]
        if isinstance(statement, ir.Apply):
            body.append(ir.Apply(outputs=statement.outputs, domain=statement.domain, values=values))
        else:
            body.append(
                ir.Scan(
                    outputs=statement.outputs,
                    domain=statement.domain,
                    axis=statement.axis,
                    forward=statement.forward,
                    carries=statement.carries,
                    init=statement.init,
                    values=values,
                )
            )
    return ir.Program(
        name=program.name,
        params=program.params,
        offsets=program.offsets,
        body=body,
        temporaries=program.temporaries,
    )

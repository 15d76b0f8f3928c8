"""Common subexpression elimination: a value computed twice at a point is bound once (``Let``).

A subexpression is shared where it is evaluated anyway: at the top of the value, or at the top
of a lazy branch (an ``if_`` branch, the second operand of ``and_`` / ``or_``) that holds a
copy outside any nested branch. The binding then also serves the copies in branches nested
inside. Nothing is moved out of a branch into code that runs where the branch does not (a
guarded read may be out of bounds where its guard is false), and nothing is shared in or out
of a reduction body (it depends on the neighbour). The largest repeated subexpression is bound
first. ICON's graupel scan repeats reads like ``te(K+1)`` hundreds of times in one branch:
each was a bounds-checked load in C++ that the compiler had to see.

Subexpressions are compared by hash-consing (each distinct subexpression gets a number, built
bottom-up in one walk), so the pass is linear in the size of the expression rather than
quadratic. A name bound by a ``Let`` is numbered by the ``Let`` that binds it: a subexpression
using it is shared only with copies under the same binding and bound at the top of that
``Let``'s body (or of its scope, when that ``Let`` is outside it).
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


class _Scopes:
    """Where each occurrence is evaluated: its scope is the root or the nearest enclosing lazy
    branch (an ``if_`` branch, the second operand of ``and_`` / ``or_``), evaluated as a whole
    when it is evaluated at all. Reduction bodies (evaluated per neighbour, where a read means
    another point) and their inits belong to no scope: nothing in them is shared."""

    def __init__(self, root: _Occ) -> None:
        self.parent: list[int | None] = [None]  # scope -> enclosing scope
        self.of: dict[int, int] = {}  # id(occurrence) -> its scope
        self.roots: dict[int, int] = {}  # id(occurrence) -> the scope it is the root of
        self.pre_order: list[_Occ] = []  # every occurrence in a scope, in pre-order
        stack: list[tuple[_Occ, int]] = [(root, 0)]
        while stack:
            occ, scope = stack.pop()
            self.of[id(occ)] = scope
            self.pre_order.append(occ)
            node = occ.node
            if isinstance(node, ir.Reduce):
                continue
            kids: list[tuple[_Occ, int]] = [(k, scope) for k in occ.kids]
            if isinstance(node, ir.Call) and node.fun in _LAZY_CALLS:
                for i in range(1, len(kids)):
                    branch = len(self.parent)
                    self.parent.append(scope)
                    self.roots[id(occ.kids[i])] = branch
                    kids[i] = (occ.kids[i], branch)
            stack.extend(reversed(kids))

    def top_scopes(self, found: list[_Occ]) -> dict[int, list[_Occ]]:
        """``found`` (copies of one subexpression) grouped by the outermost scope holding a
        copy that encloses theirs: a binding at the top of that scope reaches every copy in
        the group, and it is evaluated there anyway."""
        holding = {self.of[id(o)] for o in found}
        groups: dict[int, list[_Occ]] = {}
        for occ in found:
            scope: int | None = self.of[id(occ)]
            top = scope
            while scope is not None:
                if scope in holding:
                    top = scope
                scope = self.parent[scope]
            assert top is not None
            groups.setdefault(top, []).append(occ)
        return groups


def _subtree(occ: _Occ) -> Iterator[_Occ]:
    stack = [occ]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.kids)


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
    scopes = _Scopes(root)
    copies: dict[int, list[_Occ]] = {}
    for occ in scopes.pre_order:
        if _worth_sharing(occ.node):
            copies.setdefault(occ.key, []).append(occ)
    # per subexpression and top scope, largest first; binding one leaves one copy of it: the
    # subexpressions in the other copies are gone (a subexpression using a Let inside it has
    # its own number per copy)
    candidates = [
        (key, scope, group)
        for key, found in copies.items()
        if len(found) >= 2
        for scope, group in scopes.top_scopes(found).items()
        if len(group) >= 2
    ]
    replaced: dict[int, str] = {}  # id(copy) -> the name bound for it
    bound: list[tuple[str, _Occ, int]] = []  # (name, first copy, its scope)
    gone: set[int] = set()
    for _key, scope, group in sorted(candidates, key=lambda c: -c[2][0].size):
        alive = [o for o in group if id(o) not in gone]
        first = next((o for o in alive if scopes.of[id(o)] == scope), None)
        if len(alive) < 2 or first is None:
            continue
        name = next(names)
        bound.append((name, first, scope))
        for other in alive:
            replaced[id(other)] = name
            if other is not first:
                gone.update(id(o) for o in _subtree(other))
    if not bound:
        return expr
    # where each binding goes: the top of its scope, or of the body of the innermost Let
    # binding a name it uses when that Let is in the same scope (all its copies are inside)
    lets = {o.binding: scopes.of[id(o)] for o in scopes.pre_order if isinstance(o.node, ir.Let)}
    placed: dict[tuple[str, int], list[tuple[str, _Occ]]] = {}
    for name, first, scope in bound:
        let = _scope(first, numbering)
        where = ("let", let) if let is not None and lets[let] == scope else ("scope", scope)
        placed.setdefault(where, []).append((name, first))

    def wrap(body: ir.Expr, where: tuple[str, int]) -> ir.Expr:
        for name, first in sorted(placed.get(where, ()), key=lambda b: -b[1].size):
            # the smaller ones outermost: a larger one may use them
            body = ir.Let(name=name, value=rebuild(first), body=body)
        return body

    def rewrite(occ: _Occ) -> ir.Expr:
        name = replaced.get(id(occ))
        if name is not None:
            return ir.SymRef(name=name)
        branch = scopes.roots.get(id(occ))
        return rebuild(occ) if branch is None else wrap(rebuild(occ), ("scope", branch))

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
            assert occ.binding is not None
            return ir.Let(
                name=node.name, value=rewrite(value), body=wrap(rewrite(body), ("let", occ.binding))
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

    return wrap(rewrite(root), ("scope", 0))


def cse(program: ir.Program) -> ir.Program:
    """``program`` with repeated subexpressions of each computed value bound once."""
    counter = itertools.count()
    names = (f"__cse{i}" for i in counter)
    body: list[ir.Apply | ir.Scan] = []
    for statement in program.body:
        values = [eliminate_common_subexpressions(v, names) for v in statement.values]
        body.append(ir.statement_with(statement, domain=statement.domain, values=values))
    return ir.Program(
        name=program.name,
        params=program.params,
        offsets=program.offsets,
        body=body,
        temporaries=program.temporaries,
    )

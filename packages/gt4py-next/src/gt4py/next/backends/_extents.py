"""What a compiled program needs of its arguments' extents, worked out once from its IR.

Every field a statement writes must cover the statement's domain; every field it reads must
cover the points it reads at: the statement's domain moved by the read's Cartesian shifts, a
neighbour table's values, a fixed neighbour index. Every neighbour table must have a row for
every point it is looked up at and a column for every neighbour index used. Each such need
is a :class:`Need`: ``target`` must cover ``[start, stop)`` along ``dim``, bounds being Python
expressions over the names the check code defines (``f_a_lo_I``, ``s_n`` for a scalar
parameter ``n``, table constants such as ``_min_E2V``), needed only if the statement's domain is not empty.

Reads that are evaluated only under a condition (the branches of ``where``, the right operand
of ``&``/``|``) or at a position read from a field (``as_offset``) need their points only
where the condition selects them, which is not known before running: those are checked per
point by the generated code (:func:`checked_at_run_time`), as embedded execution fails only
when such a value is used. Reads of temporaries are in bounds by construction (domain
inference sizes them for all their readers) and need nothing.

Every statement's bounds must also fit the 64-bit index space of the generated code
(:class:`IndexCheck`, ``_domain.check_index_range``): an empty range whose size ``hi - lo``
overflows int64 runs no point in Python, but a C++ loop or OpenMP computes that size.

The bounds as Python code are made in ``_bound_code``, the index-space checks in
``_index_checks``; this module works out the needs and writes the check code.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from .. import ir
from .._domain import index_range_message
from ..ir import expr_text
from ._bound_code import UnsupportedBound, bound_code, field_bound
from ._index_checks import IndexCheck


@dataclasses.dataclass(frozen=True)
class Need:
    """``target`` must cover ``[start, stop)`` along ``dim`` if statement ``statement`` runs.

    ``target`` is a field parameter, or ``("rows", T)`` / ``("columns", T)`` of the
    neighbour table of offset ``T``."""

    target: str | tuple[str, str]
    dim: str
    start: str
    stop: str
    statement: int
    why: str
    # when the need applies: while the statement's range along the dimension it comes from is
    # not empty (embedded checks each dimension on its own); None: while the statement runs
    when: str | None = None

    def key(self) -> tuple[object, ...]:
        return (self.target, self.dim, self.statement)


@dataclasses.dataclass(frozen=True)
class _Box:
    """Points ``[start, stop) + offset`` (start/stop Python code); ``from_domain``: a range of
    the statement's domain (else table indices or neighbour indices)."""

    start: str
    stop: str
    offset: int = 0
    from_domain: bool = False

    def when(self) -> str | None:
        return f"{self.start} < {self.stop}" if self.from_domain else None

    def moved(self, amount: int) -> _Box:
        return _Box(self.start, self.stop, self.offset + amount, self.from_domain)

    def bounds(self) -> tuple[str, str]:
        if not self.offset:
            return self.start, self.stop
        sign = "+" if self.offset > 0 else "-"
        return (
            f"({self.start} {sign} {abs(self.offset)})",
            f"({self.stop} {sign} {abs(self.offset)})",
        )


def _values(table: str) -> _Box:
    """The indices a neighbour table holds (skip values excluded): constants of the variant."""
    return _Box(f"_min_{table}", f"_end_{table}")


def _columns(table: str) -> _Box:
    return _Box("0", f"_cols_{table}")


def _fixed(index: int) -> _Box:
    return _Box(str(index), str(index + 1))


def needs_of(program: ir.Program) -> list[Need]:
    """Every extent need of ``program``'s parameters and tables (see the module docstring)."""
    fields = {p.name: p for p in program.params if isinstance(p, ir.FieldParam)}
    offsets = {o.name: o for o in program.offsets}
    needs: list[Need] = []
    for k, statement in enumerate(program.body):
        try:
            domain = {
                r.dim: _Box(bound_code(r.start), bound_code(r.stop), from_domain=True)
                for r in statement.domain
            }
        except UnsupportedBound:
            continue
        for output in statement.outputs:
            param = fields.get(output)
            if param is None:
                continue
            for dim in param.dims:
                if dim in domain:
                    start, stop = domain[dim].bounds()
                    needs.append(Need(output, dim, start, stop, k, "written", domain[dim].when()))
        walker = _ReadWalker(fields, offsets, domain, k)
        shared = [b.value for b in statement.bindings]  # evaluated at every point
        for value in [*shared, *statement.values, *getattr(statement, "init", [])]:
            walker.visit(value, guarded=False, reductions=())
        needs.extend(walker.needs)
    return needs


class _ReadWalker:
    """The needs of the unconditional reads of one statement."""

    def __init__(
        self,
        fields: dict[str, ir.FieldParam],
        offsets: dict[str, ir.OffsetDecl],
        domain: dict[str, _Box],
        statement: int,
    ) -> None:
        self.fields = fields
        self.offsets = offsets
        self.domain = domain
        self.statement = statement
        self.boxes: list[tuple[str | tuple[str, str], str, _Box, str]] = []

    @property
    def needs(self) -> list[Need]:
        """The boxes of one target, dimension and base range merged (lowest to highest
        offset; the reason of the first read kept)."""
        merged: dict[tuple[str | tuple[str, str], str, str, str], tuple[_Box, int, int, str]] = {}
        for target, dim, box, why in self.boxes:
            key = (target, dim, box.start, box.stop)
            known = merged.get(key)
            if known is None:
                merged[key] = (box, box.offset, box.offset, why)
            else:
                merged[key] = (
                    known[0],
                    min(known[1], box.offset),
                    max(known[2], box.offset),
                    known[3],
                )
        needs = []
        for (target, dim, _, _), (box, lo, hi, why) in merged.items():
            start, _ = box.moved(lo - box.offset).bounds()
            _, stop = box.moved(hi - box.offset).bounds()
            needs.append(Need(target, dim, start, stop, self.statement, why, box.when()))
        return needs

    def visit(self, node: ir.Expr, guarded: bool, reductions: tuple[ir.Reduce, ...]) -> None:
        if isinstance(node, ir.Deref):
            for shift in node.shifts:
                if isinstance(shift, ir.DynamicShift):
                    self.visit(shift.amount, guarded, reductions)
            if not guarded and not checked_at_run_time(node, False):
                self._read(node, reductions)
        elif isinstance(node, ir.Call):
            lazy = 1 if node.fun in ("if_", "and_", "or_") else len(node.args)
            for i, arg in enumerate(node.args):
                self.visit(arg, guarded or i >= lazy, reductions)
        elif isinstance(node, ir.Cast):
            self.visit(node.value, guarded, reductions)
        elif isinstance(node, ir.Let):
            self.visit(node.value, guarded, reductions)
            self.visit(node.body, guarded, reductions)
        elif isinstance(node, ir.Reduce):
            self.visit(node.init, guarded, reductions)
            self.visit(node.body, guarded, (*reductions, node))

    def _need(self, target: str | tuple[str, str], dim: str, box: _Box, why: str) -> None:
        self.boxes.append((target, dim, box, why))

    def _read(self, node: ir.Deref, reductions: tuple[ir.Reduce, ...]) -> None:
        param = self.fields.get(node.field)
        if param is None:
            return  # a temporary
        why = f"read by {expr_text(node).lstrip('$')}"
        position: dict[str, _Box | None] = dict(self.domain)
        for shift in node.shifts:
            if isinstance(shift, ir.CartesianShift):
                at = position.get(shift.dim)
                position[shift.dim] = None if at is None else at.moved(shift.amount)
            elif isinstance(shift, ir.LocalIndex):
                position[shift.dim] = _fixed(shift.index)
            elif isinstance(shift, ir.NeighbourShift):
                decl = self.offsets[shift.offset]
                at = position.pop(decl.domain_dim, None)
                if at is not None:
                    self._need(("rows", decl.name), decl.domain_dim, at, why)
                if decl.local is not None:
                    column = (
                        _fixed(shift.index)
                        if shift.index is not None
                        else self._enumerated(decl.local, shift.outer, reductions)
                    )
                    if column is not None:
                        self._need(("columns", decl.name), decl.local, column, why)
                position[decl.codomain] = _values(decl.name)
        for dim in param.dims:
            at = position.get(dim)
            if at is None:
                at = self._enumerated(dim, 0, reductions)
            if at is not None:
                self._need(node.field, dim, at, why)

    def _enumerated(self, local: str, outer: int, reductions: tuple[ir.Reduce, ...]) -> _Box | None:
        """The neighbour indices the reduction over ``local`` (``outer`` levels out) runs
        through: its first table's columns (None: counted by a local field, always fits)."""
        for reduction in reversed(reductions):
            if reduction.axis != local:
                continue
            if outer:
                outer -= 1
                continue
            return _columns(reduction.tables[0]) if reduction.tables else None
        return None


def checked_at_run_time(node: ir.Deref, guarded: bool) -> bool:
    """Whether the generated code checks this read per point: it is evaluated only under a
    condition, or shifted by a value read from a field."""
    return guarded or any(isinstance(s, ir.DynamicShift) for s in node.shifts)


def statement_domains(program: ir.Program) -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """Per statement its domain bounds as Python code (statements with bounds the check code
    cannot evaluate are left out)."""
    for k, statement in enumerate(program.body):
        try:
            yield k, [(bound_code(r.start), bound_code(r.stop)) for r in statement.domain]
        except UnsupportedBound:
            continue


@dataclasses.dataclass(frozen=True)
class TableFacts:
    """What the checks need of one neighbour table: its rows, columns and the range of its
    indices (skip values excluded; ``None``: it holds none)."""

    rows: int
    columns: int
    values: tuple[int, int] | None

    @staticmethod
    def of(data: Any, skip: int) -> TableFacts:
        if hasattr(data, "__cuda_array_interface__"):  # a device table (gtfn_gpu): read once
            data = data.get()
        array = np.asarray(data)
        columns = int(array.shape[1]) if array.ndim == 2 else 1
        valid = array[array != skip] if array.size else array.reshape(-1)
        values = (int(valid.min()), int(valid.max()) + 1) if valid.size else None
        return TableFacts(int(array.shape[0]), columns, values)


_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


class CheckCode:
    """The Python code of the extent checks of one variant for arguments of given kinds.

    ``fields`` maps a field parameter to the stub's expression for it and the dims of the
    actual argument (in its order); ``scalars`` a scalar parameter to its expression.
    ``lines()`` is the check as statements of the stub's body: it calls ``fail(args,
    provider)`` (which raises) when a need or an index check is not met."""

    def __init__(
        self,
        needs: list[Need],
        domains: list[tuple[int, list[tuple[str, str]]]],
        fields: dict[str, tuple[str, tuple[str, ...]]],
        scalars: dict[str, str],
        tables: dict[str, TableFacts],
        index: Sequence[IndexCheck] = (),
    ) -> None:
        self.constants: dict[str, Any] = {}
        for name, facts in tables.items():
            self.constants[f"_rows_{name}"] = facts.rows
            self.constants[f"_cols_{name}"] = facts.columns
            if facts.values is not None:
                self.constants[f"_min_{name}"], self.constants[f"_end_{name}"] = facts.values
        self.fields = fields
        self.scalars = scalars
        self.domains = dict(domains)
        self.needs: list[tuple[Need, str]] = []  # with its condition
        for need in needs:
            condition = self._condition(need)
            if condition is not None and need.statement in self.domains:
                self.needs.append((need, condition))
        # a range counts as covered only if its write need is checked here
        checked = {(n.statement, n.dim) for n, _ in self.needs if n.why == "written"}
        known = self._defined()
        self.index: list[IndexCheck] = []
        for check in index:
            names = _NAME.findall(f"{check.start} {check.stop}")
            if any(n.startswith(("f_", "s_")) and n not in known for n in names):
                continue  # a bound over an argument this stub does not see
            covered = check.covered and (check.statement, check.dim) in checked
            self.index.append(dataclasses.replace(check, covered=covered))

    def _target_bounds(self, target: str | tuple[str, str], dim: str) -> tuple[str, str] | None:
        if isinstance(target, tuple):
            kind, table = target
            return "0", f"_{'rows' if kind == 'rows' else 'cols'}_{table}"
        if target not in self.fields:
            return None
        return field_bound(target, dim, False), field_bound(target, dim, True)

    def _condition(self, need: Need) -> str | None:
        bounds = self._target_bounds(need.target, need.dim)
        if bounds is None:
            return None
        code = f"{bounds[0]} <= {need.start} and {need.stop} <= {bounds[1]}"
        domain = self.domains.get(need.statement, [])
        known = self._defined()
        for name in _NAME.findall(" ".join([code, *(f"{lo} {hi}" for lo, hi in domain)])):
            if name.startswith(("_min_", "_end_", "_rows_", "_cols_", "f_", "s_")) and (
                name not in known
            ):
                return None  # a table without indices: nothing is read through it
        return code

    def _defined(self) -> set[str]:
        names = set(self.constants)
        names.update(f"s_{name}" for name in self.scalars)
        for name, (_, dims) in self.fields.items():
            names.update(field_bound(name, d, upper) for d in dims for upper in (False, True))
        return names

    def _nonempty(self, statement: int) -> str:
        return " and ".join(f"{lo} < {hi}" for lo, hi in self.domains[statement]) or "True"

    def _loads(self, code: str) -> list[str]:
        """Statements defining the names ``code`` uses (field bounds, scalars)."""
        used = set(_NAME.findall(code))
        lines = []
        for name, (expr, dims) in self.fields.items():
            bounds = [
                (i, dim, upper)
                for i, dim in enumerate(dims)
                for upper in (False, True)
                if field_bound(name, dim, upper) in used
            ]
            if bounds:
                lines.append(f"r_{name} = {expr}._domain.ranges")
                lines.extend(
                    f"{field_bound(name, dim, upper)} = r_{name}[{i}].{'stop' if upper else 'start'}"
                    for i, dim, upper in bounds
                )
        lines.extend(
            f"s_{name} = {expr}" for name, expr in self.scalars.items() if f"s_{name}" in used
        )
        return lines

    def _guard(self, need: Need) -> str:
        """When ``need`` applies (see ``Need.when``)."""
        return need.when or self._nonempty(need.statement)

    def _by_guard(self) -> dict[str, list[tuple[int, str]]]:
        grouped: dict[str, list[tuple[int, str]]] = {}
        for i, (need, condition) in enumerate(self.needs):
            grouped.setdefault(self._guard(need), []).append((i, condition))
        return grouped

    def lines(self) -> list[str]:
        """The check as stub statements (empty if nothing is needed)."""
        grouped = self._by_guard()
        parts = [f"({check.fast()})" for check in self.index]
        for guard, conditions in grouped.items():
            body = " and ".join(f"({c})" for _, c in conditions)
            parts.append(f"(not ({guard}) or ({body}))")
        if not parts:
            return []
        check = " and ".join(parts)
        return [*self._loads(check), f"if not ({check}):", "    fail(args, provider)"]

    def explain_source(self) -> str:
        """``explain(args, provider)``: the first unmet check, ``("index", i, (lo, hi))`` for
        an index check (they come first: embedded finds them when it makes the domain) or
        ``("need", i, (start, stop))`` for a need."""
        body = []
        for i, check in enumerate(self.index):
            body.append(f"if not ({check.fits()}):")
            body.append(f"    return 'index', {i}, ({check.start}, {check.stop})")
        for guard, conditions in self._by_guard().items():
            for i, condition in conditions:
                need = self.needs[i][0]
                body.append(f"if ({guard}) and not ({condition}):")
                body.append(f"    return 'need', {i}, ({need.start}, {need.stop})")
        code = "\n".join(body)
        lines = ["def explain(args, provider):", *(f"    {line}" for line in self._loads(code))]
        lines.extend(f"    {line}" for line in body)
        lines.append("    return None")
        return "\n".join(lines)

    def failure(
        self, callee: str, kind: str, index: int, needed: tuple[int, int], args: Any
    ) -> str:
        """The message of unmet check ``index`` of ``kind`` (``needed``: its evaluated
        bounds). An index check's message is embedded's (``_domain.index_range_message``)."""
        if kind == "index":
            return index_range_message(self.index[index].dim, *needed)
        need = self.needs[index][0]
        start, stop = needed
        wanted = f"{need.dim}=[{start}, {stop})"
        if isinstance(need.target, tuple):
            kind, table = need.target
            if kind == "rows":
                rows = self.constants[f"_rows_{table}"]
                return (
                    f"{callee}: the neighbour table of offset '{table}' has rows "
                    f"{need.dim}=[0, {rows}), but {wanted} are looked up ({need.why})"
                )
            columns = self.constants[f"_cols_{table}"]
            return (
                f"{callee}: the neighbour table of offset '{table}' has {columns} neighbour(s) "
                f"per point, but neighbour index {stop - 1} is used ({need.why})"
            )
        expr, dims = self.fields[need.target]
        rng = eval(f"{expr}._domain.ranges[{dims.index(need.dim)}]", {"args": args})
        have = f"{need.dim}=[{rng.start}, {rng.stop})"
        name = argument_name(need.target)
        if need.why == "written":
            return f"{callee}: argument '{name}' covers {have}, but the program writes {wanted}"
        source = ""
        if need.start.startswith("_min_"):
            table = need.start.removeprefix("_min_")
            source = f" (the neighbour table of offset '{table}' points there)"
        return f"{callee}: argument '{name}' covers {have}, but {wanted} is {need.why}{source}"


def argument_name(param: str) -> str:
    """``a__0`` (element 0 of the tuple argument ``a``) as the user wrote it: ``a[0]``."""
    head, *parts = param.split("__")
    return head + "".join(f"[{p}]" for p in parts) if all(p.isdigit() for p in parts) else param


def field_codes(program: ir.Program) -> dict[str, int]:
    """The status code a compiled entry point returns for a per-point read outside each field
    argument (1, 2, ... in parameter order; 0 means every read was inside)."""
    fields = [p.name for p in program.params if isinstance(p, ir.FieldParam)]
    return {name: i + 1 for i, name in enumerate(fields)}

"""C++ expressions of the IR, shared by the C++ loop nests and the CUDA kernels.

- Reads go through a field's base pointer moved to index 0 of every dimension, one stride per
  dimension. Reads that could not be checked before the call (ADR 0017) are checked per point.
- A neighbour shift reads the table (``<name>[row * <name>_s0 + column * <name>_s1]``); a
  reduction loops over the table's columns, leaving out skipped neighbours. With a
  :class:`~.._table_layout.TableLayout` of known columns the count is a constant, short
  reductions are unrolled and tables without skip values get no skip checks.
- Inside a loop nest of two or more dimensions, table entries that depend only on the outer
  loop indices are handed to the nest to load once per outer point (``_hoist``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping

from ... import _builtin_vocabulary as vocabulary, ir
from .._read_walk import ReadWalker
from .._table_layout import TableLayout
from ._cxx import CXX_TYPES


# IR call -> C++ operator or function, from the builtin vocabulary (`if_` is spelled below)
def _spelled(form: vocabulary.CxxForm) -> dict[str, str]:
    return {name: row.cxx for name, row in vocabulary.IR_CALLS.items() if row.cxx_form is form}


_INFIX = _spelled(vocabulary.CxxForm.INFIX)  # (a + b)
_PREFIX = _spelled(vocabulary.CxxForm.PREFIX)  # (-a), (!a): neg and not_
_FUNCTIONS = _spelled(vocabulary.CxxForm.CALL)  # std::sin(a), gt4py::minimum(a, b)
# ir.Reduce.op -> the row of its reduction (how it combines two values in C++)
_REDUCTIONS = {row.ir_name: row for row in vocabulary.REDUCTIONS.values()}

# Reductions over at most this many (constant) neighbours are unrolled.
UNROLL_LIMIT = 16


class ExpressionGenerator(ReadWalker):
    """The expression part of a generator for one program and its tables' layouts (a table
    missing from ``table_layouts`` is an ``int32`` table of run-time column count)."""

    def __init__(
        self,
        program: ir.Program,
        table_layouts: Mapping[str, TableLayout],
        *,
        check_every_read: bool = False,
    ) -> None:
        super().__init__(program, check_every_read=check_every_read)
        self.scalars = {p.name: p for p in program.params if isinstance(p, ir.ScalarParam)}
        self.table_layouts = dict(table_layouts)
        # hoisting of table entries out of the innermost loop (None: not in such a nest)
        self._hoist: list[str] | None = None
        self._hoist_names: set[str] = set()  # identifiers a hoisted entry may use
        self._hoisted: dict[str, str] = {}
        self.uses_status = False  # some read is checked per point (sets `gt_status`)
        self._counter = itertools.count()

    def table_layout(self, name: str) -> TableLayout:
        return self.table_layouts.get(name) or TableLayout("int32")

    def _literal_type(self, node: ir.Expr) -> str:
        assert isinstance(node, ir.Literal)
        return CXX_TYPES[node.dtype]

    def expr(self, node: ir.Expr, position: dict[str, str]) -> str:
        if isinstance(node, ir.Literal):
            return self._literal(node)
        if isinstance(node, ir.SymRef):
            return node.name
        if isinstance(node, ir.AxisIndex):
            return position[node.dim]
        if isinstance(node, ir.FieldBound):
            return f"{node.field}_{'hi' if node.upper else 'lo'}_{node.dim}"
        if isinstance(node, ir.Deref):
            return self._deref(node, position)
        if isinstance(node, ir.Cast):
            # numpy's astype, saturating where C++'s conversion is undefined (ADR 0036)
            return f"gt4py::convert<{CXX_TYPES[node.dtype]}>({self.expr(node.value, position)})"
        if isinstance(node, ir.Call):
            return self._call(node, position)
        if isinstance(node, ir.Let):
            # a chain of lets is one GNU statement expression, evaluated where it is (lazily
            # in a branch): hundreds of nested lambdas take the C++ compiler minutes
            declarations: list[str] = []
            names: set[str] = set()
            while isinstance(node, ir.Let) and node.name not in names:
                value = self.expr(node.value, position)
                declarations.append(f"const auto {node.name} = {value};")
                names.add(node.name)
                node = node.body
            return f"({{ {' '.join(declarations)} {self.expr(node, position)}; }})"
        if isinstance(node, ir.Reduce):
            return self._reduce(node, position)
        raise TypeError(f"cannot generate C++ for {node!r}")

    def _literal(self, node: ir.Literal) -> str:
        cxx = CXX_TYPES[node.dtype]
        value = node.value
        if node.dtype == "bool":
            return "true" if value == "True" else "false"
        if value in ("inf", "-inf"):
            sign = "-" if value.startswith("-") else ""
            return f"({sign}std::numeric_limits<{cxx}>::infinity())"
        if value == "nan":
            return f"std::numeric_limits<{cxx}>::quiet_NaN()"
        if node.dtype in ("int64", "uint64") and value.lstrip("-").isdigit():
            # a decimal literal is at most `long long` in C++: -2**63 has no literal (it is
            # the negation of 2**63), and uint64 values from 2**63 on need their suffix
            number = int(value)
            if number == -(2**63):
                return f"std::numeric_limits<{cxx}>::min()"
            if number >= 2**63:
                return f"{cxx}({value}ULL)"
        return f"{cxx}({value})"

    def _call(self, node: ir.Call, position: dict[str, str]) -> str:
        fun = node.fun
        args = self.call_args(node, position)
        if fun == "if_":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if fun in _INFIX:
            return f"({args[0]} {_INFIX[fun]} {args[1]})"
        if fun in _PREFIX:
            return f"({_PREFIX[fun]}{args[0]})"
        if fun in _FUNCTIONS:
            return f"{_FUNCTIONS[fun]}({', '.join(args)})"
        raise TypeError(f"unknown IR function {fun!r}")

    def _deref(self, node: ir.Deref, position: dict[str, str]) -> str:
        # per-point checks of a read made only under a condition or at a position read from
        # a field (the others are checked before the call: backends/_extents.py)
        checked = self.checked_per_point(node, self._guards > 0)
        pos, inside = self.walk_read(node, position, checked)
        param = self.fields[node.field]
        index = " + ".join(f"{pos[d]} * {node.field}_s_{d}" for d in param.dims) or "0"
        if not checked:
            return f"{node.field}[{index}]"
        self.uses_status = True
        f = node.field
        inside.extend(self.field_inside(f, pos))
        cxx = CXX_TYPES[param.dtype]
        return (
            f"(({' && '.join(inside)}) ? {f}[{index}] : "
            f"gt_outside<{cxx}>(gt_status, {self.codes[f]}))"
        )

    # -- the read's parts in C++ (ReadWalker of backends/_read_walk.py) -------------------------

    def clamped_move(self, field: str, dim: str, at: str, amount: str) -> str:
        moved = f"{at} + index_t({amount})"
        return f"std::max({field}_lo_{dim}, std::min(index_t({moved}), {field}_hi_{dim} - 1))"

    def in_range(self, value: str, lo: str, hi: str) -> str:
        return f"({value}) >= {lo} && ({value}) < {hi}"

    def table_rows(self, table: str) -> str:
        return f"{table}_rows"

    def table_columns(self, table: str) -> str:
        return f"{table}_count"

    def table_entry(self, table: str, at: str, column: str | None, checked: bool) -> str:
        t = table
        if column is None:
            return self._hoisted_entry(f"{t}[{at} * {t}_s0]", t)
        return self._hoisted_entry(f"{t}[{at} * {t}_s0 + {column} * {t}_s1]", t)

    def skip_check(self, entry: str, table: str) -> str | None:
        return f"{entry} != {table}_skip" if self.table_layout(table).has_skip else None

    def as_index(self, entry: str) -> str:
        return f"index_t({entry})"

    def _hoisted_entry(self, entry: str, table: str) -> str:
        """``entry`` loaded once per outer point if it uses only outer loop indices (and
        entries hoisted before) and is not evaluated conditionally; else ``entry`` itself."""
        if self._hoist is None or self._guards:
            return entry
        allowed = self._hoist_names | {"index_t", table, f"{table}_s0", f"{table}_s1"}
        if not set(re.findall(r"[A-Za-z_]\w*", entry)) <= allowed:
            return entry
        name = self._hoisted.get(entry)
        if name is None:
            name = f"h{next(self._counter)}"
            self._hoist.append(f"const index_t {name} = index_t({entry});")
            self._hoisted[entry] = name
            # a possibly-skipped entry must not be followed before its skip check
            if not self.table_layout(table).has_skip:
                self._hoist_names.add(name)
        return name

    def _reduce(self, node: ir.Reduce, position: dict[str, str]) -> str:
        k = next(self._counter)
        acc = f"acc{k}"
        init = self.expr(node.init, position)
        count = self._neighbour_count(node)
        if count.isdigit() and int(count) <= UNROLL_LIMIT:  # one update per neighbour
            updates = [self._reduce_update(node, position, acc, str(j)) for j in range(int(count))]
            return f"([&] {{ auto {acc} = {init}; {' '.join(updates)} return {acc}; }}())"
        neighbour = f"n{k}"
        update = self._reduce_update(node, position, acc, neighbour)
        return (
            f"([&] {{ auto {acc} = {init}; "
            f"for (index_t {neighbour} = 0; {neighbour} < {count}; ++{neighbour}) "
            f"{{ {update} }} return {acc}; }}())"
        )

    def _reduce_update(
        self, node: ir.Reduce, position: dict[str, str], acc: str, neighbour: str
    ) -> str:
        inner = _entered(position, node.axis, neighbour)
        self._masks.append((node.axis, []))
        try:
            body = self.expr(node.body, inner)
        finally:
            _, conditions = self._masks.pop()
        combine = _REDUCTIONS[node.op]
        if combine.cxx_form is vocabulary.CxxForm.INFIX:
            update = f"{acc} = {acc} {combine.cxx} {body};"
        else:
            update = f"{acc} = {combine.cxx}({acc}, {body});"
        if conditions:  # && in lookup order: a chained lookup only follows a valid entry
            update = f"if ({' && '.join(conditions)}) {{ {update} }}"
        return update

    def _neighbour_count(self, node: ir.Reduce) -> str:
        """The number of neighbours: the table's columns, or, for a reduction over a local
        field with no table lookup in it, that field's extent along the local dimension."""
        if node.tables:
            count = self.table_layout(node.tables[0]).columns
            return str(count) if count is not None else f"{node.tables[0]}_count"
        for read in node.body.walk_values().if_isinstance(ir.Deref):
            param = self.fields.get(read.field)
            if param is not None and node.axis in param.dims:
                return f"{read.field}_hi_{node.axis}"
        table = self._table_for_axis(node.axis)
        count = self.table_layout(table).columns
        return str(count) if count is not None else f"{table}_count"

    def _table_for_axis(self, axis: str) -> str:
        for decl in self.program.offsets:
            if decl.local == axis:
                return decl.name
        raise TypeError(f"no neighbour table or local field enumerates the local dimension {axis}")


def _entered(position: dict[str, str], axis: str, neighbour: str) -> dict[str, str]:
    """Positions inside a reduction over ``axis``: its neighbour, the enclosing ones over the
    same axis one level further out."""
    inner = dict(position)
    level = 0
    while ir.neighbour_key(axis, level) in position:
        inner[ir.neighbour_key(axis, level + 1)] = position[ir.neighbour_key(axis, level)]
        level += 1
    inner[axis] = neighbour
    return inner

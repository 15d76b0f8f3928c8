"""C++ for an IR program: one ``run`` function of plain loop nests, with nanobind bindings.

- Each field parameter arrives as an ``nb::ndarray<>`` plus the first index of each of its
  dimensions; element strides are read from the array, so any layout works. Reads and writes
  go through a base pointer moved to index 0 of every dimension.
- Each ``Apply`` is a loop nest over its domain in the order of the first output's
  dimensions (the last one innermost, which is contiguous in the default layout), the outer
  loops shared out by OpenMP when the domain is large enough to pay for the threads.
- Each ``Scan`` loops over the other dimensions in parallel and over its axis sequentially,
  with the carries in local variables.
- Neighbour tables are index arrays (``nb::ndarray<>`` + skip value); a reduction loops over
  the table's columns, leaving out skipped neighbours. When the table layout (``table_layout``:
  column count, whether skip values occur) is part of the translation input, the count is a
  constant (checked on entry), short reductions are unrolled and tables without skip values
  get no skip checks.
- In loop nests of two or more dimensions, table entries that depend only on the outer loop
  indices are loaded once per outer point (not per innermost point), the innermost loop is
  ``#pragma omp simd``, and a second copy of it with unit innermost strides runs when every
  array is contiguous along that dimension (the usual case), so it vectorizes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

from ... import _builtin_vocabulary as vocabulary, ir
from .._arguments import parse_table_layout
from .._extents import checked_at_run_time, field_codes


CXX_TYPES = {
    "bool": "bool",
    "int8": "std::int8_t",
    "int16": "std::int16_t",
    "int32": "std::int32_t",
    "int64": "std::int64_t",
    "uint8": "std::uint8_t",
    "uint16": "std::uint16_t",
    "uint32": "std::uint32_t",
    "uint64": "std::uint64_t",
    "float32": "float",
    "float64": "double",
}

# IR call -> C++ operator or function, from the builtin vocabulary (`if_` is spelled below)
_INFIX = {
    name: row.cxx
    for name, row in vocabulary.IR_CALLS.items()
    if row.cxx_form is vocabulary.CxxForm.INFIX
}
_STD_MATH = {  # functions, and the prefix operators of `neg` and `not_`
    name: row.cxx
    for name, row in vocabulary.IR_CALLS.items()
    if row.cxx_form in (vocabulary.CxxForm.CALL, vocabulary.CxxForm.PREFIX)
}

INCLUDES = r"""#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace nb = nanobind;
using index_t = std::int64_t;

"""

# The scalar helpers, shared by the C++ and the CUDA generator (``GT_FN``: ``inline`` there,
# ``__host__ __device__ inline`` here).
HELPERS = r"""// Python semantics for // and % on integers (floor, sign of the divisor); floats as numpy.
template <class A, class B> GT_FN auto gt_floordiv(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T q = static_cast<T>(a) / static_cast<T>(b);
    if constexpr (std::is_signed_v<T>) { if ((a % b != 0) && ((a < 0) != (b < 0))) --q; }
    return q;
  } else { return std::floor(static_cast<T>(a) / static_cast<T>(b)); }
}
template <class A, class B> GT_FN auto gt_mod(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T r = static_cast<T>(a) % static_cast<T>(b);
    if constexpr (std::is_signed_v<T>) { if (r != 0 && ((r < 0) != (b < 0))) r += b; }
    return r;
  } else {
    T r = std::fmod(static_cast<T>(a), static_cast<T>(b));
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class A, class B> GT_FN auto gt_power(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T result = 1, base = a; auto e = b;
    while (e > 0) { if (e & 1) result *= base; base *= base; e >>= 1; }
    return result;
  } else { return static_cast<T>(std::pow(static_cast<T>(a), static_cast<T>(b))); }
}
template <class A, class B> GT_FN auto gt_minimum(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
  return std::min<T>(a, b);
}
template <class A, class B> GT_FN auto gt_maximum(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
  return std::max<T>(a, b);
}
template <class A> GT_FN A gt_abs(A a) {
  if constexpr (std::is_unsigned_v<A>) { return a; } else { return static_cast<A>(a < 0 ? -a : a); }
}
"""

PRELUDE = (
    INCLUDES
    + "#define GT_FN inline\n"
    + HELPERS
    + r"""// A read checked per point found its point outside the field: remember which field (the
// Python side raises DomainError naming it) and go on with a harmless value.
template <class T> inline T gt_outside(std::atomic<int>& status, int field) {
  status.store(field, std::memory_order_relaxed);
  return T{};
}
"""
)

# Points below this count run on one thread: starting the team costs more than it saves.
PARALLEL_THRESHOLD = 32768
# Reductions over at most this many (constant) neighbours are unrolled.
UNROLL_LIMIT = 16


def module_name(fingerprint: str) -> str:
    return f"gtfn_{fingerprint[:24]}"


class CppGenerator:
    """Generates the C++ module of one program for given connectivity dtypes."""

    def __init__(
        self,
        program: ir.Program,
        table_dtypes: Mapping[str, str],
        *,
        check_every_read: bool = False,
        openmp: bool = True,
        parallel_threshold: int = PARALLEL_THRESHOLD,
    ) -> None:
        self.program = program
        self.check_every_read = check_every_read
        # without OpenMP the generated code has no `#pragma omp` at all (not even `simd`)
        self.openmp = openmp
        self.parallel_threshold = parallel_threshold
        self.fields = {p.name: p for p in program.params if isinstance(p, ir.FieldParam)}
        for temporary in program.temporaries:  # read and written like fields
            self.fields[temporary.name] = ir.FieldParam(
                name=temporary.name, dims=temporary.dims, dtype=temporary.dtype
            )
        self.scalars = {p.name: p for p in program.params if isinstance(p, ir.ScalarParam)}
        self.codes = field_codes(program)
        self.offsets = {o.name: o for o in program.offsets}
        layouts = {name: parse_table_layout(text) for name, text in table_dtypes.items()}
        self.table_dtypes = {name: layout[0] for name, layout in layouts.items()}
        self.table_counts = {name: layout[1] for name, layout in layouts.items()}
        self.table_skips = {name: layout[2] for name, layout in layouts.items()}
        # hoisting of table entries out of the innermost loop (None: not in such a nest)
        self._hoist: list[str] | None = None
        self._hoist_names: set[str] = set()  # identifiers a hoisted entry may use
        self._hoisted: dict[str, str] = {}
        self.uses_status = False  # some read is checked per point (sets `gt_status`)
        self._guards = 0  # > 0 inside a branch that is only evaluated conditionally
        self._counter = itertools.count()
        # per enclosing reduction (innermost last): its local dimension and the skip checks
        # of the table lookups its body makes, at the points they are really made
        self._masks: list[tuple[str, list[str]]] = []

    # -- module ---------------------------------------------------------------------------------

    def module(self, name: str) -> str:
        arguments: list[str] = []
        setup: list[str] = []
        for param in self.program.params:
            if isinstance(param, ir.FieldParam):
                arguments.append(f"nb::ndarray<nb::device::cpu> {param.name}_array")
                arguments.extend(f"index_t {param.name}_o{i}" for i in range(len(param.dims)))
                setup.append(self._field_setup(param))
            else:
                arguments.append(f"{CXX_TYPES[param.dtype]} {param.name}")
        for offset in self.program.offsets:
            arguments.append(f"nb::ndarray<nb::device::cpu> {offset.name}_table")
            arguments.append(f"index_t {offset.name}_skip")
            setup.append(self._table_setup(offset))
        setup.extend(self._temporary_setup(t) for t in self.program.temporaries)
        setup.append("  std::atomic<int> gt_status{0};")
        # after each statement: stop at the first read outside a field (its code, see
        # `field_codes`); the statements after it would compute from a placeholder value
        stop = "  if (const int s = gt_status.load()) return s;"
        body = "\n".join(f"{self._statement(s)}\n{stop}" for s in self.program.body)
        signature = ",\n    ".join(arguments)
        return (
            f"{PRELUDE}\n"
            f"// program {self.program.name}\n"
            f"static int run(\n    {signature}) {{\n" + "\n".join(setup) + f"\n{body}\n"
            "  return 0;\n}\n\n"
            f'NB_MODULE({name}, m) {{\n  m.def("run", &run);\n}}\n'
        )

    def _field_setup(self, param: ir.FieldParam) -> str:
        cxx = CXX_TYPES[param.dtype]
        n = param.name
        lines = [f"  {cxx}* const {n}_base0 = static_cast<{cxx}*>({n}_array.data());"]
        offset_terms = []
        for i, dim in enumerate(param.dims):
            lines.append(f"  const index_t {n}_s_{dim} = {n}_array.stride({i});")
            lines.append(f"  const index_t {n}_lo_{dim} = {n}_o{i};")
            lines.append(
                f"  const index_t {n}_hi_{dim} = {n}_o{i} + index_t({n}_array.shape({i}));"
            )
            offset_terms.append(f"{n}_o{i} * {n}_s_{dim}")
        shift = " + ".join(offset_terms) if offset_terms else "0"
        # index 0 of every dimension (may lie outside the buffer; only in-bounds points are read)
        lines.append(f"  {cxx}* const {n} = {n}_base0 - ({shift});")
        lines.append(f"  (void){n}; (void){n}_base0;")
        return "\n".join(lines)

    def _temporary_setup(self, temporary: ir.Temporary) -> str:
        """A buffer over the temporary's inferred domain, allocated per call (uninitialized:
        the statement writing it covers the whole domain before anything reads it)."""
        if len(temporary.domain) != len(temporary.dims):
            raise ValueError(
                f"temporary {temporary.name} has no inferred domain; run the domain_inference "
                "pass before generating code"
            )
        cxx = CXX_TYPES[temporary.dtype]
        n = temporary.name
        lines = []
        by_dim = {r.dim: r for r in temporary.domain}
        for dim in temporary.dims:
            lo = self.expr(by_dim[dim].start, {})
            hi = self.expr(by_dim[dim].stop, {})
            lines.append(f"  const index_t {n}_lo_{dim} = index_t({lo});")
            lines.append(f"  const index_t {n}_hi_{dim} = std::max({n}_lo_{dim}, index_t({hi}));")
        # C order over the temporary's dims: the last one contiguous
        stride = "index_t(1)"
        for dim in reversed(temporary.dims):
            lines.append(f"  const index_t {n}_s_{dim} = {stride};")
            stride = f"{n}_s_{dim} * ({n}_hi_{dim} - {n}_lo_{dim})"
        lines.append(f"  std::unique_ptr<{cxx}[]> {n}_buffer(new {cxx}[std::size_t({stride})]);")
        origin = " + ".join(f"{n}_lo_{d} * {n}_s_{d}" for d in temporary.dims) or "0"
        lines.append(f"  {cxx}* const {n} = {n}_buffer.get() - ({origin});")
        return "\n".join(lines)

    def _table_setup(self, offset: ir.OffsetDecl) -> str:
        cxx = CXX_TYPES[self.table_dtypes.get(offset.name, "int32")]
        n = offset.name
        lines = [
            f"  const {cxx}* const {n} = static_cast<const {cxx}*>({n}_table.data());",
            f"  const index_t {n}_s0 = {n}_table.stride(0);",
            f"  const index_t {n}_rows = index_t({n}_table.shape(0));",
            f"  (void){n}_rows;",
        ]
        if offset.local is not None:
            lines.append(f"  const index_t {n}_s1 = {n}_table.stride(1);")
            count = self.table_counts.get(n)
            if count is None:
                lines.append(f"  const index_t {n}_count = index_t({n}_table.shape(1));")
            else:
                lines.append(
                    f"  if (index_t({n}_table.shape(1)) != {count}) throw std::invalid_argument("
                    f'"neighbour table {n}: compiled for {count} columns");'
                )
                lines.append(f"  constexpr index_t {n}_count = {count};")
        lines.append(f"  (void){n}_skip;")
        return "\n".join(lines)

    # -- statements -----------------------------------------------------------------------------

    def _bounds(self, ranges: list[ir.Range]) -> tuple[list[str], dict[str, str]]:
        lines = []
        variables: dict[str, str] = {}
        for r in ranges:
            lo = self.expr(r.start, {})
            hi = self.expr(r.stop, {})
            k = next(self._counter)
            lines.append(f"  const index_t lo{k} = index_t({lo}), hi{k} = index_t({hi});")
            variables[r.dim] = f"{k}"
        return lines, variables

    def _write(self, output: str, value: str, position: dict[str, str]) -> str:
        param = self.fields[output]
        index = " + ".join(f"{position[d]} * {output}_s_{d}" for d in param.dims) or "0"
        return f"{output}[{index}] = static_cast<{CXX_TYPES[param.dtype]}>({value});"

    def _statement(self, statement: ir.Apply | ir.Scan) -> str:
        lines, ids = self._bounds(statement.domain)
        dims = [r.dim for r in statement.domain]
        position = {d: f"i_{d}" for d in dims}
        size = " * ".join(f"(hi{ids[d]} - lo{ids[d]})" for d in dims) or "1"
        lines.append(f"  const index_t points{ids[dims[0]] if dims else 0} = {size};")
        points = f"points{ids[dims[0]] if dims else 0}"
        if isinstance(statement, ir.Apply):
            loops = dims
            if len(loops) >= 2:
                return "\n".join(self._vectorized_nest(statement, lines, ids, loops, points))
            inner = self._apply_body(statement, position)
        else:
            loops = [d for d in dims if d != statement.axis]
            inner = self._scan_body(
                statement, position, f"lo{ids[statement.axis]}", f"hi{ids[statement.axis]}"
            )
        code = ["  {", *lines]
        depth = 1
        if loops:
            collapse = min(len(loops), 2)
            code.extend(self._pragma(f"parallel for collapse({collapse}) {self._if_large(points)}"))
        for dim in loops:
            k = ids[dim]
            code.append(
                "  " * depth + f"  for (index_t i_{dim} = lo{k}; i_{dim} < hi{k}; ++i_{dim}) {{"
            )
            depth += 1
        code.extend("  " * depth + "  " + line for line in inner)
        for _ in loops:
            depth -= 1
            code.append("  " * depth + "  }")
        code.append("  }")
        return "\n".join(code)

    def _scan_body(
        self, statement: ir.Scan, position: dict[str, str], lo: str, hi: str
    ) -> list[str]:
        """One column of a ``Scan``: the carries, then the sequential loop over its axis from
        ``lo`` to ``hi`` (shared by the C++ loop nests and the CUDA kernels)."""
        axis = statement.axis
        inner = []
        dtypes = [self._literal_type(i) for i in statement.init]
        for carry, init, cxx in zip(statement.carries, statement.init, dtypes, strict=True):
            inner.append(f"{cxx} {carry} = {self.expr(init, position)};")
        step = (
            f"for (index_t i_{axis} = {lo}; i_{axis} < {hi}; ++i_{axis}) {{"
            if statement.forward
            else f"for (index_t i_{axis} = {hi} - 1; i_{axis} >= {lo}; --i_{axis}) {{"
        )
        inner.append(step)
        inner.extend(f"  {line}" for line in self._bindings(statement, position))
        news = []
        for value, cxx in zip(statement.values, dtypes, strict=True):
            temp = f"v{next(self._counter)}"
            news.append(temp)
            inner.append(f"  const {cxx} {temp} = {self.expr(value, position)};")
        for carry, temp in zip(statement.carries, news, strict=True):
            inner.append(f"  {carry} = {temp};")
        for output, carry in zip(statement.outputs, statement.carries, strict=True):
            inner.append("  " + self._write(output, carry, position))
        inner.append("}")
        return inner

    def _bindings(self, statement: ir.Apply | ir.Scan, position: dict[str, str]) -> list[str]:
        """The values a statement's outputs share, once per point, before its values."""
        return [
            f"const auto {b.name} = {self.expr(b.value, position)};" for b in statement.bindings
        ]

    def _apply_body(self, statement: ir.Apply, position: dict[str, str]) -> list[str]:
        """One point of an ``Apply``: every value into a temporary, then the writes."""
        body: list[str] = self._bindings(statement, position)
        temps = []
        for value in statement.values:
            temp = f"v{next(self._counter)}"
            temps.append(temp)
            body.append(f"const auto {temp} = {self.expr(value, position)};")
        for output, temp in zip(statement.outputs, temps, strict=True):
            body.append(self._write(output, temp, position))
        return body

    def _vectorized_nest(
        self,
        statement: ir.Apply,
        bounds: list[str],
        ids: dict[str, str],
        loops: list[str],
        points: str,
    ) -> list[str]:
        """The outer loops in parallel, table entries loaded per outer point, the innermost
        loop ``omp simd`` in two versions: unit strides (contiguous arrays) and general."""
        outer, last = loops[:-1], loops[-1]
        position = {d: f"i_{d}" for d in loops}
        self._hoist, self._hoist_names, self._hoisted = [], {f"i_{d}" for d in outer}, {}
        try:
            inner = self._apply_body(statement, position)
            hoisted = self._hoist
        finally:
            self._hoist, self._hoist_names, self._hoisted = None, set(), {}
        stride = re.compile(rf"\b(\w+)_s_{re.escape(last)}\b")
        arrays = sorted({m.group(1) for line in inner for m in stride.finditer(line)})
        k = ids[last]
        code = ["  {", *bounds]
        contiguous = f"contiguous{k}"
        if arrays:
            test = " && ".join(f"{a}_s_{last} == 1" for a in arrays)
            code.append(f"  const bool {contiguous} = {test};")
        # an empty innermost range reads nothing, not even the hoisted table entries
        code.append(f"  if (hi{k} > lo{k}) {{")
        collapse = f" collapse({min(len(outer), 2)})" if len(outer) > 1 else ""
        code.extend(self._pragma(f"parallel for{collapse} {self._if_large(points)}"))
        depth = 1
        for dim in outer:
            code.append(
                "  " * depth
                + f"  for (index_t i_{dim} = lo{ids[dim]}; i_{dim} < hi{ids[dim]}; ++i_{dim}) {{"
            )
            depth += 1
        pad = "  " * depth + "  "
        code.extend(pad + line for line in hoisted)

        def simd_loop(body: list[str]) -> list[str]:
            return [
                *(pad + line.strip() for line in self._pragma("simd")),
                pad + f"for (index_t i_{last} = lo{k}; i_{last} < hi{k}; ++i_{last}) {{",
                *(pad + "  " + line for line in body),
                pad + "}",
            ]

        if arrays:
            unit = [stride.sub("index_t(1)", line) for line in inner]
            code.append(pad + f"if ({contiguous}) {{")
            code.extend("  " + line for line in simd_loop(unit))
            code.append(pad + "} else {")
            code.extend("  " + line for line in simd_loop(inner))
            code.append(pad + "}")
        else:
            code.extend(simd_loop(inner))
        for _ in outer:
            depth -= 1
            code.append("  " * depth + "  }")
        code.append("  }")
        code.append("  }")
        return code

    def _pragma(self, clause: str) -> list[str]:
        """``#pragma omp <clause>`` as a line of a loop nest, or nothing without OpenMP."""
        return [f"  #pragma omp {clause}"] if self.openmp else []

    def _if_large(self, points: str) -> str:
        """The OpenMP clause running a loop nest in parallel only above the threshold."""
        return f"if({points} > {self.parallel_threshold})"

    def _literal_type(self, node: ir.Expr) -> str:
        assert isinstance(node, ir.Literal)
        return CXX_TYPES[node.dtype]

    # -- expressions ----------------------------------------------------------------------------

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
            return f"static_cast<{CXX_TYPES[node.dtype]}>({self.expr(node.value, position)})"
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
        if (
            node.dtype in ("int64", "uint64")
            and value.lstrip("-").isdigit()
            and abs(int(value)) >= 2**62
        ):
            return f"std::numeric_limits<{cxx}>::{'min' if value.startswith('-') else 'max'}()"
        return f"{cxx}({value})"

    def _call(self, node: ir.Call, position: dict[str, str]) -> str:
        fun = node.fun
        lazy = 1 if fun in ("if_", "and_", "or_") else len(node.args)  # later args conditional
        args = [self.expr(a, position) for a in node.args[:lazy]]
        self._guards += 1
        try:
            args.extend(self.expr(a, position) for a in node.args[lazy:])
        finally:
            self._guards -= 1
        if fun == "if_":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if fun in _INFIX:
            return f"({args[0]} {_INFIX[fun]} {args[1]})"
        if fun in ("neg", "not_"):
            return f"({_STD_MATH[fun]}{args[0]})"
        if fun in _STD_MATH:
            return f"{_STD_MATH[fun]}({', '.join(args)})"
        raise TypeError(f"unknown IR function {fun!r}")

    def _deref(self, node: ir.Deref, position: dict[str, str]) -> str:
        pos = dict(position)
        # per-point checks of a read made only under a condition or at a position read from
        # a field (the others are checked before the call: backends/_extents.py)
        checked = node.field in self.codes and (
            self.check_every_read or checked_at_run_time(node, self._guards > 0)
        )
        inside: list[str] = []
        for shift in node.shifts:
            if isinstance(shift, ir.CartesianShift):
                pos[shift.dim] = f"({pos[shift.dim]} + {shift.amount})"
            elif isinstance(shift, ir.DynamicShift):
                # as on embedded (ADR 0005): a position outside the field reads its edge
                f, d = node.field, shift.dim
                moved = f"{pos[d]} + index_t({self.expr(shift.amount, position)})"
                pos[d] = f"std::max({f}_lo_{d}, std::min(index_t({moved}), {f}_hi_{d} - 1))"
            elif isinstance(shift, ir.LocalIndex):
                pos[shift.dim] = str(shift.index)
            else:
                assert isinstance(shift, ir.NeighbourShift)
                decl = self.offsets[shift.offset]
                at = pos.pop(decl.domain_dim)
                t = decl.name
                if checked:
                    inside.append(f"({at}) >= 0 && ({at}) < {t}_rows")
                    if decl.local is not None:
                        column = (
                            str(shift.index)
                            if shift.index is not None
                            else pos[ir.neighbour_key(decl.local, shift.outer)]
                        )
                        inside.append(f"({column}) >= 0 && ({column}) < {t}_count")
                if decl.local is None:
                    entry = self._hoisted_entry(f"{t}[{at} * {t}_s0]", t)
                else:
                    neighbour = (
                        str(shift.index)
                        if shift.index is not None
                        else pos[ir.neighbour_key(decl.local, shift.outer)]
                    )
                    entry = self._hoisted_entry(f"{t}[{at} * {t}_s0 + {neighbour} * {t}_s1]", t)
                    if shift.index is None and self.table_skips.get(t, True):
                        self._record_mask(decl, f"{entry} != {t}_skip", shift.outer)
                pos[decl.codomain] = f"index_t({entry})"
        param = self.fields[node.field]
        index = " + ".join(f"{pos[d]} * {node.field}_s_{d}" for d in param.dims) or "0"
        if not checked:
            return f"{node.field}[{index}]"
        self.uses_status = True
        f = node.field
        inside.extend(f"({pos[d]}) >= {f}_lo_{d} && ({pos[d]}) < {f}_hi_{d}" for d in param.dims)
        cxx = CXX_TYPES[param.dtype]
        return (
            f"(({' && '.join(inside)}) ? {f}[{index}] : "
            f"gt_outside<{cxx}>(gt_status, {self.codes[f]}))"
        )

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
            if not self.table_skips.get(table, True):
                self._hoist_names.add(name)
        return name

    def _record_mask(self, decl: ir.OffsetDecl, check: str, outer: int = 0) -> None:
        for axis, checks in reversed(self._masks):
            if axis == decl.local and outer:
                outer -= 1
            elif axis == decl.local:
                if check not in checks:
                    checks.append(check)
                return

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
        if node.op == "plus":
            update = f"{acc} = {acc} + {body};"
        else:
            update = f"{acc} = gt_{node.op}({acc}, {body});"
        if conditions:  # && in lookup order: a chained lookup only follows a valid entry
            update = f"if ({' && '.join(conditions)}) {{ {update} }}"
        return update

    def _neighbour_count(self, node: ir.Reduce) -> str:
        """The number of neighbours: the table's columns, or, for a reduction over a local
        field with no table lookup in it, that field's extent along the local dimension."""
        if node.tables:
            count = self.table_counts.get(node.tables[0])
            return str(count) if count is not None else f"{node.tables[0]}_count"
        for read in node.body.walk_values().if_isinstance(ir.Deref):
            param = self.fields.get(read.field)
            if param is not None and node.axis in param.dims:
                return f"{read.field}_hi_{node.axis}"
        table = self._table_for_axis(node.axis)
        count = self.table_counts.get(table)
        return str(count) if count is not None else f"{table}_count"

    def _table_for_axis(self, axis: str) -> str:
        for decl in self.program.offsets:
            if decl.local == axis:
                return decl.name
        raise TypeError(f"no neighbour table or local field enumerates the local dimension {axis}")


def generate(program: ir.Program, name: str, table_dtypes: Mapping[str, str]) -> str:
    """The C++ source of the nanobind module ``name`` running ``program``."""
    return CppGenerator(program, table_dtypes).module(name)


def _unused(*_: Any) -> None:
    pass


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

"""C++ for an IR program: one ``run`` function of plain loop nests, with nanobind bindings.

- Each field parameter arrives as an ``nb::ndarray<>`` plus the first index of each of its
  dimensions; element strides are read from the array, so any layout works.
- Each ``Apply`` is a loop nest over its domain in the order of the first output's
  dimensions (the last one innermost, which is contiguous in the default layout), the outer
  loops shared out by OpenMP when the domain has more points than ``parallel_threshold``.
- Consecutive single-output ``Apply`` statements over the same dimensions (the outputs of a
  tuple result, each over its own domain) run as one nest when their bounds agree at run
  time, else one after the other (``_fusion``).
- Each ``Scan`` loops over the other dimensions in parallel and over its axis sequentially,
  with the carries in local variables.
- Neighbour tables are index arrays (``nb::ndarray<>`` + skip value); with a known column
  count (:class:`~.._table_layout.TableLayout`) the count is checked on entry.
- In loop nests of two or more dimensions, table entries that depend only on the outer loop
  indices are loaded once per outer point (not per innermost point), the innermost loop is
  ``#pragma omp simd``, and a second copy of it with unit innermost strides runs when every
  array is contiguous along that dimension (the usual case), so it vectorizes.
- ``openmp=False``: the same loops without any ``#pragma omp``.

Expressions (reads, calls, reductions) are :class:`~._expressions.ExpressionGenerator`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gt4py.infra import native

from ... import ir
from .._table_layout import TableLayout
from . import _fusion
from ._cxx import CXX_TYPES, INCLUDES, run_function
from ._expressions import ExpressionGenerator


PRELUDE = (
    INCLUDES
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


def module_name(fingerprint: str) -> str:
    return f"gtfn_{fingerprint[:24]}"


class CppGenerator(ExpressionGenerator):
    """Generates the C++ module of one program for given neighbour-table layouts."""

    def __init__(
        self,
        program: ir.Program,
        table_layouts: Mapping[str, TableLayout],
        *,
        check_every_read: bool = False,
        openmp: bool = True,
        parallel_threshold: int = PARALLEL_THRESHOLD,
    ) -> None:
        super().__init__(program, table_layouts, check_every_read=check_every_read)
        # without OpenMP the generated code has no `#pragma omp` at all (not even `simd`)
        self.openmp = openmp
        self.parallel_threshold = parallel_threshold
        # fields the program only reads: passed as `nb::ro` arrays (read-only ones accepted)
        self._read_only: set[str] = set()

    # -- module ---------------------------------------------------------------------------------

    def module(self, name: str) -> str:
        arguments: list[native.Parameter] = []
        setup: list[str] = []
        self.find_read_only()
        for param in self.program.params:
            if isinstance(param, ir.FieldParam):
                access = "nb::ro, " if param.name in self._read_only else ""
                arguments.append(
                    native.Parameter(f"nb::ndarray<{access}nb::device::cpu>", f"{param.name}_array")
                )
                arguments.extend(
                    native.Parameter("index_t", f"{param.name}_o{i}")
                    for i in range(len(param.dims))
                )
                setup.append(self._field_setup(param))
            else:
                arguments.append(native.Parameter(CXX_TYPES[param.dtype], param.name))
        for offset in self.program.offsets:
            arguments.append(
                native.Parameter("nb::ndarray<nb::device::cpu>", f"{offset.name}_table")
            )
            arguments.append(native.Parameter("index_t", f"{offset.name}_skip"))
            setup.append(self._table_setup(offset))
        setup.extend(self._temporary_setup(t) for t in self.program.temporaries)
        setup.append("  std::atomic<int> gt_status{0};")
        # after each statement: stop at the first read outside a field (its code, see
        # `field_codes`); the statements after it would compute from a placeholder value
        stop = "  if (const int s = gt_status.load()) return s;"
        # a tuple result split into per-output statements runs as one nest where the outputs'
        # bounds agree at run time (`_fusion`)
        items = _fusion.emit(self.program.body, self._statement, lambda e: self.expr(e, {}))
        body = _fusion.assemble(items, stop)
        return (
            f"{PRELUDE}\n"
            f"// program {self.program.name}\n"
            + run_function(arguments, "\n".join(setup) + f"\n{body}")
            + native.entry_point(name, arguments)
        )

    def find_read_only(self) -> None:
        """Note the field parameters the program only reads (taken as ``nb::ro`` arrays)."""
        written = {o for statement in self.program.body for o in statement.outputs}
        self._read_only = {
            p.name
            for p in self.program.params
            if isinstance(p, ir.FieldParam) and p.name not in written
        }

    def _field_setup(self, param: ir.FieldParam) -> str:
        cxx = CXX_TYPES[param.dtype]
        if param.name in self._read_only:
            cxx = f"const {cxx}"
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
        layout = self.table_layout(offset.name)
        cxx = CXX_TYPES[layout.dtype]
        n = offset.name
        lines = [
            f"  const {cxx}* const {n} = static_cast<const {cxx}*>({n}_table.data());",
            f"  const index_t {n}_s0 = {n}_table.stride(0);",
            f"  const index_t {n}_rows = index_t({n}_table.shape(0));",
            f"  (void){n}_rows;",
        ]
        if offset.local is not None:
            lines.append(f"  const index_t {n}_s1 = {n}_table.stride(1);")
            count = layout.columns
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
        # an empty range counts 0 points (its hi - lo may be negative); the nest runs only
        # when no range is empty, so OpenMP never counts the iterations of an empty one
        size = " * ".join(f"(hi{ids[d]} - lo{ids[d]})" for d in dims) or "1"
        nonempty = " && ".join(f"hi{ids[d]} > lo{ids[d]}" for d in dims) or "true"
        lines.append(
            f"  const index_t points{ids[dims[0]] if dims else 0} = ({nonempty}) ? {size} : 0;"
        )
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
            code.append(f"  if ({points} > 0) {{")
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
        if loops:
            code.append("  }")
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
        # an empty range reads nothing, not even the hoisted table entries
        code.append(f"  if ({points} > 0) {{")
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


def generate(
    program: ir.Program,
    name: str,
    table_layouts: Mapping[str, TableLayout],
    *,
    openmp: bool = True,
    parallel_threshold: int = PARALLEL_THRESHOLD,
) -> str:
    """The C++ source of the nanobind module ``name`` running ``program``."""
    generator = CppGenerator(
        program, table_layouts, openmp=openmp, parallel_threshold=parallel_threshold
    )
    return generator.module(name)

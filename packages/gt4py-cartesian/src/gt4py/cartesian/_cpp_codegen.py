"""C++ for the ``gt:cpu_ifirst`` / ``gt:cpu_kfirst`` backends: one readable OpenMP loop nest per
stencil, with nanobind bindings, generated from the analysed IR.

The semantics are those of the ``debug`` backend (see ``_analysis``): computations in order;
in PARALLEL each top-level statement runs over its whole interval before the next; in
FORWARD/BACKWARD every statement of a level runs before the next level. Python's arithmetic
is kept where C++ differs: ``%`` and ``//`` floor, ``int / int`` divides in double, ``**`` on
integers stays integral, ``round`` is half-to-even, ``min``/``max`` propagate NaN (the helpers
of ``<gt4py/python_semantics.hpp>``, shared with gtfn and shipped with gt4py.infra.native).

Field strides come from the arguments, so any memory layout works; the loop order follows the
backend's layout (its stride-1 axis innermost), and a second instantiation of the kernel, with
that axis' stride fixed to 1, runs when every argument is stride-1 there (it vectorizes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from gt4py.infra import native

from . import _ir as ir
from ._analysis import AnalysedStencil, iter_accesses
from ._codegen_common import MATH_FUNCTIONS, IRGenerator, region_conditions, run_order
from ._errors import GTScriptDefinitionError


CPP_TYPES = {
    "bool": "bool", "int8": "std::int8_t", "int16": "std::int16_t", "int32": "std::int32_t",
    "int64": "std::int64_t", "uint8": "std::uint8_t", "uint16": "std::uint16_t",
    "uint32": "std::uint32_t", "uint64": "std::uint64_t", "float32": "float", "float64": "double",
}  # fmt: skip

CPP_FUNCTIONS = {name: names[1] for name, names in MATH_FUNCTIONS.items()}
# Python's operators where C++'s differ (<gt4py/python_semantics.hpp>).
CPP_OPERATORS = {
    "/": "gt4py::truediv", "//": "gt4py::floordiv", "%": "gt4py::mod", "**": "gt4py::power",
    # signed integers wrap as numpy's without -fwrapv (ADR 0044)
    "+": "gt4py::add", "-": "gt4py::sub", "*": "gt4py::mul",
}  # fmt: skip

CPP_BACKENDS = ("gt:cpu_ifirst", "gt:cpu_kfirst")


def axis_order(backend: str) -> str:
    """The axes from the outermost to the stride-1 one in the backend's storage layout (from
    gt4py.storage's registry, the one place layouts live): loop nests and temporaries follow
    it, so that they walk memory in order (``"KJI"`` for gt:cpu_ifirst, ``"IJK"`` for
    gt:cpu_kfirst)."""
    from gt4py import storage

    order = getattr(storage.backend_layout(backend).layout, "axis_order", None)
    if order is None or sorted(order) != ["I", "J", "K"]:
        raise ValueError(f"backend {backend!r} has no I, J, K axis order for C++ loop nests")
    return str(order)


PRELUDE = r"""
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gt4py/python_semantics.hpp>

namespace nb = nanobind;

namespace {

using idx = std::ptrdiff_t;

// A K index checked against the field's K size, or a data index computed at run time against
// its data dimension's size (dim >= 0). Exceptions must not leave an OpenMP region, so a bad
// index is recorded (first one wins) and replaced by 0; the call raises afterwards.
struct KIndexError {
  int field = -1;
  idx index = 0;
  idx size = 0;
  int dim = -1;
};

// Set by a failed check in this thread: a while loop whose condition reads out of range stops
// (it would read index 0 forever) and the call raises as on the other backends.
thread_local bool gt_kfailed = false;

inline idx gt_kcheck(idx index, idx size, int field, KIndexError& error) {
  if (index >= 0 && index < size) return index;
  gt_kfailed = true;
#pragma omp critical(gt_kindex_error)
  if (error.field < 0) error = KIndexError{field, index, size, -1};
  return 0;
}

// A data index computed at run time: negative ones count from the end, as in Python.
inline idx gt_kcheck_data(idx index, idx size, int field, int dim, KIndexError& error) {
  if (index >= 0 && index < size) return index;
  if (index < 0 && index >= -size) return index + size;
  gt_kfailed = true;
#pragma omp critical(gt_kindex_error)
  if (error.field < 0) error = KIndexError{field, index, size, dim};
  return 0;
}

}  // namespace
"""


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    cpp_type: str
    axes: str
    data_dims: tuple[int, ...]
    is_temporary: bool


def _ident(name: str) -> str:
    """A user name in C++: prefixed, so that ``i``, ``k`` or ``int`` never clash."""
    return f"u_{name}"


def _constant(c: ir.Constant) -> str:
    if c.dtype == "bool":
        return "true" if c.value == "True" else "false"
    if c.dtype.startswith("float"):
        ctype = CPP_TYPES[c.dtype]
        special = {
            "inf": f"std::numeric_limits<{ctype}>::infinity()",
            "-inf": f"(-std::numeric_limits<{ctype}>::infinity())",
            "nan": f"std::numeric_limits<{ctype}>::quiet_NaN()",
        }
        if c.value in special:
            return special[c.value]
        text = c.value if any(ch in c.value for ch in ".en") else c.value + ".0"
        return f"{ctype}({text})" if c.dtype != "float64" else f"({text})"
    # A Python int is a "weak" type in numpy; a plain C++ int keeps an int32 field int32.
    value = int(c.value)
    low, high = (0, 2**64) if c.dtype.startswith("uint") else (-(2**63), 2**63)
    if not low <= value < high:
        # C++ would only warn and wrap the literal; numpy raises OverflowError.
        raise GTScriptDefinitionError(
            f"the integer constant {value} does not fit in {c.dtype} (the C++ backends compute "
            "in 64-bit integers at most); use a float or a smaller value"
        )
    if c.dtype == "int64" and -(2**31) <= value < 2**31:
        return f"({value})"
    return f"{CPP_TYPES[c.dtype]}({value}LL)"


def _position(pos: ir.AxisPosition, size: str) -> str:
    base = "0" if pos.level == "start" else size
    return f"({base} + ({pos.offset}))" if pos.offset else base


def stencil_fields(stencil: ir.Stencil) -> dict[str, _Field]:
    """The stencil's field parameters, then its temporaries, as the C++ generators see them."""
    fields = {
        p.name: _Field(p.name, CPP_TYPES[p.dtype], p.axes, tuple(p.data_dims), False)
        for p in stencil.params
        if isinstance(p, ir.FieldDecl)
    }
    for t in stencil.temporaries:
        fields[t.name] = _Field(t.name, CPP_TYPES[t.dtype], t.axes, tuple(t.data_dims), True)
    return fields


class CppGenerator(IRGenerator):
    """Statements are visited with ``at_domain`` (whether the statement's extent is the compute
    domain) and emitted at the current depth; expressions return their C++ text."""

    # Whether an interval whose K range is empty skips its statements (CUDA: no launches).
    skip_empty_intervals = False

    def __init__(self, analysed: AnalysedStencil, *, backend: str, module_name: str) -> None:
        if backend not in CPP_BACKENDS:
            raise ValueError(f"no C++ loop order for backend {backend!r}")
        self.analysed = analysed
        self.order = list(axis_order(backend))  # outermost first
        self.inner = self.order[-1]  # stride-1: the innermost loop
        self.module_name = module_name
        self.fields = stencil_fields(analysed.ir)
        self.field_ids = {name: n for n, name in enumerate(self.fields)}
        self.lines: list[str] = []
        self.depth = 0

    # -- output ---------------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("  " * self.depth + text if text else "")

    def generate(self) -> str:
        self.lines = [PRELUDE]
        self.emit_args_struct()
        self.emit_kernel()
        self.emit_binding()
        return "\n".join(self.lines) + "\n"

    # -- the argument block ---------------------------------------------------------------------
    def params(self) -> Iterator[ir.FieldDecl | ir.ScalarDecl]:
        yield from self.analysed.ir.params

    def emit_args_struct(self) -> None:
        self.emit("struct Args {")
        self.depth += 1
        self.emit("idx ni, nj, nk;")
        for p in self.params():
            if isinstance(p, ir.ScalarDecl):
                self.emit(f"{CPP_TYPES[p.dtype]} {_ident(p.name)};")
                continue
            field = self.fields[p.name]
            self.emit(f"{self.element(p.name)}* {_ident(p.name)};")
            for axis in field.axes:
                self.emit(f"idx {self.stride(p.name, axis)};")
            for d in range(len(field.data_dims)):
                self.emit(f"idx {self.stride(p.name, f'D{d}')};")
            if "K" in field.axes:  # for checked absolute and variable K indices
                self.emit(f"idx {self.korigin(p.name)}, {self.ksize(p.name)};")
        self.depth -= 1
        self.emit("};")
        self.emit("")

    def element(self, name: str) -> str:
        """The element type a parameter field is passed as: const when only read, so that
        read-only arrays (broadcast views, frozen storages) are accepted."""
        ctype = self.fields[name].cpp_type
        return f"const {ctype}" if self.analysed.access[name] in ("in", "none") else ctype

    def stride(self, name: str, axis: str) -> str:
        return f"s{axis.lower()}_{name}"

    def korigin(self, name: str) -> str:
        return f"ok_{name}"

    def ksize(self, name: str) -> str:
        return f"nk_{name}"

    # -- the kernel -----------------------------------------------------------------------------
    def emit_kernel(self) -> None:
        stencil = self.analysed.ir
        self.emit("template <bool UnitInner>")
        self.emit("void kernel(const Args& args, KIndexError& kerror) {")
        self.depth += 1
        self.emit("const idx ni = args.ni, nj = args.nj, nk = args.nk;")
        self.emit("(void)kerror;")
        for p in self.params():
            name = _ident(p.name)
            if isinstance(p, ir.ScalarDecl):
                self.emit(f"const {CPP_TYPES[p.dtype]} {name} = args.{name};")
                continue
            field = self.fields[p.name]
            self.emit(f"{self.element(p.name)}* const __restrict__ {name} = args.{name};")
            for axis in (*field.axes, *(f"D{d}" for d in range(len(field.data_dims)))):
                s = self.stride(p.name, axis)
                value = f"(UnitInner ? idx(1) : args.{s})" if axis == self.inner else f"args.{s}"
                self.emit(f"const idx {s} = {value};")
            if "K" in field.axes:
                self.emit(
                    f"const idx {self.korigin(p.name)} = args.{self.korigin(p.name)}, "
                    f"{self.ksize(p.name)} = args.{self.ksize(p.name)};"
                )
        self.emit_temporaries()
        self.emit("const bool parallel = ni * nj * nk >= 4096;  // tiny calls: no thread start")
        self.emit("(void)parallel;")
        for comp in stencil.computations:
            self.emit_computation(comp)
        self.depth -= 1
        self.emit("}")
        self.emit("")

    def temporary_extents(self, field: _Field) -> tuple[dict[str, str], dict[str, int]]:
        """A temporary's sizes along its axes and data dimensions (over ``ni``, ``nj``, ``nk``:
        the halo included), and where the compute domain starts in it."""
        halo, (k_lo, k_hi) = self.analysed.temp_halo, self.analysed.temp_k_halo
        sizes = {
            "I": f"(ni + {halo.i_hi - halo.i_lo})",
            "J": f"(nj + {halo.j_hi - halo.j_lo})",
            "K": f"(nk + {k_lo + k_hi})",
            **{f"D{d}": str(n) for d, n in enumerate(field.data_dims)},
        }
        return sizes, {"I": -halo.i_lo, "J": -halo.j_lo, "K": k_lo}

    def emit_temporaries(self) -> None:
        for t in self.analysed.ir.temporaries:
            field = self.fields[t.name]
            name = _ident(t.name)
            sizes, origins = self.temporary_extents(field)
            # The backend's layout: its inner axis stride-1, data dimensions outermost.
            axes = [f"D{d}" for d in range(len(field.data_dims))]
            axes += [a for a in self.order if a in field.axes]  # an IJ temporary has no K
            stride = "idx(1)"
            strides: dict[str, str] = {}
            for axis in reversed(axes):
                strides[axis] = stride
                stride = f"{stride} * {sizes[axis]}"
            # Zero-initialised; not a std::vector, whose bool specialisation has no data().
            ctype = field.cpp_type
            self.emit(f"std::unique_ptr<{ctype}[]> storage_{t.name}(new {ctype}[{stride}]());")
            for axis in axes:
                self.emit(f"const idx {self.stride(t.name, axis)} = {strides[axis]};")
            origin = " + ".join(f"{origins[a]} * {self.stride(t.name, a)}" for a in field.axes)
            self.emit(f"{ctype}* const __restrict__ {name} = storage_{t.name}.get() + {origin};")
            if "K" in field.axes:
                self.emit(
                    f"const idx {self.korigin(t.name)} = {origins['K']}, "
                    f"{self.ksize(t.name)} = {sizes['K']};"
                )
                self.emit(f"(void){self.korigin(t.name)}; (void){self.ksize(t.name)};")

    def emit_computation(self, comp: ir.Computation) -> None:
        self.emit(f"// computation({comp.order}) at {comp.loc}")
        # One thread team per computation; every loop nest inside shares out its horizontal
        # points with `omp for` (whose closing barrier orders statement after statement).
        self.emit("#pragma omp parallel if(parallel)")
        self.emit("{")
        self.depth += 1
        self.emit_intervals(comp)
        self.depth -= 1
        self.emit("}")

    def emit_intervals(self, comp: ir.Computation) -> None:
        """Each interval block in run order with its K bounds ``k0``, ``k1``; statements by
        :meth:`emit_statement`, inside a loop over the levels (``k``) in FORWARD/BACKWARD."""
        for block in run_order(comp):
            k0 = f"std::min(std::max<idx>({_position(block.start, 'nk')}, 0), nk)"
            k1 = f"std::min(std::max<idx>({_position(block.end, 'nk')}, 0), nk)"
            self.emit("{")
            self.depth += 1
            self.emit(f"const idx k0 = {k0}, k1 = {k1};")
            if self.skip_empty_intervals:
                self.emit("if (k1 > k0) {")
                self.depth += 1
            if comp.order == "PARALLEL":
                for stmt in block.body:
                    self.emit_statement(stmt, per_level=False)
            else:
                step = (
                    "for (idx k = k0; k < k1; ++k) {"
                    if comp.order == "FORWARD"
                    else "for (idx k = k1 - 1; k >= k0; --k) {"
                )
                self.emit(step)
                self.depth += 1
                for stmt in block.body:
                    self.emit_statement(stmt, per_level=True)
                self.depth -= 1
                self.emit("}")
            if self.skip_empty_intervals:
                self.depth -= 1
                self.emit("}")
            self.depth -= 1
            self.emit("}")

    def emit_statement(self, stmt: ir.Stmt, *, per_level: bool) -> None:
        """``stmt`` over its horizontal extent and the interval (or the level ``k``)."""
        if per_level:
            self.emit_level_nest(stmt)
        else:
            self.emit_parallel_nest(stmt)

    def horizontal_bounds(self, stmt: ir.Stmt) -> dict[str, tuple[str, str]]:
        ext = self.analysed.stmt_extents[id(stmt)]
        return {"I": (f"{ext.i_lo}", f"ni + {ext.i_hi}"), "J": (f"{ext.j_lo}", f"nj + {ext.j_hi}")}

    def emit_parallel_nest(self, stmt: ir.Stmt) -> None:
        bounds = self.horizontal_bounds(stmt)
        bounds["K"] = ("k0", "k1")
        self.emit("#pragma omp for collapse(2)")
        self.emit_nest(self.order, bounds, stmt)  # the layout's order: memory walked in order

    def emit_level_nest(self, stmt: ir.Stmt) -> None:
        bounds = self.horizontal_bounds(stmt)
        self.emit("#pragma omp for collapse(2)")
        self.emit_nest([a for a in self.order if a != "K"], bounds, stmt)

    def emit_nest(
        self, order: list[str], bounds: dict[str, tuple[str, str]], stmt: ir.Stmt
    ) -> None:
        opened = 0
        for axis in order:
            var = axis.lower()
            lo, hi = bounds[axis]
            self.emit(f"for (idx {var} = {lo}; {var} < {hi}; ++{var}) {{")
            self.depth += 1
            opened += 1
        ext = self.analysed.stmt_extents[id(stmt)]
        self.visit(stmt, at_domain=ext.is_zero)
        for _ in range(opened):
            self.depth -= 1
            self.emit("}")

    # -- statements ---------------------------------------------------------------------------
    def visit_Assign(self, stmt: ir.Assign, *, at_domain: bool) -> None:
        target = self.access(stmt.target)
        value = self.visit(stmt.value)
        ctype = self.fields[stmt.target.name].cpp_type
        # numpy's assignment cast, saturating where C++'s is undefined (ADR 0036)
        line = f"{target} = gt4py::convert<{ctype}>({value});"
        if stmt.target.name not in self.analysed.temp_names and not at_domain:
            line = f"if (i >= 0 && i < ni && j >= 0 && j < nj) {line}"
        self.emit(line)

    def visit_If(self, stmt: ir.If, *, at_domain: bool) -> None:
        self.emit(f"if ({self.visit(stmt.condition)}) {{")
        self.block(stmt.body, at_domain)
        if stmt.orelse:
            self.emit("} else {")
            self.block(stmt.orelse, at_domain)
        self.emit("}")

    def visit_While(self, stmt: ir.While, *, at_domain: bool) -> None:
        condition = self.visit(stmt.condition)
        if self._reads_checked_k(stmt):
            self.emit(self.checked_loop_header(condition))
        else:
            self.emit(f"while ({condition}) {{")
        self.block(stmt.body, at_domain)
        self.emit("}")

    def checked_loop_header(self, condition: str) -> str:
        """A while loop that ends at an out-of-range K read (the call then raises)."""
        return f"for (gt_kfailed = false; !gt_kfailed && ({condition});) {{"

    @staticmethod
    def _reads_checked_k(stmt: ir.While) -> bool:
        return any(ir.has_checked_index(ref) for _, ref, _ in iter_accesses(stmt))

    def visit_HorizontalRegion(self, stmt: ir.HorizontalRegion, *, at_domain: bool) -> None:
        checks = region_conditions(stmt, ("i", "j"), ("ni", "nj"), _position)
        self.emit(f"if ({' && '.join(checks) or 'true'}) {{")
        self.block(stmt.body, at_domain)
        self.emit("}")

    def block(self, stmts: list[ir.Stmt], at_domain: bool) -> None:
        self.depth += 1
        for inner in stmts:
            self.visit(inner, at_domain=at_domain)
        self.depth -= 1

    # -- expressions ----------------------------------------------------------------------------
    def visit_Constant(self, e: ir.Constant) -> str:
        return _constant(e)

    def visit_ScalarRef(self, e: ir.ScalarRef) -> str:
        return _ident(e.name)

    def visit_FieldRef(self, e: ir.FieldRef) -> str:
        return self.access(e)

    def visit_BinaryOp(self, e: ir.BinaryOp) -> str:
        left, right = self.visit(e.left), self.visit(e.right)
        if e.op in CPP_OPERATORS:  # the operands left to right, as Python's (<gt4py/...hpp>)
            return f"{CPP_OPERATORS[e.op]}(gt4py::operands{{{left}, {right}}})"
        op = {"and": "&&", "or": "||"}.get(e.op, e.op)
        return f"({left} {op} {right})"

    def visit_UnaryOp(self, e: ir.UnaryOp) -> str:
        if e.op == "-":
            return f"gt4py::neg({self.visit(e.operand)})"
        op = "!" if e.op == "not" else e.op
        return f"({op}{self.visit(e.operand)})"

    def visit_TernaryOp(self, e: ir.TernaryOp) -> str:
        return (
            f"({self.visit(e.condition)} ? {self.visit(e.true_value)} "
            f": {self.visit(e.false_value)})"
        )

    def visit_Call(self, e: ir.Call) -> str:
        return f"{CPP_FUNCTIONS[e.func]}({', '.join(self.visit(a) for a in e.args)})"

    def visit_Cast(self, e: ir.Cast) -> str:
        return f"gt4py::convert<{CPP_TYPES[e.dtype]}>({self.visit(e.value)})"

    def visit_KIndex(self, e: ir.KIndex) -> str:
        return "static_cast<std::int64_t>(k)"

    def access(self, ref: ir.FieldRef) -> str:
        field = self.fields[ref.name]
        name = ref.name
        di, dj, dk = ref.offset
        index = {"I": f"(i + {di})" if di else "i", "J": f"(j + {dj})" if dj else "j"}
        index["K"] = f"(k + {dk})" if dk else "k"
        checked = None
        if ref.k_absolute is not None:
            checked = f"{self.korigin(name)} + ({self.visit(ref.k_absolute)})"
        elif ref.k_variable is not None:
            checked = f"{self.korigin(name)} + {index['K']} + ({self.visit(ref.k_variable)})"
        if checked is not None:
            fid = self.field_ids[name]
            index["K"] = (
                f"(gt_kcheck({checked}, {self.ksize(name)}, {fid}, kerror) - {self.korigin(name)})"
            )
        terms = [f"{index[a]} * {self.stride(name, a)}" for a in field.axes]
        terms += [
            f"{self.data_index(ref, d)} * {self.stride(name, f'D{d}')}"
            for d in range(len(ref.data_index))
        ]
        return f"{_ident(name)}[{' + '.join(terms) or '0'}]"

    def data_index(self, ref: ir.FieldRef, d: int) -> str:
        """The ``d``-th data index of ``ref``: a compile-time one as is, a run-time one checked
        (negatives wrap; out of range recorded, ADR 0046)."""
        index = ref.data_index[d]
        if not isinstance(index, ir.Expr):
            return str(index)
        size = self.fields[ref.name].data_dims[d]
        fid = self.field_ids[ref.name]
        return f"gt_kcheck_data({self.visit(index)}, {size}, {fid}, {d}, kerror)"

    # -- the binding ----------------------------------------------------------------------------
    def emit_binding(self) -> None:
        stencil = self.analysed.ir
        fields = [p for p in stencil.params if isinstance(p, ir.FieldDecl)]
        # noconvert for fields: nanobind would otherwise pass a converted copy of an array of
        # another dtype, and the stencil's writes would silently go to that copy
        signature = []
        for p in stencil.params:
            if isinstance(p, ir.ScalarDecl):
                signature.append(native.Parameter(CPP_TYPES[p.dtype], _ident(p.name)))
            else:
                array = f"nb::ndarray<{self.element(p.name)}, nb::device::cpu>"
                signature.append(native.Parameter(array, _ident(p.name), convert=False))
        signature.append(native.Parameter("std::tuple<idx, idx, idx>", "domain"))
        for f in fields:
            tuple_type = ", ".join(["idx"] * len(f.axes))
            signature.append(native.Parameter(f"std::tuple<{tuple_type}>", f"origin_{f.name}"))
        signature.extend(self.extra_run_parameters())
        declarations = ", ".join(p.declaration for p in signature)
        self.emit(f"void run({declarations}) {{")
        self.depth += 1
        self.emit("Args args;")
        self.emit("std::tie(args.ni, args.nj, args.nk) = domain;")
        unit_checks = []
        for p in stencil.params:
            name = _ident(p.name)
            if isinstance(p, ir.ScalarDecl):
                self.emit(f"args.{name} = {name};")
                continue
            axes = p.axes
            offset_terms = []
            for n, axis in enumerate(axes):
                s = self.stride(p.name, axis)
                self.emit(f"args.{s} = {name}.stride({n});")
                offset_terms.append(f"std::get<{n}>(origin_{p.name}) * args.{s}")
                if axis == self.inner:
                    unit_checks.append(f"(args.{s} == 1 || {name}.shape({n}) <= 1)")
            for d in range(len(p.data_dims)):
                self.emit(f"args.{self.stride(p.name, f'D{d}')} = {name}.stride({len(axes) + d});")
            if "K" in axes:
                kpos = axes.index("K")
                self.emit(f"args.{self.korigin(p.name)} = std::get<{kpos}>(origin_{p.name});")
                self.emit(f"args.{self.ksize(p.name)} = {name}.shape({kpos});")
            self.emit(f"args.{name} = {name}.data() + {' + '.join(offset_terms) or '0'};")
        self.emit("KIndexError kerror;")
        self.emit(f"if ({' && '.join(unit_checks) or 'true'}) {{")
        self.emit("  nb::gil_scoped_release release;")
        self.emit("  kernel<true>(args, kerror);")
        self.emit("} else {")
        self.emit("  nb::gil_scoped_release release;")
        self.emit("  kernel<false>(args, kerror);")
        self.emit("}")
        self.emit("if (kerror.field >= 0) {")
        names = ", ".join(f'"{n}"' for n in self.fields)
        self.emit(f"  static const char* const names[] = {{{names}}};")
        message = index_error_message(
            "names[kerror.field]", "kerror.index", "kerror.size", "kerror.dim"
        )
        self.emit(f"  throw nb::index_error(({message}).c_str());")
        self.emit("}")
        self.depth -= 1
        self.emit("}")
        self.emit("")
        self.lines.extend(
            native.entry_point(
                self.module_name,
                signature,
                returns=False,
                doc=f"Run stencil {stencil.name} (generated).",
            ).splitlines()
        )

    def extra_run_parameters(self) -> list[native.Parameter]:
        """Parameters of ``run`` after the origins (the CUDA generator's stream)."""
        return []


def index_error_message(name: str, index: str, size: str, dim: str) -> str:
    """The C++ expression (a std::string) of a checked index's error: the message of the
    Python backends (``_runtime``), from the error record's field name, index, size and data
    dimension (< 0: a K index)."""
    quote = "'"
    return (
        f'({dim} < 0 ? std::string("K index ") : std::string("data index ")) + '
        f'std::to_string({index}) + " of field {quote}" + {name} + '
        f'"{quote} is outside the field (" + '
        f'({dim} < 0 ? "K size " + std::to_string({size}) : "data dimension " + '
        f'std::to_string({dim}) + " has size " + std::to_string({size})) + ")"'
    )


def generate_cpp(analysed: AnalysedStencil, *, backend: str, module_name: str) -> str:
    """The C++ source of the extension module ``module_name`` with ``run(...)``."""
    return CppGenerator(analysed, backend=backend, module_name=module_name).generate()

"""The analysed GTScript stencil as a ``dace.SDFG``, built with DaCe's Python API.

The SDFG's structure (ADR 0041):

- one state per horizontal statement, in the order the debug backend runs them
  (``_analysis``); computations and their intervals in order (``run_order``);
- PARALLEL: each top-level statement is a map over its compute extent (the domain extended
  where a later statement reads a temporary it writes, as the other generators) times the
  interval's levels; the map's parameters follow the backend's storage layout (outermost
  first, from gt4py.storage's registry: ``KIJ`` for ``dace:cpu``, ``IJK`` for
  ``dace:cpu_kfirst``, ``KJI`` for ``dace:cpu_KJI``);
- FORWARD/BACKWARD: a ``LoopRegion`` over the interval's levels (``__k``) holding one state per
  statement, each a map over the statement's horizontal extent;
- the statement itself (assignments, ``if``/``else``, ``while``, horizontal regions, the math
  builtins, absolute and variable K reads) is one C++ tasklet per map point, written by the
  C++ backends' generator (``_cpp_codegen``) so that every operator keeps the semantics the
  ``debug`` backend defines (``<gt4py/python_semantics.hpp>`` in the SDFG's global code);
- consecutive statements of an interval with the same extent that share fields only at the
  point itself are one tasklet (``statement_groups``), and a temporary only one of those
  accesses, only at the point itself, is a variable of its code (``local_temporaries``);
- other temporaries are transients (zeroed in a first state, as every backend's temporaries),
  laid out as the backend's layout with the halo the analysis gives them.

The argument convention (what a caller, e.g. NDSL's orchestration, passes):

- one array per field parameter, named as the field, over its axes then its data
  dimensions, with strides ``__<field>_stride_<axis>`` (``<axis>``: ``I``, ``J``, ``K``,
  ``D0``, ``D1``, ... for data dimensions; in elements) and the shape symbols
  ``__<field>_size_<axis>``;
- one scalar per scalar parameter, named as the parameter;
- ``__I``, ``__J``, ``__K``: the compute domain's size;
- ``__<field>_origin_<axis>``: the index of the compute domain's first point in the array
  (per grid axis of the field; data dimensions have none);
- ``__gt_kerror`` (only where the stencil reads K at an absolute or variable index, or
  indexes a data dimension at an index computed at run time): an ``int64[4]`` the caller
  sets to ``-1, 0, 0, -1``; an access outside the field records ``(field number, index,
  size, data dimension or -1 for K)`` there (the first one wins) and accesses index 0
  instead, and the call then raises ``IndexError`` as on the other backends (ADR 0046).

Which of those symbols DaCe keeps as arguments (``sdfg.arglist()``) depends on their use:
callers name arguments, they never count on positions.
"""

from __future__ import annotations

import keyword
from typing import Any

import dace
import numpy as np
from dace import dtypes
from dace.sdfg.state import LoopRegion

from gt4py.infra import native

from .. import _ir as ir
from .._analysis import AnalysedStencil, iter_accesses
from .._codegen_common import region_conditions, run_order
from .._cpp_codegen import CppGenerator, _constant, _Field, _ident, _position, stencil_fields
from .._errors import GTScriptDefinitionError
from ._names import GPU_BACKENDS


#: The map and loop variables (never a user's name: those are ``u_``-prefixed in tasklets).
INDEX = {"I": "__i", "J": "__j", "K": "__k"}
DOMAIN = {"I": "__I", "J": "__J", "K": "__K"}
LEVEL = "__gt_level"  # a GPU SDFG's sequential K loop variable (``__k`` is then a map's)
KERROR = "__gt_kerror"
KERROR_CONNECTOR = "__gt_kerr"  # the tasklets' pointer to it
KERROR_SIZE = 4  # field number, index, size, data dimension (-1: K)
FIELD_NAMES = "__gt_field_names"  # in a checked tasklet's code: the record's field names

#: Every statement tasklet's global code: Python's operators and a checked K index. A header
#: (include-guarded) in each tasklet rather than the SDFG's global code: a tasklet keeps it
#: wherever DaCe moves it (NDSL's schedule-tree passes rebuild the SDFGs around tasklets).
TASKLET_GLOBAL_CODE = "#include <gt4py/dace_tasklet.hpp>"


def stride_symbol(name: str, axis: str) -> str:
    return f"__{name}_stride_{axis}"


def size_symbol(name: str, axis: str) -> str:
    return f"__{name}_size_{axis}"


def origin_symbol(name: str, axis: str) -> str:
    return f"__{name}_origin_{axis}"


def axis_order(backend: str) -> str:
    """The backend's axes from the outermost to the stride-1 one (gt4py.storage's registry)."""
    from gt4py import storage

    order = getattr(storage.backend_layout(backend).layout, "axis_order", None)
    if order is None or sorted(order) != ["I", "J", "K"]:
        raise ValueError(f"backend {backend!r} has no I, J, K axis order")
    return str(order)


def typeclass(dtype: str) -> Any:
    return dtypes.dtype_to_typeclass(np.dtype(dtype).type)


class TaskletCode(CppGenerator):
    """One statement as the C++ code of a tasklet: fields are the tasklet's pointer
    connectors (``u_<name>``), indexed with the strides and origins of the SDFG's symbols
    (parameters) or with the transient's own layout (temporaries)."""

    def __init__(self, analysed: AnalysedStencil, order: str, *, gpu: bool = False) -> None:
        self.analysed = analysed
        self.gpu = gpu
        self.order = list(order)
        self.inner = self.order[-1]
        self.fields = stencil_fields(analysed.ir)
        self.field_ids = {name: n for n, name in enumerate(self.fields)}
        self.lines = []
        self.depth = 0
        self.temp_sizes, self.temp_origins = self.temporary_layout()
        #: Temporaries that are variables of one tasklet (see ``local_temporaries``)
        self.locals: set[str] = set()

    def temporary_layout(self) -> tuple[dict[str, str], dict[str, int]]:
        """Temporaries' sizes per axis (the domain and the analysis' halo) and where the
        compute domain starts in them."""
        halo, (k_lo, k_hi) = self.analysed.temp_halo, self.analysed.temp_k_halo
        sizes = {
            "I": f"(__I + {halo.i_hi - halo.i_lo})",
            "J": f"(__J + {halo.j_hi - halo.j_lo})",
            "K": f"(__K + {k_lo + k_hi})",
        }
        return sizes, {"I": -halo.i_lo, "J": -halo.j_lo, "K": k_lo}

    def temporary_axes(self, field: _Field) -> list[str]:
        """A temporary's axes from the outermost (data dimensions) to the stride-1 one."""
        return [f"D{d}" for d in range(len(field.data_dims))] + [
            a for a in self.order if a in field.axes
        ]

    def temporary_strides(self, field: _Field) -> dict[str, str]:
        sizes = dict(self.temp_sizes, **{f"D{d}": str(n) for d, n in enumerate(field.data_dims)})
        stride = "1"
        strides: dict[str, str] = {}
        for axis in reversed(self.temporary_axes(field)):
            strides[axis] = stride
            stride = f"{stride} * {sizes[axis]}"
        return strides

    def stride(self, name: str, axis: str) -> str:
        field = self.fields[name]
        if field.is_temporary:
            return f"({self.temporary_strides(field)[axis]})"
        if axis.startswith("D"):  # measured in the tasklet (``data_stride_connectors``)
            return _data_stride(name, int(axis[1:]))
        return stride_symbol(name, axis)

    def data_stride_connectors(self, name: str) -> list[int]:
        """The data dimensions of ``name`` whose stride the tasklet measures: the distance
        between its pointer and a second pointer, one element further along the dimension.
        DaCe computes both from the array's strides when it generates the code, after the
        passes of a program (NDSL's refine a transient's shape, and so its strides, under the
        tasklets); a stride written into the code would be stale then."""
        field = self.fields[name]
        if field.is_temporary or name in self.locals:
            return []
        return list(range(len(field.data_dims)))

    def data_point_subset(self, name: str, dim: int) -> str:
        """The memlet subset of ``name``'s window's first point, one element along the data
        dimension ``dim`` (index 0 when the dimension has one element)."""
        window = self.window[name]
        field = self.fields[name]
        parts = []
        for axis in field.axes:
            bounds = window.get(axis)
            first = f"{INDEX[axis]} + {self.origin(name, axis)}"
            parts.append("0" if bounds is None else f"{first} + ({bounds[0]})")
        parts += [str(1 if d == dim and n > 1 else 0) for d, n in enumerate(field.data_dims)]
        return ", ".join(parts)

    def origin(self, name: str, axis: str) -> str:
        if self.fields[name].is_temporary:
            return str(self.temp_origins[axis])
        return origin_symbol(name, axis)

    def ksize(self, name: str) -> str:
        if self.fields[name].is_temporary:
            return self.temp_sizes["K"]
        return size_symbol(name, "K")

    def windows(self, stmt: ir.Stmt) -> dict[str, dict[str, tuple[int, int] | None]]:
        """Per field the statement accesses: per grid axis, the lowest and highest offset it
        reads or writes (``None``: the whole K axis, read at an absolute or variable index).

        A tasklet's memlet covers just that window around the map point, so DaCe sees which
        points a statement touches and which map and loop indices it depends on (its analyses
        cannot read C++ code); the code indexes relative to the window's first point."""
        result: dict[str, dict[str, tuple[int, int] | None]] = {}
        for _, ref, _ in iter_accesses(stmt):
            if ref.name in self.locals:
                continue
            window = result.setdefault(ref.name, {})
            for axis, offset in zip("IJK", ref.offset, strict=True):
                if axis not in self.fields[ref.name].axes:
                    continue
                if axis == "K" and (ref.k_absolute is not None or ref.k_variable is not None):
                    window["K"] = None
                    continue
                if axis in window and window[axis] is None:
                    continue
                lo, hi = window.get(axis) or (offset, offset)
                window[axis] = (min(lo, offset), max(hi, offset))
        return result

    def code(self, stmt: ir.Stmt, *, at_domain: bool) -> str:
        self.lines = []
        self.depth = 0
        self.window = self.windows(stmt)
        # A field the statement reads and writes: one pointer for both, from its input
        # connector (DaCe keeps a read; it may drop a write no later state reads, and with it
        # the output connector's pointer).
        if any(ir.has_checked_index(ref) for _, ref, _ in iter_accesses(stmt)):
            # the field numbers of the error record, named where a program reports it itself
            names = ", ".join(f'"{n}"' for n in self.field_ids)
            self.emit(
                f"static const char* const {FIELD_NAMES}[] = {{{names}}}; (void){FIELD_NAMES};"
            )
        for name in sorted({ref.name for _, ref, _ in iter_accesses(stmt)} & self.locals):
            self.emit(f"{self.fields[name].cpp_type} {_ident(name)}{{}};  // a temporary, zeroed")
        for name in updated_fields(stmt, self.locals):
            ctype = self.fields[name].cpp_type
            self.emit(
                f"{ctype}* const {_ident(name)} = const_cast<{ctype}*>({_read_connector(name)});"
            )
        for name in sorted(self.window):
            for d in self.data_stride_connectors(name):
                self.emit(
                    f"const std::ptrdiff_t {_data_stride(name, d)} = "
                    f"{_data_connector(name, d)} - {_ident(name)};"
                )
        self.visit(stmt, at_domain=at_domain)
        return "\n".join(self.lines)

    def subset(self, name: str) -> str:
        """The memlet subset of ``name``'s window in the current statement."""
        window = self.window[name]
        field = self.fields[name]
        parts = []
        for axis in field.axes:
            bounds = window.get(axis)
            if bounds is None:
                parts.append(f"0:{self.ksize(name)}")
                continue
            first = f"{INDEX[axis]} + {self.origin(name, axis)}"
            parts.append(f"{first} + ({bounds[0]}):{first} + ({bounds[1] + 1})")
        parts += [f"0:{n}" for n in field.data_dims]
        return ", ".join(parts) or "0"

    def visit_Assign(self, stmt: ir.Assign, *, at_domain: bool) -> None:
        target = self.access(stmt.target)
        value = self.visit(stmt.value)
        ctype = self.fields[stmt.target.name].cpp_type
        line = f"{target} = gt4py::convert<{ctype}>({value});"
        if stmt.target.name not in self.analysed.temp_names and not at_domain:
            line = f"if (__i >= 0 && __i < __I && __j >= 0 && __j < __J) {line}"
        self.emit(line)

    def visit_HorizontalRegion(self, stmt: ir.HorizontalRegion, *, at_domain: bool) -> None:
        checks = region_conditions(stmt, ("__i", "__j"), ("__I", "__J"), _position)
        self.emit(f"if ({' && '.join(checks) or 'true'}) {{")
        self.block(stmt.body, at_domain)
        self.emit("}")

    def checked_loop_header(self, condition: str) -> str:
        if not self.gpu:
            return super().checked_loop_header(condition)
        # device code: no thread-local flag; the loop stops once any thread recorded an error
        return f"while ({KERROR_CONNECTOR}[0] < 0 && ({condition})) {{"

    def visit_KIndex(self, e: ir.KIndex) -> str:
        return "static_cast<std::int64_t>(__k)"

    def visit_Constant(self, e: ir.Constant) -> str:
        return _constant(e)

    def access(self, ref: ir.FieldRef) -> str:
        field = self.fields[ref.name]
        name = ref.name
        if name in self.locals:
            return _ident(name)
        offsets = dict(zip("IJK", ref.offset, strict=True))
        window = self.window[name]
        # relative to the window's first point; the whole K axis from index 0
        index = {
            a: f"({offsets[a] - window[a][0]})"  # type: ignore[index]
            if window.get(a) is not None
            else f"({INDEX[a]} + {offsets[a]} + {self.origin(name, a)})"
            for a in field.axes
        }
        fid = self.field_ids[name]
        if ref.k_absolute is not None:
            checked = f"{self.origin(name, 'K')} + ({self.visit(ref.k_absolute)})"
            index["K"] = f"gt_kcheck({checked}, {self.ksize(name)}, {fid}, {KERROR_CONNECTOR})"
        elif ref.k_variable is not None:
            checked = f"{index['K']} + ({self.visit(ref.k_variable)})"
            index["K"] = f"gt_kcheck({checked}, {self.ksize(name)}, {fid}, {KERROR_CONNECTOR})"
        terms = [f"{index[a]} * {self.stride(name, a)}" for a in field.axes]
        for d, i in enumerate(ref.data_index):
            text = str(i)
            if isinstance(i, ir.Expr):  # computed at run time: checked (ADR 0046)
                size = field.data_dims[d]
                text = f"gt_kcheck_data({self.visit(i)}, {size}, {fid}, {d}, {KERROR_CONNECTOR})"
            terms.append(f"({text}) * {self.stride(name, f'D{d}')}")
        return f"{_ident(name)}[{' + '.join(terms) or '0'}]"


def updated_fields(stmt: ir.Stmt, local: set[str]) -> list[str]:
    """The fields ``stmt`` both reads and writes (not its tasklet's variables ``local``)."""
    reads = {ref.name for kind, ref, _ in iter_accesses(stmt) if kind == "read"}
    writes = [ref.name for kind, ref, _ in iter_accesses(stmt) if kind == "write"]
    return sorted(reads.intersection(writes) - local)


def _zero_offset(ref: ir.FieldRef) -> bool:
    return not any(ref.offset) and ref.k_absolute is None and ref.k_variable is None


def statement_groups(analysed: AnalysedStencil, stmts: list[ir.Stmt]) -> list[list[ir.Stmt]]:
    """Consecutive statements of an interval that can be one tasklet: the same extent, and
    every field one of them writes that another accesses is accessed at the point itself
    (offset 0, no absolute or variable K) by both. Run per point in order, they compute what
    they compute one after the other over the whole extent (as released gt4py's horizontal
    executions)."""
    groups: list[list[ir.Stmt]] = []
    for stmt in stmts:
        if groups and _joins(analysed, groups[-1], stmt):
            groups[-1].append(stmt)
        else:
            groups.append([stmt])
    return groups


def _joins(analysed: AnalysedStencil, group: list[ir.Stmt], stmt: ir.Stmt) -> bool:
    extents = analysed.stmt_extents
    if extents[id(stmt)] != extents[id(group[0])]:
        return False
    before = [(kind, ref) for s in group for kind, ref, _ in iter_accesses(s)]
    after = [(kind, ref) for kind, ref, _ in iter_accesses(stmt)]
    written = {ref.name for kind, ref in before if kind == "write"} | {
        ref.name for kind, ref in after if kind == "write"
    }
    shared = {ref.name for _, ref in before} & {ref.name for _, ref in after} & written
    return all(_zero_offset(ref) for _, ref in before + after if ref.name in shared)


def group_statement(group: list[ir.Stmt]) -> ir.Stmt:
    """A group of statements as one (an unbounded horizontal region: ``if (true) {...}``)."""
    if len(group) == 1:
        return group[0]
    return ir.HorizontalRegion(
        i_start=None, i_end=None, j_start=None, j_end=None, body=list(group), loc=group[0].loc
    )


def local_temporaries(analysed: AnalysedStencil, groups: list[list[ir.Stmt]]) -> set[str]:
    """Temporaries accessed by one group only, each time at the point itself: a variable of
    that group's tasklet (zero-initialised, as every temporary), not an array."""
    where: dict[str, set[int]] = {}
    offset_free: dict[str, bool] = {}
    for n, group in enumerate(groups):
        for stmt in group:
            for _, ref, _ in iter_accesses(stmt):
                where.setdefault(ref.name, set()).add(n)
                offset_free[ref.name] = offset_free.get(ref.name, True) and _zero_offset(ref)
    temps = {t.name for t in analysed.ir.temporaries if not t.data_dims}
    return {t for t in temps if len(where.get(t, ())) == 1 and offset_free[t]}


def _data_connector(name: str, dim: int) -> str:
    """The input connector one element along the data dimension ``dim`` of ``name``."""
    return f"__gt_d{dim}_{_ident(name)}"


def _data_stride(name: str, dim: int) -> str:
    return f"__gt_sD{dim}_{_ident(name)}"


def _read_connector(name: str) -> str:
    """The input connector of a field a statement reads and writes (the code's pointer)."""
    return f"__gt_read_{_ident(name)}"


def _write_connector(name: str) -> str:
    """The output connector of a field a statement reads and writes (unused by the code)."""
    return f"__gt_write_{_ident(name)}"


def _check_name(name: str, loc: Any) -> None:
    if name.startswith("__") or name in native.CXX_KEYWORDS or keyword.iskeyword(name):
        raise GTScriptDefinitionError(
            f"the DaCe backends cannot name an SDFG argument {name!r} (a C++ word or a name "
            "starting with '__', reserved for the SDFG's symbols); rename the parameter",
            loc=loc,
        )


def _interval_bound(pos: ir.AxisPosition) -> str:
    base = "0" if pos.level == "start" else "__K"
    return f"min(max({base} + ({pos.offset}), 0), __K)"


class SDFGBuilder:
    def __init__(self, analysed: AnalysedStencil, backend: str) -> None:
        self.analysed = analysed
        self.backend = backend
        self.order = axis_order(backend)
        # dace:gpu*: every array in the device's memory, every map a kernel (ADR 0047)
        self.gpu = backend in GPU_BACKENDS
        self.schedule = (
            dtypes.ScheduleType.GPU_Device if self.gpu else dtypes.ScheduleType.CPU_Multicore
        )
        self.storage = dtypes.StorageType.GPU_Global if self.gpu else dtypes.StorageType.Default
        self.code = TaskletCode(analysed, self.order, gpu=self.gpu)
        self.sdfg = dace.SDFG(_sdfg_name(analysed.ir.name))
        self.checked_k = any(
            isinstance(node, ir.FieldRef) and ir.has_checked_index(node)
            for node in analysed.ir.iter_tree()
        )
        self.count = 0
        self.keep: list[ir.Stmt] = []
        self.extents = dict(analysed.stmt_extents)  # and the groups' (``group``)

    def symbol(self, name: str) -> Any:
        if name not in self.sdfg.symbols:
            self.sdfg.add_symbol(name, dace.int64)
        return dace.symbol(name, dace.int64)

    def add_arguments(self) -> None:
        for axis in "IJK":
            self.symbol(DOMAIN[axis])
        for p in self.analysed.ir.params:
            _check_name(p.name, self.analysed.ir.loc)
            if isinstance(p, ir.ScalarDecl):
                self.sdfg.add_scalar(p.name, typeclass(p.dtype))
                continue
            axes = [*p.axes, *(f"D{d}" for d in range(len(p.data_dims)))]
            shape = [self.symbol(size_symbol(p.name, a)) for a in p.axes] + list(p.data_dims)
            strides = [self.symbol(stride_symbol(p.name, a)) for a in axes]
            for a in p.axes:
                self.symbol(origin_symbol(p.name, a))
            if "K" in p.axes:
                self.symbol(size_symbol(p.name, "K"))
            self.sdfg.add_array(
                p.name,
                shape or [1],
                typeclass(p.dtype),
                strides=strides or [1],
                storage=self.storage,
            )
        if self.checked_k:
            self.sdfg.add_array(KERROR, [KERROR_SIZE], dace.int64, storage=self.storage)
        for t in self.analysed.ir.temporaries:
            if t.name in self.code.locals:
                continue
            field = self.code.fields[t.name]
            sizes = dict(
                self.code.temp_sizes, **{f"D{d}": str(n) for d, n in enumerate(t.data_dims)}
            )
            temp_strides = self.code.temporary_strides(field)
            # declared in the axes' order (data dimensions last), strides from the layout
            decl_axes = [*t.axes, *(f"D{d}" for d in range(len(t.data_dims)))]
            symbolic = dace.symbolic.pystr_to_symbolic
            self.sdfg.add_transient(
                t.name,
                [symbolic(sizes[a]) for a in decl_axes] or [1],
                typeclass(t.dtype),
                strides=[symbolic(temp_strides[a]) for a in decl_axes] or [1],
                storage=self.storage,
            )

    def add_state(self, region: Any, after: Any) -> Any:
        self.count += 1
        state = region.add_state(f"s{self.count}")
        if after is not None:
            region.add_edge(after, state, dace.InterstateEdge())
        return state

    def zero_temporaries(self, after: Any) -> Any:
        temps = [t for t in self.analysed.ir.temporaries if t.name not in self.code.locals]
        if not temps:
            return after
        state = self.add_state(self.sdfg, after)
        for t in temps:
            desc = self.sdfg.arrays[t.name]
            params = {f"__z{n}": f"0:{s}" for n, s in enumerate(desc.shape)}
            index = ", ".join(params)
            zero = "false" if t.dtype == "bool" else "0"
            _, entry, _ = state.add_mapped_tasklet(
                f"zero_{t.name}",
                params,
                {},
                f"__out = {zero};",
                {"__out": dace.Memlet(f"{t.name}[{index}]")},
                schedule=self.schedule,
                language=dtypes.Language.CPP,
                external_edges=True,
            )
            self.set_block_size(entry.map)
        return state

    def set_block_size(self, map_: Any) -> None:
        """A GPU map's thread block: 32 threads along its last (stride-1) parameter, which
        DaCe maps to x; 8 along the one before."""
        if self.gpu:
            map_.gpu_block_size = [32, 8, 1] if len(map_.params) > 1 else [256, 1, 1]

    def statement_state(
        self, region: Any, after: Any, stmt: ir.Stmt, ranges: dict[str, str]
    ) -> Any:
        """A state with ``stmt`` as a tasklet in a map over ``ranges`` (axis -> range)."""
        state = self.add_state(region, after)
        ext = self.extents[id(stmt)]
        code = self.code.code(stmt, at_domain=ext.is_zero)
        reads: list[str] = []
        writes: list[str] = []
        for kind, ref, _ in iter_accesses(stmt):
            target = writes if kind == "write" else reads
            if ref.name not in target and ref.name not in self.code.locals:
                target.append(ref.name)
        # A field read and written has an input connector (the code's pointer, see
        # TaskletCode.code) and an output one the code does not use, both over its window:
        # DaCe sees the read (or its analyses, e.g. dead dataflow elimination, would take an
        # earlier write for dead: `n = 0` before `while n < 8: ... n = n + 1`) and the write.
        updated = [n for n in reads if n in writes]
        reads = [n for n in reads if n not in writes]
        scalars = sorted(
            {
                node.name
                for node in stmt.iter_tree()
                if isinstance(node, ir.ScalarRef) and node.name in self.sdfg.arrays
            }
        )
        checked = any(
            isinstance(node, ir.FieldRef) and ir.has_checked_index(node)
            for node in stmt.iter_tree()
        )
        # fields are pointers to their window's first point, even a window of one point
        arrays = self.sdfg.arrays
        inputs = {_ident(n): dace.pointer(arrays[n].dtype) for n in reads}
        inputs.update({_ident(n): arrays[n].dtype for n in scalars})
        inputs.update({_read_connector(n): dace.pointer(arrays[n].dtype) for n in updated})
        data_points = [
            (n, d) for n in [*reads, *updated, *writes] for d in self.code.data_stride_connectors(n)
        ]
        data_points = list(dict.fromkeys(data_points))
        inputs.update(
            {_data_connector(n, d): dace.pointer(arrays[n].dtype) for n, d in data_points}
        )
        outputs = {
            (_write_connector(n) if n in updated else _ident(n)): dace.pointer(arrays[n].dtype)
            for n in writes
        }
        if checked:
            outputs[KERROR_CONNECTOR] = dace.pointer(dace.int64)
        # one level of a sequential loop (GPU): K outermost, the kernel's threads horizontal
        one_level = self.gpu and "K" in ranges and ranges["K"].startswith(LEVEL)
        order = ["K", *(a for a in self.order if a != "K")] if one_level else self.order
        params = {INDEX[a]: ranges[a] for a in order if a in ranges}
        entry, exit_ = state.add_map(f"map{self.count}", params, schedule=self.schedule)
        if len(params) > 1 and not self.gpu:
            entry.map.collapse = 2
        self.set_block_size(entry.map)
        tasklet = state.add_tasklet(
            f"stmt{self.count}",
            inputs,
            outputs,
            code,
            language=dtypes.Language.CPP,
            code_global=TASKLET_GLOBAL_CODE,
        )
        # empty edges first: DaCe caches the state's scopes as the memlet paths are added
        if not inputs:
            state.add_nedge(entry, tasklet, dace.Memlet())
        if not outputs:
            state.add_nedge(tasklet, exit_, dace.Memlet())
        # the inputs: each a read of its array through the map entry, in connector order
        feeds = [
            (n, _ident(n), dace.Memlet(data=n, subset=self.code.subset(n), dynamic=True))
            for n in reads
        ]
        feeds += [
            (
                n,
                _data_connector(n, d),
                dace.Memlet(data=n, subset=self.code.data_point_subset(n, d)),
            )
            for n, d in data_points
        ]
        feeds += [
            (n, _read_connector(n), dace.Memlet(data=n, subset=self.code.subset(n), dynamic=True))
            for n in updated
        ]
        feeds += [(n, _ident(n), dace.Memlet(f"{n}[0]")) for n in scalars]
        for name, connector, memlet in feeds:
            state.add_memlet_path(
                state.add_read(name), entry, tasklet, dst_conn=connector, memlet=memlet
            )
        for name in writes:
            state.add_memlet_path(
                tasklet,
                exit_,
                state.add_write(name),
                src_conn=_write_connector(name) if name in updated else _ident(name),
                memlet=dace.Memlet(data=name, subset=self.code.subset(name), dynamic=True),
            )
        if checked:
            state.add_memlet_path(
                tasklet,
                exit_,
                state.add_write(KERROR),
                src_conn=KERROR_CONNECTOR,
                memlet=dace.Memlet(data=KERROR, subset=f"0:{KERROR_SIZE}", dynamic=True),
            )
        return state

    def group(self, group: list[ir.Stmt]) -> ir.Stmt:
        stmt = group_statement(group)
        self.extents[id(stmt)] = self.extents[id(group[0])]
        self.keep.append(stmt)  # its id stays its own while the SDFG is built
        return stmt

    def horizontal_ranges(self, stmt: ir.Stmt) -> dict[str, str]:
        ext = self.extents[id(stmt)]
        return {"I": f"{ext.i_lo}:__I + ({ext.i_hi})", "J": f"{ext.j_lo}:__J + ({ext.j_hi})"}

    def build(self) -> dace.SDFG:
        self.groups = {
            id(block): statement_groups(self.analysed, block.body)
            for comp in self.analysed.ir.computations
            for block in comp.intervals
        }
        self.code.locals = local_temporaries(
            self.analysed, [g for groups in self.groups.values() for g in groups]
        )
        self.add_arguments()
        last = self.add_state(self.sdfg, None)  # the start state
        last = self.zero_temporaries(last)
        for comp in self.analysed.ir.computations:
            for block in run_order(comp):
                k0, k1 = _interval_bound(block.start), _interval_bound(block.end)
                groups = [self.group(g) for g in self.groups[id(block)]]
                if comp.order == "PARALLEL":
                    for stmt in groups:
                        ranges = self.horizontal_ranges(stmt)
                        ranges["K"] = f"{k0}:{k1}"
                        last = self.statement_state(self.sdfg, last, stmt, ranges)
                    continue
                self.count += 1
                # GPU: the level is a symbol of each map (``__k`` in a range of one level), so
                # DaCe passes it to the kernels; CPU: the tasklets read the loop's ``__k``
                k = LEVEL if self.gpu else INDEX["K"]
                if comp.order == "FORWARD":
                    loop = LoopRegion(
                        f"loop{self.count}", f"{k} < {k1}", k, f"{k} = {k0}", f"{k} = {k} + 1"
                    )
                else:
                    loop = LoopRegion(
                        f"loop{self.count}", f"{k} >= {k0}", k, f"{k} = {k1} - 1", f"{k} = {k} - 1"
                    )
                self.sdfg.add_node(loop)
                self.sdfg.add_edge(last, loop, dace.InterstateEdge())
                inner = None
                for stmt in groups:
                    ranges = self.horizontal_ranges(stmt)
                    if self.gpu:
                        ranges["K"] = f"{k}:{k} + 1"
                    inner = self.statement_state(loop, inner, stmt, ranges)
                last = loop
        return self.sdfg


def _sdfg_name(stencil_name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in stencil_name)
    return f"gt_{cleaned}"


def _validate(sdfg: dace.SDFG) -> None:
    """``sdfg.validate()``, without the copy of an invalid SDFG DaCe leaves in the current
    directory (``_dacegraphs/``): the error is raised, the user's directory kept clean."""
    import os

    from dace.sdfg.validation import InvalidSDFGError

    existed = os.path.exists("_dacegraphs")
    try:
        sdfg.validate()
    except InvalidSDFGError as error:
        path = getattr(error, "path", None)
        if path and not existed:
            import shutil

            shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        raise


def sdfg_of(analysed: AnalysedStencil, backend: str) -> dace.SDFG:
    """The SDFG of an analysed stencil for a ``dace:*`` backend (its loop order follows the
    backend's storage layout). See the module's docstring for its argument convention."""
    sdfg = SDFGBuilder(analysed, backend).build()
    _validate(sdfg)
    # what the binding (``_binding``) is generated from; not part of the SDFG's JSON
    sdfg.gt_analysed = analysed
    return sdfg

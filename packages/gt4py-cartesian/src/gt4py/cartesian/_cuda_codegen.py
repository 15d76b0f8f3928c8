"""CUDA for the ``gt:gpu`` backend (alias ``cuda``): the C++ generator's statements and
expressions, one kernel per statement (ADR 0019).

:class:`CudaGenerator` reuses :class:`~._cpp_codegen.CppGenerator` for everything a point
computes (statements, expressions, field accesses, checked K indices, Python arithmetic) and
replaces only the loop nests:

- PARALLEL: each top-level statement is one kernel over its horizontal extent and the
  interval, I (the storage layout's stride-1 axis, ``KJI``) over ``threadIdx.x``, J over
  ``threadIdx.y`` / ``blockIdx.y`` and K over ``blockIdx.z`` (grid-stride loops: a grid has
  at most 65535 blocks along y and z). A launch on
  the same stream starts after the previous one ends, which orders statement after statement
  as the debug backend does.
- FORWARD/BACKWARD: the host loops over the levels and launches each statement's kernel per
  level (a statement may read what the previous one wrote at a horizontal offset, so every
  statement of a level needs the whole level of the one before; only a grid-wide barrier, i.e.
  a launch, gives that).
- Temporaries are zeroed ``cudaMallocAsync`` buffers on the call's stream (the ``KJI`` layout
  of the backend), members of the ``Args`` struct every kernel receives by value.
- Checked K indices record the first bad index in device memory; it is read back (and the
  stream synchronized) only by stencils that have such indices, then raised as ``IndexError``.
- Fields arrive as ``nb::ndarray<T, GT4PY_ARRAY_DEVICE>`` (``nb::device::cuda``: cupy arrays,
  gt4py.storage's ``gt:gpu`` storages); the stream is cupy's current one, passed by the
  generated module.
- Kernels start through ``GT4PY_LAUNCH(kernel, grid, block, stream)(args...)``
  (``<gt4py/cuda_launch.hpp>``): ``<<<...>>>`` under nvcc, the host emulation of
  ``<gt4py/cuda_emulation.hpp>`` when the same source is compiled by the host compiler with
  ``-DGT4PY_CUDA_EMULATION`` (the test-only ``gt:gpu_emulated`` backend, on numpy arrays).
"""

from __future__ import annotations

from gt4py.infra import native

from . import _ir as ir
from ._analysis import AnalysedStencil
from ._cpp_codegen import CPP_TYPES, PRELUDE as CPU_PRELUDE, CppGenerator, _ident


# The backend named in CUDA errors raised by the generated code.
ERROR_PREFIX = '"gt:gpu"'


def _device_prelude() -> str:
    """The CPU prelude with CUDA's runtime helpers, and K-index errors recorded in device
    memory instead of under an OpenMP critical section (the Python-semantics helpers of
    <gt4py/python_semantics.hpp> are callable on the device as they are)."""
    text = CPU_PRELUDE.replace(
        "#include <gt4py/python_semantics.hpp>",
        "#include <gt4py/cuda_launch.hpp>\n#include <gt4py/python_semantics.hpp>",
    )
    start = text.index("inline idx gt_kcheck(")
    end = text.index("}  // namespace")
    device_check = r"""__device__ inline idx gt_kcheck(idx index, idx size, int field, KIndexError* error) {
  if (index >= 0 && index < size) return index;
  if (atomicCAS(&error->field, -1, field) == -1) {
    error->index = index;
    error->size = size;
  }
  return 0;
}

__device__ inline idx gt_kcheck_data(idx index, idx size, int field, int dim, KIndexError* error) {
  if (index >= 0 && index < size) return index;
  if (index < 0 && index >= -size) return index + size;
  if (atomicCAS(&error->field, -1, field) == -1) {
    error->index = index;
    error->size = size;
    error->dim = dim;
  }
  return 0;
}

inline unsigned gt_blocks(idx n, unsigned per_block, idx limit) {
  idx blocks = (n + per_block - 1) / per_block;
  if (blocks > limit) blocks = limit;
  return unsigned(blocks > 0 ? blocks : 1);
}

"""
    return text[:start] + device_check + text[end:]


# Threads per block: 32 along I (one warp over the contiguous axis) x 8 along J.
BLOCK_I, BLOCK_J = 32, 8


class CudaGenerator(CppGenerator):
    skip_empty_intervals = True  # an empty interval launches nothing

    def checked_loop_header(self, condition: str) -> str:
        # device code: no thread_local flag; the loop stops once any thread recorded a K error
        return f"while (kerror->field < 0 && ({condition})) {{"

    def __init__(self, analysed: AnalysedStencil, *, backend: str, module_name: str) -> None:
        super().__init__(analysed, backend="gt:cpu_ifirst", module_name=module_name)
        self.backend = backend
        self.kernels: list[str] = []
        self.uses_kcheck = False

    def generate(self) -> str:
        self.lines = [_device_prelude()]
        self.emit_args_struct()
        driver = self.capture(self.emit_driver)
        self.lines.extend(self.kernels)
        self.lines.extend(driver)
        self.emit_binding()
        return "\n".join(self.lines) + "\n"

    def capture(self, emit: object) -> list[str]:
        saved, depth = self.lines, self.depth
        self.lines, self.depth = [], 0
        try:
            emit()  # type: ignore[operator]
            return self.lines
        finally:
            self.lines, self.depth = saved, depth

    # -- arguments ------------------------------------------------------------------------------
    def emit_args_struct(self) -> None:
        """The CPU struct plus the temporaries (allocated by the host, read by the kernels)."""
        body = self.capture(super().emit_args_struct)
        closing = body.index("};")
        extra = []
        for t in self.analysed.ir.temporaries:
            field = self.fields[t.name]
            extra.append(f"  {field.cpp_type}* {_ident(t.name)};")
            for axis in (*field.axes, *(f"D{d}" for d in range(len(field.data_dims)))):
                extra.append(f"  idx {self.stride(t.name, axis)};")
            if "K" in field.axes:
                extra.append(f"  idx {self.korigin(t.name)}, {self.ksize(t.name)};")
        self.lines.extend([*body[:closing], *extra, *body[closing:]])

    def unpack(self) -> list[str]:
        lines = [
            "const idx ni = args.ni, nj = args.nj, nk = args.nk;",
            "(void)ni; (void)nj; (void)nk;",
        ]
        names = [(p.name, False) for p in self.params()] + [
            (t.name, True) for t in self.analysed.ir.temporaries
        ]
        scalars = {p.name: p for p in self.params() if isinstance(p, ir.ScalarDecl)}
        for name, temporary in names:
            ident = _ident(name)
            if name in scalars:
                lines.append(f"const {CPP_TYPES[scalars[name].dtype]} {ident} = args.{ident};")
                continue
            field = self.fields[name]
            element = field.cpp_type if temporary else self.element(name)
            lines.append(f"{element}* const __restrict__ {ident} = args.{ident}; (void){ident};")
            for axis in (*field.axes, *(f"D{d}" for d in range(len(field.data_dims)))):
                s = self.stride(name, axis)
                lines.append(f"const idx {s} = args.{s}; (void){s};")
            if "K" in field.axes:
                o, n = self.korigin(name), self.ksize(name)
                lines.append(f"const idx {o} = args.{o}, {n} = args.{n}; (void){o}; (void){n};")
        return lines

    # -- kernels and the host driver -------------------------------------------------------------
    def kernel(self, stmt: ir.Stmt, per_level: bool) -> str:
        """A kernel for ``stmt`` over (i, j) and K from ``k0`` to ``k1`` (or the level ``k``)."""
        name = f"gt_kernel{len(self.kernels)}"
        ext = self.analysed.stmt_extents[id(stmt)]
        self.depth = 1
        body = self.capture(lambda: self.visit(stmt, at_domain=ext.is_zero))
        if "gt_kcheck" in "\n".join(body):
            self.uses_kcheck = True
        k_params = "idx k" if per_level else "idx k0, idx k1"
        lines = [
            f"__global__ void __launch_bounds__({BLOCK_I * BLOCK_J}) {name}(",
            f"    const Args args, KIndexError* kerror, idx i0, idx i1, idx j0, idx j1, {k_params}) {{",
            *(f"  {line}" for line in self.unpack()),
            "  (void)kerror;",
            "  const idx i = i0 + idx(blockIdx.x) * blockDim.x + threadIdx.x;",
            "  if (i >= i1) return;",
            # J grid-strides: gridDim.y stops at 65535 blocks (of BLOCK_J rows each)
            "  for (idx j = j0 + idx(blockIdx.y) * blockDim.y + threadIdx.y; j < j1;",
            "       j += idx(gridDim.y) * blockDim.y) {",
        ]
        if per_level:
            lines += ["    {", *(f"    {line}" for line in body), "    }"]
        else:
            lines += [
                "    for (idx k = k0 + idx(blockIdx.z); k < k1; k += idx(gridDim.z)) {",
                *(f"    {line}" for line in body),
                "    }",
            ]
        lines += ["  }", "}"]
        self.kernels.append("\n".join(lines) + "\n")
        return name

    def launch(self, stmt: ir.Stmt, per_level: bool) -> None:
        kernel = self.kernel(stmt, per_level)
        (i0, i1), (j0, j1) = self.horizontal_bounds(stmt).values()
        k = "k" if per_level else "k0, k1"
        levels = "1" if per_level else "gt_blocks(k1 - k0, 1, 65535)"
        self.emit("{")
        self.depth += 1
        self.emit(f"const idx i0 = {i0}, i1 = {i1}, j0 = {j0}, j1 = {j1};")
        self.emit("if (i1 > i0 && j1 > j0) {")
        self.emit(
            f"  const dim3 grid(gt_blocks(i1 - i0, {BLOCK_I}, 2147483647), "
            f"gt_blocks(j1 - j0, {BLOCK_J}, 65535), {levels});"
        )
        self.emit(
            f"  GT4PY_LAUNCH({kernel}, grid, dim3({BLOCK_I}, {BLOCK_J}), stream)"
            f"(args, kerror, i0, i1, j0, j1, {k});"
        )
        self.emit(
            f'  gt4py::cuda::check(cudaGetLastError(), {ERROR_PREFIX}, "launch of {kernel}");'
        )
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def emit_statement(self, stmt: ir.Stmt, *, per_level: bool) -> None:
        self.launch(stmt, per_level)

    def emit_driver(self) -> None:
        self.emit("void launch(const Args& args, KIndexError* kerror, cudaStream_t stream) {")
        self.depth += 1
        self.emit("const idx ni = args.ni, nj = args.nj, nk = args.nk;")
        self.emit("(void)ni; (void)nj; (void)nk;")
        for comp in self.analysed.ir.computations:
            self.emit(f"// computation({comp.order}) at {comp.loc}")
            self.emit_intervals(comp)
        self.depth -= 1
        self.emit("}")
        self.emit("")

    # -- the binding ----------------------------------------------------------------------------
    def emit_binding(self) -> None:
        """The CPU binding with device arrays, the stream as the last argument, temporaries
        allocated on it and the launch instead of the OpenMP kernel."""
        text = "\n".join(self.capture(super().emit_binding))
        text = text.replace("nb::device::cpu>", "GT4PY_ARRAY_DEVICE>")
        start = text.index("  KIndexError kerror;")
        end = text.index("  if (kerror.field >= 0) {")
        setup = ["  const cudaStream_t stream = reinterpret_cast<cudaStream_t>(stream_handle);"]
        setup += self.temporary_setup()
        setup.append("  KIndexError kerror;")
        if self.uses_kcheck:  # recorded in device memory, read back (synchronizes the stream)
            setup += [
                "  gt4py::cuda::device_buffer kerror_buffer(sizeof(KIndexError), stream, "
                f"{ERROR_PREFIX});",
                "  KIndexError* const kerror_device = static_cast<KIndexError*>(kerror_buffer.ptr);",
                "  gt4py::cuda::check(cudaMemcpyAsync(kerror_device, &kerror, "
                "sizeof(KIndexError), cudaMemcpyHostToDevice, stream), "
                f'{ERROR_PREFIX}, "K index status");',
                "  launch(args, kerror_device, stream);",
                "  gt4py::cuda::check(cudaMemcpyAsync(&kerror, kerror_device, "
                "sizeof(KIndexError), cudaMemcpyDeviceToHost, stream), "
                f'{ERROR_PREFIX}, "K index status");',
                "  gt4py::cuda::check(cudaStreamSynchronize(stream), "
                f'{ERROR_PREFIX}, "K index status");',
            ]
        else:  # nothing checked: the call returns with the kernels queued on the stream
            setup.append("  launch(args, nullptr, stream);")
        text = text[:start] + "\n".join(setup) + "\n" + text[end:]
        self.lines.extend(text.splitlines())

    def extra_run_parameters(self) -> list[native.Parameter]:
        """The CUDA stream, last (``cudaStream_t`` as an integer)."""
        return [native.Parameter("std::uintptr_t", "stream_handle")]

    def temporary_setup(self) -> list[str]:
        lines = []
        if self.analysed.ir.temporaries:
            lines.append("  const idx ni = args.ni, nj = args.nj, nk = args.nk;")
        for t in self.analysed.ir.temporaries:
            field = self.fields[t.name]
            name = _ident(t.name)
            sizes, origins = self.temporary_extents(field)
            axes = [f"D{d}" for d in range(len(field.data_dims))]
            axes += [a for a in ("K", "J", "I") if a in field.axes]  # the gt:gpu layout, KJI
            stride = "idx(1)"
            for axis in reversed(axes):
                lines.append(f"  args.{self.stride(t.name, axis)} = {stride};")
                stride = f"args.{self.stride(t.name, axis)} * {sizes[axis]}"
            ctype = field.cpp_type
            lines.append(
                f"  gt4py::cuda::device_buffer storage_{t.name}(sizeof({ctype}) * "
                f"std::size_t({stride}), stream, {ERROR_PREFIX}, /*zeroed=*/true);"
            )
            origin = " + ".join(f"{origins[a]} * args.{self.stride(t.name, a)}" for a in field.axes)
            lines.append(
                f"  args.{name} = static_cast<{ctype}*>(storage_{t.name}.ptr) + ({origin or '0'});"
            )
            if "K" in field.axes:
                lines.append(f"  args.{self.korigin(t.name)} = {origins['K']};")
                lines.append(f"  args.{self.ksize(t.name)} = {sizes['K']};")
        return lines


def generate_cuda(analysed: AnalysedStencil, *, backend: str, module_name: str) -> str:
    """The CUDA source of the extension module ``module_name`` with ``run(..., stream)``."""
    return CudaGenerator(analysed, backend=backend, module_name=module_name).generate()

"""The nanobind ``run(...)`` of a DaCe stencil's extension: the C++ backends' calling
convention (fields as arrays, scalars, the domain, one origin per field) turned into the SDFG's
arguments (``_sdfg``'s convention) for DaCe's ``__program_<name>``.

The GPU backends' ``run`` takes device arrays (host ones under the emulation) and the caller's
CUDA stream last, as gt:gpu's: the program's kernels run on that stream, the K-index check
record is a device buffer on it, and a CUDA error DaCe recorded raises ``RuntimeError``."""

from __future__ import annotations

from typing import Any

from gt4py.infra import native

from .. import _ir as ir
from .._cpp_codegen import CPP_TYPES, _ident, index_error_message
from .._pipeline import BuildRequest
from ._names import GPU_BACKENDS
from ._sdfg import KERROR, origin_symbol, size_symbol, stride_symbol


PRELUDE = """
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>

#include <string>
#include <tuple>

namespace nb = nanobind;
"""


def binding(sdfg: Any, request: BuildRequest, module_name: str) -> str:
    """The binding's C++ (after DaCe's code, in the same file)."""
    analysed = _analysed(sdfg)
    name = sdfg.name
    params = analysed.ir.params
    gpu = request.backend in GPU_BACKENDS
    lines = [PRELUDE, "namespace {", ""]
    if gpu:
        # Never freed: at the process's exit, CUDA's runtime may be torn down before this
        # extension's statics, and the driver frees the program's streams with the process.
        lines += [
            "// The DaCe program's state: made on the first call, kept for the process.",
            "struct GtProgram {",
            f"  {name}_state_t* state = nullptr;",
            "};",
        ]
    else:
        lines += [
            "// The DaCe program's state: made on the first call, freed with the extension.",
            "struct GtProgram {",
            f"  {name}_state_t* state = nullptr;",
            f"  ~GtProgram() {{ if (state != nullptr) __dace_exit_{name}(state); }}",
            "};",
        ]
    lines += ["GtProgram gt_program;", "", "}  // namespace", ""]
    device = "GT4PY_ARRAY_DEVICE" if gpu else "nb::device::cpu"
    signature: list[native.Parameter] = []
    fields = []
    for p in params:
        if isinstance(p, ir.ScalarDecl):
            signature.append(native.Parameter(CPP_TYPES[p.dtype], _ident(p.name)))
        else:
            fields.append(p)
            const = "const " if analysed.access[p.name] in ("in", "none") else ""
            array = f"nb::ndarray<{const}{CPP_TYPES[p.dtype]}, {device}>"
            signature.append(native.Parameter(array, _ident(p.name), convert=False))
    signature.append(native.Parameter("std::tuple<int64_t, int64_t, int64_t>", "gt_domain"))
    for f in fields:
        tuple_type = ", ".join(["int64_t"] * len(f.axes))
        signature.append(native.Parameter(f"std::tuple<{tuple_type}>", f"gt_origin_{f.name}"))
    if gpu:
        signature.append(native.Parameter("std::uintptr_t", "gt_stream"))
    lines.append(f"void run({', '.join(p.declaration for p in signature)}) {{")
    body = ["int64_t __I, __J, __K;", "std::tie(__I, __J, __K) = gt_domain;"]
    for p in params:
        if isinstance(p, ir.ScalarDecl):
            body.append(f"const {CPP_TYPES[p.dtype]} {p.name} = {_ident(p.name)};")
            continue
        ctype = CPP_TYPES[p.dtype]
        body.append(f"{ctype}* {p.name} = const_cast<{ctype}*>({_ident(p.name)}.data());")
        for n, axis in enumerate(p.axes):
            array = _ident(p.name)
            body.append(f"const int64_t {stride_symbol(p.name, axis)} = {array}.stride({n});")
            body.append(f"const int64_t {size_symbol(p.name, axis)} = {array}.shape({n});")
            body.append(
                f"const int64_t {origin_symbol(p.name, axis)} = std::get<{n}>(gt_origin_{p.name});"
            )
        for d in range(len(p.data_dims)):
            axis = f"D{d}"
            body.append(
                f"const int64_t {stride_symbol(p.name, axis)} = "
                f"{_ident(p.name)}.stride({len(p.axes) + d});"
            )
    checked = KERROR in sdfg.arrays
    record = f"{KERROR}_host" if gpu else KERROR
    backend = request.backend
    if checked:
        body.append(f"int64_t {record}[4] = {{-1, 0, 0, -1}};")
    if gpu:
        body.append("const auto gt_cuda_stream = reinterpret_cast<cudaStream_t>(gt_stream);")
    if gpu and checked:  # the record in device memory, on the call's stream
        body += [
            f'gt4py::cuda::device_buffer gt_record(sizeof {record}, gt_cuda_stream, "{backend}");',
            "gt4py::cuda::check(cudaMemcpyAsync(gt_record.ptr, "
            f"{record}, sizeof {record}, cudaMemcpyHostToDevice, gt_cuda_stream), "
            f'"{backend}", "cudaMemcpyAsync");',
            f"int64_t* {KERROR} = static_cast<int64_t*>(gt_record.ptr);",
        ]
    body += [
        "if (gt_program.state == nullptr) {",
        f"  gt_program.state = __dace_init_{name}({sdfg.init_signature(for_call=True)});",
        "  if (gt_program.state == nullptr)",
        f'    throw std::runtime_error("DaCe program {name} failed to initialise'
        + (" (is there a CUDA device?)" if gpu else "")
        + '");',
        "}",
    ]
    if gpu:  # the kernels on the caller's stream; DaCe synchronises it before returning
        body.append("__dace_gpu_set_all_streams(gt_program.state, gt_cuda_stream);")
    body += [
        "{",
        "  nb::gil_scoped_release release;",
        f"  __program_{name}(gt_program.state, {sdfg.signature(for_call=True)});",
        "}",
    ]
    if gpu:
        body += [
            "if (const int gt_error = __dace_gpu_last_error(gt_program.state); gt_error != 0)",
            f'  gt4py::cuda::check(static_cast<cudaError_t>(gt_error), "{backend}", '
            f'"stencil {request.name}");',
        ]
    if gpu and checked:
        body += [
            f"gt4py::cuda::check(cudaMemcpyAsync({record}, gt_record.ptr, sizeof {record}, "
            f'cudaMemcpyDeviceToHost, gt_cuda_stream), "{backend}", "cudaMemcpyAsync");',
            f'gt4py::cuda::check(cudaStreamSynchronize(gt_cuda_stream), "{backend}", '
            '"cudaStreamSynchronize");',
        ]
    if checked:
        names = ", ".join(f'"{n}"' for n in _field_names(sdfg))
        body += [
            f"if ({record}[0] >= 0) {{",
            f"  static const char* const names[] = {{{names}}};",
            "  throw nb::index_error(("
            + index_error_message(
                f"names[{record}[0]]", f"{record}[1]", f"{record}[2]", f"{record}[3]"
            )
            + ").c_str());",
            "}",
        ]
    lines += ["  " + line for line in body]
    lines += ["}", ""]
    lines += native.entry_point(
        module_name, signature, returns=False, doc=f"Run stencil {request.name} (DaCe)."
    ).splitlines()
    return "\n".join(lines) + "\n"


def _analysed(sdfg: Any) -> Any:
    analysed = getattr(sdfg, "gt_analysed", None)
    if analysed is None:
        raise ValueError(f"SDFG {sdfg.name!r} was not made by gt4py's sdfg_of")
    return analysed


def _field_names(sdfg: Any) -> list[str]:
    """The fields in the order the K-index check numbers them (``TaskletCode.field_ids``)."""
    stencil = _analysed(sdfg).ir
    return [p.name for p in stencil.params if isinstance(p, ir.FieldDecl)] + [
        t.name for t in stencil.temporaries
    ]

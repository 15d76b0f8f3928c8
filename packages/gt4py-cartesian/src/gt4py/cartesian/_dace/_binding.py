"""The nanobind ``run(...)`` of a DaCe stencil's extension: the C++ backends' calling
convention (fields as arrays, scalars, the domain, one origin per field) turned into the SDFG's
arguments (``_sdfg``'s convention) for DaCe's ``__program_<name>``."""

from __future__ import annotations

from typing import Any

from gt4py.infra import native

from .. import _ir as ir
from .._cpp_codegen import CPP_TYPES, _ident, index_error_message
from .._pipeline import BuildRequest
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
    lines = [PRELUDE, "namespace {", ""]
    lines += [
        "// The DaCe program's state: made on the first call, freed with the extension.",
        "struct GtProgram {",
        f"  {name}_state_t* state = nullptr;",
        f"  ~GtProgram() {{ if (state != nullptr) __dace_exit_{name}(state); }}",
        "};",
        "GtProgram gt_program;",
        "",
        "}  // namespace",
        "",
    ]
    signature: list[native.Parameter] = []
    fields = []
    for p in params:
        if isinstance(p, ir.ScalarDecl):
            signature.append(native.Parameter(CPP_TYPES[p.dtype], _ident(p.name)))
        else:
            fields.append(p)
            const = "const " if analysed.access[p.name] in ("in", "none") else ""
            array = f"nb::ndarray<{const}{CPP_TYPES[p.dtype]}, nb::device::cpu>"
            signature.append(native.Parameter(array, _ident(p.name), convert=False))
    signature.append(native.Parameter("std::tuple<int64_t, int64_t, int64_t>", "gt_domain"))
    for f in fields:
        tuple_type = ", ".join(["int64_t"] * len(f.axes))
        signature.append(native.Parameter(f"std::tuple<{tuple_type}>", f"gt_origin_{f.name}"))
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
    if checked:
        body.append(f"int64_t {KERROR}[4] = {{-1, 0, 0, -1}};")
    body += [
        "if (gt_program.state == nullptr) {",
        f"  gt_program.state = __dace_init_{name}({sdfg.init_signature(for_call=True)});",
        "  if (gt_program.state == nullptr)",
        f'    throw std::runtime_error("DaCe program {name} failed to initialise");',
        "}",
        "{",
        "  nb::gil_scoped_release release;",
        f"  __program_{name}(gt_program.state, {sdfg.signature(for_call=True)});",
        "}",
    ]
    if checked:
        names = ", ".join(f'"{n}"' for n in _field_names(sdfg))
        body += [
            f"if ({KERROR}[0] >= 0) {{",
            f"  static const char* const names[] = {{{names}}};",
            "  throw nb::index_error(("
            + index_error_message(
                f"names[{KERROR}[0]]", f"{KERROR}[1]", f"{KERROR}[2]", f"{KERROR}[3]"
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

"""The ``dace:*`` backends' steps: ``analysis → sdfg → cpp → so`` (ADR 0041), ``cu`` in place
of ``cpp`` for ``dace:gpu`` and ``dace:gpu_IJK`` (ADR 0047).

``sdfg`` is the stencil's SDFG (:func:`._sdfg.sdfg_of`); ``cpp`` is the C++ DaCe's code
generator writes for it (``SDFG.generate_code``) followed by a nanobind binding ``run(...)``
with the C++ backends' calling convention (fields, scalars, domain, origins); ``cu`` is DaCe's
CUDA (kernels, launches, streams) and that C++ as one source, for nvcc; ``so`` is that source
built by ``gt4py.infra.native`` (infra's toolchain, build cache and its checks), with DaCe's
runtime headers on the include path. ``dace:gpu_emulated`` (tests only) builds the ``cu``
source with the host compiler, its CUDA runtime and launches emulated on the CPU. Nothing is written to a ``.dacecache``: the
stencil's cache entry holds the SDFG (JSON), the source and the extension, and its module
loads the extension beside it (no DaCe import to run a built stencil).

The DaCe program's state (``__dace_init_<name>``) is made on the first call and freed
(``__dace_exit_<name>``) when the extension is unloaded, i.e. it lives as long as the stencil
module that holds it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gt4py.infra.pipeline import Stage

from .._backends import EntryContents
from .._pipeline import ANALYSIS, CPP, CU, SDFG, SO, BuildRequest, render, with_metadata
from ._names import EMULATED_BACKENDS, GPU_BACKENDS


if TYPE_CHECKING:
    from .._analysis import AnalysedStencil


def dace_availability(name: str) -> str | None:
    """Why the DaCe backend ``name`` cannot build stencils here, or None. Asks the installed
    distributions only: DaCe is imported when a stencil is built."""
    if importlib.util.find_spec("dace") is None:
        return (
            f"backend {name!r} needs DaCe, which is not installed: "
            "pip install 'gt4py-cartesian[dace]'"
        )
    return None


def dace_version() -> str:
    """The installed DaCe's version (part of a DaCe stencil's key), without importing it."""
    from importlib import metadata

    try:
        return metadata.version("dace")
    except metadata.PackageNotFoundError:
        return "not installed"


def sdfg_stage(analysed: AnalysedStencil, request: BuildRequest) -> Any:
    """``sdfg``: the stencil's SDFG."""
    from ._sdfg import sdfg_of

    return sdfg_of(analysed, request.backend)


def _module_name(stencil_name: str) -> str:
    return "gtdace_" + re.sub(r"[^A-Za-z0-9_]", "_", stencil_name)


def cpp_source(sdfg: Any, request: BuildRequest) -> str:
    """``cpp`` (``cu`` for the GPU backends): DaCe's code for the SDFG and the module's
    binding, one source."""
    from dace.codegen import codegen

    from ._binding import binding

    objects = codegen.generate_code(sdfg, validate=False)
    # the frame and, for the GPU backends, the CUDA file (its header and sample main unused)
    by_kind = {
        (o.title, o.language): o.clean_code
        for o in objects
        if (o.title, o.language) not in {("CallHeader", "h"), ("SampleMain", "cpp")}
    }
    gpu = request.backend in GPU_BACKENDS
    if set(by_kind) != {("Frame", "cpp"), *([("CUDA", "cu")] if gpu else [])}:
        raise NotImplementedError(f"DaCe generated other files than expected: {sorted(by_kind)}")
    # the hash header DaCe's build folder would hold: unused without instrumentation
    frame = re.sub(r'#include "[./]*include/hash\.h"\n', "", by_kind["Frame", "cpp"])
    if gpu:
        frame = _cuda_and_frame(by_kind["CUDA", "cu"], frame)
    return frame + "\n" + binding(sdfg, request, _module_name(request.name))


def _cuda_and_frame(cuda: str, frame: str) -> str:
    """DaCe's CUDA file and its frame as one translation unit: the program's state struct
    once (both define it; the CUDA file, first, keeps it), the CUDA runtime and the launches
    through ``<gt4py/dace_cuda.hpp>`` (nvcc's, or the emulation of ``dace:gpu_emulated``)."""
    state = re.search(r"^struct \w+_state_t \{\n.*?^\};\n", frame, re.S | re.M)
    if state is None or cuda.count(state.group(0)) != 1:
        raise NotImplementedError("DaCe's CUDA file and frame declare the program state apart")
    frame = frame.replace(state.group(0), "", 1)
    if cuda.count("#include <cuda_runtime.h>\n") != 1:
        raise NotImplementedError("DaCe's CUDA file does not include <cuda_runtime.h> once")
    cuda = cuda.replace("#include <cuda_runtime.h>\n", "#include <gt4py/dace_cuda.hpp>\n")
    # every launch: a typed one under the emulation, DaCe's cudaLaunchKernel under nvcc
    cuda, launches = re.subn(r"\bcudaLaunchKernel\(\(void\s*\*\)", "GT4PY_DACE_LAUNCH(", cuda)
    if launches != cuda.count("__global__"):
        raise NotImplementedError("DaCe's CUDA file launches its kernels in an unknown way")
    return cuda + "\n" + frame


def build_extension(source: str, request: BuildRequest) -> pathlib.Path:
    """``so``: the ``cpp`` (``cu``) source built by infra's native toolchain."""
    from .. import _cpp_backend

    return _cpp_backend.build(
        _module_name(request.name),
        {_source_file(request): source},
        stencil=request.name,
        backend=request.backend,
        options=build_options(request.backend),
    )


def build_options(backend: str) -> Any:
    """infra's build options for a DaCe stencil: the C++ (CUDA) backends' plus DaCe's
    runtime headers (found without importing DaCe)."""
    from gt4py.infra import native

    from .._cpp_backend import COMPILE_FLAGS, cuda_build_options, extra_build_flags

    spec = importlib.util.find_spec("dace")
    if spec is None or spec.origin is None:
        raise ImportError("the DaCe backends need DaCe: pip install 'gt4py-cartesian[dace]'")
    include = pathlib.Path(spec.origin).parent / "runtime" / "include"
    if backend in GPU_BACKENDS and backend not in EMULATED_BACKENDS:  # gt:gpu's, for nvcc
        return dataclasses.replace(cuda_build_options(backend), include_dirs=(str(include),))
    extra_compile, extra_link = extra_build_flags(backend)
    return native.BuildOptions(
        # dace:gpu_emulated: the cu source as C++ for the host, its launches on the CPU
        cuda_emulation=backend in EMULATED_BACKENDS,
        openmp=True,
        cxx_standard=20,  # DaCe 2's runtime headers (std::bit_cast)
        include_dirs=(str(include),),
        extra_compile_flags=(*COMPILE_FLAGS, "-Wno-unused-variable", *extra_compile),
        extra_link_flags=extra_link,
    )


def entry(values: Mapping[str, Any], request: BuildRequest) -> EntryContents:
    """The cache entry: the stencil module, the extension, its source and the SDFG."""
    from .._cpp_backend import loader_module

    extension: pathlib.Path = values[SO.name]
    code = loader_module(
        request,
        extension,
        what="its DaCe program (built C++ extension)",
        emulated=request.backend in EMULATED_BACKENDS,
        gpu=request.backend in GPU_BACKENDS,
    )
    source_file = _source_file(request)
    source_stage = _source_stage(request.backend)
    sdfg_file = f"{_module_name(request.name)}.sdfg"
    sdfg = values[SDFG.name]
    sdfg_text = render(SDFG, sdfg)  # DaCe's JSON (a cache hit gives it back as text)
    assert isinstance(sdfg_text, str)
    return EntryContents(
        with_metadata(code, values[ANALYSIS.name], request.backend),
        files={
            extension.name: extension,
            source_file: values[source_stage.name],
            sdfg_file: sdfg_text,
        },
        stage_files={SDFG.name: sdfg_file, source_stage.name: source_file, SO.name: extension.name},
    )


def _source_stage(backend: str) -> Stage:
    return CU if backend in GPU_BACKENDS else CPP


def _source_file(request: BuildRequest) -> str:
    return f"{_module_name(request.name)}.{_source_stage(request.backend).suffix}"

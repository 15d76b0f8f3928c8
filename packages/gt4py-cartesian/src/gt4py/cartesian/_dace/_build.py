"""The ``dace:*`` backends' steps: ``analysis → sdfg → cpp → so`` (ADR 0041).

``sdfg`` is the stencil's SDFG (:func:`._sdfg.sdfg_of`); ``cpp`` is the C++ DaCe's code
generator writes for it (``SDFG.generate_code``) followed by a nanobind binding ``run(...)``
with the C++ backends' calling convention (fields, scalars, domain, origins); ``so`` is that
source built by ``gt4py.infra.native`` (infra's toolchain, build cache and its checks), with
DaCe's runtime headers on the include path. Nothing is written to a ``.dacecache``: the
stencil's cache entry holds the SDFG (JSON), the source and the extension, and its module
loads the extension beside it (no DaCe import to run a built stencil).

The DaCe program's state (``__dace_init_<name>``) is made on the first call and freed
(``__dace_exit_<name>``) when the extension is unloaded, i.e. it lives as long as the stencil
module that holds it.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._backends import EntryContents
from .._pipeline import ANALYSIS, CPP, SDFG, SO, BuildRequest, render, with_metadata


if TYPE_CHECKING:
    from .._analysis import AnalysedStencil


DACE_BACKENDS = ("dace:cpu", "dace:cpu_kfirst", "dace:cpu_KJI", "dace:gpu", "dace:gpu_IJK")
GPU_BACKENDS = ("dace:gpu", "dace:gpu_IJK")


def dace_availability(name: str) -> str | None:
    """Why the DaCe backend ``name`` cannot build stencils here, or None. Asks the installed
    distributions only: DaCe is imported when a stencil is built."""
    if name in GPU_BACKENDS:
        return (
            f"backend {name!r} is registered (its storage layout, backend.from_name) but this "
            "gt4py builds DaCe stencils for CPUs only (no CUDA generation for SDFGs yet); use "
            "'gt:gpu' on GPUs, or 'dace:cpu' / 'dace:cpu_kfirst' on CPUs"
        )
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
    """``cpp``: DaCe's C++ for the SDFG and the module's binding."""
    from dace.codegen import codegen

    objects = codegen.generate_code(sdfg, validate=False)
    frame = [o for o in objects if o.title == "Frame" and o.language == "cpp"]
    if len(frame) != 1 or len(objects) > 3:  # the frame, its header and a sample main
        kinds = [(o.title, o.language) for o in objects]
        raise NotImplementedError(f"DaCe generated more than one C++ file: {kinds}")
    # the hash header DaCe's build folder would hold: unused without instrumentation
    code = re.sub(r'#include "[./]*include/hash\.h"\n', "", frame[0].clean_code)
    from ._binding import binding

    return code + "\n" + binding(sdfg, request, _module_name(request.name))


def build_extension(source: str, request: BuildRequest) -> pathlib.Path:
    """``so``: the ``cpp`` source built by infra's native toolchain."""
    from .. import _cpp_backend

    return _cpp_backend.build(
        _module_name(request.name),
        {_source_file(request): source},
        stencil=request.name,
        backend=request.backend,
        options=build_options(request.backend),
    )


def build_options(backend: str) -> Any:
    """infra's build options for a DaCe stencil: the C++ backends' plus DaCe's runtime
    headers (found without importing DaCe)."""
    from gt4py.infra import native

    from .._cpp_backend import COMPILE_FLAGS, extra_build_flags

    spec = importlib.util.find_spec("dace")
    if spec is None or spec.origin is None:
        raise ImportError("the DaCe backends need DaCe: pip install 'gt4py-cartesian[dace]'")
    include = pathlib.Path(spec.origin).parent / "runtime" / "include"
    extra_compile, extra_link = extra_build_flags(backend)
    return native.BuildOptions(
        openmp=True,
        cxx_standard=20,  # DaCe 2's runtime headers (std::bit_cast)
        include_dirs=(str(include),),
        extra_compile_flags=(*COMPILE_FLAGS, "-Wno-unused-variable", *extra_compile),
        extra_link_flags=extra_link,
    )


def load(module_file: str, extension_file: str) -> Any:
    from .._cpp_backend import load as load_extension

    return load_extension(module_file, extension_file)


def entry(values: Mapping[str, Any], request: BuildRequest) -> EntryContents:
    """The cache entry: the stencil module, the extension, its source and the SDFG."""
    extension: pathlib.Path = values[SO.name]
    code = "\n".join(
        [
            f'"""Generated by gt4py.cartesian ({request.backend} backend). Loads its DaCe '
            'program (built C++ extension)."""',
            "from gt4py.cartesian._dace import _build",
            "",
            f"_extension = _build.load(__file__, {extension.name!r})",
            "run = _extension.run",
        ]
    )
    source_file = _source_file(request)
    sdfg_file = f"{_module_name(request.name)}.sdfg"
    sdfg = values[SDFG.name]
    sdfg_text = render(SDFG, sdfg)  # DaCe's JSON (a cache hit gives it back as text)
    assert isinstance(sdfg_text, str)
    return EntryContents(
        with_metadata(code, values[ANALYSIS.name], request.backend),
        files={extension.name: extension, source_file: values[CPP.name], sdfg_file: sdfg_text},
        stage_files={SDFG.name: sdfg_file, CPP.name: source_file, SO.name: extension.name},
    )


def _source_file(request: BuildRequest) -> str:
    return f"{_module_name(request.name)}.{CPP.suffix}"

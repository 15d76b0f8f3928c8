"""The ``gt:cpu_ifirst`` / ``gt:cpu_kfirst`` backends (C++) and ``gt:gpu`` / ``cuda`` (CUDA,
ADR 0019), built by ``gt4py.infra.native``; and ``gt:gpu_emulated``, for tests only: the
``gt:gpu`` source built by the host compiler with the CUDA launches and runtime emulated
(``<gt4py/cuda_emulation.hpp>``), run on numpy arrays (CI has no GPU).

Their stages (``_pipeline``): ``... → analysis → cpp → so`` (``cu`` for the CUDA ones). The
source is built into infra's native-module cache (one compiler run once the toolchain is set
up); the stencil's cache entry then holds a small Python stencil module, the extension and its
source. The module loads the extension beside it on import: a new process needs no compiler,
and the entry's checks (size and checksum of every file, on every read) cover the extension,
so a truncated or altered ``.so`` is a miss that is rebuilt, never an import error or silently
different code.
"""

from __future__ import annotations

import functools
import pathlib
import re
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._backends import DEVICE_BACKENDS, EntryContents
from ._errors import StencilCompilationError
from ._pipeline import ANALYSIS, CPP, CU, SO, BuildRequest, with_metadata


if TYPE_CHECKING:  # loading a cached stencil must not import the IR and analysis
    from ._analysis import AnalysedStencil


# -O3 is the toolchain's Release default. -march=native follows the native_host_tuned setting
# (BuildOptions.host_tuned=None), as for gt4py.next; the stencil key says which (_stencil_key).
# No fused multiply-add contraction (as gtfn): a host-tuned build would otherwise round
# ``a - b * c`` once, unlike numpy and the debug backend that define GTScript's results.
# No -fwrapv: the generated code's signed +, -, * are <gt4py/python_semantics.hpp>'s wrapping
# helpers (numpy's results, on the host and the device), and -fwrapv kept compilers from
# optimising loops with int indices (ADR 0044, amended). The flags are in the build key.
COMPILE_FLAGS = ("-fno-math-errno", "-ffp-contract=off")


def extra_build_flags(backend: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The user's extra (compile, link) flags for ``backend`` from released's
    ``gt4py.cartesian.config.build_settings`` (``extra_compile_args["cxx"]`` or, for CUDA,
    ``["cuda"]``; ``extra_link_args``), read when a stencil is built and keyed with it."""
    config = sys.modules.get(f"{__package__}.config")
    if config is None:
        # Nobody imported the module, so nobody changed its defaults (no extra flags); importing
        # it would locate the CUDA toolkit and load the toolchain code, which a warm process
        # loading built stencils never needs (issue 44.8).
        return (), ()
    build_settings = config.build_settings
    kind = "cuda" if backend in DEVICE_BACKENDS else "cxx"
    compile_args = build_settings.get("extra_compile_args", {}).get(kind, ())
    link_args = build_settings.get("extra_link_args", ())
    return tuple(map(str, compile_args)), tuple(map(str, link_args))


def _build_options(backend: str) -> Any:
    from gt4py.infra import native

    extra_compile, extra_link = extra_build_flags(backend)
    return native.BuildOptions(
        openmp=True,
        cxx_standard=17,
        extra_compile_flags=(*COMPILE_FLAGS, *extra_compile),
        extra_link_flags=extra_link,
        precompiled_prelude=True,  # the module's own includes, parsed once per toolchain
    )


def _module_name(stencil_name: str) -> str:
    return "gtcpp_" + re.sub(r"[^A-Za-z0-9_]", "_", stencil_name)


def build(
    name: str,
    sources: Mapping[str, str],
    *,
    stencil: str,
    backend: str,
    options: Any = None,
) -> pathlib.Path:
    """Build the extension (with ``options``, else the backend's); a compiler error becomes a
    ``StencilCompilationError``."""
    from gt4py.infra import native

    if options is not None:
        pass
    elif backend in EMULATED_BACKENDS:
        options = _emulated_build_options(backend)
    elif backend in GPU_BACKENDS:
        options = cuda_build_options(backend)
    else:
        options = _build_options(backend)
    try:
        return native.build_extension(name, sources, options)
    except native.CompilationError as error:
        errors = [line for line in error.compiler_output.splitlines() if "error" in line]
        summary = "\n".join(errors[:10]) or error.compiler_output[-2000:]
        raise StencilCompilationError(
            f"the C++ code generated for stencil '{stencil}' (backend {backend!r}) does not "
            f"compile. This is a gt4py bug, or a value (e.g. an external) that C++ cannot "
            f"represent. Generated sources kept in {error.source_dir}; the compiler said:\n"
            f"{summary}",
            compiler_output=error.compiler_output,
            source_dir=error.source_dir,
        ) from error


def load(module_file: str, extension_file: str) -> ModuleType:
    """The extension a generated stencil module loads: the file beside it in its cache entry
    (validated with the entry before the module is imported)."""
    from gt4py.infra import native

    return native.load_extension(pathlib.Path(module_file).with_name(extension_file))


# gt:gpu: relaxed constexpr for std::min/max/numeric_limits in device code; no fused
# multiply-adds (as -ffp-contract=off on the CPU: nvcc would round `a - b * c` once, unlike
# numpy and debug); signed overflow wraps through the generated code's helpers (ADR 0044);
# the architecture is the current device's (nvcc's default without one).
CUDA_FLAGS = ("--expt-relaxed-constexpr", "--fmad=false")


@functools.cache
def cuda_arch() -> str | None:
    """``sm_XY`` of cupy's current device, None without cupy or a device (compile only: nvcc's
    default architecture). Part of a gt:gpu stencil's key (``_stencil_key``): an entry holds
    its own extension, which runs only on the architecture it was built for."""
    try:
        import cupy

        return f"sm_{cupy.cuda.Device().compute_capability}"
    except Exception:  # no cupy / driver / device
        return None


def cuda_build_options(backend: str) -> Any:
    from gt4py.infra import native

    arch = cuda_arch()
    extra_compile, extra_link = extra_build_flags(backend)
    flags = (*CUDA_FLAGS, *((f"-arch={arch}",) if arch else ()), *extra_compile)
    return native.BuildOptions(
        cuda=True, cxx_standard=17, extra_cuda_flags=flags, extra_link_flags=extra_link
    )


def _emulated_build_options(backend: str) -> Any:
    from gt4py.infra import native

    # the .cu compiled as C++ with -DGT4PY_CUDA_EMULATION; the blocks of a launch run in
    # parallel under OpenMP
    extra_compile, extra_link = extra_build_flags(backend)
    return native.BuildOptions(
        cuda_emulation=True,
        openmp=True,
        cxx_standard=17,
        extra_compile_flags=(*COMPILE_FLAGS, *extra_compile),
        extra_link_flags=extra_link,
    )


def no_stream_runner(run: Any) -> Any:
    """``run`` of a ``gt:gpu_emulated`` extension: the null stream (an emulated launch runs
    to its end before it returns); numpy arrays, no cupy."""

    def run_on_no_stream(*args: Any) -> Any:
        return run(*args, 0)

    return run_on_no_stream


def stream_runner(run: Any, device_sync: bool = True) -> Any:
    """``run`` of a gt:gpu extension with cupy's current stream as its last argument (cupy is
    imported on the first call: building and loading a stencil need no GPU); with
    ``device_sync`` (the backend option, released's default) the call returns once the
    stencil has run, else as soon as it is queued on the stream."""
    stream: list[Any] = []

    def run_on_current_stream(*args: Any) -> Any:
        if not stream:
            try:
                import cupy
            except ImportError:
                raise ImportError(
                    "the gt:gpu backend runs on cupy arrays: pip install "
                    "'gt4py-cartesian[cuda12]' (or [cuda13]), or the cupy of your CUDA version"
                ) from None
            stream.append(cupy.cuda.get_current_stream)
        current = stream[0]()
        result = run(*args, current.ptr)
        if device_sync:
            current.synchronize()
        return result

    return run_on_current_stream


#: The backends whose source is the gt:gpu CUDA (the ``cu`` stage); the emulated one is
#: built by the host compiler and runs on host arrays.
EMULATED_BACKENDS = ("gt:gpu_emulated",)
GPU_BACKENDS = ("gt:gpu", "cuda", *EMULATED_BACKENDS)


def cpp_source(analysed: AnalysedStencil, request: BuildRequest) -> str:
    """The ``cpp`` stage: the stencil's C++ with its nanobind module."""
    from ._cpp_codegen import generate_cpp

    return generate_cpp(analysed, backend=request.backend, module_name=_module_name(request.name))


def cuda_source(analysed: AnalysedStencil, request: BuildRequest) -> str:
    """The ``cu`` stage: the stencil's CUDA with its nanobind module."""
    from ._cuda_codegen import generate_cuda

    return generate_cuda(analysed, backend=request.backend, module_name=_module_name(request.name))


def build_extension(source: str, request: BuildRequest) -> pathlib.Path:
    """The ``so`` stage: the extension built from the ``cpp`` or ``cu`` source."""
    name = _module_name(request.name)
    return build(
        name,
        {_source_file(request): source},
        stencil=request.name,
        backend=request.backend,
    )


def loader_module(
    request: BuildRequest, extension: pathlib.Path, *, what: str, emulated: bool, gpu: bool
) -> str:
    """A cache entry's stencil module (before its metadata): it loads the extension beside it,
    and ``run`` calls it on the caller's CUDA stream (GPU), on none (``emulated``), or as it
    is (CPU)."""
    if emulated:
        run = "run = _cpp_backend.no_stream_runner(_extension.run)"
    elif gpu:
        sync = bool(request.options.get("device_sync", True))
        run = f"run = _cpp_backend.stream_runner(_extension.run, device_sync={sync})"
    else:
        run = "run = _extension.run"
    return "\n".join(
        [
            f'"""Generated by gt4py.cartesian ({request.backend} backend). Loads {what}."""',
            "from gt4py.cartesian import _cpp_backend",
            "",
            f"_extension = _cpp_backend.load(__file__, {extension.name!r})",
            run,
        ]
    )


def extension_entry(values: Mapping[str, Any], request: BuildRequest) -> EntryContents:
    """The cache entry: a small stencil module that loads the extension beside it, the
    extension and its source (the ``so`` and ``cpp``/``cu`` stages of a cached stencil)."""
    source_stage = CU if request.backend in GPU_BACKENDS else CPP
    extension: pathlib.Path = values[SO.name]
    code = loader_module(
        request,
        extension,
        what="its C++ extension",
        emulated=request.backend in EMULATED_BACKENDS,
        gpu=request.backend in GPU_BACKENDS,
    )
    source_file = _source_file(request)
    return EntryContents(
        with_metadata(code, values[ANALYSIS.name], request.backend),
        files={extension.name: extension, source_file: values[source_stage.name]},
        stage_files={source_stage.name: source_file, SO.name: extension.name},
    )


def _source_file(request: BuildRequest) -> str:
    suffix = CU.suffix if request.backend in GPU_BACKENDS else CPP.suffix
    return f"{_module_name(request.name)}.{suffix}"

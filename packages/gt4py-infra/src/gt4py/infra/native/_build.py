"""Building extension modules into the build cache: keys, build-once, where results lie."""

from __future__ import annotations

import pathlib
from collections.abc import Mapping

from gt4py.infra import caching, pipeline

from . import _tools
from ._host import host_cpu_identity, targets_build_host
from ._module_build import CudaToolkit, ModuleSources, build_module, shipped_headers_digest
from ._module_lookup import extension_file, find_built, lookup_key, nanobind_path, record_built
from ._options import BuildOptions
from ._start_log import logged_start
from ._toolchain import ensure_toolchain, toolchain_spec


def build_extension(
    name: str, sources: Mapping[str, str], options: BuildOptions | None = None
) -> pathlib.Path:
    """Build the nanobind extension ``name`` from ``sources`` (file name -> code) once.

    Returns the path of the extension (``<name><suffix>``; the suffix is the stable ABI's in
    nanobind split mode) inside its build-cache entry.
    The entry is keyed on the sources, the options and the toolchain's identity (compiler and
    its version, nanobind, Python, CMake, Ninja, and nvcc for CUDA builds). Concurrent builders
    of one key, in threads or processes, build it once; a later process finds it without
    running any tool, and without a compiler at all (see ``_module_lookup``). Files ending in
    .cpp/.cc/.cxx/.c++ are compiled as C++, .cu with nvcc (needs ``options.cuda``; with
    ``options.cuda_emulation`` as C++ running the kernels on the CPU); other files
    (headers) are only written next to them. The headers shipped with gt4py.infra
    (``<gt4py/python_semantics.hpp>``, ``<gt4py/cuda_launch.hpp>``) are on the include path and
    in the key by their digest. Host-tuned builds (``options.host_tuned``, by default the
    ``native_host_tuned`` setting) compile C++ sources with ``-march=native`` and are keyed by
    this machine's CPU (ADR 0023). On the compile log (``gt4py.infra.pipeline``) the build notes
    ``("build", "hit" | "miss")``, and a real build logs a line when it starts (naming the
    :func:`~gt4py.infra.caching.build_label` in force, e.g. the program and backend).

    Raises ``CompilationError`` when the compiler rejects the sources and ``ToolchainError``
    when a build tool is missing or broken.
    """
    # Imported here: it pulls in numpy, which importing gt4py.infra.native should not.
    from gt4py.infra import fingerprinting

    options = BuildOptions() if options is None else options
    module = ModuleSources.validate(name, sources, cuda=options.cuda or options.cuda_emulation)
    resolved = options.resolved()  # the key holds what is actually built
    assert resolved.build_type is not None
    requested = {
        "name": name,
        "sources": fingerprinting.strict(dict(sorted(module.files.items()))),
        "options": fingerprinting.strict(resolved),
        "shipped_headers": shipped_headers_digest(),
        "host_cpu": (
            fingerprinting.strict(host_cpu_identity()) if _host_tuned(resolved) else "any"
        ),
    }
    modules = caching.BuildDirCache("native/modules")
    # A warm cache is found without asking (or even having) the build tools.
    lookup = lookup_key(requested)
    built_as = find_built(lookup)
    if built_as is not None and (entry := modules.get(built_as)) is not None:
        pipeline.note_outcome("build", "hit")
        return extension_file(entry, name)

    spec = toolchain_spec(resolved.build_type)
    nvcc = _tools.find_nvcc() if resolved.cuda else None
    key = caching.CacheKey(
        {
            **requested,
            "toolchain": spec.key.digest,
            "cuda": nvcc.identity if nvcc else "none",
        }
    )

    label = caching.current_build_label()
    language = "CUDA" if resolved.cuda else "C++"
    started = (
        f"compiling {label or f'native module {name!r}'} … started ({language} build"
        + (f" of native module {name!r}" if label else "")
        + ", a cache miss)"
    )

    def build(build_dir: pathlib.Path) -> None:
        # Only a real build gets here (a miss, under the lock): hits say nothing at the start.
        with logged_start("native/modules", started):
            toolchain = ensure_toolchain(spec)
            cuda = CudaToolkit.locate(nvcc) if nvcc else None
            build_module(
                toolchain,
                module,
                resolved,
                cuda=cuda,
                ninja=spec.ninja,
                build_dir=build_dir,
                key=key,
            )

    with pipeline.collect_outcomes() as notes:  # reported as "build", not the namespace
        entry = modules.get_or_build(key, build)
    pipeline.note_outcome("build", "miss" if ("native/modules", "miss") in notes else "hit")
    tools = {"C++ compiler": spec.cxx.path, **({"CUDA compiler": nvcc.path} if nvcc else {})}
    if (nanobind := nanobind_path()) is not None:
        tools["nanobind"] = nanobind
    record_built(lookup, key, tools)
    return extension_file(entry, name)


def _host_tuned(options: BuildOptions) -> bool:
    """Whether the build may use instructions of this CPU only (so its key names the CPU)."""
    return bool(options.host_tuned) or targets_build_host(
        (*options.extra_compile_flags, *options.extra_cuda_flags)
    )


def prepare_toolchain(options: BuildOptions | None = None) -> pathlib.Path:
    """Set up (or find) the toolchain ``options`` build with; returns its cache directory.

    Building a first module does this implicitly; calling it ahead (in a container image, a
    CI warm-up step) moves the one-time cost of configuring CMake and compiling nanobind there.
    """
    build_type = (BuildOptions() if options is None else options).resolved().build_type
    assert build_type is not None
    spec = toolchain_spec(build_type)
    return ensure_toolchain(spec).directory

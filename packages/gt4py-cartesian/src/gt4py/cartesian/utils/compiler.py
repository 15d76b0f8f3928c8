"""The compiler settings gt4py.cartesian's native builds use, under released's names, for
frameworks that build C++ / CUDA of their own beside gt4py's (NDSL configures DaCe's compiler
with them): ``cxx_compiler_defaults(opt_level)`` and ``gpu_configuration(opt_level)``.

The flags are those of the ``gt:*`` backends (``_cpp_backend``): no ``errno`` from math
functions and no fused multiply-add contraction, so that code built with them rounds as numpy
and the ``debug`` backend do. The optimization level itself is the caller's (``-O<level>``).
"""

from __future__ import annotations

import dataclasses
import enum
import os


class CxxCompilerName(enum.Enum):
    GNU = "gnu"
    CLANG = "clang"
    INTEL = "intel"
    UNKNOWN = "unknown"


@dataclasses.dataclass(frozen=True)
class CxxCompilerDefaults:
    """The C++ compiler native builds use: its family, OpenMP flag and extra compile flags
    (one string, as released gives them)."""

    name: CxxCompilerName
    open_mp_flag: str
    enable_openmp: bool
    cxx_compile_flags: str


class GPUCompilerName(enum.Enum):
    NVCC = "nvcc"


@dataclasses.dataclass(frozen=True)
class GPUConfiguration:
    """The CUDA compiler native GPU builds use: its flags and the CUDA installation's paths."""

    name: GPUCompilerName
    gpu_compile_flags: list[str]
    binary_path: str
    include_path: str
    library_path: str
    arch: str | None
    host_compiler: str | None


def _check_level(optimization_level: str) -> str:
    level = str(optimization_level)
    if level not in ("0", "1", "2", "3", "s", "fast"):
        raise ValueError(
            f"optimization level {optimization_level!r} is not one of 0, 1, 2, 3, s, fast "
            "(GT4PY_COMPILE_OPT_LEVEL)"
        )
    return level


def _compiler_family(path: str | None) -> CxxCompilerName:
    name = os.path.basename(os.path.realpath(path)) if path else ""
    if "icpx" in name or "icpc" in name:
        return CxxCompilerName.INTEL
    if "clang" in name:
        return CxxCompilerName.CLANG
    if "g++" in name or "gcc" in name or name == "c++":
        return CxxCompilerName.GNU
    return CxxCompilerName.UNKNOWN


def cuda_root() -> str:
    """The CUDA toolkit of the nvcc native builds use (``/usr/local/cuda`` without one)."""
    from gt4py.infra import native

    nvcc = native.locate_nvcc()
    return os.path.dirname(os.path.dirname(nvcc)) if nvcc else "/usr/local/cuda"


def cxx_compiler_defaults(optimization_level: str) -> CxxCompilerDefaults:
    """The C++ compiler's family and the flags gt4py's C++ backends add at this ``-O`` level."""
    from gt4py.infra import native

    from .._cpp_backend import COMPILE_FLAGS

    _check_level(optimization_level)
    family = _compiler_family(native.locate_cxx())
    openmp = "-qopenmp" if family is CxxCompilerName.INTEL else "-fopenmp"
    return CxxCompilerDefaults(
        name=family,
        open_mp_flag=openmp,
        enable_openmp=True,
        cxx_compile_flags=" ".join(COMPILE_FLAGS),
    )


def gpu_configuration(optimization_level: str) -> GPUConfiguration:
    """nvcc, the flags gt4py's CUDA backend adds, and its CUDA toolkit's directories."""
    from gt4py.infra import native

    from .._cpp_backend import CUDA_FLAGS

    _check_level(optimization_level)
    root = cuda_root()
    return GPUConfiguration(
        name=GPUCompilerName.NVCC,
        gpu_compile_flags=list(CUDA_FLAGS),
        binary_path=os.path.join(root, "bin"),
        include_path=os.path.join(root, "include"),
        library_path=os.path.join(root, "lib64"),
        arch=None,
        host_compiler=native.locate_cxx(),  # nvcc's host compiler is native builds' C++ one
    )

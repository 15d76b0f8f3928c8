"""Native Python extensions from C++ and CUDA sources, built once into the build cache.

Bindings are nanobind's; CMake and Ninja are run once per toolchain (compiler, build type,
nanobind, Python), after which a module costs one compiler run per source and a link::

    from gt4py.infra import native

    path = native.build_extension("adder", {"adder.cpp": code}, native.BuildOptions())
    adder = native.load_extension(path)

The build tools come with the ``gt4py-infra[native]`` extra; the C++ compiler is the
``cxx_compiler`` setting (``GT4PY_CXX``), else ``$CXX``, else the system's ``c++``.
"""

from typing import TYPE_CHECKING, Any


if TYPE_CHECKING:
    from ._build import build_extension as build_extension, prepare_toolchain as prepare_toolchain
    from ._cxx_keywords import CXX_KEYWORDS as CXX_KEYWORDS
    from ._entry_point import Parameter as Parameter, entry_point as entry_point
    from ._errors import (
        CompilationError as CompilationError,
        NativeBuildError as NativeBuildError,
        ToolchainError as ToolchainError,
    )
    from ._host import host_cpu_identity as host_cpu_identity
    from ._loading import load_extension as load_extension
    from ._options import BuildOptions as BuildOptions, BuildType as BuildType
    from ._tools import locate_cxx as locate_cxx, locate_nvcc as locate_nvcc

#: Each public name -> the submodule defining it, imported on first use: a process that loads
#: built extensions from a warm cache (``load_extension``, ``host_cpu_identity`` for a key)
#: never imports the toolchain, CMake driving or the build cache (issue 44.8).
_EXPORTS = {
    "build_extension": "_build",
    "prepare_toolchain": "_build",
    "CXX_KEYWORDS": "_cxx_keywords",
    "Parameter": "_entry_point",
    "entry_point": "_entry_point",
    "CompilationError": "_errors",
    "NativeBuildError": "_errors",
    "ToolchainError": "_errors",
    "host_cpu_identity": "_host",
    "load_extension": "_loading",
    "BuildOptions": "_options",
    "BuildType": "_options",
    "locate_cxx": "_tools",
    "locate_nvcc": "_tools",
}


def __getattr__(name: str) -> Any:
    submodule = _EXPORTS.get(name)
    if submodule is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{submodule}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = [
    "BuildOptions",
    "BuildType",
    "CompilationError",
    "NativeBuildError",
    "Parameter",
    "ToolchainError",
    "build_extension",
    "entry_point",
    "host_cpu_identity",
    "load_extension",
    "locate_cxx",
    "locate_nvcc",
    "prepare_toolchain",
]

"""The registry of GTScript backends: name -> declared stages, their steps, the cache entry.

Each step is named as ``"module:function"`` and imported only when a stencil is built, so
loading a cached stencil imports no frontend, IR or code generator.
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
from collections.abc import Callable, Mapping
from typing import Any

from gt4py.infra.pipeline import Stage

from . import _pipeline as p


#: The stencil module's file in a cache entry: imported to make the StencilObject.
MODULE_FILE = "stencil_module.py"

#: The backends whose code runs on a GPU: built by nvcc for the device's architecture, run on
#: cupy arrays (their ``*_emulated`` test twins build the same source for the host).
DEVICE_BACKENDS = ("gt:gpu", "cuda", "dace:gpu", "dace:gpu_IJK")


@dataclasses.dataclass(frozen=True)
class EntryContents:
    """What a build publishes as its cache entry: the stencil module's source (``run(...)``
    and ``METADATA``), the files it loads, by name (a path is copied, a string written), and
    which stages' values those files are (stage -> file name; read back on a cache hit). The
    entry's checks (size and checksum of every file, on every read) cover them all; the
    module finds its files beside its ``__file__``."""

    module: str
    files: Mapping[str, pathlib.Path | str] = dataclasses.field(default_factory=dict)
    stage_files: Mapping[str, str] = dataclasses.field(default_factory=dict)


#: The stage values (and the request) -> the entry to publish.
Packager = Callable[[Mapping[str, Any], p.BuildRequest], EntryContents]


@dataclasses.dataclass(frozen=True)
class Backend:
    """A backend: its pipeline as ``(stage, "module:function" of its step)`` pairs, in order,
    and the ``"module:function"`` that turns the stage values into the cache entry.
    ``test_only`` backends work by name but are left out of :func:`backend_names`."""

    name: str
    steps: tuple[tuple[Stage, str], ...]
    packager: str = "gt4py.cartesian._backends:python_module_entry"
    options: Mapping[str, type] = dataclasses.field(default_factory=dict)
    test_only: bool = False
    #: "module:function" returning why this backend cannot build here (None: it can); asked
    #: before any work (e.g. the DaCe backends without DaCe installed).
    availability: str | None = None

    @property
    def STAGES(self) -> tuple[Stage, ...]:
        """The declared stages, in order (``gt4py.infra.pipeline.describe`` prints them)."""
        return tuple(stage for stage, _ in self.steps)

    def step(self, stage: Stage) -> p.Step:
        """The function producing ``stage``'s value (imported now)."""
        step: p.Step = _resolve(dict(self.steps)[stage])
        return step

    def unavailable_reason(self) -> str | None:
        """Why no stencil can be built for this backend here, or None."""
        return None if self.availability is None else _resolve(self.availability)(self.name)

    def package(self, values: Mapping[str, Any], request: p.BuildRequest) -> EntryContents:
        packager: Packager = _resolve(self.packager)
        return packager(values, request)


def python_module_entry(values: Mapping[str, Any], _: p.BuildRequest) -> EntryContents:
    """The entry of a backend generating Python: the ``py`` stage is the stencil module."""
    return EntryContents(values[p.PY.name], stage_files={p.PY.name: MODULE_FILE})


def _resolve(path: str) -> Any:
    module, _, function = path.partition(":")
    return getattr(importlib.import_module(module), function)


_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    _BACKENDS[backend.name] = backend
    return backend


def get_backend(name: str) -> Backend:
    try:
        return _BACKENDS[name]
    except KeyError:
        raise ValueError(
            f"unknown GTScript backend {name!r}; available: {', '.join(backend_names())}"
        ) from None


def backend_names() -> list[str]:
    """The names of the backends for users (the test-only ones left out)."""
    return sorted(name for name, backend in _BACKENDS.items() if not backend.test_only)


_PIPELINE = "gt4py.cartesian._pipeline"
_CPP = "gt4py.cartesian._cpp_backend"
_COMMON_STEPS = (
    (p.FRONTEND, f"{_PIPELINE}:parse_definition"),
    (p.IR, f"{_PIPELINE}:definition_ir"),
    (p.ANALYSIS, f"{_PIPELINE}:analysis"),
)

_NUMPY_OPTIONS = {"ignore_np_errstate": bool}  # released's: numpy's warnings, or none
register_backend(
    Backend("numpy", (*_COMMON_STEPS, (p.PY, f"{_PIPELINE}:numpy_module")), options=_NUMPY_OPTIONS)
)
register_backend(
    Backend("debug", (*_COMMON_STEPS, (p.PY, f"{_PIPELINE}:debug_module")), options=_NUMPY_OPTIONS)
)
for _name in ("gt:cpu_ifirst", "gt:cpu_kfirst"):
    register_backend(
        Backend(
            _name,
            (*_COMMON_STEPS, (p.CPP, f"{_CPP}:cpp_source"), (p.SO, f"{_CPP}:build_extension")),
            packager=f"{_CPP}:extension_entry",
        )
    )
for _name in ("gt:gpu", "cuda", "gt:gpu_emulated"):
    register_backend(
        Backend(
            _name,
            (*_COMMON_STEPS, (p.CU, f"{_CPP}:cuda_source"), (p.SO, f"{_CPP}:build_extension")),
            packager=f"{_CPP}:extension_entry",
            options={"device_sync": bool},
            # gt:gpu_emulated, for tests (CI has no GPU): the gt:gpu CUDA source, compiled by
            # the host compiler with its launches and CUDA runtime emulated on the CPU
            # (<gt4py/cuda_emulation.hpp>), run on host (numpy) arrays in the gt:gpu layout.
            # Not a backend for users: it proves the kernels' logic, not GPU behaviour.
            test_only=_name == "gt:gpu_emulated",
        )
    )

# The DaCe backends (released's names and storage layouts, gt4py.storage): registered always,
# so that frameworks resolve them (NDSL does at import: ``backend.from_name("dace:gpu")``).
# Building needs DaCe (the ``dace`` extra); the availability check says so before any work,
# without importing DaCe (ADR 0041).
# dace:gpu_emulated, for tests: the dace:gpu source built for the host (as gt:gpu_emulated).
_DACE = "gt4py.cartesian._dace._build"
for _name in (
    "dace:cpu",
    "dace:cpu_kfirst",
    "dace:cpu_KJI",
    "dace:gpu",
    "dace:gpu_IJK",
    "dace:gpu_emulated",
):
    _gpu = _name.startswith("dace:gpu")
    register_backend(
        Backend(
            _name,
            (
                *_COMMON_STEPS,
                (p.SDFG, f"{_DACE}:sdfg_stage"),
                (p.CU if _gpu else p.CPP, f"{_DACE}:cpp_source"),
                (p.SO, f"{_DACE}:build_extension"),
            ),
            packager=f"{_DACE}:entry",
            options={"device_sync": bool} if _gpu else {},
            availability=f"{_DACE}:dace_availability",
            test_only=_name == "dace:gpu_emulated",
        )
    )
del _gpu
del _name

"""The registry of GTScript backends: name -> code generator and storage layout."""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
from collections.abc import Callable, Mapping
from typing import Any


@dataclasses.dataclass(frozen=True)
class GeneratedStencil:
    """What a backend generates: the Python source of the stencil module (with ``run(...)``)
    and the files that module loads, by name. The files are copied next to the module into
    the stencil's cache entry, whose checks (size and checksum of every file, on every read)
    then cover them too; the module finds them beside its ``__file__``."""

    code: str
    files: Mapping[str, pathlib.Path] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Backend:
    """A backend: ``generator`` is ``"module:function"`` turning an analysed stencil into a
    ``GeneratedStencil`` (or just the module's source); imported only when a stencil is built."""

    name: str
    generator: str
    options: Mapping[str, type] = dataclasses.field(default_factory=dict)

    def generate(self, analysed: Any) -> GeneratedStencil:
        module, _, function = self.generator.partition(":")
        generate: Callable[[Any], str | GeneratedStencil] = getattr(
            importlib.import_module(module), function
        )
        generated = generate(analysed)
        return GeneratedStencil(generated) if isinstance(generated, str) else generated


_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    _BACKENDS[backend.name] = backend
    return backend


def get_backend(name: str) -> Backend:
    try:
        return _BACKENDS[name]
    except KeyError:
        raise ValueError(
            f"unknown GTScript backend {name!r}; available: {', '.join(sorted(_BACKENDS))}"
        ) from None


def backend_names() -> list[str]:
    return sorted(_BACKENDS)


register_backend(Backend("numpy", "gt4py.cartesian._numpy_codegen:generate"))
register_backend(Backend("debug", "gt4py.cartesian._debug_codegen:generate"))
register_backend(Backend("gt:cpu_ifirst", "gt4py.cartesian._cpp_backend:generate_ifirst"))
register_backend(Backend("gt:cpu_kfirst", "gt4py.cartesian._cpp_backend:generate_kfirst"))
register_backend(Backend("gt:gpu", "gt4py.cartesian._cpp_backend:generate_gpu"))
register_backend(Backend("cuda", "gt4py.cartesian._cpp_backend:generate_cuda"))

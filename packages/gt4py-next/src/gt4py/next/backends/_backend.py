"""A compiled backend assembled from steps: passes, a translation, a build, a loader.

``compiler`` is the whole pipeline after the passes, in two halves:
``make_artifact(program_ir, table_dtypes)`` (translate and build; picklable, so it can run in a
runner worker) and ``load_artifact(artifact) -> (entry point, stages)`` (in the caller).
:class:`ProgramPool` (one per program and backend) calls them once per variant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._backend import CompiledBackend
from . import _compiled_programs


_POOLS_ATTRIBUTE = "__gt_compiled_pools__"


class StepBackend(CompiledBackend):
    """A :class:`CompiledBackend` whose pipeline is ``optimize`` then ``compiler``."""

    __slots__ = ("_compiler", "_loader", "_name", "config", "optimize")

    def __init__(
        self,
        name: str,
        *,
        config: Any,
        optimize: Callable[[Any], Any],
        compiler: Callable[..., Any],
        loader: Any = None,
    ) -> None:
        self._name = name
        self.config = config
        self.optimize = optimize
        self._compiler = compiler
        self._loader = loader

    @property
    def name(self) -> str:
        return self._name

    @property
    def allocator(self) -> Any:
        if getattr(self.config, "device", "cpu") == "gpu":  # gtfn_gpu: fields in cupy arrays
            from .gtfn._steps import import_cupy

            return import_cupy()
        return np

    @property
    def compiler(self) -> Any:
        return self._compiler

    @property
    def loader(self) -> Any:
        return self._loader

    def pool(self, definition: Any) -> _compiled_programs.ProgramPool:
        pools = definition.__dict__.get(_POOLS_ATTRIBUTE)
        if pools is None:
            pools = {}
            definition.__dict__[_POOLS_ATTRIBUTE] = pools
        pool: _compiled_programs.ProgramPool | None = pools.get(id(self))
        if pool is None:
            pool = _compiled_programs.ProgramPool(self, definition)
            pools[id(self)] = pool
        return pool

    def run(
        self,
        definition: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        *,
        offset_provider: Any,
    ) -> Any:
        self.pool(definition).call(args, dict(kwargs), offset_provider)

    def compile(self, definition: Any, **static_arguments: Any) -> None:
        """AOT, released-gt4py style: ``compile(offset_provider=..., n=[1, 2], ...)`` builds one
        variant per combination of static values (and per offset provider, given a list), from
        the declared parameter types; in the background when ``async_compilation`` is on."""
        offset_provider = static_arguments.pop("offset_provider", None)
        self.pool(definition).compile(offset_provider, static_arguments)

    def __reduce__(self) -> Any:
        return (_backend_by_name, (self._name,))


def _backend_by_name(name: str) -> Any:
    from .. import backends

    return getattr(backends, name)


__all__ = ["StepBackend"]

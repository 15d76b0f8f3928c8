"""A compiled backend assembled from steps: passes, a translation, a build, a loader.

``compiler(program_ir, table_dtypes) -> (entry point, stages)`` is the whole pipeline after
lowering; :class:`ProgramPool` (one per program and backend) calls it once per variant.
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
        pool = pools.get(id(self))
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

    def compile(self, definition: Any, **static_arguments: Any) -> Any:
        """AOT: ``compile(offset_provider=..., args=(example arguments...))``."""
        offset_provider = static_arguments.pop("offset_provider", None)
        args = static_arguments.pop("args", None)
        if args is None:
            raise TypeError(
                "compile() needs example arguments: .compile(args=(a, out, ...), "
                "offset_provider=...)"
            )
        if static_arguments:
            raise TypeError(f"compile() got unknown arguments {sorted(static_arguments)}")
        return self.pool(definition).compile(offset_provider, tuple(args))

    def __reduce__(self) -> Any:
        return (_backend_by_name, (self._name,))


def _backend_by_name(name: str) -> Any:
    from .. import backends

    return getattr(backends, name)


__all__ = ["StepBackend"]

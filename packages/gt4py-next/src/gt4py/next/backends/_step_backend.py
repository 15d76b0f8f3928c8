""":class:`StepBackend`: a compiled backend assembled from steps.

A :class:`StepBackend` is a :class:`~gt4py.next._backend.CompiledBackend` assembled from
steps: ``optimize`` (``ir → ir_optimized``) and ``compiler``, an
:class:`~._pipeline.ArtifactPipeline` (translation and build, picklable so that it can run in
a runner worker, then the load). Its ``STAGES`` are the whole pipeline,
``frontend → ir → ir_optimized → <the compiler's stages>``. :class:`~._compiled_programs.ProgramPool`
(one per program and backend) runs them once per variant.

A stock backend (``gtfn_cpu``, ``gtfn_gpu``, ``itir_python``, made by
:func:`~._compiled_backend.stock_backend`) is registered here with :func:`register_stock` and
pickles by name (unpickling gives the singleton back); every other backend pickles by value
(its config and steps), so a customized backend reaches a worker as itself.

(This module is below the concrete backends, which build :class:`StepBackend` objects;
``_compiled_backend`` is above them, since it makes the stock ones.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gt4py.infra import pipeline

from .. import ir
from .._backend import CompiledBackend, _NamedBackend
from ..ffront.decorator import COMPILED_POOLS_ATTRIBUTE as _POOLS_ATTRIBUTE
from . import _compiled_programs, _pipeline


class StepBackend(CompiledBackend, _NamedBackend):
    """A :class:`CompiledBackend` whose pipeline is ``optimize`` then ``compiler``."""

    __slots__ = ("_compiler", "config", "optimize")

    def __init__(
        self,
        name: str,
        *,
        config: Any,
        optimize: Callable[[ir.Program], ir.Program],
        compiler: _pipeline.ArtifactPipeline,
    ) -> None:
        if not isinstance(compiler, _pipeline.ArtifactPipeline):
            raise TypeError(f"compiler must be an ArtifactPipeline, got {compiler!r}")
        super().__init__(name)
        self.config = config
        self.optimize = optimize
        self._compiler = compiler

    @property
    def allocator(self) -> Any:
        return self._compiler.array_namespace()

    @property
    def compiler(self) -> _pipeline.ArtifactPipeline:
        return self._compiler

    @property
    def STAGES(self) -> tuple[pipeline.Stage, ...]:
        return (*_pipeline.CALLER_STAGES, *self._compiler.stages)

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

    def _parts(self) -> tuple[Any, ...]:
        return (self._name, self.config, self.optimize, self._compiler)

    def __eq__(self, other: object) -> bool:
        """Equal backends have the same name, config and steps (a copy of a customized
        backend equals it; its compiled variants are still per backend object)."""
        if not isinstance(other, StepBackend):
            return NotImplemented
        return self is other or self._parts() == other._parts()

    def __hash__(self) -> int:
        return hash((type(self), self._name, self.config))

    def __reduce__(self) -> Any:
        stock = _stock.get(self._name)
        if stock is not None and stock[0] is self:  # gtx.gtfn_cpu & co: the singleton back
            return (stock[1], (self._name,))
        return (_rebuild, self._parts())


def _rebuild(name: str, config: Any, optimize: Any, compiler: Any) -> StepBackend:
    return StepBackend(name, config=config, optimize=optimize, compiler=compiler)


# The stock backends made so far, by name, each with the function that gives it back by name.
_stock: dict[str, tuple[StepBackend, Callable[[str], StepBackend]]] = {}


def register_stock(backend: StepBackend, by_name: Callable[[str], StepBackend]) -> None:
    """Pickle ``backend`` by name from now on: unpickling calls ``by_name(backend.name)`` (a
    module-level function, so that pickle finds it by its qualified name)."""
    _stock[backend.name] = (backend, by_name)


__all__ = ["StepBackend", "register_stock"]

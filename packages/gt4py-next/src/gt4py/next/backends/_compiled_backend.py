"""The compiled backends of gt4py.next: :class:`StepBackend` and the stock ones by name.

A :class:`StepBackend` is a :class:`~gt4py.next._backend.CompiledBackend` assembled from
steps: ``optimize`` (``ir → ir_optimized``) and ``compiler``, an
:class:`~._pipeline.ArtifactPipeline` (translation and build, picklable so that it can run in
a runner worker, then the load). Its ``STAGES`` are the whole pipeline,
``frontend → ir → ir_optimized → <the compiler's stages>``. :class:`~._compiled_programs.ProgramPool`
(one per program and backend) runs them once per variant.

The stock backends (``gtfn_cpu``, ``gtfn_gpu``, ``itir_python``) are singletons made on first
access; they pickle by name (unpickling gives the singleton back), every other backend pickles
by value (its config and steps), so a customized backend reaches a worker as itself.

(The backend model lives in ``gt4py.next._backend``, below the frontend; this module is the
concrete compiled side, which needs the variant pool and so sits in the backends layer.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from gt4py.infra import pipeline

from .. import ir
from .._backend import CompiledBackend
from ..ffront.decorator import COMPILED_POOLS_ATTRIBUTE as _POOLS_ATTRIBUTE
from . import _compiled_programs, _pipeline


class StepBackend(CompiledBackend):
    """A :class:`CompiledBackend` whose pipeline is ``optimize`` then ``compiler``."""

    __slots__ = ("_compiler", "_name", "config", "optimize")

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
        self._name = name
        self.config = config
        self.optimize = optimize
        self._compiler = compiler

    @property
    def name(self) -> str:
        return self._name

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
        if _stock.get(self._name) is self:  # gtx.gtfn_cpu & co: the singleton on unpickling
            return (stock_backend, (self._name,))
        return (_rebuild, self._parts())


def _rebuild(name: str, config: Any, optimize: Any, compiler: Any) -> StepBackend:
    return StepBackend(name, config=config, optimize=optimize, compiler=compiler)


# -- the stock compiled backends ------------------------------------------------------------------


def _make_gtfn_cpu() -> StepBackend:
    from .gtfn import GTFNConfig, make_gtfn_backend

    return make_gtfn_backend(GTFNConfig(), name="gtfn_cpu")


def _make_gtfn_gpu() -> StepBackend:
    """CUDA (ADR 0019): built without cupy or a GPU (its programs then compile but do not run)."""
    from .gtfn import GTFNConfig, make_gtfn_backend

    return make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu")


def _make_itir_python() -> StepBackend:
    from .python_numpy import make_itir_python_backend

    return make_itir_python_backend()


_BUILDERS: dict[str, Callable[[], StepBackend]] = {
    "gtfn_cpu": _make_gtfn_cpu,
    "gtfn_gpu": _make_gtfn_gpu,
    "itir_python": _make_itir_python,
}
STOCK_NAMES = tuple(_BUILDERS)
_stock: dict[str, StepBackend] = {}
_lock = threading.Lock()


def stock_backend(name: str) -> StepBackend:
    """The stock compiled backend ``name`` (one object per process, made on first use)."""
    backend = _stock.get(name)
    if backend is None:
        with _lock:
            backend = _stock.get(name)
            if backend is None:
                backend = _stock[name] = _BUILDERS[name]()
    return backend


__all__ = ["STOCK_NAMES", "StepBackend", "stock_backend"]

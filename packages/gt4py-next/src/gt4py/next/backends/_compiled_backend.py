"""The compiled backends of gt4py.next: :class:`StepBackend` and the stock ones by name.

:class:`StepBackend` (defined in ``_step_backend``, below the concrete backends that build
it) is a :class:`~gt4py.next._backend.CompiledBackend` assembled from steps: ``optimize``
(``ir → ir_optimized``) and ``compiler``, an :class:`~._pipeline.ArtifactPipeline`.

The stock backends (``gtfn_cpu``, ``gtfn_gpu``, ``itir_python``) are singletons made on first
access; they pickle by name (unpickling gives the singleton back), every other backend pickles
by value (its config and steps), so a customized backend reaches a worker as itself.

(The backend model lives in ``gt4py.next._backend``, below the frontend; this module is the
concrete compiled side, which needs the variant pool and the concrete backends and so sits at
the top of the backends layer.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from . import _step_backend
from ._step_backend import StepBackend
from .gtfn import GTFNConfig, make_gtfn_backend
from .python_numpy import make_itir_python_backend


# -- the stock compiled backends ------------------------------------------------------------------


def _make_gtfn_cpu() -> StepBackend:
    return make_gtfn_backend(GTFNConfig(), name="gtfn_cpu")


def _make_gtfn_gpu() -> StepBackend:
    """CUDA (ADR 0019): built without cupy or a GPU (its programs then compile but do not run)."""
    return make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu")


def _make_itir_python() -> StepBackend:
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
                backend = _BUILDERS[name]()
                _step_backend.register_stock(backend, stock_backend)  # pickles by name
                _stock[name] = backend
    return backend


__all__ = ["STOCK_NAMES", "StepBackend", "stock_backend"]

"""Backends: ``Backend`` (abstract), ``EmbeddedBackend``, ``CompiledBackend`` (see ``_backend``).

``embedded_cupy`` and ``embedded_jax`` are created on first access (an ``AttributeError``
names the missing package).
"""

from typing import Any

from ._backend import (
    DEFAULT_BACKEND as DEFAULT_BACKEND,
    Backend as Backend,
    CompiledBackend as CompiledBackend,
    EmbeddedBackend as EmbeddedBackend,
    ExecutionMode as ExecutionMode,
    embedded_numpy as embedded_numpy,
    execution_mode as execution_mode,
    lazy_embedded_backend as _lazy_embedded_backend,
)


def __getattr__(name: str) -> Any:
    backend = _lazy_embedded_backend(name)
    if backend is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return backend


__all__ = [
    "DEFAULT_BACKEND",
    "Backend",
    "CompiledBackend",
    "EmbeddedBackend",
    "ExecutionMode",
    "embedded_numpy",
    "execution_mode",
]

"""Backends: ``Backend`` (abstract), ``EmbeddedBackend``, ``CompiledBackend`` (see ``_backend``).

``embedded_cupy`` and ``embedded_jax`` are created on first access (an ``AttributeError``
names the missing package).
"""

from . import _relocated
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


# Released gt4py's toolchain pieces of this module: no equivalent here (the frontend is global,
# compiled backends are built by plain functions, ADR 0012).
_NO_TRANSFORMS = _relocated.Gone(
    replacement="the compiled backends' builders (gt4py.next.backends.gtfn.make_gtfn_backend"
    "(config, passes=..., translation=...)); the frontend is the same for every backend",
    why="released gt4py's per-backend frontend transforms and toolchain config are not "
    "provided here",
)

__getattr__ = _relocated.module_getattr(
    __name__,
    dict.fromkeys(
        (
            "Transforms",
            "DEFAULT_TRANSFORMS",
            "DEFAULT_PROG_TRANSFORMS",
            "DEFAULT_FIELDOP_TRANSFORMS",
            "ToolchainConfig",
            "jit_to_aot_args",
            "adapted_jit_to_aot_args_factory",
        ),
        _NO_TRANSFORMS,
    ),
    lazy=_lazy_embedded_backend,
)


__all__ = [
    "DEFAULT_BACKEND",
    "Backend",
    "CompiledBackend",
    "EmbeddedBackend",
    "ExecutionMode",
    "embedded_numpy",
    "execution_mode",
]

"""Compiled backends of gt4py.next: ``gtfn_cpu`` (C++), ``gtfn_gpu`` (CUDA) and ``itir_python`` (generated numpy).

Both are created on first attribute access, so importing this package builds nothing.
"""

from __future__ import annotations

from typing import Any

from . import _settings as _settings  # registers async_compilation, enable_jit, metrics


_BUILDERS = {
    "gtfn_cpu": "_make_gtfn_cpu",
    "gtfn_gpu": "_make_gtfn_gpu",
    "itir_python": "_make_itir_python",
}
_made: dict[str, Any] = {}


def _make_gtfn_cpu() -> Any:
    from .gtfn import GTFNConfig, make_gtfn_backend

    return make_gtfn_backend(GTFNConfig(), name="gtfn_cpu")


def _make_gtfn_gpu() -> Any:
    """CUDA (ADR 0019): built without cupy or a GPU (its programs then compile but do not run)."""
    from .gtfn import GTFNConfig, make_gtfn_backend

    return make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu")


def _make_itir_python() -> Any:
    from .python_numpy import make_itir_python_backend

    return make_itir_python_backend()


def __getattr__(name: str) -> Any:
    if name in _BUILDERS:
        if name not in _made:
            _made[name] = globals()[_BUILDERS[name]]()
        return _made[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["gtfn_cpu", "gtfn_gpu", "itir_python"]

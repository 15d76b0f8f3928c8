"""Compiled backends of gt4py.next: ``gtfn_cpu`` (C++), ``gtfn_gpu`` (CUDA) and ``itir_python`` (generated numpy).

Each is created on first attribute access, so importing this package builds nothing. Their
pipelines are declared: ``gt4py.infra.pipeline.describe(gtx.gtfn_cpu.STAGES)``.
"""

from __future__ import annotations

from typing import Any

from . import _settings as _settings  # registers async_compilation, enable_jit, metrics


def __getattr__(name: str) -> Any:
    if name in __all__:
        from ._compiled_backend import stock_backend  # not at import: it brings the IR

        return stock_backend(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:  # the lazy backends too, so that a typo gets "Did you mean"
    return sorted({*globals(), *__all__})


__all__ = ["gtfn_cpu", "gtfn_gpu", "itir_python"]

"""gt4py.cartesian."""

import importlib
from typing import Any

from ._version import __version__ as __version__


#: Submodules reachable as attributes of the package after ``import gt4py.cartesian``, as in
#: released gt4py (NDSL does ``import gt4py`` and then ``gt4py.cartesian.backend.from_name``);
#: imported on first access, so that importing gt4py.cartesian stays cheap and does not import
#: ``config`` before NDSL sets the literal precisions.
_SUBMODULES = frozenset(
    {"backend", "config", "definitions", "gtc", "gtscript", "stencil_object", "utils"}
)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["__version__"]

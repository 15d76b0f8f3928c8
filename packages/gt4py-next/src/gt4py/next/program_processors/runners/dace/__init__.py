"""Released gt4py's dace backends by their old path: importable, but there is no dace backend.

The module and its ``transformations`` import (icon4py imports both at the top); using any of
their names (``make_dace_backend``, ``run_dace_cpu``, ...) raises an ``AttributeError`` that
names the backends that exist.
"""

from __future__ import annotations

from .... import _relocated
from . import transformations as transformations


_NO_DACE = _relocated.Gone(
    replacement="gtx.gtfn_cpu / gtx.gtfn_gpu (compiled C++/CUDA) or gtx.embedded_numpy",
    why="this gt4py.next has no dace backend yet",
)

__getattr__ = _relocated.module_getattr(__name__, {}, otherwise=_NO_DACE)

__all__ = ["transformations"]

"""Released gt4py's DaCe SDFG transformations by their old path: importable, but not provided.

This gt4py.next has no dace backend, so there are no SDFGs to transform. The module imports
(code that imports it at the top, like icon4py's ``model_options``, keeps working); using any of
its names (``GT4PyAutoOptHook``, ``RemoveAccessNodeCopies``, ...) raises an ``AttributeError``
that says so.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(
        f"{__name__}.{name}: this gt4py.next provides no dace backends, so there are no DaCe "
        "transformations; use gtx.gtfn_cpu / gtx.gtfn_gpu (compiled C++/CUDA) or "
        "gtx.embedded_numpy"
    )

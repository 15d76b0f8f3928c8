"""Earlier released gt4py.cartesian's ``gtc.dace.nodes``: the library node class frameworks
look for.

The DaCe backends of the gt4py releases NDSL 2024.03.01 was written against put each stencil
into an SDFG as a ``StencilComputation`` library node and expanded it later; NDSL 2024's
orchestration walks a program's SDFG for such nodes to change the schedule of some. Released
1.2.3 no longer has this module, so NDSL 2024's orchestration stops there on it
(``ModuleNotFoundError``; checked 2026-12-07 with pyFV3's ``fillz``). This gt4py builds every stencil's SDFG already expanded (maps and
C++ tasklets, ADR 0041), so its SDFGs hold no such node: the class is here so that code
looking for one runs, and finds none.
"""

from __future__ import annotations

from typing import Any


class StencilComputation:
    """Released's stencil library node; never part of an SDFG this gt4py builds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "gt4py.cartesian's DaCe backends build expanded SDFGs (maps and C++ tasklets, "
            "ADR 0041): there is no StencilComputation library node to create"
        )

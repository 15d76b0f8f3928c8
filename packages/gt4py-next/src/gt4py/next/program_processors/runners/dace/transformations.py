"""Released gt4py's DaCe SDFG transformations by their old path: importable, but not provided.

This gt4py.next has no dace backend, so there are no SDFGs to transform. The module imports
(code that imports it at the top, like icon4py's ``model_options``, keeps working); using any of
its names (``GT4PyAutoOptHook``, ``RemoveAccessNodeCopies``, ...) raises an ``AttributeError``
that says so.
"""

from __future__ import annotations

from .... import _relocated


__getattr__ = _relocated.module_getattr(
    __name__,
    {},
    otherwise=_relocated.Gone(
        replacement="gtx.gtfn_cpu / gtx.gtfn_gpu (compiled C++/CUDA) or gtx.embedded_numpy",
        why="this gt4py.next provides no dace backends, so there are no DaCe transformations",
    ),
)

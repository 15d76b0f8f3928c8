"""Released gt4py's ``double_roundtrip.backend`` by its old path: not provided.

It ran released gt4py's roundtrip twice (for testing the iterator IR); using it raises an
``AttributeError`` that names ``gtx.itir_python``.
"""

from __future__ import annotations

from ... import _relocated


__getattr__ = _relocated.module_getattr(
    __name__,
    {},
    otherwise=_relocated.Gone(
        replacement="gtx.itir_python (generated numpy code from the IR)",
        why="released gt4py's double roundtrip through the iterator IR is not provided here",
    ),
)

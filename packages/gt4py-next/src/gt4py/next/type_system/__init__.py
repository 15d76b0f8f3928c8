"""Released gt4py's ``gt4py.next.type_system`` by its old path: importable, its names are not.

Released gt4py described types with ``ScalarKind`` / ``ScalarType(kind=...)``; this gt4py.next
uses numpy's scalar types (``gtx.float64``, ``gtx.int32``, ...) and keeps the frontend's type
specifications private. ``type_specifications`` imports (icon4py's py2fgen imports it at the
top); using its names raises an ``AttributeError`` that says what to use.
"""

from __future__ import annotations

from .. import _relocated


# What to use instead of released gt4py's type descriptions (also in ``type_specifications``).
_NO_TYPE_SYSTEM = _relocated.Gone(
    replacement="numpy's scalar types as gt4py.next exports them (gtx.bool, gtx.int32, "
    "gtx.int64, gtx.float32, gtx.float64, ...) and gtx.Field[gtx.Dims[...], dtype] annotations",
    why="released gt4py's type system (ScalarKind, ScalarType(kind=...), type_info, "
    "type_translation) is not provided here",
)

__getattr__ = _relocated.module_getattr(__name__, {}, otherwise=_NO_TYPE_SYSTEM)

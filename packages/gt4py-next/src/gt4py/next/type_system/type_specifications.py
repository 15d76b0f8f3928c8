"""Released gt4py's ``type_system.type_specifications`` by its old path: importable only.

``ScalarKind``, ``ScalarType``, ``FieldType``, ... raise an ``AttributeError`` naming numpy's
scalar types (``gtx.float64``, ``gtx.int32``, ...), which describe scalars here.
"""

from __future__ import annotations

from .. import _relocated
from . import _NO_TYPE_SYSTEM


__getattr__ = _relocated.module_getattr(__name__, {}, otherwise=_NO_TYPE_SYSTEM)

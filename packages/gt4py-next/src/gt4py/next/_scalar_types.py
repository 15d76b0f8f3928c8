"""The DSL's scalar types: ``gtx.float64``, ``gtx.int32``, ``gtx.bool``, ...

They are numpy's scalar types themselves (``gtx.float64 is numpy.float64``) and Python's
``bool`` for ``gtx.bool``, as in released gt4py: models subclass them (``class C(gtx.float64,
enum.Enum)``), pass them to numpy (``np.dtype(gtx.int32)``) and test values with
``isinstance``. ``gtx.float32(2.5)`` converts scalars; a field is cast with
``astype(field, gtx.float32)`` (ADR 0015).
"""

from __future__ import annotations

import numpy as np

from gt4py.infra.definitions import SCALAR_TYPES as _DSL_SCALAR_TYPES


float32 = np.float32
float64 = np.float64
int8 = np.int8
int16 = np.int16
int32 = np.int32
int64 = np.int64
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
uint64 = np.uint64
bool_ = bool

#: The Python types of the DSLs' scalars: ``bool`` and numpy's bool, then numpy's type of each
#: further scalar type of ``gt4py.infra.definitions.SCALAR_TYPES``, in its order.
SCALAR_TYPES: tuple[type, ...] = (
    bool_,
    np.bool_,
    *(dtype.type for name, dtype in _DSL_SCALAR_TYPES.items() if name != "bool"),
)

"""Released gt4py's ``gt4py._core.definitions``: the scalar and device names user code imports.

The names live in :mod:`gt4py.infra.definitions`; this module keeps the old import path working
(``import gt4py._core.definitions as core_defs``; ``Field[Dims[DimsT], core_defs.ScalarT]``).
"""

from gt4py.infra.definitions import (
    Device as Device,
    DeviceType as DeviceType,
    Scalar as Scalar,
    ScalarT as ScalarT,
    is_scalar_type as is_scalar_type,
)


__all__ = ["Device", "DeviceType", "Scalar", "ScalarT", "is_scalar_type"]

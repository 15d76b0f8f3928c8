"""The shared vocabulary of devices and scalar kinds used by storage, next and cartesian.

Only the stdlib and numpy are needed here; nothing GPU-related is imported.
"""

from __future__ import annotations

import enum
from typing import Any, Final, NamedTuple

import numpy as np


class DeviceType(enum.IntEnum):
    """Kinds of memory a buffer can live in; values follow DLPack's ``DLDeviceType``."""

    CPU = 1
    CUDA = 2
    CPU_PINNED = 3
    ROCM = 10
    CUDA_MANAGED = 13

    @property
    def is_gpu(self) -> bool:
        return self in _GPU_DEVICES


_GPU_DEVICES: Final = frozenset({DeviceType.CUDA, DeviceType.ROCM, DeviceType.CUDA_MANAGED})


class Device(NamedTuple):
    """A concrete device: its type and its ordinal (``Device(DeviceType.CUDA, 1)`` is GPU 1)."""

    device_type: DeviceType
    device_id: int = 0

    def __repr__(self) -> str:
        return f"Device({self.device_type.name}, {self.device_id})"


CPU_DEVICE: Final = Device(DeviceType.CPU, 0)


class ScalarKind(enum.Enum):
    """The families of scalars the DSLs know, independent of bit width."""

    BOOL = "bool"
    INT = "int"
    UINT = "uint"
    FLOAT = "float"

    @classmethod
    def of(cls, dtype: np.dtype[Any] | type | str) -> ScalarKind:
        """The kind of a numpy-compatible dtype; a clear error for anything else."""
        try:
            dt = np.dtype(dtype)
        except TypeError as error:
            raise TypeError(f"{dtype!r} is not a numpy-compatible scalar type") from error
        kind = _NUMPY_KIND_TO_SCALAR_KIND.get(dt.kind)
        if kind is None or dt.shape or dt.fields is not None:
            raise TypeError(
                f"dtype {dt} is not a supported scalar type "
                "(supported: bool, int8..int64, uint8..uint64, float32, float64)"
            )
        return kind


_NUMPY_KIND_TO_SCALAR_KIND: Final = {
    "b": ScalarKind.BOOL,
    "i": ScalarKind.INT,
    "u": ScalarKind.UINT,
    "f": ScalarKind.FLOAT,
}

#: Every scalar type the DSLs accept, by name.
SCALAR_TYPES: Final[dict[str, np.dtype[Any]]] = {
    name: np.dtype(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
    )
}


def is_supported_scalar(dtype: object) -> bool:
    """Whether ``dtype`` names one of :data:`SCALAR_TYPES`."""
    try:
        return np.dtype(dtype) in SCALAR_TYPES.values()  # type: ignore[call-overload]
    except TypeError:
        return False


__all__ = [
    "CPU_DEVICE",
    "SCALAR_TYPES",
    "Device",
    "DeviceType",
    "ScalarKind",
    "is_supported_scalar",
]

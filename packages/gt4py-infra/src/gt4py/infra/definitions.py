"""The shared vocabulary of devices and scalar kinds used by storage, next and cartesian.

Only the stdlib and numpy are needed here; nothing GPU-related is imported.
"""

from __future__ import annotations

import enum
from typing import Any, Final, NamedTuple, TypeAlias, TypeGuard, TypeVar

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


#: A scalar value of the DSLs: a Python ``bool``/``int``/``float`` or a numpy scalar of
#: :data:`SCALAR_TYPES`.
Scalar: TypeAlias = (
    bool
    | np.bool_
    | int
    | np.int8
    | np.int16
    | np.int32
    | np.int64
    | np.uint8
    | np.uint16
    | np.uint32
    | np.uint64
    | float
    | np.float32
    | np.float64
)

#: A type variable over :data:`Scalar` (``Field[Dims[Cell], ScalarT]``).
ScalarT = TypeVar("ScalarT", bound=Scalar)

_SCALAR_CLASSES: Final[tuple[type, ...]] = (
    bool,
    int,
    float,
    *(dtype.type for dtype in SCALAR_TYPES.values()),
)


def is_scalar_type(value: object) -> TypeGuard[Scalar]:
    """Whether ``value`` is a :data:`Scalar` (a value, not a type: ``is_scalar_type(1.0)``)."""
    return isinstance(value, _SCALAR_CLASSES)


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
    "Scalar",
    "ScalarKind",
    "ScalarT",
    "is_scalar_type",
    "is_supported_scalar",
]

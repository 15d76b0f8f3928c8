"""Raw memory on a device: CPU memory through numpy, GPU memory through cupy.

cupy is imported inside the functions that need it, never when ``gt4py.storage`` is imported.
"""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any

import numpy as np

from gt4py.infra.definitions import CPU_DEVICE, Device, DeviceType


#: Device types the allocator can place buffers on.
SUPPORTED_DEVICE_TYPES: tuple[DeviceType, ...] = (DeviceType.CPU, DeviceType.CUDA, DeviceType.ROCM)

_GPU_EXTRAS_HINT = "install one of the extras gt4py-storage[cuda12], [cuda13] or [rocm]"


def import_cupy() -> ModuleType:
    """The cupy module, or an ImportError that says how to get it."""
    try:
        import cupy  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        raise ImportError(
            f"GPU storages need cupy, which is not installed: {_GPU_EXTRAS_HINT}"
        ) from error
    module: ModuleType = cupy
    return module


class NoGPUError(RuntimeError):
    """A GPU backend was asked to build or run on a machine where cupy finds no usable GPU."""


#: Set once a device was found: the check costs a CUDA runtime call only until then.
_gpu_found: list[bool] = []


def require_gpu(what: str, install_hint: str) -> ModuleType:
    """cupy, once it has found a usable GPU; otherwise an error that names the problem.

    For the GPU backends, before they build anything: no cupy is an ``ImportError`` ending in
    ``install_hint``; cupy without a driver or a device is a :class:`NoGPUError` with cupy's
    own words (``cudaErrorNoDevice``, ``cudaErrorInsufficientDriver``, ...). ``what`` names
    the backend in both.
    """
    try:
        import cupy  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        raise ImportError(f"{what} needs cupy, which is not installed: {install_hint}") from error
    if not _gpu_found:
        try:
            count = int(cupy.cuda.runtime.getDeviceCount())
        except Exception as error:  # cupy's CUDARuntimeError (no driver, no device, ...)
            raise NoGPUError(
                f"{what} needs a GPU, and cupy found none on this machine: {error} "
                f"({type(error).__name__})"
            ) from error
        if count == 0:
            raise NoGPUError(f"{what} needs a GPU, and cupy found none on this machine")
        _gpu_found.append(True)
    module: ModuleType = cupy
    return module


def gpu_device_type() -> DeviceType:
    """The kind of GPU the installed cupy drives: ROCm for a HIP build, CUDA otherwise."""
    cupy = import_cupy()
    return DeviceType.ROCM if getattr(cupy.cuda.runtime, "is_hip", False) else DeviceType.CUDA


def current_gpu_device() -> Device:
    """The GPU cupy currently allocates on (``cupy.cuda.Device()``; each MPI rank may pick its own)."""
    cupy = import_cupy()
    device_id = _checked_gpu_id(cupy, None)
    return Device(gpu_device_type(), device_id)


def as_device(device: Device | DeviceType) -> Device:
    """Normalize a device or a bare device type (meaning device 0) and check it is supported."""
    if isinstance(device, DeviceType):
        device = Device(device, 0)
    if not isinstance(device, Device):
        raise TypeError(
            f"device must be a gt4py.infra.definitions.Device or DeviceType, not {device!r}"
        )
    device_type = DeviceType(device.device_type)
    if device_type not in SUPPORTED_DEVICE_TYPES:
        supported = ", ".join(kind.name for kind in SUPPORTED_DEVICE_TYPES)
        raise ValueError(
            f"cannot allocate on {device_type.name} memory; supported device types: {supported}"
        )
    device_id = operator.index(device.device_id)
    if device_id < 0:
        raise ValueError(f"device id must not be negative, got {device_id}")
    if device_type is DeviceType.CPU and device_id != 0:
        raise ValueError(f"there is only one CPU device (id 0), got id {device_id}")
    return Device(device_type, device_id)


def _checked_gpu_id(cupy: ModuleType, device_id: int | None) -> int:
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
        if device_id is None:
            device_id = int(cupy.cuda.Device().id)
    except Exception as error:  # cupy raises its own runtime error types
        raise RuntimeError(f"cupy is installed but found no usable GPU: {error}") from error
    if count == 0:
        raise RuntimeError("cupy is installed but found no GPU")
    if device_id >= count:
        raise ValueError(f"GPU {device_id} does not exist; this machine has {count} GPU(s)")
    return device_id


def allocate_bytes(nbytes: int, device: Device) -> tuple[Any, int]:
    """A one-dimensional uint8 array of ``nbytes`` bytes on ``device`` and its start address."""
    if device == CPU_DEVICE:
        raw = np.empty(nbytes, dtype=np.uint8)
        return raw, int(raw.__array_interface__["data"][0])
    cupy = import_cupy()
    available = gpu_device_type()
    if device.device_type != available:
        raise ValueError(
            f"cannot allocate on {device}: the installed cupy drives {available.name} devices"
        )
    device_id = _checked_gpu_id(cupy, device.device_id)
    with cupy.cuda.Device(device_id):
        raw = cupy.empty(nbytes, dtype=cupy.uint8)
    return raw, int(raw.data.ptr)

"""Reading source data for ``from_array`` through whichever array protocol it offers.

Accepted: numpy and cupy arrays, objects with ``__array_interface__``, ``__array__``,
``__cuda_array_interface__`` or ``__dlpack__``, and nested sequences of numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gt4py.infra.definitions import DeviceType

from ._devices import import_cupy


def _dlpack_device_type(data: Any) -> DeviceType | None:
    probe = getattr(data, "__dlpack_device__", None)
    if probe is None:
        return None
    code = int(probe()[0])
    try:
        return DeviceType(code)
    except ValueError:
        raise TypeError(
            f"cannot read {type(data).__name__}: its DLPack device type {code} is not one of "
            f"{', '.join(kind.name for kind in DeviceType)}"
        ) from None


def is_on_gpu(data: Any) -> bool:
    """Whether ``data`` lives in GPU memory (by the protocols it offers)."""
    if hasattr(data, "__cuda_array_interface__"):
        return True
    device_type = _dlpack_device_type(data)
    return device_type is not None and device_type.is_gpu


def _numbers_as_numpy(data: Any) -> npt.NDArray[Any]:
    try:
        array: npt.NDArray[Any] = np.asarray(data)
    except ValueError as error:  # ragged nesting
        raise TypeError(
            f"cannot read a {type(data).__name__} as an array of numbers: {error}"
        ) from error
    if array.dtype.kind == "O":
        raise TypeError(
            f"cannot read a {type(data).__name__} as an array of numbers: numpy sees "
            "Python objects (ragged nesting or non-numeric entries?)"
        )
    return array


def as_host_array(data: Any) -> npt.NDArray[Any]:
    """``data`` as a numpy array, copied from the GPU if it lives there."""
    if isinstance(data, np.ndarray):
        return data
    if is_on_gpu(data):
        cupy = import_cupy()
        return cupy.asnumpy(as_gpu_array(data))  # type: ignore[no-any-return]
    if (
        hasattr(data, "__array_interface__")
        or hasattr(data, "__array_struct__")
        or hasattr(data, "__array__")
    ):
        return _numbers_as_numpy(data)
    if hasattr(data, "__dlpack__"):
        return np.from_dlpack(data)
    return _numbers_as_numpy(data)


def as_gpu_array(data: Any) -> Any:
    """``data`` as a cupy array on the current GPU, copied from the host if it lives there."""
    cupy = import_cupy()
    if isinstance(data, cupy.ndarray):
        return data
    if hasattr(data, "__cuda_array_interface__"):
        return cupy.asarray(data)
    if hasattr(data, "__dlpack__") and is_on_gpu(data):
        return cupy.from_dlpack(data)
    return cupy.asarray(as_host_array(data))

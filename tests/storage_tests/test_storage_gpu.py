"""GPU storages through cupy; every test here is skipped where cupy or a GPU is missing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gt4py import storage
from gt4py.infra.definitions import Device, DeviceType
from gt4py.storage import allocate, strides_follow_layout_map


pytestmark = pytest.mark.requires_gpu


@pytest.fixture
def cupy() -> Any:
    import cupy

    return cupy


def _gpu_type(cupy: Any) -> DeviceType:
    return DeviceType.ROCM if getattr(cupy.cuda.runtime, "is_hip", False) else DeviceType.CUDA


def test_allocate_on_the_gpu(cupy: Any) -> None:
    device = Device(_gpu_type(cupy), 0)
    buffer = allocate(
        (5, 6, 7),
        np.float64,
        layout_map=(2, 1, 0),
        byte_alignment=256,
        aligned_index=(2, 1, 1),
        device=device,
    )
    assert isinstance(buffer.ndarray, cupy.ndarray)
    assert buffer.device == device
    assert buffer.ndarray.strides == buffer.strides
    assert strides_follow_layout_map(buffer.ndarray.strides, (2, 1, 0))
    element = buffer.ndarray[2, 1, 1, ...]
    assert element.data.ptr % 256 == 0
    assert element.data.ptr == buffer.aligned_address
    interface = buffer.__cuda_array_interface__
    assert interface["shape"] == (5, 6, 7)
    assert interface["data"][0] == buffer.data_address
    assert buffer.__dlpack_device__() == (device.device_type, 0)
    with pytest.raises(TypeError, match="__array_interface__ is not available"):
        _ = buffer.__array_interface__


def test_gpu_backends_give_cupy_arrays_with_their_layout(cupy: Any, gpu_backend: str) -> None:
    entry = storage.backend_layout(gpu_backend)
    array = storage.zeros((6, 7, 5), np.float32, backend=gpu_backend, aligned_index=(3, 2, 1))
    assert isinstance(array, cupy.ndarray)
    assert strides_follow_layout_map(array.strides, entry.layout_map(("I", "J", "K")))
    assert array[3, 2, 1, ...].data.ptr % (entry.alignment * 4) == 0
    assert int(cupy.count_nonzero(array)) == 0


def test_gpu_from_array_round_trips(cupy: Any, gpu_backend: str) -> None:
    data = np.random.default_rng(0).standard_normal((4, 5, 6))
    from_host = storage.from_array(data, backend=gpu_backend, aligned_index=(1, 1, 1))
    np.testing.assert_array_equal(cupy.asnumpy(from_host), data)
    from_device = storage.from_array(cupy.asarray(data), backend=gpu_backend)
    np.testing.assert_array_equal(cupy.asnumpy(from_device), data)
    # DLPack and the CUDA array interface hand the same memory on
    through_dlpack = cupy.from_dlpack(from_host)
    assert through_dlpack.data.ptr == from_host.data.ptr
    # a GPU storage read into a CPU backend is copied back to the host
    on_host = storage.from_array(from_host, backend="gt:cpu_ifirst")
    np.testing.assert_array_equal(on_host, data)


def test_gpu_storage_with_data_dimensions(cupy: Any) -> None:
    array = storage.ones((4, 5, 6), (np.float64, (3,)), backend="gt:gpu")
    assert array.shape == (4, 5, 6, 3)
    entry = storage.backend_layout("gt:gpu")
    assert strides_follow_layout_map(array.strides, entry.layout_map(("I", "J", "K", "0")))
    assert float(array.sum()) == 4 * 5 * 6 * 3

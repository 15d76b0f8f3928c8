"""The allocator core: layout, padding, alignment, devices and array protocols of TensorBuffer."""

from __future__ import annotations

import gc
import importlib.util
import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings, strategies as st

from gt4py.infra.definitions import CPU_DEVICE, SCALAR_TYPES, Device, DeviceType
from gt4py.storage import TensorBuffer, allocate, strides_follow_layout_map


HAS_CUPY = importlib.util.find_spec("cupy") is not None


def _address(array: npt.NDArray[Any]) -> int:
    return int(array.__array_interface__["data"][0])


def _element_address(array: Any, index: tuple[int, ...]) -> int:
    return _address(array[(*index, ...)])


@pytest.mark.parametrize("layout_map", list(itertools.permutations(range(3))))
def test_strides_follow_layout_map(layout_map: tuple[int, ...]) -> None:
    buffer = allocate((3, 4, 5), np.float64, layout_map=layout_map)
    strides = buffer.ndarray.strides
    assert strides == buffer.strides
    # The dimension with the highest layout value is contiguous, the others nest outwards.
    contiguous = layout_map.index(2)
    middle = layout_map.index(1)
    outer = layout_map.index(0)
    assert strides[contiguous] == 8
    assert strides[middle] == 8 * buffer.shape[contiguous]
    assert strides[outer] == strides[middle] * buffer.shape[middle]
    assert strides_follow_layout_map(strides, layout_map)


def test_layout_map_may_hold_numpy_integers() -> None:
    buffer = allocate((2, 3, 4), np.float64, layout_map=np.array([2, 0, 1]))
    assert buffer.layout_map == (2, 0, 1)
    assert all(type(entry) is int for entry in buffer.layout_map)
    assert buffer.strides == (8, 4 * 2 * 8, 2 * 8)


def test_default_layout_is_c_order() -> None:
    buffer = allocate((2, 3, 4), np.int32)
    assert buffer.layout_map == (0, 1, 2)
    assert buffer.ndarray.flags.c_contiguous
    assert buffer.ndarray.strides == np.empty((2, 3, 4), np.int32).strides


def test_contiguous_dimension_is_padded_to_alignment_blocks() -> None:
    # 64 bytes hold 16 float32: the contiguous extent 5 is padded to 16.
    buffer = allocate((7, 5), np.float32, layout_map=(0, 1), byte_alignment=64)
    assert buffer.strides == (16 * 4, 4)
    # Fortran-like order pads the first dimension instead.
    buffer = allocate((7, 5), np.float32, layout_map=(1, 0), byte_alignment=64)
    assert buffer.strides == (4, 16 * 4)


@pytest.mark.parametrize("dtype", list(SCALAR_TYPES.values()), ids=str)
@pytest.mark.parametrize("byte_alignment", [1, 8, 64, 256])
def test_aligned_index_lands_on_the_boundary(dtype: np.dtype[Any], byte_alignment: int) -> None:
    index = (2, 3, 1)
    buffer = allocate(
        (5, 7, 3),
        dtype,
        layout_map=(2, 0, 1),
        byte_alignment=byte_alignment,
        aligned_index=index,
    )
    address = _element_address(buffer.ndarray, index)
    assert address % byte_alignment == 0
    assert address == buffer.aligned_address
    assert buffer.data_address == _address(buffer.ndarray)
    # Dimension 0 is contiguous: at its aligned index 2, every line along it is aligned.
    for j, k in itertools.product(range(7), range(3)):
        assert _element_address(buffer.ndarray, (2, j, k)) % byte_alignment == 0


def test_elements_are_never_placed_below_their_natural_alignment() -> None:
    for _ in range(20):
        buffer = allocate((3, 3), np.float64, byte_alignment=1)
        assert buffer.data_address % 8 == 0
        assert buffer.ndarray.flags.aligned


def test_buffer_fields_describe_the_view() -> None:
    buffer = allocate((4, 6), np.int16, layout_map=(1, 0), byte_alignment=32, aligned_index=(1, 2))
    assert isinstance(buffer, TensorBuffer)
    assert buffer.shape == buffer.ndarray.shape == (4, 6)
    assert buffer.dtype == buffer.ndarray.dtype == np.int16
    assert buffer.ndim == 2
    assert buffer.device == CPU_DEVICE
    assert buffer.aligned_index == (1, 2)
    assert buffer.byte_alignment == 32
    assert buffer.memory_address == _address(buffer.buffer)
    assert 0 <= buffer.byte_offset < 32
    assert buffer.buffer.dtype == np.uint8
    assert np.shares_memory(buffer.buffer, buffer.ndarray)
    assert "shape=(4, 6)" in repr(buffer)


def test_view_keeps_the_allocation_alive() -> None:
    view = allocate((100, 100), np.float64).ndarray
    gc.collect()
    view[...] = 3.0
    assert float(view.sum()) == 3.0 * 100 * 100


@pytest.mark.parametrize("shape", [(), (0,), (4, 0, 3), (0, 0)])
def test_degenerate_shapes(shape: tuple[int, ...]) -> None:
    buffer = allocate(shape, np.float64, byte_alignment=64)
    assert buffer.ndarray.shape == shape
    assert buffer.ndarray.size == int(np.prod(shape))
    if shape == ():
        buffer.ndarray[()] = 2.5
        assert buffer.ndarray[()] == 2.5
        assert buffer.data_address % 64 == 0


@settings(max_examples=60, deadline=None, database=None)
@given(data=st.data())
def test_layout_and_alignment_invariants(data: st.DataObject) -> None:
    ndim = data.draw(st.integers(1, 4), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=ndim, max_size=ndim)))
    layout_map = tuple(data.draw(st.permutations(range(ndim))))
    dtype = data.draw(st.sampled_from(list(SCALAR_TYPES.values())))
    byte_alignment = data.draw(st.sampled_from([1, 2, 4, 16, 64, 128]))
    index = tuple(data.draw(st.integers(0, extent - 1)) for extent in shape)
    buffer = allocate(
        shape, dtype, layout_map=layout_map, byte_alignment=byte_alignment, aligned_index=index
    )
    array = buffer.ndarray
    assert array.shape == shape
    assert strides_follow_layout_map(array.strides, layout_map)
    assert _element_address(array, index) % byte_alignment == 0
    # Writing every element through the view must stay inside the allocation and keep values.
    values = np.arange(array.size).reshape(shape).astype(dtype)
    array[...] = values
    np.testing.assert_array_equal(array, values)
    start, stop = _address(buffer.buffer), _address(buffer.buffer) + buffer.buffer.nbytes
    last = tuple(extent - 1 for extent in shape)
    assert start <= _address(array) and _element_address(array, last) + dtype.itemsize <= stop


# -- array protocols ---------------------------------------------------------------------------


def test_array_interface_and_asarray_share_memory() -> None:
    buffer = allocate((3, 4), np.float32, layout_map=(1, 0), byte_alignment=16)
    buffer.ndarray[...] = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert buffer.__array_interface__ == buffer.ndarray.__array_interface__
    through_interface = np.asarray(buffer)
    assert np.shares_memory(through_interface, buffer.ndarray)
    np.testing.assert_array_equal(through_interface, buffer.ndarray)
    copied = buffer.__array__(copy=True)
    assert not np.shares_memory(copied, buffer.ndarray)
    assert buffer.__array__(np.float64).dtype == np.float64


def test_dlpack_round_trip_shares_memory() -> None:
    buffer = allocate((3, 5), np.int64, layout_map=(1, 0), byte_alignment=64, aligned_index=(1, 1))
    buffer.ndarray[...] = np.arange(15).reshape(3, 5)
    assert buffer.__dlpack_device__() == (DeviceType.CPU, 0)
    imported = np.from_dlpack(buffer)
    assert imported.strides == buffer.strides
    assert np.shares_memory(imported, buffer.ndarray)
    np.testing.assert_array_equal(imported, np.arange(15).reshape(3, 5))


def test_cuda_array_interface_is_refused_on_cpu() -> None:
    buffer = allocate((2,), np.float64)
    with pytest.raises(TypeError, match=r"__cuda_array_interface__ is not available.*CPU"):
        _ = buffer.__cuda_array_interface__


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"layout_map": (0, 0, 1)}, ValueError, r"layout_map \(0, 0, 1\) is not a permutation"),
        ({"layout_map": (0, 1)}, ValueError, "is not a permutation of 0..2"),
        ({"layout_map": (1, 2, 3)}, ValueError, "is not a permutation"),
        ({"byte_alignment": 0}, ValueError, "positive power of two"),
        ({"byte_alignment": 24}, ValueError, "positive power of two"),
        ({"aligned_index": (0, 0)}, ValueError, "has 2 entries but the shape"),
        ({"aligned_index": (0, 0, 0, 0)}, ValueError, "has 4 entries but the shape"),
        ({"aligned_index": (0, -1, 0)}, ValueError, "negative entry"),
        ({"aligned_index": (0, 4, 0)}, ValueError, "lies outside the shape"),
        ({"aligned_index": (0, 1.5, 0)}, TypeError, "sequence of integers"),
        ({"aligned_index": 3}, TypeError, "sequence of integers"),
        ({"device": Device(DeviceType.CPU, 1)}, ValueError, "only one CPU device"),
        ({"device": DeviceType.CPU_PINNED}, ValueError, "cannot allocate on CPU_PINNED"),
        ({"device": "cpu"}, TypeError, "device must be"),
    ],
)
def test_bad_arguments_are_refused(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        allocate((2, 3, 4), np.float64, **kwargs)


@pytest.mark.parametrize(
    ("shape", "error", "message"),
    [
        ((2, -1), ValueError, "negative extent"),
        ((2.0, 3), TypeError, "sequence of non-negative integers"),
        ("23", TypeError, "sequence of non-negative integers"),
        (5, TypeError, "sequence of non-negative integers"),
        ((True, 2), TypeError, "sequence of non-negative integers"),
    ],
)
def test_bad_shapes_are_refused(shape: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        allocate(shape, np.float64)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dtype", "message"),
    [
        (object, "Python objects"),
        (str, "string type"),
        (np.dtype([("u", np.float64), ("v", np.float64)]), "structured"),
        (np.complex128, "complex"),
        (np.dtype(">f8"), "byte order"),
        ((np.float64, (3,)), "subarray"),
        ("not-a-type", "is not a dtype"),
        (None, "a dtype is required"),
    ],
)
def test_unstorable_dtypes_are_refused(dtype: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        allocate((2, 2), dtype)


@pytest.mark.skipif(HAS_CUPY, reason="checks the message shown when cupy is missing")
def test_gpu_allocation_without_cupy_says_what_to_install() -> None:
    with pytest.raises(ImportError, match=r"need cupy.*gt4py-storage\[cuda12\]"):
        allocate((2, 2), np.float64, device=DeviceType.CUDA)

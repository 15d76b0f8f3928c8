"""The GTScript storage API: empty/zeros/ones/full/from_array for every registered CPU backend."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from gt4py import storage
from gt4py.infra.definitions import SCALAR_TYPES
from gt4py.storage import UnknownBackendError, strides_follow_layout_map


HAS_CUPY = importlib.util.find_spec("cupy") is not None


def _element_address(array: Any, index: tuple[int, ...]) -> int:
    return int(array[(*index, ...)].__array_interface__["data"][0])


@pytest.mark.parametrize(
    ("shape", "dimensions", "aligned_index"),
    [
        ((6, 7, 5), "IJK", (2, 3, 1)),
        ((6, 7), "IJ", (3, 2)),
        ((9,), "K", (4,)),
        ((6, 7, 5), ("I", "J", "K"), (1, 1, 0)),
        ((5, 6, 4, 3), ("I", "J", "K", "0"), (2, 2, 1, 0)),
        ((5, 4, 2, 3), ("I", "K", "0", "1"), (1, 3, 0, 0)),
        ((6, 7, 5), None, (2, 3, 1)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.bool_], ids=str)
def test_layout_and_alignment_of_every_cpu_backend(
    cpu_backend: str,
    shape: tuple[int, ...],
    dimensions: Any,
    aligned_index: tuple[int, ...],
    dtype: type,
) -> None:
    entry = storage.backend_layout(cpu_backend)
    array = storage.empty(
        shape, dtype, backend=cpu_backend, aligned_index=aligned_index, dimensions=dimensions
    )
    assert type(array) is np.ndarray
    assert array.shape == shape
    assert array.dtype == dtype
    names = tuple(dimensions) if dimensions is not None else ("I", "J", "K")
    layout_map = entry.layout_map(names)
    assert strides_follow_layout_map(array.strides, layout_map)
    # The contiguous dimension of the layout has stride itemsize.
    assert array.strides[layout_map.index(len(shape) - 1)] == array.itemsize
    alignment = entry.alignment * array.itemsize
    assert _element_address(array, aligned_index) % alignment == 0


@pytest.mark.parametrize("dtype", list(SCALAR_TYPES.values()), ids=str)
def test_from_array_round_trips_exactly(cpu_backend: str, dtype: np.dtype[Any]) -> None:
    rng = np.random.default_rng(42)
    if dtype.kind == "f":
        data = rng.standard_normal((5, 6, 7)).astype(dtype)
    elif dtype.kind == "b":
        data = rng.integers(0, 2, (5, 6, 7)).astype(dtype)
    else:
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, (5, 6, 7), dtype=dtype, endpoint=True)
    array = storage.from_array(data, backend=cpu_backend, aligned_index=(1, 2, 3))
    assert array.dtype == dtype
    assert not np.shares_memory(array, data)
    np.testing.assert_array_equal(array, data)
    # and back through DLPack, without a copy
    back = np.from_dlpack(array)
    assert np.shares_memory(back, array)
    np.testing.assert_array_equal(back, data)


def test_fill_functions(cpu_backend: str) -> None:
    shape = (4, 5, 3)
    kwargs: dict[str, Any] = {"backend": cpu_backend, "aligned_index": (1, 1, 0)}
    assert np.all(storage.zeros(shape, np.int32, **kwargs) == 0)
    assert np.all(storage.ones(shape, np.float32, **kwargs) == 1)
    filled = storage.full(shape, 2.5, **kwargs)
    assert filled.dtype == np.float64 and np.all(filled == 2.5)
    assert storage.full(shape, 7, **kwargs).dtype == np.asarray(7).dtype
    assert storage.full(shape, True, **kwargs).dtype == np.bool_
    assert np.all(storage.full(shape, 3, np.float32, **kwargs) == np.float32(3))
    column = storage.full(shape, np.arange(3.0), **kwargs)
    np.testing.assert_array_equal(column[2, 1, :], [0.0, 1.0, 2.0])
    assert storage.empty(shape, **kwargs).dtype == np.float64


def test_integer_shape_is_one_dimension() -> None:
    array = storage.zeros(5, backend="numpy")
    assert array.shape == (5,)


def test_numpy_integers_and_arrays_are_accepted_for_shape_and_index() -> None:
    storage.register_backend(
        "test:aligned8", layout=storage.AxisOrderLayout("KJI", "outer"), alignment=8, device="cpu"
    )
    try:
        array = storage.zeros(
            np.array([4, 5, 6]), backend="test:aligned8", aligned_index=np.array([1, 2, 3])
        )
    finally:
        storage.unregister_backend("test:aligned8")
    assert array.shape == (4, 5, 6)
    assert _element_address(array, (1, 2, 3)) % 64 == 0
    array = storage.zeros(
        (np.int32(4), np.int64(3)), backend="numpy", aligned_index=(np.int8(1), 0)
    )
    assert array.shape == (4, 3)


def test_subarray_dtype_adds_data_dimensions(cpu_backend: str) -> None:
    entry = storage.backend_layout(cpu_backend)
    array = storage.ones(
        (4, 5, 6), (np.float64, (3,)), backend=cpu_backend, aligned_index=(1, 2, 0)
    )
    assert array.shape == (4, 5, 6, 3)
    assert array.dtype == np.float64
    assert strides_follow_layout_map(array.strides, entry.layout_map(("I", "J", "K", "0")))
    assert _element_address(array, (1, 2, 0, 0)) % (entry.alignment * 8) == 0
    # a storage that already has a data dimension gets the next number
    array = storage.empty((4, 2), (np.int32, (3,)), backend=cpu_backend, dimensions=("I", "0"))
    assert array.shape == (4, 2, 3)
    assert strides_follow_layout_map(array.strides, entry.layout_map(("I", "0", "1")))


def test_from_array_with_subarray_dtype() -> None:
    data = np.arange(4 * 5 * 6 * 3, dtype=np.float32).reshape(4, 5, 6, 3)
    array = storage.from_array(data, (np.float32, (3,)), backend="gt:cpu_ifirst")
    np.testing.assert_array_equal(array, data)
    entry = storage.backend_layout("gt:cpu_ifirst")
    assert strides_follow_layout_map(array.strides, entry.layout_map(("I", "J", "K", "0")))
    with pytest.raises(ValueError, match=r"does not end in the shape \(2,\)"):
        storage.from_array(data, (np.float32, (2,)), backend="numpy")


def test_from_array_casts_to_the_requested_dtype() -> None:
    data = np.arange(12, dtype=np.int64).reshape(3, 4)
    array = storage.from_array(data, np.float32, backend="gt:cpu_ifirst")
    assert array.dtype == np.float32
    np.testing.assert_array_equal(array, data.astype(np.float32))


def test_from_array_makes_non_native_byte_order_native() -> None:
    data = np.arange(6, dtype=">f8").reshape(2, 3)
    array = storage.from_array(data, backend="numpy")
    assert array.dtype == np.float64 and array.dtype.isnative
    np.testing.assert_array_equal(array, data)


def test_gtscript_axis_objects_name_dimensions() -> None:
    class Axis:
        def __init__(self, name: str) -> None:
            self.__gt_axis_name__ = name

    array = storage.empty((3, 4), backend="gt:cpu_ifirst", dimensions=[Axis("I"), Axis("K")])
    assert array.strides[0] == 8  # I contiguous
    array = storage.empty((3, 2), backend="gt:cpu_ifirst", dimensions=["K", 0])
    assert array.strides[0] == 8  # K contiguous among (K, data), data outermost


# -- input through the array protocols ---------------------------------------------------------


class OnlyArrayInterface:
    """Exposes nothing but ``__array_interface__`` (like a foreign C extension's buffer)."""

    def __init__(self, array: npt.NDArray[Any]) -> None:
        self._array = array
        self.__array_interface__ = array.__array_interface__


class OnlyDLPack:
    """Exposes nothing but the DLPack protocol."""

    def __init__(self, array: npt.NDArray[Any]) -> None:
        self._array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()


@pytest.mark.parametrize("wrap", [OnlyArrayInterface, OnlyDLPack, memoryview, lambda a: a.tolist()])
def test_from_array_reads_any_array_protocol(wrap: Any) -> None:
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    array = storage.from_array(wrap(data), backend="gt:cpu_ifirst", aligned_index=(1, 0, 0))
    assert array.dtype == np.float64
    np.testing.assert_array_equal(array, data)


def test_from_array_reads_another_storage() -> None:
    source = storage.from_array(np.arange(60.0).reshape(3, 4, 5), backend="gt:cpu_ifirst")
    copy = storage.from_array(source, backend="gt:cpu_kfirst")
    np.testing.assert_array_equal(copy, source)
    assert copy.flags.c_contiguous and not source.flags.c_contiguous


# -- bad input ---------------------------------------------------------------------------------


def test_unknown_backend_is_refused_by_every_function() -> None:
    calls: list[Callable[[], object]] = [
        lambda: storage.empty((2, 2), backend="gt:cpu"),
        lambda: storage.zeros((2, 2), backend="gt:cpu"),
        lambda: storage.ones((2, 2), backend="gt:cpu"),
        lambda: storage.full((2, 2), 1.0, backend="gt:cpu"),
        lambda: storage.from_array(np.zeros((2, 2)), backend="gt:cpu"),
    ]
    for call in calls:
        with pytest.raises(
            UnknownBackendError, match=r"unknown backend 'gt:cpu'; registered backends: .*'numpy'"
        ):
            call()


def test_backend_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        storage.empty((2, 2), np.float64, "numpy")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"dimensions": "IJ"},
            ValueError,
            r"dimensions \('I', 'J'\) name 2 dimensions but the shape \(3, 4, 5\) has 3",
        ),
        ({"dimensions": "IJKL"}, ValueError, "invalid dimension 'L'"),
        ({"dimensions": ("I", "J", "J")}, ValueError, r"name \['J'\] more than once"),
        ({"dimensions": ("I", "J", "ij")}, ValueError, "invalid dimension 'ij'"),
        ({"dimensions": ("I", "J", -1)}, ValueError, "invalid dimension -1"),
        ({"dimensions": 3}, TypeError, "dimensions must be a string like 'IJK'"),
        (
            {"aligned_index": (1, 1)},
            ValueError,
            r"aligned_index \(1, 1\) has 2 entries but the shape",
        ),
        ({"aligned_index": (1, 1, 1, 0)}, ValueError, "has 4 entries but the shape"),
        ({"aligned_index": (1, -2, 1)}, ValueError, "negative entry"),
        ({"dtype": object}, TypeError, "dtype object cannot be stored: it holds Python objects"),
        ({"dtype": str}, TypeError, "cannot be stored: it is a string type"),
        ({"dtype": "S4"}, TypeError, "cannot be stored: it is a string type"),
        ({"dtype": [("a", "f8"), ("b", "i4")]}, TypeError, "cannot be stored: it is a structured"),
        ({"dtype": (np.dtype([("a", "f8")]), (2,))}, TypeError, "structured"),
        ({"dtype": np.complex64}, TypeError, "complex"),
        ({"dtype": "datetime64[s]"}, TypeError, "date/time"),
        ({"dtype": np.float16}, TypeError, "not one of the DSL scalar types"),
    ],
)
def test_bad_arguments_are_refused(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"dtype": np.float64, **kwargs}
    with pytest.raises(error, match=message):
        storage.empty((3, 4, 5), backend="gt:cpu_ifirst", **arguments)


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="negative extent"):
        storage.empty((3, -4), backend="numpy")
    with pytest.raises(TypeError, match="sequence of non-negative integers"):
        storage.empty((3.5, 4), backend="numpy")  # type: ignore[arg-type]


def test_from_array_refuses_data_that_is_not_numeric() -> None:
    with pytest.raises(TypeError, match="cannot read a list as an array of numbers"):
        storage.from_array([[1.0, 2.0], [3.0]], backend="numpy")
    with pytest.raises(TypeError, match="numpy sees Python objects"):
        storage.from_array([{"a": 1}, {"b": 2}], backend="numpy")
    with pytest.raises(TypeError, match="cannot be stored: it is a string type"):
        storage.from_array(np.array(["a", "b"]), backend="numpy")
    with pytest.raises(TypeError, match="structured"):
        storage.from_array(np.zeros(3, dtype=[("a", "f8")]), backend="numpy")


@pytest.mark.skipif(HAS_CUPY, reason="checks the message shown when cupy is missing")
def test_gpu_backends_without_cupy_say_what_to_install(gpu_backend: str) -> None:
    backend = gpu_backend
    with pytest.raises(ImportError, match=r"GPU storages need cupy.*gt4py-storage\[cuda12\]"):
        storage.zeros((3, 3, 3), backend=backend)
    with pytest.raises(ImportError, match="GPU storages need cupy"):
        storage.from_array(np.zeros((3, 3)), backend=backend)


@pytest.mark.parametrize("backend", ["numpy", "gt:cpu_ifirst", "dace:cpu"])
def test_an_aligned_index_past_the_shape_is_accepted_as_released_does(backend: str) -> None:
    # NDSL allocates every storage with its default origin (3, 3, 0), whatever the shape
    array = storage.zeros((3, 3, 3), np.float64, backend=backend, aligned_index=(3, 3, 0))
    assert array.shape == (3, 3, 3) and (array == 0).all()

"""The backend layout registry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from gt4py import storage
from gt4py.infra.definitions import DeviceType
from gt4py.storage import AxisOrderLayout, UnknownBackendError, c_order_layout


GTSCRIPT_BACKENDS = {
    # name: (device, alignment in elements, layout map of an IJK storage)
    # (released gt4py 1.2.3's ``backend.from_name(name).storage_info``, read off it)
    "numpy": ("cpu", 1, (0, 1, 2)),
    "debug": ("cpu", 1, (0, 1, 2)),
    "gt:cpu_kfirst": ("cpu", 1, (0, 1, 2)),
    "gt:cpu_ifirst": ("cpu", 1, (2, 1, 0)),
    "gt:gpu": ("gpu", 32, (2, 1, 0)),
    "cuda": ("gpu", 32, (2, 1, 0)),
    "dace:cpu": ("cpu", 1, (1, 2, 0)),
    "dace:cpu_kfirst": ("cpu", 1, (0, 1, 2)),
    "dace:cpu_KJI": ("cpu", 1, (2, 1, 0)),
    "dace:gpu": ("gpu", 1, (2, 1, 0)),
    "dace:gpu_IJK": ("gpu", 1, (0, 1, 2)),
}

#: Released's layout maps of storages with data dimensions, lower-dimensional ones included:
#: data dimensions outermost on every backend.
RELEASED_LAYOUT_MAPS = {
    ("I", "J", "K", "3"): {"numpy": (1, 2, 3, 0), "gt:cpu_ifirst": (3, 2, 1, 0)},
    ("I", "J", "K", "2", "3"): {"numpy": (2, 3, 4, 0, 1), "gt:cpu_ifirst": (4, 3, 2, 0, 1)},
    ("I", "J", "3"): {"numpy": (1, 2, 0), "gt:cpu_ifirst": (2, 1, 0)},
    ("I", "K"): {"numpy": (0, 1), "gt:cpu_ifirst": (1, 0), "dace:cpu": (1, 0)},
    ("K", "4"): {"numpy": (1, 0), "gt:cpu_ifirst": (1, 0)},
}


@pytest.mark.parametrize("dimensions", sorted(RELEASED_LAYOUT_MAPS))
def test_layout_maps_of_data_dimensions_are_released_ones(dimensions: tuple[str, ...]) -> None:
    for name, expected in RELEASED_LAYOUT_MAPS[dimensions].items():
        assert storage.backend_layout(name).layout_map(dimensions) == expected, name


@pytest.fixture
def scratch_backend() -> Iterator[str]:
    name = "test:scratch"
    yield name
    if name in storage.registered_backends():
        storage.unregister_backend(name)


@pytest.mark.parametrize("name", sorted(GTSCRIPT_BACKENDS))
def test_gtscript_backends_are_preregistered(name: str) -> None:
    device, alignment, ijk_layout = GTSCRIPT_BACKENDS[name]
    entry = storage.backend_layout(name)
    assert entry.name == name
    assert entry.device == device
    assert entry.is_gpu == (device == "gpu")
    assert entry.alignment == alignment
    assert entry.byte_alignment(np.float32) == 4 * alignment
    assert entry.layout_map(("I", "J", "K")) == ijk_layout
    assert name in storage.registered_backends()


def test_unknown_backend_lists_the_registered_names() -> None:
    with pytest.raises(UnknownBackendError, match="unknown backend 'gt:cpu_jfirst'") as info:
        storage.backend_layout("gt:cpu_jfirst")
    for name in GTSCRIPT_BACKENDS:
        assert repr(name) in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(UnknownBackendError, match="unknown backend None"):
        storage.backend_layout(None)  # type: ignore[arg-type]


def test_register_use_and_unregister(scratch_backend: str) -> None:
    layout = AxisOrderLayout("KIJ", data_dimensions="inner")
    entry = storage.register_backend(
        scratch_backend, layout=layout, alignment=4, device=DeviceType.CPU
    )
    assert storage.backend_layout(scratch_backend) is entry
    assert entry.device == "cpu"
    array = storage.empty((3, 4, 5), np.float64, backend=scratch_backend)
    assert array.strides == (4 * 8, 8, 3 * 4 * 8)  # J contiguous (padded to 4), then I, K outer
    assert entry.is_optimal_layout(array, ("I", "J", "K"))
    assert not entry.is_optimal_layout(np.empty((3, 4, 5)), ("I", "J", "K"))
    assert storage.unregister_backend(scratch_backend) is entry
    with pytest.raises(UnknownBackendError):
        storage.backend_layout(scratch_backend)


def test_registering_again_needs_replace(scratch_backend: str) -> None:
    storage.register_backend(scratch_backend, layout=c_order_layout)
    # The identical entry again is harmless ...
    storage.register_backend(scratch_backend, layout=c_order_layout)
    # ... a different one must be asked for explicitly.
    with pytest.raises(ValueError, match=r"already registered.*replace=True"):
        storage.register_backend(scratch_backend, layout=c_order_layout, alignment=16)
    entry = storage.register_backend(
        scratch_backend, layout=c_order_layout, alignment=16, replace=True
    )
    assert storage.backend_layout(scratch_backend).alignment == entry.alignment == 16


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"layout": "IJK"}, TypeError, "must be callable"),
        ({"layout": c_order_layout, "alignment": 3}, ValueError, "positive power of two"),
        ({"layout": c_order_layout, "alignment": 0}, ValueError, "positive power of two"),
        ({"layout": c_order_layout, "alignment": True}, TypeError, "must be an integer"),
        ({"layout": c_order_layout, "device": "tpu"}, ValueError, "'cpu', 'gpu' or a DeviceType"),
        ({"layout": c_order_layout, "device": DeviceType.CPU_PINNED}, ValueError, "CPU_PINNED"),
    ],
)
def test_bad_registrations_are_refused(
    scratch_backend: str, kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        storage.register_backend(scratch_backend, **kwargs)
    assert scratch_backend not in storage.registered_backends()


def test_bad_backend_names_are_refused() -> None:
    with pytest.raises(TypeError, match="non-empty string"):
        storage.register_backend("", layout=c_order_layout)


def test_a_layout_returning_a_bad_map_is_reported_at_use(scratch_backend: str) -> None:
    storage.register_backend(scratch_backend, layout=lambda dimensions: (0,) * len(dimensions))
    with pytest.raises(ValueError, match=f"layout of backend '{scratch_backend}' returned"):
        storage.empty((2, 2), backend=scratch_backend)


def test_gpu_device_types_register_as_gpu(scratch_backend: str) -> None:
    entry = storage.register_backend(scratch_backend, layout=c_order_layout, device=DeviceType.ROCM)
    assert entry.device == "gpu"
    assert entry.is_gpu


@pytest.mark.parametrize(
    ("name", "dimensions", "expected"),
    [
        # released 1.2.3: data dimensions may repeat (NDSL names them by their size),
        # ordered among themselves as given, outermost
        ("numpy", ("8", "6", "6"), (0, 1, 2)),
        ("gt:cpu_ifirst", ("I", "J", "K", "6", "6"), (4, 3, 2, 0, 1)),
        ("dace:cpu", ("I", "J", "K", "6", "6"), (3, 4, 2, 0, 1)),
    ],
)
def test_data_dimensions_may_repeat(name: str, dimensions: tuple[str, ...], expected) -> None:
    assert storage.backend_layout(name).layout_map(dimensions) == expected
    shape = tuple(3 if d in "IJK" else int(d) for d in dimensions)
    array = storage.zeros(shape, np.float64, backend=name, dimensions=dimensions)
    assert array.shape == shape


def test_an_axis_named_twice_is_still_an_error() -> None:
    with pytest.raises(ValueError, match="more than once"):
        storage.zeros((3, 3), np.float64, backend="numpy", dimensions=("I", "I"))


def test_none_names_a_data_dimension_as_in_released() -> None:
    # NDSL's Quantity names a fourth, non-grid dimension None when it checks layouts
    assert storage.backend_layout("numpy").layout_map(("I", "J", "K", None)) == (1, 2, 3, 0)
    assert storage.backend_layout("gt:cpu_ifirst").layout_map(("I", "J", "K", None)) == (
        3,
        2,
        1,
        0,
    )
    array = storage.zeros(
        (2, 3, 4, 5), np.float64, backend="numpy", dimensions=("I", "J", "K", None)
    )
    assert storage.backend_layout("numpy").is_optimal_layout(array, ("I", "J", "K", None))
    assert not storage.backend_layout("numpy").is_optimal_layout(
        np.zeros((2, 3, 4, 5)), ("I", "J", "K", None)
    )

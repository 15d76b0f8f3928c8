"""The GTScript storage API: ``empty``, ``zeros``, ``ones``, ``full`` and ``from_array``.

Each returns a plain numpy array (CPU backends) or cupy array (GPU backends) whose strides
follow the backend's layout and whose element at ``aligned_index`` is aligned as the backend
asks. ``dimensions`` names the axes (``"IJK"``, ``"IJ"``, ``("I", "J", "K", "0")``) and only
steers the layout; it is not stored.
"""

from __future__ import annotations

from typing import Any, SupportsIndex

import numpy as np

from gt4py.infra.definitions import CPU_DEVICE, Device

from ._conversion import as_gpu_array, as_host_array
from ._devices import current_gpu_device
from ._dtypes import split_subarray_dtype
from ._registry import BackendLayout, backend_layout
from ._spec import StorageSpec, storage_spec
from ._tensor_buffer import IndexSequence, allocate


def _allocate(backend: BackendLayout, spec: StorageSpec) -> Any:
    device: Device = current_gpu_device() if backend.is_gpu else CPU_DEVICE
    buffer = allocate(
        spec.shape,
        spec.dtype,
        layout_map=backend.layout_map(spec.dimensions),
        byte_alignment=backend.byte_alignment(spec.dtype),
        aligned_index=spec.aligned_index,
        device=device,
        aligned_beyond_shape=True,
    )
    return buffer.ndarray


def _filled(
    fill_value: Any,
    shape: SupportsIndex | IndexSequence,
    dtype: Any,
    backend: str,
    aligned_index: IndexSequence | None,
    dimensions: Any,
) -> Any:
    storage = empty(
        shape, dtype, backend=backend, aligned_index=aligned_index, dimensions=dimensions
    )
    storage[...] = fill_value
    return storage


def empty(
    shape: SupportsIndex | IndexSequence,
    dtype: Any = np.float64,
    *,
    backend: str,
    aligned_index: IndexSequence | None = None,
    dimensions: Any = None,
) -> Any:
    """An uninitialized array laid out and aligned for ``backend``.

    Args:
        shape: extents, one per dimension (an int for one dimension).
        dtype: a DSL scalar type, or a subarray dtype such as ``(np.float64, (3,))`` whose
            shape is appended as trailing data dimensions.
        backend: a registered backend name (``"numpy"``, ``"gt:cpu_ifirst"``, ``"gt:gpu"``...).
        aligned_index: the index placed on the alignment boundary, usually the origin of the
            compute domain; default: the first element.
        dimensions: the names of the dimensions; default ``"IJK"`` cut to the number of
            dimensions, with data dimensions beyond three.
    """
    layout = backend_layout(backend)
    spec = storage_spec(shape, dtype, dimensions=dimensions, aligned_index=aligned_index)
    return _allocate(layout, spec)


def zeros(
    shape: SupportsIndex | IndexSequence,
    dtype: Any = np.float64,
    *,
    backend: str,
    aligned_index: IndexSequence | None = None,
    dimensions: Any = None,
) -> Any:
    """Like :func:`empty`, filled with zeros."""
    return _filled(0, shape, dtype, backend, aligned_index, dimensions)


def ones(
    shape: SupportsIndex | IndexSequence,
    dtype: Any = np.float64,
    *,
    backend: str,
    aligned_index: IndexSequence | None = None,
    dimensions: Any = None,
) -> Any:
    """Like :func:`empty`, filled with ones."""
    return _filled(1, shape, dtype, backend, aligned_index, dimensions)


def full(
    shape: SupportsIndex | IndexSequence,
    fill_value: Any,
    dtype: Any = None,
    *,
    backend: str,
    aligned_index: IndexSequence | None = None,
    dimensions: Any = None,
) -> Any:
    """Like :func:`empty`, filled with ``fill_value`` (broadcast if it is an array).

    Without ``dtype``, the dtype is numpy's for ``fill_value`` (``1.5`` gives float64).
    """
    if dtype is None:
        dtype = np.asarray(fill_value).dtype
    return _filled(fill_value, shape, dtype, backend, aligned_index, dimensions)


def from_array(
    data: Any,
    dtype: Any = None,
    *,
    backend: str,
    aligned_index: IndexSequence | None = None,
    dimensions: Any = None,
) -> Any:
    """A copy of ``data`` laid out and aligned for ``backend``; the shape is that of ``data``.

    ``data`` is anything array-like: numpy/cupy arrays, objects with ``__array_interface__``,
    ``__cuda_array_interface__`` or ``__dlpack__``, nested lists. Without ``dtype`` the data's own
    dtype is kept. With a subarray dtype such as ``(np.float64, (3,))`` the trailing dimensions
    of ``data`` must have that shape and become data dimensions.
    """
    layout = backend_layout(backend)
    source = as_gpu_array(data) if layout.is_gpu else as_host_array(data)
    if dtype is None:
        dtype = source.dtype if source.dtype.isnative else source.dtype.newbyteorder("=")
    _, data_shape = split_subarray_dtype(dtype)
    shape = tuple(source.shape)
    if data_shape:
        if shape[len(shape) - len(data_shape) :] != data_shape:
            raise ValueError(
                f"data of shape {shape} does not end in the shape {data_shape} of dtype "
                f"{np.dtype(dtype)}"
            )
        shape = shape[: len(shape) - len(data_shape)]
    spec = storage_spec(shape, dtype, dimensions=dimensions, aligned_index=aligned_index)
    storage = _allocate(layout, spec)
    storage[...] = source
    return storage

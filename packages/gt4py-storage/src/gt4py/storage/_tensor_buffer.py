"""The allocator core: aligned, padded n-dimensional buffers with a chosen memory layout.

Both DSL stacks allocate through :func:`allocate`: the GTScript storage API and next's fields.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Sequence
from typing import Any, SupportsIndex, TypeAlias

import numpy as np
import numpy.typing as npt

from gt4py.infra.definitions import CPU_DEVICE, Device, DeviceType

from ._devices import allocate_bytes, as_device
from ._dtypes import as_storable_dtype
from ._layouts import LayoutMap, is_valid_layout_map, memory_order


#: Shapes, indices and layout maps: sequences of integers (Python or numpy) or 1-d int arrays.
IndexSequence: TypeAlias = Sequence[SupportsIndex] | npt.NDArray[np.integer[Any]]


@dataclasses.dataclass(frozen=True, eq=False)
class TensorBuffer:
    """An allocation and the n-dimensional view of it that has the requested layout.

    ``ndarray`` is a plain ``numpy.ndarray`` (CPU) or ``cupy.ndarray`` (GPU) and keeps
    ``buffer`` alive on its own, so it can be handed out without this object.
    """

    #: The raw one-dimensional uint8 allocation that owns the memory.
    buffer: Any
    #: The view with ``shape``, ``dtype`` and ``strides``.
    ndarray: Any
    device: Device
    dtype: np.dtype[Any]
    shape: tuple[int, ...]
    #: Strides in bytes, as numpy reports them.
    strides: tuple[int, ...]
    layout_map: LayoutMap
    byte_alignment: int
    aligned_index: tuple[int, ...]
    #: Address of the first byte of ``buffer``.
    memory_address: int
    #: Bytes from ``memory_address`` to the element at index ``(0, ..., 0)``.
    byte_offset: int

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def data_address(self) -> int:
        """Address of the element at index ``(0, ..., 0)``."""
        return self.memory_address + self.byte_offset

    @property
    def aligned_address(self) -> int:
        """Address of the element at ``aligned_index``; a multiple of ``byte_alignment``."""
        return self.data_address + sum(
            index * stride for index, stride in zip(self.aligned_index, self.strides, strict=True)
        )

    def __repr__(self) -> str:
        return (
            f"TensorBuffer(shape={self.shape}, dtype={self.dtype}, device={self.device!r}, "
            f"layout_map={self.layout_map}, strides={self.strides}, "
            f"byte_alignment={self.byte_alignment}, aligned_index={self.aligned_index})"
        )

    # -- array protocols: forwarded to the view, refused clearly where the device forbids -----

    def _require_device(self, want_gpu: bool, protocol: str) -> None:
        if self.device.device_type.is_gpu != want_gpu:
            instead = "__array_interface__" if want_gpu else "__cuda_array_interface__"
            raise TypeError(
                f"{protocol} is not available for a buffer on {self.device}; "
                f"use {instead} or DLPack"
            )

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> npt.NDArray[Any]:
        self._require_device(False, "__array__")
        array: npt.NDArray[Any] = self.ndarray if dtype is None else self.ndarray.astype(dtype)
        return np.array(array, copy=True) if copy else array

    @property
    def __array_interface__(self) -> dict[str, Any]:
        self._require_device(False, "__array_interface__")
        return self.ndarray.__array_interface__  # type: ignore[no-any-return]

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        self._require_device(True, "__cuda_array_interface__")
        return self.ndarray.__cuda_array_interface__  # type: ignore[no-any-return]

    def __dlpack__(self, **kwargs: Any) -> Any:
        # Forward only what the caller passed: numpy 1.x knows `stream` alone, newer array
        # libraries also take `max_version`, `dl_device` and `copy`.
        return self.ndarray.__dlpack__(
            **{key: value for key, value in kwargs.items() if value is not None}
        )

    def __dlpack_device__(self) -> tuple[DeviceType, int]:
        return (self.device.device_type, self.device.device_id)


def _int_tuple(values: IndexSequence, name: str, kind: str) -> tuple[int, ...]:
    """``values`` as a tuple of Python ints; a ``TypeError`` naming ``name`` otherwise."""
    if not _is_index_sequence(values):
        raise TypeError(f"{name} must be a sequence of {kind}, got {values!r}")
    try:
        return tuple(_as_int(value) for value in values)
    except TypeError as error:
        raise TypeError(f"{name} must be a sequence of {kind}, got {values!r}") from error


def normalize_shape(shape: IndexSequence) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative Python ints, or a clear error."""
    extents = _int_tuple(shape, "shape", "non-negative integers")
    if any(extent < 0 for extent in extents):
        raise ValueError(f"shape {extents} has a negative extent")
    return extents


def normalize_aligned_index(
    aligned_index: IndexSequence | None, shape: tuple[int, ...], *, beyond_shape: bool = False
) -> tuple[int, ...]:
    """``aligned_index`` as a tuple of ints inside ``shape`` (``None`` means the origin);
    with ``beyond_shape``, an index past the end is accepted too (the GTScript storage API,
    as released: the alignment is placed as if the array went on)."""
    if aligned_index is None:
        return (0,) * len(shape)
    index = _int_tuple(aligned_index, "aligned_index", "integers")
    if len(index) != len(shape):
        raise ValueError(
            f"aligned_index {index} has {len(index)} entries but the shape {shape} has "
            f"{len(shape)} dimensions; give one index per dimension"
        )
    if any(entry < 0 for entry in index):
        raise ValueError(
            f"aligned_index {index} has a negative entry; it is an index into the array, "
            "counted from 0 in each dimension"
        )
    for dim, (entry, extent) in enumerate(zip(index, shape, strict=True)):
        if entry >= extent and not (entry == 0 and extent == 0) and not beyond_shape:
            raise ValueError(
                f"aligned_index {index} lies outside the shape {shape}: index {entry} in "
                f"dimension {dim} of extent {extent}"
            )
    return index


def _is_index_sequence(value: object) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _as_int(value: object) -> int:
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{value!r} is a boolean, not an integer")
    return operator.index(value)  # type: ignore[arg-type]


def _check_byte_alignment(byte_alignment: int) -> int:
    alignment = _as_int(byte_alignment)
    if alignment < 1 or alignment & (alignment - 1):
        raise ValueError(f"byte_alignment must be a positive power of two, got {byte_alignment!r}")
    return alignment


def allocate(
    shape: IndexSequence,
    dtype: Any,
    *,
    layout_map: IndexSequence | None = None,
    byte_alignment: int = 1,
    aligned_index: IndexSequence | None = None,
    device: Device | DeviceType = CPU_DEVICE,
    aligned_beyond_shape: bool = False,
) -> TensorBuffer:
    """Allocate an uninitialized buffer whose element at ``aligned_index`` is byte-aligned.

    Args:
        shape: extent of each dimension.
        dtype: one of the DSL scalar types (``gt4py.infra.definitions.SCALAR_TYPES``).
        layout_map: memory order of the dimensions; ``layout_map[d]`` is the position of
            dimension ``d`` from the outermost (0) to the contiguous one (``ndim - 1``).
            Default: C order.
        byte_alignment: a power of two; the address of the element at ``aligned_index`` is a
            multiple of it. The contiguous dimension is padded so that every line along it
            starts at the same alignment.
        aligned_index: the index that lands on the alignment boundary (typically the origin
            of the compute domain, past the halo). Default: the first element.
        device: where the memory lives: the CPU (numpy) or a CUDA/ROCm GPU (cupy).
        aligned_beyond_shape: accept an ``aligned_index`` past the end of the shape (the
            GTScript storage API, as released).
    """
    extents = normalize_shape(shape)
    scalar = as_storable_dtype(dtype)
    ndim = len(extents)
    if layout_map is None:
        layout: LayoutMap = tuple(range(ndim))
    else:
        if not is_valid_layout_map(layout_map, ndim):
            raise ValueError(
                f"layout_map {layout_map!r} is not a permutation of 0..{ndim - 1} for shape "
                f"{extents}"
            )
        layout = tuple(int(entry) for entry in layout_map)
    alignment = _check_byte_alignment(byte_alignment)
    index = normalize_aligned_index(aligned_index, extents, beyond_shape=aligned_beyond_shape)
    target = as_device(device)

    itemsize = scalar.itemsize
    order = memory_order(layout)
    padded = list(extents)
    if ndim:
        # Pad the contiguous dimension to whole alignment blocks so that stepping along any
        # other dimension keeps the alignment of the element at aligned_index.
        contiguous = order[-1]
        items_per_block = max(alignment // itemsize, 1)
        padded[contiguous] = math.ceil(extents[contiguous] / items_per_block) * items_per_block
    strides = [0] * ndim
    step = itemsize
    for dim in reversed(order):
        strides[dim] = step
        step *= padded[dim]

    # Never place elements below their natural alignment, whatever was asked for.
    placement = max(alignment, itemsize)
    nbytes = math.prod(padded) * itemsize
    raw, address = allocate_bytes(nbytes + placement - 1, target)
    aligned_offset = sum(entry * stride for entry, stride in zip(index, strides, strict=True))
    byte_offset = -(address + aligned_offset) % placement

    flat = raw[byte_offset : byte_offset + nbytes].view(scalar)
    in_memory_order = flat.reshape(tuple(padded[dim] for dim in order))
    view = in_memory_order.transpose(layout)
    if tuple(padded) != extents:
        view = view[tuple(slice(0, extent) for extent in extents)]

    return TensorBuffer(
        buffer=raw,
        ndarray=view,
        device=target,
        dtype=scalar,
        shape=extents,
        strides=tuple(strides),
        layout_map=layout,
        byte_alignment=alignment,
        aligned_index=index,
        memory_address=address,
        byte_offset=byte_offset,
    )

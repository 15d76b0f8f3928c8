"""Turning the GTScript storage arguments (shape, dtype, dimensions, aligned_index) into one spec."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from typing import Any, SupportsIndex

import numpy as np

from ._dtypes import split_subarray_dtype
from ._layouts import CARTESIAN_AXES, is_data_dimension
from ._tensor_buffer import IndexSequence, normalize_aligned_index, normalize_shape


_DIMENSION_RULE = (
    "each dimension is one of 'I', 'J', 'K' or a data dimension named by a non-negative "
    "integer ('0', '1', ...)"
)


@dataclasses.dataclass(frozen=True)
class StorageSpec:
    """A storage request with subarray dtypes already expanded into trailing data dimensions."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    dimensions: tuple[str, ...]
    aligned_index: tuple[int, ...]


def default_dimensions(ndim: int) -> tuple[str, ...]:
    """``I``, ``J``, ``K`` for up to three dimensions; further ones are data dimensions."""
    return tuple(CARTESIAN_AXES[:ndim]) + tuple(str(n) for n in range(max(ndim - 3, 0)))


def _dimension_name(entry: object) -> str:
    entry = getattr(entry, "__gt_axis_name__", entry)  # GTScript axis objects (gtscript.I)
    if entry is None:  # released takes None for a data dimension (NDSL passes it)
        return "0"
    if isinstance(entry, str):
        if entry in CARTESIAN_AXES or is_data_dimension(entry):
            return entry
    elif isinstance(entry, int) and not isinstance(entry, bool) and entry >= 0:
        return str(entry)
    elif isinstance(entry, np.integer) and entry >= 0:
        return str(operator.index(entry))
    raise ValueError(f"invalid dimension {entry!r}: {_DIMENSION_RULE}")


def normalize_dimensions(dimensions: Any) -> tuple[str, ...]:
    """``"IJK"``, ``("I", "J", "K", "0")``, ``["I", 0]`` ... as a tuple of names, validated."""
    if isinstance(dimensions, str):
        entries: Sequence[Any] = tuple(dimensions)
    elif isinstance(dimensions, Sequence):
        entries = dimensions
    else:
        raise TypeError(
            f"dimensions must be a string like 'IJK' or a sequence of names, not {dimensions!r}"
        )
    names = tuple(_dimension_name(entry) for entry in entries)
    # data dimensions are digit strings that may repeat (released's ("I", "J", "6", "6"):
    # NDSL names them by their sizes); only a grid axis named twice is an error
    repeated = sorted(
        {name for name in names if names.count(name) > 1 and not is_data_dimension(name)}
    )
    if repeated:
        raise ValueError(f"dimensions {names} name {repeated} more than once")
    return names


def storage_spec(
    shape: SupportsIndex | IndexSequence,
    dtype: Any,
    *,
    dimensions: Any = None,
    aligned_index: IndexSequence | None = None,
) -> StorageSpec:
    """Validate the arguments of the GTScript storage API and bring them into one form.

    A subarray dtype such as ``(np.float64, (3,))`` adds trailing data dimensions to the shape,
    the dimension names and the aligned index.
    """
    extents = normalize_shape(
        shape if isinstance(shape, Sequence | np.ndarray) else (shape,)  # an int: one dimension
    )
    scalar, data_shape = split_subarray_dtype(dtype)
    if dimensions is None:
        names = default_dimensions(len(extents))
    else:
        names = normalize_dimensions(dimensions)
        if len(names) != len(extents):
            raise ValueError(
                f"dimensions {names} name {len(names)} dimensions but the shape {extents} has "
                f"{len(extents)}; give one name per dimension (data dimensions as '0', '1', ...)"
            )
    # released's GTScript API accepts an aligned index past the shape (NDSL passes its
    # default origin (3, 3, 0) for any storage)
    index = normalize_aligned_index(aligned_index, extents, beyond_shape=True)
    if data_shape:
        used = {int(name) for name in names if is_data_dimension(name)}
        start = max(used, default=-1) + 1
        names += tuple(str(start + n) for n in range(len(data_shape)))
        extents += data_shape
        index += (0,) * len(data_shape)
    return StorageSpec(shape=extents, dtype=scalar, dimensions=names, aligned_index=index)

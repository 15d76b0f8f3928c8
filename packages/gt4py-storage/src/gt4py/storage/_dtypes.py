"""Which element types a storage can hold, with errors that say why a dtype is refused."""

from __future__ import annotations

from typing import Any

import numpy as np

from gt4py.infra.definitions import SCALAR_TYPES, is_supported_scalar


def _supported_names() -> str:
    return ", ".join(SCALAR_TYPES)


def _why_not_storable(dtype: np.dtype[Any]) -> str:
    if dtype.kind == "O":
        return "it holds Python objects, which have no fixed-size memory representation"
    if dtype.kind in "US":
        return "it is a string type"
    if dtype.fields is not None:
        return "it is a structured (record) type; use one storage per field instead"
    if dtype.kind == "V":
        return "it is an untyped (void) type"
    if dtype.kind in "mM":
        return "it is a date/time type"
    if dtype.kind == "c":
        return "complex numbers are not a DSL scalar type"
    if not dtype.isnative:
        return (
            "its byte order is not the machine's; convert it with "
            "`dtype.newbyteorder('=')` (and the data with `.astype(...)`)"
        )
    return "it is not one of the DSL scalar types"


def _as_dtype(dtype: Any) -> np.dtype[Any]:
    """``np.dtype(dtype)``; a ``TypeError`` listing the supported types if it is not a dtype."""
    if dtype is None:
        raise TypeError(f"a dtype is required; supported: {_supported_names()}")
    try:
        result: np.dtype[Any] = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(f"{dtype!r} is not a dtype; supported: {_supported_names()}") from error
    return result


def as_storable_dtype(dtype: Any) -> np.dtype[Any]:
    """Check that ``dtype`` names a scalar type a storage can hold and return it as a numpy dtype.

    Storages hold exactly the DSLs' scalar types (``gt4py.infra.definitions.SCALAR_TYPES``) in
    the machine's byte order: anything else could not be passed to a stencil anyway.
    Subarray dtypes are refused here; the GTScript API turns them into data dimensions first.
    """
    resolved = _as_dtype(dtype)
    if resolved.subdtype is not None:
        raise TypeError(
            f"dtype {resolved} has a subarray shape {resolved.shape}; allocate the extra "
            "dimensions explicitly (the GTScript API turns them into data dimensions)"
        )
    if not is_supported_scalar(resolved):
        raise TypeError(
            f"dtype {resolved} cannot be stored: {_why_not_storable(resolved)}. "
            f"Supported: {_supported_names()}"
        )
    return resolved


def split_subarray_dtype(dtype: Any) -> tuple[np.dtype[Any], tuple[int, ...]]:
    """Split ``(np.float64, (3,))``-style dtypes into a storable scalar dtype and the extra shape.

    A plain scalar dtype comes back with an empty extra shape.
    """
    resolved = _as_dtype(dtype)
    if resolved.subdtype is None:
        return as_storable_dtype(resolved), ()
    base, sub_shape = resolved.subdtype
    return as_storable_dtype(base), tuple(int(extent) for extent in sub_shape)

"""Field arguments that are array-likes rather than arrays, as released gt4py documents them.

An object with ``__array_interface__`` or ``__array__`` (host memory) or
``__cuda_array_interface__`` (device memory, through cupy) is viewed as the array it exposes,
without a copy where the protocol allows one, so the stencil writes into the caller's memory.
Two optional attributes add meaning:

- ``__gt_origin__``: the field's default origin, used when the call gives none for it;
- ``__gt_dims__``: the names of its dimensions, in the array's order: they must be the field's
  axes (and data dimensions); an array in another axis order is transposed (a view).

numpy and cupy arrays without these attributes take none of this: :func:`is_plain_array`
answers from a per-type table, so the usual call pays one lookup per field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ._errors import StencilArgumentError


if TYPE_CHECKING:
    from ._stencil_object import StencilObject

_GT_ATTRIBUTES = ("__gt_origin__", "__gt_dims__")
_PLAIN: dict[type, bool] = {}  # type -> whether its instances are arrays


def is_plain_array(value: Any) -> bool:
    """Whether ``value`` is used as it is: an array (its type has ``shape``, ``dtype``,
    ``ndim``) without ``__gt_origin__`` / ``__gt_dims__``. Anything else goes through
    :func:`adopt_array_likes` (which also reports what is not an array at all)."""
    kind = type(value)
    if kind is np.ndarray:
        return True
    plain = _PLAIN.get(kind)
    if plain is None:
        plain = _PLAIN[kind] = all(hasattr(kind, a) for a in ("shape", "dtype", "ndim"))
    return plain and not any(hasattr(value, a) for a in _GT_ATTRIBUTES)


def adopt_array_likes(
    stencil: StencilObject, values: list[Any], origin: Any
) -> tuple[list[Any], Any]:
    """``values`` with each array-like field argument replaced by the array it exposes, and
    ``origin`` completed with the ``__gt_origin__`` of fields the call gives no origin for."""
    values = list(values)
    found_origins: dict[str, tuple[int, ...]] = {}
    for i in stencil._field_indices:
        value = values[i]
        if is_plain_array(value):
            continue
        param = stencil._params[i]
        name = param["name"]
        dims = getattr(value, "__gt_dims__", None)
        order = None if dims is None else _axis_order(name, tuple(map(str, dims)), param)
        gt_origin = getattr(value, "__gt_origin__", None)
        if gt_origin is not None:  # counted in the stencil's axis order, as a call's origin
            found_origins[name] = tuple(gt_origin)
        array = _as_array(name, value)
        values[i] = array if order is None else array.transpose(order)  # a view
    return values, _with_default_origins(origin, found_origins)


def _as_array(name: str, value: Any) -> Any:
    if hasattr(value, "__array_interface__") or hasattr(value, "__array__"):
        return np.asarray(value)
    if hasattr(value, "__cuda_array_interface__"):
        try:
            import cupy
        except ImportError:
            raise StencilArgumentError(
                f"field '{name}' is a device array-like ({type(value).__name__} has "
                "__cuda_array_interface__), which needs cupy: pip install gt4py-cartesian[cuda12]"
            ) from None
        return cupy.asarray(value)
    if all(hasattr(value, a) for a in ("shape", "dtype", "ndim")):
        return value  # an array that also carries __gt_origin__ / __gt_dims__
    raise StencilArgumentError(
        f"field '{name}' must be an array or an array-like (__array_interface__, __array__ or "
        f"__cuda_array_interface__; e.g. from gt4py.storage), got {type(value).__name__}"
    )


def _axis_order(
    name: str, dims: tuple[str, ...], param: Mapping[str, Any]
) -> tuple[int, ...] | None:
    """The transposition that puts an array whose axes are named ``dims`` into the field's
    order (its axes as I, J, K, then its data dimensions as given); None if it is in order.
    Names that are not exactly the field's axes and data dimensions are an error."""
    axes = tuple(param["axes"])
    spatial = [d for d in dims if d in ("I", "J", "K")]
    data = [n for n, d in enumerate(dims) if d not in ("I", "J", "K")]
    if sorted(spatial) != sorted(axes) or len(data) != len(param["data_dims"]):
        raise StencilArgumentError(
            f"field '{name}' has dimensions {dims} (its __gt_dims__), but the stencil declares "
            f"it over {axes}"
            + (f" with data dimensions {tuple(param['data_dims'])}" if param["data_dims"] else "")
        )
    order = (*(dims.index(axis) for axis in axes), *data)
    return None if order == tuple(range(len(dims))) else order


def _with_default_origins(origin: Any, found: Mapping[str, tuple[int, ...]]) -> Any:
    """The call's ``origin`` with ``found`` origins for the fields it says nothing about."""
    if not found:
        return origin
    if origin is None:
        return dict(found)
    if isinstance(origin, Mapping):
        return {**found, **origin} if "_all_" not in origin else origin
    return origin  # one origin for every field, given by the call: it wins

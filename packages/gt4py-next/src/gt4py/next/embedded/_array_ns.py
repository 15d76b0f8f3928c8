"""Array-namespace plumbing: one code path for numpy, cupy and jax.numpy.

Field operations never call ``numpy`` on field data directly; they look functions up in the
field's namespace here. Names follow numpy (which cupy and jax.numpy share); array-API-only
namespaces are served by the standard's names or a small emulation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np


Namespace = Any  # a module-like array namespace (numpy, cupy, jax.numpy, ...)

# numpy-style name -> array-API spellings tried when a namespace lacks the numpy one.
_STANDARD_NAMES: Final[dict[str, tuple[str, ...]]] = {
    "arcsin": ("asin",),
    "arccos": ("acos",),
    "arctan": ("atan",),
    "arcsinh": ("asinh",),
    "arccosh": ("acosh",),
    "arctanh": ("atanh",),
    "power": ("pow",),
    "concatenate": ("concat",),
    "mod": ("remainder",),
    "invert": ("bitwise_invert",),
}


def _emulated_cbrt(xp: Namespace) -> Callable[[Any], Any]:
    def cbrt(x: Any) -> Any:
        return xp.sign(x) * xp.abs(x) ** (1.0 / 3.0)

    return cbrt


def _emulated_fmod(xp: Namespace) -> Callable[[Any, Any], Any]:
    # C fmod: the remainder takes the sign of the dividend (truncating division).
    def fmod(x: Any, y: Any) -> Any:
        r = xp.remainder(x, y)
        return xp.where((r != 0) & ((r < 0) != (x < 0)), r - y, r)

    return fmod


_EMULATIONS: Final[dict[str, Callable[[Namespace], Callable[..., Any]]]] = {
    "cbrt": _emulated_cbrt,
    "fmod": _emulated_fmod,
}

_FUNCTIONS: dict[tuple[int, str], Callable[..., Any]] = {}


def function(xp: Namespace, name: str) -> Callable[..., Any]:
    """The namespace's function ``name`` (numpy spelling), cached per namespace."""
    key = (id(xp), name)
    fn = _FUNCTIONS.get(key)
    if fn is None:
        fn = getattr(xp, name, None)
        for alias in _STANDARD_NAMES.get(name, ()):
            if fn is not None:
                break
            fn = getattr(xp, alias, None)
        if fn is None and name in _EMULATIONS:
            fn = _EMULATIONS[name](xp)
        if fn is None:
            raise NotImplementedError(
                f"the array namespace {getattr(xp, '__name__', xp)!r} has no {name!r}"
            )
        _FUNCTIONS[key] = fn
    return fn


def namespace_of(array: object) -> Namespace | None:
    """The array namespace an array belongs to, or ``None`` for non-arrays."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    get_namespace = getattr(array, "__array_namespace__", None)
    if get_namespace is not None:
        return get_namespace()
    package = type(array).__module__.partition(".")[0]
    if package == "cupy":
        import cupy

        return cupy
    if package in ("jax", "jaxlib"):
        import jax.numpy as jnp

        return jnp
    return None


def namespace_name(xp: Namespace) -> str:
    return getattr(xp, "__name__", type(xp).__name__)


def to_numpy(xp: Namespace, array: Any) -> np.ndarray[Any, Any]:
    """A numpy view or copy of ``array``."""
    if xp is np:
        return np.asarray(array)
    asnumpy = getattr(xp, "asnumpy", None)
    if asnumpy is not None:
        return asnumpy(array)  # type: ignore[no-any-return]
    try:
        return np.asarray(array)
    except (TypeError, RuntimeError):
        return np.from_dlpack(array)


def astype(xp: Namespace, array: Any, dtype: np.dtype[Any]) -> Any:
    if array.dtype == dtype:
        return array
    method = getattr(array, "astype", None)
    if method is not None:
        return method(dtype)
    return xp.astype(array, dtype)


def copy_into_namespace(xp: Namespace, data: Any, dtype: np.dtype[Any] | None) -> Any:
    """A new array of namespace ``xp`` holding a copy of ``data`` (any array-like)."""
    source = namespace_of(data)
    if source is not None and source is not xp and source is not np:
        data = to_numpy(source, data)  # e.g. cupy refuses implicit conversion to numpy
    try:
        return xp.asarray(data, dtype=dtype, copy=True)
    except TypeError:  # namespaces predating the `copy` keyword (numpy < 2, cupy)
        return xp.array(data, dtype=dtype, copy=True)


def as_namespace_array(xp: Namespace, data: Any) -> Any:
    """``data`` as an array of ``xp``, without copying when it already is one."""
    source = namespace_of(data)
    if source is xp:
        return data
    if source is not None and source is not np:
        data = to_numpy(source, data)
    return xp.asarray(data)


def is_namespace(obj: object) -> bool:
    """Whether ``obj`` looks like an array namespace (``numpy``, ``cupy``, ``jax.numpy``...)."""
    if isinstance(obj, type):
        return False
    return all(callable(getattr(obj, name, None)) for name in ("asarray", "empty"))

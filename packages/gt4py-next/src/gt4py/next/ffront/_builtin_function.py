"""`BuiltInFunction`, the class of every builtin (public in ``gt4py.next.ffront.fbuiltins``),
and the scalar implementations the builtins run when no field is involved.

Called with fields a builtin dispatches to the field type's implementation
(``type(field).__gt_builtin_func__(name)``); called with scalars only it runs its scalar
implementation, for most builtins the numpy function of its vocabulary row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from .. import _builtin_vocabulary as vocabulary
from .._field import Field, scalar_dtype
from .._special_functions import gamma as _gamma_kernel


#: Where users import, and pickle finds, the builtins.
PUBLIC_MODULE: Final = "gt4py.next.ffront.fbuiltins"


def _find_field(values: Any) -> Field | None:
    for value in values:
        if isinstance(value, Field):
            return value
        if isinstance(value, tuple):
            found = _find_field(value)
            if found is not None:
                return found
    return None


class BuiltInFunction:
    """A builtin: ``name``, and the scalar implementation used when no field is involved."""

    __module__ = PUBLIC_MODULE

    def __init__(self, name: str, scalar_implementation: Callable[..., Any], doc: str) -> None:
        self.name = name
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc
        self._scalar_implementation = scalar_implementation

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        field = _find_field(args)
        if field is None and kwargs:
            field = _find_field(kwargs.values())
        if field is None:
            return self._scalar_implementation(*args, **kwargs)
        implementation = type(field).__gt_builtin_func__(self.name)
        if implementation is None:
            raise TypeError(f"{self.name} is not supported for {type(field).__name__}")
        return implementation(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<builtin {self.name}>"

    def __reduce__(self) -> str:
        return self.name  # pickled by reference to the global of PUBLIC_MODULE


def embedded(name: str) -> Callable[..., Any]:
    """Builtins that produce fields even from scalars use the embedded implementation."""

    def implementation(*args: Any, **kwargs: Any) -> Any:
        from ..embedded import _builtins

        return _builtins.IMPLEMENTATIONS[name](*args, **kwargs)

    return implementation


def _needs_field(name: str) -> Callable[..., Any]:
    def implementation(*args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{name} needs a field argument")

    return implementation


def _scalar_gamma(value: Any) -> Any:
    array = np.asarray(value)
    result = _gamma_kernel(np, array.astype(np.float64))
    return result.astype(np.float32)[()] if array.dtype == np.float32 else result[()]


def _scalar_where(mask: Any, true_value: Any, false_value: Any) -> Any:
    if isinstance(true_value, tuple) or isinstance(false_value, tuple):
        size = len(true_value) if isinstance(true_value, tuple) else len(false_value)
        pick = [(v if isinstance(v, tuple) else (v,) * size) for v in (true_value, false_value)]
        like = true_value if isinstance(true_value, tuple) else false_value
        return _same_kind(like, [_scalar_where(mask, t, f) for t, f in zip(*pick, strict=True)])
    return np.where(mask, true_value, false_value)[()]


def _same_kind(like: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...]:
    """``items`` as a tuple of ``like``'s kind (a NamedTuple stays one)."""
    if type(like) is not tuple and hasattr(like, "_fields"):
        return type(like)(*items)
    return tuple(items)


def scalar_astype(value: Any, dtype: Any) -> Any:
    target = scalar_dtype(dtype)
    if isinstance(value, tuple):
        return _same_kind(value, [scalar_astype(v, target) for v in value])
    return target.type(value)


_SPECIAL_FUNCTIONS: Final = {"gamma": _scalar_gamma}


def from_vocabulary(name: str) -> BuiltInFunction:
    """The builtin ``name`` of the vocabulary; on scalars it runs the row's numpy function."""
    row = vocabulary.DSL_BUILTINS[name]
    implementation: Callable[..., Any]
    if row.kind is vocabulary.Kind.SELECT:
        implementation = _scalar_where
    elif row.kind is vocabulary.Kind.REDUCTION:
        implementation = _needs_field(name)
    elif row.numpy is None:  # a special function
        implementation = _SPECIAL_FUNCTIONS[name]
    else:
        implementation = getattr(np, row.numpy)
    return BuiltInFunction(name, implementation, row.summary)

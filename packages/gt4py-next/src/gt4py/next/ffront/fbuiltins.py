"""The builtins of the field-operator language, callable from plain Python too.

Each builtin is a :class:`BuiltInFunction`: called with fields it dispatches to the field
type's implementation (``type(field).__gt_builtin_func__(name)``; embedded fields run numpy,
cupy or jax code), called with scalars only it computes on numpy scalars. The frontend
recognizes builtins by identity (``func is fbuiltins.where``) or by ``func.name``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from gt4py.infra.definitions import SCALAR_TYPES

from .._dimensions import Dimension, DimensionKind, Dims, GridType
from .._field import Field, scalar_dtype
from .._offsets import FieldOffset
from .._scalar_types import (
    bool_,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .._special_functions import gamma as _gamma_kernel
from ..embedded import _elementwise


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
        return self.name  # pickled by reference to this module's global


def _embedded(name: str) -> Callable[..., Any]:
    """Builtins that produce fields even from scalars use the embedded implementation."""

    def implementation(*args: Any, **kwargs: Any) -> Any:
        from ..embedded import _builtins

        return _builtins.IMPLEMENTATIONS[name](*args, **kwargs)

    return implementation


def _needs_field(name: str) -> Callable[..., Any]:
    def implementation(*args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{name} needs a field argument")

    return implementation


def _scalar_function(numpy_function: Callable[..., Any]) -> Callable[..., Any]:
    def implementation(*args: Any) -> Any:
        return numpy_function(*args)

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


def _scalar_astype(value: Any, dtype: Any) -> Any:
    target = scalar_dtype(dtype)
    if isinstance(value, tuple):
        return _same_kind(value, [_scalar_astype(v, target) for v in value])
    return target.type(value)


def _builtin(name: str, implementation: Callable[..., Any], doc: str) -> BuiltInFunction:
    return BuiltInFunction(name, implementation, doc)


# -- general builtins ---------------------------------------------------------------------------

astype = _builtin(
    "astype", _scalar_astype, "astype(value, dtype): a field, scalar or tuple converted to dtype."
)
broadcast = _builtin(
    "broadcast",
    _embedded("broadcast"),
    "broadcast(value, dims): a field or scalar as a field over dims (new dims unbounded).",
)
where = _builtin(
    "where",
    _scalar_where,
    "where(mask, a, b): a where mask is true, else b; a and b may be tuples.",
)
neighbor_sum = _builtin(
    "neighbor_sum",
    _needs_field("neighbor_sum"),
    "neighbor_sum(field, axis=LocalDim): the sum over neighbours, skipping missing ones.",
)
max_over = _builtin(
    "max_over",
    _needs_field("max_over"),
    "max_over(field, axis=LocalDim): the maximum over neighbours, skipping missing ones.",
)
min_over = _builtin(
    "min_over",
    _needs_field("min_over"),
    "min_over(field, axis=LocalDim): the minimum over neighbours, skipping missing ones.",
)
minimum = _builtin("minimum", _scalar_function(np.minimum), "minimum(a, b), pointwise.")
maximum = _builtin("maximum", _scalar_function(np.maximum), "maximum(a, b), pointwise.")
fmod = _builtin("fmod", _scalar_function(np.fmod), "fmod(a, b): C remainder, sign of a.")
power = _builtin("power", _scalar_function(np.power), "power(a, b): a to the power b.")

# -- math builtins ------------------------------------------------------------------------------

UNARY_MATH_FP_BUILTIN_NAMES: Final = _elementwise.FP_FUNCTION_NAMES
UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES: Final = _elementwise.FP_PREDICATE_NAMES
UNARY_MATH_NUMBER_BUILTIN_NAMES: Final = ("abs",)
BINARY_MATH_NUMBER_BUILTIN_NAMES: Final = ("minimum", "maximum", "fmod", "power")

sin = _builtin("sin", _scalar_function(np.sin), "sin(x), pointwise.")
cos = _builtin("cos", _scalar_function(np.cos), "cos(x), pointwise.")
tan = _builtin("tan", _scalar_function(np.tan), "tan(x), pointwise.")
arcsin = _builtin("arcsin", _scalar_function(np.arcsin), "arcsin(x), pointwise.")
arccos = _builtin("arccos", _scalar_function(np.arccos), "arccos(x), pointwise.")
arctan = _builtin("arctan", _scalar_function(np.arctan), "arctan(x), pointwise.")
sinh = _builtin("sinh", _scalar_function(np.sinh), "sinh(x), pointwise.")
cosh = _builtin("cosh", _scalar_function(np.cosh), "cosh(x), pointwise.")
tanh = _builtin("tanh", _scalar_function(np.tanh), "tanh(x), pointwise.")
arcsinh = _builtin("arcsinh", _scalar_function(np.arcsinh), "arcsinh(x), pointwise.")
arccosh = _builtin("arccosh", _scalar_function(np.arccosh), "arccosh(x), pointwise.")
arctanh = _builtin("arctanh", _scalar_function(np.arctanh), "arctanh(x), pointwise.")
sqrt = _builtin("sqrt", _scalar_function(np.sqrt), "sqrt(x), pointwise.")
cbrt = _builtin("cbrt", _scalar_function(np.cbrt), "cbrt(x): the real cube root, pointwise.")
exp = _builtin("exp", _scalar_function(np.exp), "exp(x), pointwise.")
log = _builtin("log", _scalar_function(np.log), "log(x): the natural logarithm, pointwise.")
gamma = _builtin("gamma", _scalar_gamma, "gamma(x): the gamma function (C tgamma), pointwise.")
floor = _builtin("floor", _scalar_function(np.floor), "floor(x), pointwise.")
ceil = _builtin("ceil", _scalar_function(np.ceil), "ceil(x), pointwise.")
trunc = _builtin("trunc", _scalar_function(np.trunc), "trunc(x), pointwise.")
isfinite = _builtin("isfinite", _scalar_function(np.isfinite), "isfinite(x), pointwise.")
isinf = _builtin("isinf", _scalar_function(np.isinf), "isinf(x), pointwise.")
isnan = _builtin("isnan", _scalar_function(np.isnan), "isnan(x), pointwise.")
abs = _builtin("abs", _scalar_function(np.abs), "abs(x), pointwise.")

MATH_BUILTIN_NAMES: Final = (
    *UNARY_MATH_FP_BUILTIN_NAMES,
    *UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES,
    *UNARY_MATH_NUMBER_BUILTIN_NAMES,
    *BINARY_MATH_NUMBER_BUILTIN_NAMES,
)
FUN_BUILTIN_NAMES: Final = (
    "astype",
    "broadcast",
    "where",
    "neighbor_sum",
    "max_over",
    "min_over",
)
#: The dtype constructors (gtx.float64(...)): one per scalar type of the DSLs.
TYPE_BUILTIN_NAMES: Final = tuple(SCALAR_TYPES)

#: Every builtin function by name (the dtype constructors are in ``TYPE_BUILTINS``).
BUILTINS: Final[dict[str, BuiltInFunction]] = {
    name: globals()[name] for name in (*FUN_BUILTIN_NAMES, *MATH_BUILTIN_NAMES)
}
TYPE_BUILTINS: Final = {
    "bool": bool_,
    "int8": int8,
    "int16": int16,
    "int32": int32,
    "int64": int64,
    "uint8": uint8,
    "uint16": uint16,
    "uint32": uint32,
    "uint64": uint64,
    "float32": float32,
    "float64": float64,
}

__all__ = [  # grouped by kind, like the name lists above
    "BUILTINS",
    "TYPE_BUILTINS",
    "BuiltInFunction",
    "Dimension",
    "DimensionKind",
    "Dims",
    "Field",
    "FieldOffset",
    "GridType",
    # functions
    "astype",
    "broadcast",
    "where",
    "neighbor_sum",
    "max_over",
    "min_over",
    "minimum",
    "maximum",
    "fmod",
    "power",
    # math
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "sqrt",
    "cbrt",
    "exp",
    "log",
    "gamma",
    "floor",
    "ceil",
    "trunc",
    "isfinite",
    "isinf",
    "isnan",
    "abs",
    # scalar types
    "bool_",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]

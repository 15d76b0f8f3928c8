"""The builtins of the field-operator language, callable from plain Python too.

Each builtin is a :class:`BuiltInFunction`: called with fields it dispatches to the field
type's implementation (``type(field).__gt_builtin_func__(name)``; embedded fields run numpy,
cupy or jax code), called with scalars only it computes on numpy scalars. The frontend
recognizes builtins by identity (``func is fbuiltins.where``) or by ``func.name``.

Which builtins exist, their groups (the type rules follow them) and their docs come from the
builtin vocabulary (:mod:`gt4py.next._builtin_vocabulary`); each is also a module global here,
so that it can be imported and pickled by name.
"""

from __future__ import annotations

# Python's types, re-exported as released gt4py does (gtx.float is float, gtx.int is int, ...)
from builtins import (
    bool as bool,
    float as float,
    int as int,
    tuple as tuple,
)
from collections.abc import Callable
from typing import Any, Final, TypeAlias

import numpy as np

from gt4py.infra.definitions import SCALAR_TYPES

from .. import _builtin_vocabulary as vocabulary
from .._dimensions import Dimension, DimensionKind, Dims, GridType
from .._field import Field, scalar_dtype
from .._offsets import FieldOffset
from .._relocated import Gone, module_getattr
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


def _from_vocabulary(name: str) -> BuiltInFunction:
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


_SPECIAL_FUNCTIONS: Final = {"gamma": _scalar_gamma}

# -- general builtins ---------------------------------------------------------------------------

astype = _builtin(
    "astype", _scalar_astype, "astype(value, dtype): a field, scalar or tuple converted to dtype."
)
broadcast = _builtin(
    "broadcast",
    _embedded("broadcast"),
    "broadcast(value, dims): a field or scalar as a field over dims (new dims unbounded).",
)
where = _from_vocabulary("where")
neighbor_sum = _from_vocabulary("neighbor_sum")
max_over = _from_vocabulary("max_over")
min_over = _from_vocabulary("min_over")
minimum = _from_vocabulary("minimum")
maximum = _from_vocabulary("maximum")
fmod = _from_vocabulary("fmod")
power = _from_vocabulary("power")

# -- math builtins ------------------------------------------------------------------------------

_Kind, _Result = vocabulary.Kind, vocabulary.Result
UNARY_MATH_FP_BUILTIN_NAMES: Final = vocabulary.dsl_names(_Kind.UNARY_MATH, result=_Result.FLOAT)
UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES: Final = vocabulary.dsl_names(
    _Kind.UNARY_MATH, result=_Result.BOOL
)
_ARITHMETIC_NAMES: Final = vocabulary.dsl_names(_Kind.ARITHMETIC)
UNARY_MATH_NUMBER_BUILTIN_NAMES: Final = (
    *vocabulary.dsl_names(_Kind.UNARY_MATH, result=_Result.SAME),
    # neg(x), unary `-`
    *(name for name in _ARITHMETIC_NAMES if vocabulary.DSL_BUILTINS[name].arity == 1),
)
BINARY_MATH_NUMBER_BUILTIN_NAMES: Final = (
    *vocabulary.dsl_names(_Kind.BINARY_MATH),
    # power(a, b), the `**` operator
    *(name for name in _ARITHMETIC_NAMES if vocabulary.DSL_BUILTINS[name].arity == 2),
)

sin = _from_vocabulary("sin")
cos = _from_vocabulary("cos")
tan = _from_vocabulary("tan")
arcsin = _from_vocabulary("arcsin")
arccos = _from_vocabulary("arccos")
arctan = _from_vocabulary("arctan")
sinh = _from_vocabulary("sinh")
cosh = _from_vocabulary("cosh")
tanh = _from_vocabulary("tanh")
arcsinh = _from_vocabulary("arcsinh")
arccosh = _from_vocabulary("arccosh")
arctanh = _from_vocabulary("arctanh")
sqrt = _from_vocabulary("sqrt")
cbrt = _from_vocabulary("cbrt")
exp = _from_vocabulary("exp")
log = _from_vocabulary("log")
gamma = _from_vocabulary("gamma")
floor = _from_vocabulary("floor")
ceil = _from_vocabulary("ceil")
trunc = _from_vocabulary("trunc")
isfinite = _from_vocabulary("isfinite")
isinf = _from_vocabulary("isinf")
isnan = _from_vocabulary("isnan")
abs = _from_vocabulary("abs")
neg = _from_vocabulary("neg")

MATH_BUILTIN_NAMES: Final = (
    *UNARY_MATH_FP_BUILTIN_NAMES,
    *UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES,
    *UNARY_MATH_NUMBER_BUILTIN_NAMES,
    *BINARY_MATH_NUMBER_BUILTIN_NAMES,
)
FUN_BUILTIN_NAMES: Final = (
    "astype",
    "broadcast",
    *vocabulary.dsl_names(_Kind.SELECT),
    *vocabulary.dsl_names(_Kind.REDUCTION),
)
#: The dtype constructors (gtx.float64(...)): one per scalar type of the DSLs.
TYPE_BUILTIN_NAMES: Final = tuple(SCALAR_TYPES)

#: Every builtin function by name (the dtype constructors are in ``TYPE_BUILTINS``); a row of
#: the vocabulary without its global here fails at import.
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

#: Python's types as released gt4py lists them (``gtx.float`` is Python's ``float``): in
#: annotations ``float`` is float64, ``int`` int64, ``bool`` bool, ``tuple[...]`` a tuple.
PYTHON_TYPE_BUILTINS: Final = (bool, int, float, tuple)
PYTHON_TYPE_BUILTIN_NAMES: Final = tuple(t.__name__ for t in PYTHON_TYPE_BUILTINS)

#: The integer type of indices (``as_offset`` offsets, neighbour tables), as released names it.
IndexType: TypeAlias = int32
TYPE_ALIAS_NAMES: Final = ("IndexType",)

__getattr__ = module_getattr(
    __name__,
    {
        "BUILTIN_NAMES": Gone(
            "the keys of fbuiltins.BUILTINS (functions) and fbuiltins.TYPE_BUILTINS (dtypes)",
            "released gt4py's list of every builtin name is two tables here",
        ),
        "WhereBuiltinFunction": Gone(
            "fbuiltins.BuiltInFunction (fbuiltins.where is one)",
            "there is one class of builtins here",
        ),
        "is_cartesian_offset": Gone(
            "offset.source and offset.target of the FieldOffset",
            "released gt4py's frontend helper is not part of this implementation",
        ),
    },
)

__all__ = [
    "BUILTINS",
    "TYPE_BUILTINS",
    "BuiltInFunction",
    "Dimension",
    "DimensionKind",
    "Dims",
    "Field",
    "FieldOffset",
    "GridType",
    "IndexType",
    "PYTHON_TYPE_BUILTINS",
    "PYTHON_TYPE_BUILTIN_NAMES",
    "TYPE_ALIAS_NAMES",
    # Python's types (released gt4py re-exports them)
    "bool",
    "float",
    "int",
    "tuple",
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
__all__ += BUILTINS  # noqa: PLE0605 (the builtins, by name: from the vocabulary)

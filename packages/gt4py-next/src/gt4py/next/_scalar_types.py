"""The DSL's scalar types: ``gtx.float64``, ``gtx.int32``, ``gtx.bool``, ...

Each is a dtype (``dtype=gtx.float32``, ``np.dtype(gtx.int32)``, annotations) and a converter
that works on scalars and fields alike: ``gtx.float32(2.5)`` is a ``numpy.float32``,
``gtx.float32(field)`` is the field cast to float32 (same as ``astype(field, float32)``).
The numeric ones subclass the numpy scalar types, so ``issubclass(gtx.float64, np.floating)``
holds and every numpy API takes them; ``isinstance(np.float64(1), gtx.float64)`` is true too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._field import Field


class ScalarTypeMeta(type):
    """Metaclass of the scalar types: instance checks accept the plain numpy scalars."""

    _instance_types: tuple[type, ...]
    dtype: np.dtype[Any]

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._instance_types)

    def __repr__(cls) -> str:
        return f"gt4py.next.{cls.__name__}"


def _convert(cls: ScalarTypeMeta, value: Any) -> Any:
    if isinstance(value, Field):
        astype = type(value).__gt_builtin_func__("astype")
        if astype is None:
            raise TypeError(f"{cls.__name__}(...) is not supported on {type(value).__name__}")
        return astype(value, cls.dtype)
    if isinstance(value, tuple):
        return tuple(_convert(cls, v) for v in value)
    return cls.dtype.type(value)


def _make_scalar_type(name: str, numpy_type: type) -> ScalarTypeMeta:
    def __new__(cls: ScalarTypeMeta, value: Any = 0) -> Any:
        return _convert(cls, value)

    dtype: np.dtype[Any] = np.dtype(numpy_type)
    namespace: dict[str, Any] = {
        "__new__": __new__,
        "__doc__": f"The {dtype.name} scalar type; converts scalars and fields to {dtype.name}.",
        "__module__": "gt4py.next",
        "_instance_types": (numpy_type,) if numpy_type is not np.bool_ else (np.bool_, bool),
    }
    if numpy_type is np.bool_:
        # numpy's bool cannot be subclassed; numpy reads the `dtype` attribute instead.
        namespace["dtype"] = dtype
        bases: tuple[type, ...] = ()
    else:
        bases = (numpy_type,)
    cls = ScalarTypeMeta(name, bases, namespace)
    if bases:
        type.__setattr__(cls, "dtype", dtype)  # class-level dtype, next to numpy's descriptor
    return cls


float32 = _make_scalar_type("float32", np.float32)
float64 = _make_scalar_type("float64", np.float64)
int8 = _make_scalar_type("int8", np.int8)
int16 = _make_scalar_type("int16", np.int16)
int32 = _make_scalar_type("int32", np.int32)
int64 = _make_scalar_type("int64", np.int64)
uint8 = _make_scalar_type("uint8", np.uint8)
uint16 = _make_scalar_type("uint16", np.uint16)
uint32 = _make_scalar_type("uint32", np.uint32)
uint64 = _make_scalar_type("uint64", np.uint64)
bool_ = _make_scalar_type("bool", np.bool_)

SCALAR_TYPES = (
    bool_,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    float32,
    float64,
)

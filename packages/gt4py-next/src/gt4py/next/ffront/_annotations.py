"""Translation of Python annotations and global values into frontend types."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

import numpy as np

from .._dimensions import CartesianConnectivity, Dimension
from .._field import FieldAnnotation, scalar_dtype
from .._offsets import FieldOffset, IndexedFieldOffset
from .._scalar_types import SCALAR_TYPES
from . import _callable_kinds, fbuiltins, type_specifications as ts


class AnnotationError(TypeError):
    """An annotation that does not name a DSL type (the frontend adds the location)."""


_PYTHON_SCALARS = {float: np.dtype(np.float64), int: np.dtype(np.int64), bool: np.dtype(np.bool_)}


def type_from_annotation(annotation: Any) -> ts.TypeSpec:
    """The type a parameter or return annotation declares."""
    annotation = _resolve_alias(annotation)
    if isinstance(annotation, FieldAnnotation):
        if annotation.__parameters__:
            raise AnnotationError(
                f"{annotation!r} is generic: substitute its type variables "
                f"({', '.join(map(str, annotation.__parameters__))}), e.g. "
                "CellField[gtx.float64]"
            )
        if not annotation.is_concrete:
            raise AnnotationError(
                f"{annotation!r} names no single field type: a DSL annotation needs Dimension "
                "objects and one dtype (gtx.float64, ...), not a union or the class Dimension"
            )
        return ts.FieldType(annotation.dims, annotation.dtype)
    if isinstance(annotation, type) and annotation in _PYTHON_SCALARS:
        return ts.ScalarType(_PYTHON_SCALARS[annotation])
    if (
        (isinstance(annotation, type) and annotation in SCALAR_TYPES)
        or isinstance(annotation, np.dtype)
        or (isinstance(annotation, type) and issubclass(annotation, np.generic))
    ):
        try:
            return ts.ScalarType(scalar_dtype(annotation))
        except TypeError as error:
            raise AnnotationError(str(error)) from None
    origin = typing.get_origin(annotation)
    if origin is tuple:
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            raise AnnotationError("tuple annotations need one type per element, not tuple[T, ...]")
        return ts.TupleType(tuple(type_from_annotation(a) for a in args))
    if isinstance(annotation, type) and (
        dataclasses.is_dataclass(annotation) or _is_namedtuple(annotation)
    ):
        return _named_collection(annotation)
    raise AnnotationError(
        f"{annotation!r} is not a type gt4py.next understands; use Field[Dims[...], dtype], a "
        "scalar type (gtx.float64, gtx.int32, float, int, bool), a tuple[...] of these, or a "
        "dataclass / NamedTuple of these"
    )


def _resolve_alias(annotation: Any) -> Any:
    """``type X[T] = Field[...]`` aliases (Python 3.12): their value, parameters substituted."""
    alias_type = getattr(typing, "TypeAliasType", None)
    if alias_type is None:
        return annotation
    if isinstance(annotation, alias_type):
        return _resolve_alias(annotation.__value__)
    origin = typing.get_origin(annotation)
    if isinstance(origin, alias_type):
        value = _resolve_alias(origin.__value__)
        params = origin.__type_params__
        args = typing.get_args(annotation)
        if isinstance(value, FieldAnnotation) and len(params) == len(args):
            return value.substitute(dict(zip(params, args, strict=True)))
        raise AnnotationError(f"cannot substitute {args} into the alias {origin.__name__}")
    return annotation


def _is_namedtuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def member_names(collection: Any) -> tuple[str, ...]:
    """The member names, in order, of a dataclass or NamedTuple (class or instance)."""
    if dataclasses.is_dataclass(collection):
        return tuple(f.name for f in dataclasses.fields(collection))
    return tuple(collection._fields)


def _named_collection(cls: type) -> ts.NamedCollectionType:
    try:
        hints = typing.get_type_hints(cls)
    except Exception as error:
        raise AnnotationError(f"cannot read the annotations of {cls.__name__}: {error}") from None
    names = member_names(cls)
    member_types = []
    for name in names:
        if name not in hints:
            raise AnnotationError(f"{cls.__name__}.{name} needs a type annotation")
        try:
            member_types.append(type_from_annotation(hints[name]))
        except AnnotationError as error:
            raise AnnotationError(f"{cls.__name__}.{name}: {error}") from None
    return ts.NamedCollectionType(cls, names, tuple(member_types))


def type_of_value(value: Any) -> ts.TypeSpec | None:
    """The type of a global a definition refers to (``None``: not usable in the DSL)."""
    if isinstance(value, Dimension):
        return ts.DimensionType(value)
    if isinstance(value, FieldOffset):
        return ts.OffsetType(value)
    if isinstance(value, IndexedFieldOffset):
        return ts.OffsetType(value.offset, indexed=True)
    if isinstance(value, CartesianConnectivity):
        return ts.CartesianShiftType(value.dim)
    if isinstance(value, fbuiltins.BuiltInFunction):
        return ts.CallableType("builtin", value)
    kind = _callable_kinds.kind_of(value)  # a field, scan operator or program (registered)
    if kind is not None:
        return ts.CallableType(kind, value)
    if isinstance(value, type) and (value in SCALAR_TYPES or value in _PYTHON_SCALARS):
        return ts.DTypeType(scalar_dtype(value))
    if isinstance(value, type) and issubclass(value, np.generic):
        try:
            return ts.DTypeType(scalar_dtype(value))
        except TypeError:
            return None
    if isinstance(value, (bool, np.bool_)):
        return ts.ScalarType(np.dtype(np.bool_), weak=isinstance(value, bool))
    if isinstance(value, int):
        return ts.IntConstantType(value)
    if isinstance(value, float):
        return ts.ScalarType(np.dtype(np.float64), weak=True)
    if isinstance(value, np.generic):
        try:
            return ts.ScalarType(scalar_dtype(value.dtype))
        except TypeError:
            return None
    if isinstance(value, types.ModuleType):
        return ts.ModuleType(value)
    if isinstance(value, type) and (dataclasses.is_dataclass(value) or _is_namedtuple(value)):
        return ts.CallableType("constructor", value)
    if isinstance(value, tuple) and value and all(isinstance(v, Dimension) for v in value):
        return ts.DimsTupleType(value)
    return None

"""The builtins of the field-operator language, callable from plain Python too.

Each builtin is a :class:`BuiltInFunction`: called with fields it dispatches to the field
type's implementation (``type(field).__gt_builtin_func__(name)``; embedded fields run numpy,
cupy or jax code), called with scalars only it computes on numpy scalars. The frontend
recognizes builtins by identity (``func is fbuiltins.where``) or by ``func.name``.

Which builtins exist, their groups (the type rules follow them) and their docs come from the
builtin vocabulary (:mod:`gt4py.next._builtin_vocabulary`); each is also a module global here,
so that it can be imported and pickled by name.

This module is the public face: the class and the scalar implementations live in
``_builtin_function``, the builtins and the tables of their names in ``_builtin_catalog``.
"""

from __future__ import annotations

# Python's types, re-exported as released gt4py does (gtx.float is float, gtx.int is int, ...)
from builtins import (
    bool as bool,
    float as float,
    int as int,
    tuple as tuple,
)

from .._dimensions import (
    Dimension as Dimension,
    DimensionKind as DimensionKind,
    DimsAnnotation as Dims,
    GridType as GridType,
)
from .._field import Field as Field
from .._offsets import FieldOffset as FieldOffset
from .._relocated import Gone, module_getattr
from .._scalar_types import (
    bool_ as bool_,
    float32 as float32,
    float64 as float64,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
)
from ._builtin_catalog import *  # noqa: F403  (the builtins and IndexType: its __all__)
from ._builtin_catalog import (
    BINARY_MATH_NUMBER_BUILTIN_NAMES as BINARY_MATH_NUMBER_BUILTIN_NAMES,
    BUILTINS as BUILTINS,
    FUN_BUILTIN_NAMES as FUN_BUILTIN_NAMES,
    MATH_BUILTIN_NAMES as MATH_BUILTIN_NAMES,
    PYTHON_TYPE_BUILTIN_NAMES as PYTHON_TYPE_BUILTIN_NAMES,
    PYTHON_TYPE_BUILTINS as PYTHON_TYPE_BUILTINS,
    TYPE_ALIAS_NAMES as TYPE_ALIAS_NAMES,
    TYPE_BUILTIN_NAMES as TYPE_BUILTIN_NAMES,
    TYPE_BUILTINS as TYPE_BUILTINS,
    UNARY_MATH_FP_BUILTIN_NAMES as UNARY_MATH_FP_BUILTIN_NAMES,
    UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES as UNARY_MATH_FP_PREDICATE_BUILTIN_NAMES,
    UNARY_MATH_NUMBER_BUILTIN_NAMES as UNARY_MATH_NUMBER_BUILTIN_NAMES,
)
from ._builtin_function import BuiltInFunction as BuiltInFunction


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

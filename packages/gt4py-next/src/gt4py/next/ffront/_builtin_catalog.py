"""Every builtin of the field-operator language and the tables of their names (public in
``gt4py.next.ffront.fbuiltins``).

Which builtins exist, their groups (the type rules follow them) and their docs come from the
builtin vocabulary (:mod:`gt4py.next._builtin_vocabulary`); each builtin is a global here so
that :data:`BUILTINS` can list them by name, and the public module re-exports every one.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from gt4py.infra.definitions import SCALAR_TYPES

from .. import _builtin_vocabulary as vocabulary
from .._scalar_types import (
    bool_,
    int32,
)
from ._builtin_function import BuiltInFunction, embedded, from_vocabulary, scalar_astype


# -- general builtins ---------------------------------------------------------------------------

astype = BuiltInFunction(
    "astype", scalar_astype, "astype(value, dtype): a field, scalar or tuple converted to dtype."
)
broadcast = BuiltInFunction(
    "broadcast",
    embedded("broadcast"),
    "broadcast(value, dims): a field or scalar as a field over dims (new dims unbounded).",
)
where = from_vocabulary("where")
neighbor_sum = from_vocabulary("neighbor_sum")
max_over = from_vocabulary("max_over")
min_over = from_vocabulary("min_over")
minimum = from_vocabulary("minimum")
maximum = from_vocabulary("maximum")
fmod = from_vocabulary("fmod")
power = from_vocabulary("power")

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

sin = from_vocabulary("sin")
cos = from_vocabulary("cos")
tan = from_vocabulary("tan")
arcsin = from_vocabulary("arcsin")
arccos = from_vocabulary("arccos")
arctan = from_vocabulary("arctan")
sinh = from_vocabulary("sinh")
cosh = from_vocabulary("cosh")
tanh = from_vocabulary("tanh")
arcsinh = from_vocabulary("arcsinh")
arccosh = from_vocabulary("arccosh")
arctanh = from_vocabulary("arctanh")
sqrt = from_vocabulary("sqrt")
cbrt = from_vocabulary("cbrt")
exp = from_vocabulary("exp")
log = from_vocabulary("log")
gamma = from_vocabulary("gamma")
floor = from_vocabulary("floor")
ceil = from_vocabulary("ceil")
trunc = from_vocabulary("trunc")
isfinite = from_vocabulary("isfinite")
isinf = from_vocabulary("isinf")
isnan = from_vocabulary("isnan")
abs = from_vocabulary("abs")
neg = from_vocabulary("neg")

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
#: The dtype constructors by name: numpy's scalar types, and Python's ``bool`` for ``bool``.
TYPE_BUILTINS: Final = {
    name: bool_ if name == "bool" else dtype.type for name, dtype in SCALAR_TYPES.items()
}

#: Python's types as released gt4py lists them (``gtx.float`` is Python's ``float``): in
#: annotations ``float`` is float64, ``int`` int64, ``bool`` bool, ``tuple[...]`` a tuple.
PYTHON_TYPE_BUILTINS: Final = (bool, int, float, tuple)
PYTHON_TYPE_BUILTIN_NAMES: Final = tuple(t.__name__ for t in PYTHON_TYPE_BUILTINS)

#: The integer type of indices (``as_offset`` offsets, neighbour tables), as released names it.
IndexType: TypeAlias = int32
TYPE_ALIAS_NAMES: Final = ("IndexType",)

#: What ``gt4py.next`` and ``fbuiltins`` re-export by ``from ._builtin_catalog import *``: every
#: builtin function (the names of :data:`BUILTINS`) and ``IndexType``. Literal, in the order of
#: this module, so that type checkers see the names; a unit test keeps it equal to the tables.
__all__ = [
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
    "neg",
    "IndexType",
]

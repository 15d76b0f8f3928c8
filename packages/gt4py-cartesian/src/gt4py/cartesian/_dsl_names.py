"""The names of the GTScript language, shared by :mod:`.gtscript` and the frontend.

Axes (``I``, ``J``, ``K`` and their sets), field annotations (``Field``, ``GlobalTable``,
``Sequence``), the markers used inside a definition (``computation``, ``interval``,
``PARALLEL``, the math and cast builtins, ...) and the ``gtscript.function`` mark. The public
face is :mod:`gt4py.cartesian.gtscript`, which re-exports every one of them: the frontend and
the stencil key import them from here, below the stencil builder, so that the language's names
do not depend on the machinery that builds stencils.

Each public class and function reports ``gt4py.cartesian.gtscript`` as its ``__module__`` (as
users meet it there): reprs, pickles and the API reference name the public module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from ._errors import GTScriptDefinitionError, GTScriptError


_PUBLIC_MODULE = "gt4py.cartesian.gtscript"
_T = TypeVar("_T")


def _public(obj: _T) -> _T:
    """Report ``obj`` (a class or function of this module) as :mod:`.gtscript`'s."""
    obj.__module__ = _PUBLIC_MODULE
    return obj


# -- axes -----------------------------------------------------------------------------------------
@_public
class Axis:
    """A grid axis: ``I``, ``J`` or ``K``.

    ``I[0]`` is the first point of the compute domain along ``I``, ``I[-1]`` the last; the
    result is an :class:`AxisIndex`, a plain value (usable in externals) for ``region[...]``.
    Inside a stencil, ``K`` used as a value is the current level's index in the compute domain.
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getitem__(self, index: int) -> AxisIndex:
        if not isinstance(index, int | np.integer) or isinstance(index, bool | np.bool_):
            raise GTScriptError(
                f"{self.name}[{index!r}]: an axis index is {self.name}[n] with an integer n "
                f"({self.name}[0] is the first point of the compute domain, {self.name}[-1] the last)"
            )
        return AxisIndex(self.name, int(index))

    def __repr__(self) -> str:
        return self.name


@_public
@dataclasses.dataclass(frozen=True)
class AxisIndex:
    """A position on an axis, relative to the compute domain: ``I[index] + offset``.

    ``index >= 0`` counts from the domain's first point, ``index < 0`` from one past its last
    (``I[-1]`` is the last point). A value: hashable, comparable, part of a stencil's cache key
    when passed in ``externals=``, shifted by ``+ n`` / ``- n``.
    """

    axis: str
    index: int
    offset: int = 0

    def __add__(self, other: int) -> AxisIndex:
        if not isinstance(other, int | np.integer) or isinstance(other, bool | np.bool_):
            return NotImplemented
        return AxisIndex(self.axis, self.index, self.offset + int(other))

    __radd__ = __add__

    def __sub__(self, other: int) -> AxisIndex:
        if not isinstance(other, int | np.integer) or isinstance(other, bool | np.bool_):
            return NotImplemented
        return AxisIndex(self.axis, self.index, self.offset - int(other))

    def __repr__(self) -> str:
        # (the module's ``abs`` is the GTScript builtin)
        shift = f" + {self.offset}" if self.offset > 0 else f" - {-self.offset}"
        shift = shift if self.offset else ""
        return f"{self.axis}[{self.index}]{shift}"


@_public
class AxisSet(tuple[Axis, ...]):
    """An ordered set of axes (``IJK``, ``IJ``, ...) used in ``Field[axes, dtype]``."""

    @property
    def names(self) -> str:
        return "".join(axis.name for axis in self)

    def __repr__(self) -> str:
        return self.names


I, J, K = Axis("I"), Axis("J"), Axis("K")
IJK = AxisSet((I, J, K))
IJ = AxisSet((I, J))
IK = AxisSet((I, K))
JK = AxisSet((J, K))
# The axis sets a field may have, in this order; a single axis is written with the axis
# itself (``Field[K, float]``), a set as ``IJ`` or any sequence of axes (``Field[(I, K), ...]``).
_AXIS_SETS = ("IJK", "IJ", "IK", "JK", "I", "J", "K")


# -- field annotations ----------------------------------------------------------------------------
@_public
class FieldDescriptor:
    """The type of a field parameter: axes, element dtype (or a name resolved by ``dtypes=``)
    and data dimensions."""

    __slots__ = ("axes", "data_dims", "dtype")

    def __init__(self, axes: str, dtype: np.dtype[Any] | str, data_dims: tuple[int, ...]) -> None:
        self.axes = axes
        self.dtype = dtype
        self.data_dims = data_dims

    def __repr__(self) -> str:
        if not self.axes:
            return f"GlobalTable[({self.dtype}, {self.data_dims})]"
        dims = f", {self.data_dims}" if self.data_dims else ""
        return f"Field[{self.axes}, {self.dtype}{dims}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldDescriptor) and (
            self.axes,
            str(self.dtype),
            self.data_dims,
        ) == (other.axes, str(other.dtype), other.data_dims)

    def __hash__(self) -> int:
        return hash((self.axes, str(self.dtype), self.data_dims))

    def __descriptor__(self) -> None:
        """DaCe's type-hint hook: none, so that a ``dace.program`` annotated with a field
        type takes the argument's own array type when it is called (ADR 0042)."""
        return None


def _parse_dtype(spec: Any) -> tuple[np.dtype[Any] | str, tuple[int, ...]]:
    """The element type and data dimensions of ``Field[axes, spec]``: ``spec`` is a dtype, a
    ``dtypes=`` name, or ``(element, dims)`` with ``dims`` an int or a tuple of ints, as
    numpy's subarray dtypes (``(np.float64, 8)`` is ``(np.float64, (8,))``), or such a
    subarray dtype itself."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], tuple | int):
        dtype, dims = _parse_dtype(spec[0])
        shape = spec[1] if isinstance(spec[1], tuple) else (spec[1],)
        if dims or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
            raise GTScriptDefinitionError(f"invalid data dimensions {spec[1]!r} in Field[...]")
        return dtype, tuple(shape)
    if isinstance(spec, str):
        try:
            return _parse_dtype(np.dtype(spec))
        except TypeError:
            return spec, ()  # a name for the stencil's ``dtypes=`` mapping
    try:
        dtype = np.dtype(spec)
    except TypeError:
        raise GTScriptDefinitionError(f"{spec!r} is not a valid field element type") from None
    if dtype.subdtype is not None:
        return dtype.subdtype[0], tuple(dtype.subdtype[1])
    return dtype, ()


def _is_axes(spec: Any) -> bool:
    return isinstance(spec, Axis) or (
        isinstance(spec, tuple | list)
        and bool(spec)
        and all(isinstance(axis, Axis) for axis in spec)
    )


@_public
class _FieldFactory:
    def __getitem__(self, spec: Any) -> FieldDescriptor:
        axes = "IJK"
        if isinstance(spec, tuple) and spec and _is_axes(spec[0]):
            if len(spec) != 2:
                raise GTScriptDefinitionError(f"Field[{spec!r}]: expected Field[axes, dtype]")
            axes_spec, spec = spec
            axes = (
                axes_spec.name
                if isinstance(axes_spec, Axis)
                else "".join(axis.name for axis in axes_spec)
            )
            if axes not in _AXIS_SETS:
                raise GTScriptDefinitionError(
                    f"Field axes {axes!r} are not supported: a field has the axes "
                    f"{', '.join(_AXIS_SETS)}, in I, J, K order"
                )
        dtype, data_dims = _parse_dtype(spec)
        return FieldDescriptor(axes, dtype, data_dims)


Field = _FieldFactory()
"""The annotation of a field parameter: ``Field[dtype]`` (axes ``IJK``), ``Field[axes, dtype]``
with ``axes`` one of ``IJK``, ``IJ``, ``IK``, ``JK``, ``I``, ``J``, ``K``, and
``Field[axes, (dtype, (n, ...))]`` for data dimensions; ``dtype`` may be a name resolved by
``stencil(dtypes=...)``. The result is a ``FieldDescriptor``.
"""


@_public
class _GlobalTableFactory:
    """``GlobalTable[(dtype, (n, ...))]``: an array with data dimensions only (no grid axes).

    Declaring one works (so modules that name it import); a stencil parameter of this type is
    refused with a clear error (ADR 0016): reading ``table.A[...]`` is not implemented yet.
    """

    def __getitem__(self, spec: Any) -> FieldDescriptor:
        if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], int):
            spec = (spec[0], (spec[1],))  # GlobalTable[(np.float64, (4))]: ``(4)`` is 4
        dtype, data_dims = _parse_dtype(spec if isinstance(spec, tuple) else (spec, ()))
        if not data_dims:
            raise GTScriptDefinitionError(
                f"GlobalTable[{spec!r}]: expected GlobalTable[(dtype, (n, ...))]"
            )
        return FieldDescriptor("", dtype, data_dims)


GlobalTable = _GlobalTableFactory()
"""``GlobalTable[(dtype, (n, ...))]``: an array with data dimensions only; declaring one works,
a stencil parameter of this type is refused (not implemented yet).
"""


@_public
class _SequenceFactory:
    """``Sequence[dtype]``: released GTScript's name for a sequence type; ``(dtype, None)``."""

    def __getitem__(self, dtype: Any) -> tuple[Any, None]:
        return dtype, None


Sequence = _SequenceFactory()
"""``Sequence[dtype]``: released GTScript's name for a sequence type, kept for imports."""


@_public
def externals(*values: Any) -> tuple[Any, ...]:
    """Released GTScript's no-op marker for inlined external values: returns its arguments."""
    return values


# -- language markers (meaningful only inside a stencil definition) -------------------------------
@_public
class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise GTScriptError(
            f"gtscript.{self.name} can only be used inside a GTScript stencil or function"
        )

    def __getitem__(self, item: Any) -> Any:
        return self(item)

    def __repr__(self) -> str:
        return f"gtscript.{self.name}"


PARALLEL = _Marker("PARALLEL")
"""The iteration order of ``computation(PARALLEL)``: the vertical levels in any order, each
independent of the others.
"""
FORWARD = _Marker("FORWARD")
"""The iteration order of ``computation(FORWARD)``: the vertical levels from the first up; a level
may read what earlier levels wrote.
"""
BACKWARD = _Marker("BACKWARD")
"""The iteration order of ``computation(BACKWARD)``: the vertical levels from the last down."""
computation = _Marker("computation")
"""``with computation(order):`` opens a block of statements run over the vertical levels in
``order`` (``PARALLEL``, ``FORWARD`` or ``BACKWARD``); usable only inside a stencil.
"""
interval = _Marker("interval")
"""``with interval(start, end):`` limits the enclosing ``computation`` to the levels ``start`` to
``end`` (exclusive): integers counting from the bottom (negative: from the top), ``None`` for
the end, ``...`` for all levels; usually written ``with computation(PARALLEL), interval(...):``.
"""
horizontal = _Marker("horizontal")
"""``with horizontal(region[...], ...):`` runs its statements only on the given horizontal regions
of the compute domain.
"""
region = _Marker("region")
"""``region[I[0], :]`` (or ``region[i_start:i_end, j_start:j_end]``) names a horizontal region for
``horizontal``, by axis positions such as ``I[0]``, ``I[-1] + 1`` or externals holding them.
"""
compile_assert = _Marker("compile_assert")
"""``compile_assert(condition)``: a condition on externals checked when the stencil is built; a
false one stops the build.
"""
__INLINED = _Marker("__INLINED")  # GTScript spelling

# Math builtins: the names of released GTScript, plus numpy's arc* spellings as synonyms.
abs = _Marker("abs")
min = _Marker("min")
max = _Marker("max")
mod = _Marker("mod")
sqrt = _Marker("sqrt")
exp = _Marker("exp")
log = _Marker("log")
log10 = _Marker("log10")
sin = _Marker("sin")
cos = _Marker("cos")
tan = _Marker("tan")
asin = _Marker("asin")
acos = _Marker("acos")
atan = _Marker("atan")
sinh = _Marker("sinh")
cosh = _Marker("cosh")
tanh = _Marker("tanh")
asinh = _Marker("asinh")
acosh = _Marker("acosh")
atanh = _Marker("atanh")
arcsin = _Marker("arcsin")
arccos = _Marker("arccos")
arctan = _Marker("arctan")
arcsinh = _Marker("arcsinh")
arccosh = _Marker("arccosh")
arctanh = _Marker("arctanh")
isfinite = _Marker("isfinite")
isinf = _Marker("isinf")
isnan = _Marker("isnan")
floor = _Marker("floor")
ceil = _Marker("ceil")
trunc = _Marker("trunc")
round = _Marker("round")
round_away_from_zero = _Marker("round_away_from_zero")
cbrt = _Marker("cbrt")
gamma = _Marker("gamma")
erf = _Marker("erf")
erfc = _Marker("erfc")
# Casts.
bool_ = _Marker("bool_")
int8 = _Marker("int8")
int16 = _Marker("int16")
int32 = _Marker("int32")
int64 = _Marker("int64")
float32 = _Marker("float32")
float64 = _Marker("float64")

MATH_BUILTINS: tuple[str, ...] = (
    "abs",
    "min",
    "max",
    "mod",
    "sqrt",
    "exp",
    "log",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "isfinite",
    "isinf",
    "isnan",
    "floor",
    "ceil",
    "trunc",
    "round",
    "round_away_from_zero",
    "cbrt",
    "gamma",
    "erf",
    "erfc",
)
CAST_BUILTINS: tuple[str, ...] = ("bool_", "int8", "int16", "int32", "int64", "float32", "float64")


def _builtin_markers() -> Mapping[str, object]:
    """Every object of this module that is part of the language (not a user value)."""
    return {
        name: value
        for name, value in globals().items()
        if isinstance(value, _Marker | Axis | AxisSet | _FieldFactory)
    }


# -- GTScript functions ---------------------------------------------------------------------------
_GTSCRIPT_FUNCTION_ATTR = "__gtscript_function__"


@_public
def function(func: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``func`` as a GTScript function: inlined wherever a stencil calls it.

    A GTScript function takes fields and scalars, may shift fields (``a[1, 0, 0]``) and returns
    one value or a tuple; it has no ``computation`` of its own. A stencil calls it by name or
    through an external.

    Args:
        func: the Python function.

    Returns:
        ``func`` itself, marked.

    Raises:
        TypeError: ``func`` is not a Python function.
    """
    if not callable(func) or not hasattr(func, "__code__"):
        raise TypeError(f"gtscript.function expects a Python function, got {func!r}")
    setattr(func, _GTSCRIPT_FUNCTION_ATTR, True)
    return func


@_public
def is_gtscript_function(value: object) -> bool:
    return getattr(value, _GTSCRIPT_FUNCTION_ATTR, False) is True

"""GTScript: the language of ``gt4py.cartesian`` stencils.

    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval

    @gtscript.stencil(backend="numpy")
    def copy(a: gtscript.Field[float], b: gtscript.Field[float]):
        with computation(PARALLEL), interval(...):
            b = a

Importing this module is cheap (numpy only); the frontend, analysis and code generators are
imported when a stencil is first built.
"""

from __future__ import annotations

import dataclasses
import sys
import types  # noqa: F401  (released's gtscript namespace has it; NDSL imports it from here)
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gt4py.infra.tracebacks import hide_internal_frames as _hide_internal_frames

from ._errors import (
    USER_ERRORS as _USER_ERRORS,
    GTScriptDefinitionError as GTScriptDefinitionError,
    GTScriptError as GTScriptError,
    GTScriptSymbolError as GTScriptSymbolError,
    GTScriptSyntaxError as GTScriptSyntaxError,
    StencilArgumentError as StencilArgumentError,
    StencilCompilationError as StencilCompilationError,
)


# -- axes -----------------------------------------------------------------------------------------
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


def _parse_dtype(spec: Any) -> tuple[np.dtype[Any] | str, tuple[int, ...]]:
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], tuple):
        dtype, dims = _parse_dtype(spec[0])
        if dims or not all(isinstance(d, int) and d > 0 for d in spec[1]):
            raise GTScriptDefinitionError(f"invalid data dimensions {spec[1]!r} in Field[...]")
        return dtype, tuple(spec[1])
    if isinstance(spec, str):
        try:
            return np.dtype(spec), ()
        except TypeError:
            return spec, ()  # a name for the stencil's ``dtypes=`` mapping
    try:
        return np.dtype(spec), ()
    except TypeError:
        raise GTScriptDefinitionError(f"{spec!r} is not a valid field element type") from None


def _is_axes(spec: Any) -> bool:
    return isinstance(spec, Axis) or (
        isinstance(spec, tuple | list)
        and bool(spec)
        and all(isinstance(axis, Axis) for axis in spec)
    )


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


class _SequenceFactory:
    """``Sequence[dtype]``: released GTScript's name for a sequence type; ``(dtype, None)``."""

    def __getitem__(self, dtype: Any) -> tuple[Any, None]:
        return dtype, None


Sequence = _SequenceFactory()
"""``Sequence[dtype]``: released GTScript's name for a sequence type, kept for imports."""


def externals(*values: Any) -> tuple[Any, ...]:
    """Released GTScript's no-op marker for inlined external values: returns its arguments."""
    return values


# -- language markers (meaningful only inside a stencil definition) -------------------------------
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


# -- decorators -----------------------------------------------------------------------------------
_GTSCRIPT_FUNCTION_ATTR = "__gtscript_function__"


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


def is_gtscript_function(value: object) -> bool:
    return getattr(value, _GTSCRIPT_FUNCTION_ATTR, False) is True


def stencil(
    backend: str,
    definition: Callable[..., Any] | None = None,
    *,
    externals: Mapping[str, Any] | None = None,
    name: str | None = None,
    rebuild: bool = False,
    dtypes: Mapping[str, Any] | None = None,
    **backend_options: Any,
) -> Any:
    """Build a stencil from ``definition`` (or return a decorator that does) for ``backend``.

    ``@gtscript.stencil(backend="numpy")`` above a definition, or
    ``gtscript.stencil("numpy", definition)``. The built stencil is cached in gt4py's build
    cache under a strict fingerprint of everything that defines it, so a second process with
    the same definition loads it instead of generating it again.

    Args:
        backend: the backend's name: ``"numpy"``, ``"debug"``, ``"gt:cpu_ifirst"``,
            ``"gt:cpu_kfirst"``, ``"gt:gpu"``, ``"cuda"``.
        definition: the stencil function, its parameters annotated ``Field[...]`` or scalar
            types; left out, the result is a decorator.
        externals: compile-time values for the names the definition imports with
            ``from __externals__ import ...`` (numbers, booleans, GTScript functions, axis
            positions such as ``I[0] + 1``); part of the cache key.
        name: the stencil's name in generated code and logs; left out, the function's.
        rebuild: regenerate and recompile whatever the build cache holds (the cache is not
            changed).
        dtypes: names used as dtypes in the annotations (``Field["dtype"]``) mapped to numpy
            dtypes.
        **backend_options: options of the backend, e.g. ``verbose=True`` or the C++ backends'
            ``opt_level``.

    Returns:
        A stencil object, called as ``stencil(*fields_and_scalars, origin=..., domain=...)``
            (see "Calling a stencil" in the API reference); without ``definition``, the
            decorator that builds one.

    Raises:
        gt4py.cartesian.gtscript.GTScriptSyntaxError: the definition is not valid GTScript.
        gt4py.cartesian.gtscript.GTScriptDefinitionError: an annotation, external or dtype is
            wrong.
    """
    from ._stencil_builder import build_stencil

    caller_locals = sys._getframe(1).f_locals  # resolves string annotations naming locals

    def decorate(func: Callable[..., Any]) -> Any:
        try:
            return build_stencil(
                func,
                backend=backend,
                externals=externals,
                name=name,
                rebuild=rebuild,
                dtypes=dtypes,
                options=backend_options,
                annotation_locals=caller_locals,
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    try:
        return decorate if definition is None else decorate(definition)
    except _USER_ERRORS as error:
        _hide_internal_frames(error)
        raise


def lazy_stencil(
    backend: str,
    definition: Callable[..., Any] | None = None,
    *,
    externals: Mapping[str, Any] | None = None,
    name: str | None = None,
    rebuild: bool = False,
    dtypes: Mapping[str, Any] | None = None,
    **backend_options: Any,
) -> Any:
    """Like :func:`stencil`, but the stencil is built on its first call (or first access to
    ``.implementation``), not at decoration.

    Args:
        backend: the backend's name: ``"numpy"``, ``"debug"``, ``"gt:cpu_ifirst"``,
            ``"gt:cpu_kfirst"``, ``"gt:gpu"``, ``"cuda"``.
        definition: the stencil function, its parameters annotated ``Field[...]`` or scalar
            types; left out, the result is a decorator.
        externals: compile-time values for the names the definition imports with
            ``from __externals__ import ...`` (numbers, booleans, GTScript functions, axis
            positions such as ``I[0] + 1``); part of the cache key.
        name: the stencil's name in generated code and logs; left out, the function's.
        rebuild: regenerate and recompile whatever the build cache holds (the cache is not
            changed).
        dtypes: names used as dtypes in the annotations (``Field["dtype"]``) mapped to numpy
            dtypes.
        **backend_options: options of the backend, e.g. ``verbose=True`` or the C++ backends'
            ``opt_level``.

    Returns:
        A lazy stencil, called like the stencil it builds; without ``definition``, the
            decorator that makes one.
    """
    from ._stencil_builder import LazyStencil

    caller_locals = sys._getframe(1).f_locals

    def decorate(func: Callable[..., Any]) -> Any:
        return LazyStencil(
            func,
            backend=backend,
            externals=externals,
            name=name,
            rebuild=rebuild,
            dtypes=dtypes,
            options=backend_options,
            annotation_locals=caller_locals,
        )

    return decorate if definition is None else decorate(definition)


__all__ = [
    "Field",
    "GlobalTable",
    "Sequence",
    "externals",
    "FieldDescriptor",
    "Axis",
    "AxisIndex",
    "AxisSet",
    "I",
    "J",
    "K",
    "IJK",
    "IJ",
    "IK",
    "JK",
    "PARALLEL",
    "FORWARD",
    "BACKWARD",
    "computation",
    "interval",
    "horizontal",
    "region",
    "compile_assert",
    "function",
    "stencil",
    "lazy_stencil",
    "GTScriptError",
    "GTScriptSyntaxError",
    "GTScriptDefinitionError",
    "GTScriptSymbolError",
    "StencilArgumentError",
    "StencilCompilationError",
    "MATH_BUILTINS",
    "CAST_BUILTINS",
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
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "float32",
    "float64",
]

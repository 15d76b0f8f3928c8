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

import sys
import types  # noqa: F401  (released's gtscript namespace has it; NDSL imports it from here)
from collections.abc import Callable, Mapping
from typing import Any

from gt4py.infra.tracebacks import hide_internal_frames as _hide_internal_frames

# The language's names (axes, field annotations, markers, builtins, ``function``) live in
# ``_dsl_names``, which the frontend imports too; their ``__module__`` is this module.
from ._dsl_names import (
    __INLINED as __INLINED,
    _AXIS_SETS as _AXIS_SETS,
    _GTSCRIPT_FUNCTION_ATTR as _GTSCRIPT_FUNCTION_ATTR,
    BACKWARD as BACKWARD,
    CAST_BUILTINS as CAST_BUILTINS,
    FORWARD as FORWARD,
    IJ as IJ,
    IJK as IJK,
    IK as IK,
    JK as JK,
    MATH_BUILTINS as MATH_BUILTINS,
    PARALLEL as PARALLEL,
    Axis as Axis,
    AxisIndex as AxisIndex,
    AxisSet as AxisSet,
    Field as Field,
    FieldDescriptor as FieldDescriptor,
    GlobalTable as GlobalTable,
    I as I,
    J as J,
    K as K,
    Sequence as Sequence,
    _builtin_markers as _builtin_markers,
    _FieldFactory as _FieldFactory,
    _GlobalTableFactory as _GlobalTableFactory,
    _is_axes as _is_axes,
    _Marker as _Marker,
    _parse_dtype as _parse_dtype,
    _SequenceFactory as _SequenceFactory,
    abs as abs,
    acos as acos,
    acosh as acosh,
    arccos as arccos,
    arccosh as arccosh,
    arcsin as arcsin,
    arcsinh as arcsinh,
    arctan as arctan,
    arctanh as arctanh,
    asin as asin,
    asinh as asinh,
    atan as atan,
    atanh as atanh,
    bool_ as bool_,
    cbrt as cbrt,
    ceil as ceil,
    compile_assert as compile_assert,
    computation as computation,
    cos as cos,
    cosh as cosh,
    erf as erf,
    erfc as erfc,
    exp as exp,
    externals as externals,
    float32 as float32,
    float64 as float64,
    floor as floor,
    function as function,
    gamma as gamma,
    horizontal as horizontal,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    interval as interval,
    is_gtscript_function as is_gtscript_function,
    isfinite as isfinite,
    isinf as isinf,
    isnan as isnan,
    log as log,
    log10 as log10,
    max as max,
    min as min,
    mod as mod,
    region as region,
    round as round,
    round_away_from_zero as round_away_from_zero,
    sin as sin,
    sinh as sinh,
    sqrt as sqrt,
    tan as tan,
    tanh as tanh,
    trunc as trunc,
)
from ._errors import (
    USER_ERRORS as _USER_ERRORS,
    GTScriptDefinitionError as GTScriptDefinitionError,
    GTScriptError as GTScriptError,
    GTScriptSymbolError as GTScriptSymbolError,
    GTScriptSyntaxError as GTScriptSyntaxError,
    StencilArgumentError as StencilArgumentError,
    StencilCompilationError as StencilCompilationError,
)


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
]
__all__ += MATH_BUILTINS  # noqa: PLE0605 (the builtins, by name: the lists of _dsl_names)
__all__ += CAST_BUILTINS  # noqa: PLE0605

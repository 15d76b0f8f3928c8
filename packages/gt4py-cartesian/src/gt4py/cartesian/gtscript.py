"""GTScript: the language of ``gt4py.cartesian`` stencils.

    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval

    @gtscript.stencil(backend="numpy")
    def copy(a: gtscript.Field[float], b: gtscript.Field[float]):
        with computation(PARALLEL), interval(...):
            b = a

Importing this module loads what every decoration needs, a cache hit included (the build
cache, the stencil key, the stencil object and gt4py.storage), as released gt4py does, so that
the first stencil of a process costs what each after it does; the frontend, analysis and code
generators, which only a cache miss runs, are imported when a stencil is first generated
(ADR 0010, issue 44.8).
"""

from __future__ import annotations

import types  # noqa: F401  (released's gtscript namespace has it; NDSL imports it from here)

from ._decorators import lazy_stencil as lazy_stencil, stencil as stencil

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
    GTScriptDefinitionError as GTScriptDefinitionError,
    GTScriptError as GTScriptError,
    GTScriptSymbolError as GTScriptSymbolError,
    GTScriptSyntaxError as GTScriptSyntaxError,
    StencilArgumentError as StencilArgumentError,
    StencilCompilationError as StencilCompilationError,
)


#: released's name of the field annotation class (NDSL annotates with it)
_FieldDescriptor = FieldDescriptor

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

# Last, once this namespace is complete: the modules a warm decoration uses (ADR 0010's
# amendment for issue 44.8); a miss imports the rest. The stencil key reads the definition's
# source through ``inspect``, whose tokenizer compiles its patterns on first use: done here too.
from . import _array_likes, _runtime, _stencil_builder  # noqa: E402, F401
from ._source import warm_up as _warm_up  # noqa: E402


_warm_up()

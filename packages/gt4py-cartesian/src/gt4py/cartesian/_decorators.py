"""``gtscript.stencil`` and ``gtscript.lazy_stencil``: the decorators that build stencils.

Their ``__module__`` is :mod:`gt4py.cartesian.gtscript`, which re-exports them and then
imports the builder (the modules a cache hit uses; ADR 0010).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from gt4py.infra.tracebacks import hide_internal_frames as _hide_internal_frames

from ._dsl_names import _public
from ._errors import USER_ERRORS as _USER_ERRORS


@_public
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
        **backend_options: options of the backend (``device_sync`` of the GPU ones) and the
            common ones, as released takes them: ``build_info`` (a dict filled with the
            build's timings), ``format_source``, ``oir_pipeline`` (released's pass names to
            skip), ``cache_settings`` (``root_path``/``dir_name`` of this stencil's cache),
            ``literal_int_precision`` / ``literal_float_precision`` (32 or 64),
            ``raise_if_not_cached``.

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


@_public
def lazy_stencil(
    backend: str | None = None,
    definition: Callable[..., Any] | None = None,
    *,
    externals: Mapping[str, Any] | None = None,
    name: str | None = None,
    rebuild: bool = False,
    dtypes: Mapping[str, Any] | None = None,
    eager: bool = False,
    check_syntax: bool = True,
    **backend_options: Any,
) -> Any:
    """Like :func:`stencil`, but the stencil is built on its first call (or first access to
    ``.implementation`` or ``.field_info``), not at decoration.

    Args:
        backend: the backend's name: ``"numpy"`` (the default, as in released gt4py),
            ``"debug"``, ``"gt:cpu_ifirst"``, ``"gt:cpu_kfirst"``, ``"gt:gpu"``, ``"cuda"``.
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
        eager: build now and return the stencil itself (as :func:`stencil` does).
        check_syntax: parse the definition now, unless the stencil is in the cache already,
            so that GTScript errors surface at decoration (the default, as released).
        **backend_options: options of the backend and the common ones (see :func:`stencil`).

    Returns:
        A lazy stencil, called like the stencil it builds; without ``definition``, the
            decorator that makes one.
    """
    from ._stencil_builder import LazyStencil

    caller_locals = sys._getframe(1).f_locals

    def decorate(func: Callable[..., Any]) -> Any:
        lazy = LazyStencil(
            func,
            backend=backend or "numpy",
            externals=externals,
            name=name,
            rebuild=rebuild,
            dtypes=dtypes,
            options=backend_options,
            annotation_locals=caller_locals,
        )
        try:
            if eager:
                return lazy.implementation
            if check_syntax:
                lazy.check_syntax()
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise
        return lazy

    return decorate if definition is None else decorate(definition)


__all__ = ["lazy_stencil", "stencil"]

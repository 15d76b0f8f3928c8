"""``@field_operator``, ``@scan_operator`` and ``@program`` (public in
``gt4py.next.ffront.decorator``): each checks the definition and binds it to a backend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, Unpack, overload

from .._backend import DEFAULT_BACKEND, Backend, resolve_backend
from .._dimensions import Dimension, GridType
from ._compilation_options import DEFAULT_OPTIONS, CompilationOptions, CompilationOptionsArgs
from ._entries import _P, _R
from ._field_operator import FieldOperator, ScanOperator
from ._program import Program
from ._user_errors import USER_ERRORS as _USER_ERRORS, hide_internal_frames as _hide_internal_frames


_UNSET: Final = object()
_D = TypeVar("_D")  # what a decorator makes: a FieldOperator, ScanOperator or Program


def _backend_or_default(backend: Any, what: str) -> Backend:
    return DEFAULT_BACKEND if backend is _UNSET else resolve_backend(backend, what)


# -- decorators -----------------------------------------------------------------------------------
# The overloads are for type checkers only: `backend` is a Backend in each of them, so mypy flags
# `backend=None`; they keep the definition's signature (ParamSpec, ADR 0029) for the calls. At run time None still means embedded, with a DeprecationWarning naming
# gtx.embedded_numpy, as released 1.2.x and its users spell it (ADR 0025).


def _options(what: str, options: dict[str, Any]) -> CompilationOptions:
    return DEFAULT_OPTIONS.replace(what, **options)


def _decorator(
    kind: str,
    make: Callable[..., _D],
    backend: Any,
    compilation_options: dict[str, Any],
    **arguments: Any,
) -> Callable[[Callable[..., Any]], _D]:
    """What ``@<kind>(...)`` applies: ``make(function, backend=..., compilation_options=...,
    **arguments)``, the errors about the definition cut down to the user's frames (ADR 0030)."""

    def decorate(function: Callable[..., Any]) -> _D:
        try:
            what = f"{kind} '{function.__name__}'"
            return make(
                function,
                backend=_backend_or_default(backend, what),
                compilation_options=_options(what, compilation_options),
                **arguments,
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    return decorate


@overload
def field_operator(
    definition: Callable[_P, _R],
    /,
    *,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> FieldOperator[_P, _R]: ...
@overload
def field_operator(
    *,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> Callable[[Callable[_P, _R]], FieldOperator[_P, _R]]: ...
def field_operator(
    definition: Callable[..., Any] | None = None,
    *,
    backend: Any = _UNSET,
    grid_type: GridType | None = None,
    **compilation_options: Any,
) -> Any:
    """Decorate a function as a field operator: ``@field_operator`` or
    ``@field_operator(backend=..., ...)``.

    A field operator takes fields and scalars and returns a field (or a tuple of fields). Called
    from a program, or directly with ``out=`` (and ``domain=``) to write its result.

    Args:
        definition: the function, annotated with ``gtx.Field[...]`` and scalar types; left out
            when the decorator is called with options only.
        backend: where calls run, e.g. ``gtx.gtfn_cpu``; left out, ``gtx.embedded_numpy``.
        grid_type: ``GridType.CARTESIAN`` or ``GridType.UNSTRUCTURED``, kept on the result
            for compatibility; how offsets shift is decided by the offset provider of a call.
        **compilation_options: ``enable_jit``, ``static_params``, ``connectivities``,
            ``static_domains``, as in ``with_compilation_options``.

    Returns:
        A ``FieldOperator`` (or, without ``definition``, the decorator that makes one).

    Raises:
        gt4py.next.errors.DSLError: the definition is not valid (syntax or types).
    """

    decorate = _decorator(
        "field operator", FieldOperator, backend, compilation_options, grid_type=grid_type
    )

    try:
        return decorate if definition is None else decorate(definition)
    except _USER_ERRORS as error:
        _hide_internal_frames(error)
        raise


@overload
def scan_operator(
    definition: Callable[..., Any],
    /,
    *,
    axis: Dimension,
    forward: bool = True,
    init: Any = 0.0,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> ScanOperator: ...
@overload
def scan_operator(
    *,
    axis: Dimension,
    forward: bool = True,
    init: Any = 0.0,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> Callable[[Callable[..., Any]], ScanOperator]: ...
def scan_operator(
    definition: Callable[..., Any] | None = None,
    *,
    axis: Dimension,
    forward: bool = True,
    init: Any = 0.0,
    backend: Any = _UNSET,
    grid_type: GridType | None = None,
    **compilation_options: Any,
) -> Any:
    """Decorate ``def scan(carry, a, b) -> carry`` as a scan along ``axis`` starting at ``init``.

    The definition is called once per level of ``axis``; its first parameter is the value it
    returned at the previous level (``init`` at the first one).

    Args:
        definition: the scan function ``(carry, *fields) -> carry``; left out when the
            decorator is called with options only.
        axis: the vertical dimension the scan walks along.
        forward: ``True`` from the first level up, ``False`` from the last level down.
        init: the carry at the first level (a scalar, or a tuple for a tuple carry).
        backend: where calls run, e.g. ``gtx.gtfn_cpu``; left out, ``gtx.embedded_numpy``.
        grid_type: ``GridType.CARTESIAN`` or ``GridType.UNSTRUCTURED``, kept on the result
            for compatibility; how offsets shift is decided by the offset provider of a call.
        **compilation_options: ``enable_jit``, ``static_params``, ``connectivities``,
            ``static_domains``, as in ``with_compilation_options``.

    Returns:
        A ``ScanOperator`` (or, without ``definition``, the decorator that makes one).
    """

    decorate = _decorator(
        "scan operator",
        ScanOperator,
        backend,
        compilation_options,
        axis=axis,
        forward=forward,
        init=init,
        grid_type=grid_type,
    )

    try:
        return decorate if definition is None else decorate(definition)
    except _USER_ERRORS as error:
        _hide_internal_frames(error)
        raise


@overload
def program(
    definition: Callable[_P, object],
    /,
    *,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    frozen: bool = False,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> Program[_P]: ...
@overload
def program(
    *,
    backend: Backend = ...,
    grid_type: GridType | None = None,
    frozen: bool = False,
    **compilation_options: Unpack[CompilationOptionsArgs],
) -> Callable[[Callable[_P, object]], Program[_P]]: ...
def program(
    definition: Callable[..., Any] | None = None,
    *,
    backend: Any = _UNSET,
    grid_type: GridType | None = None,
    frozen: bool = False,
    **compilation_options: Any,
) -> Any:
    """Decorate a function calling operators as a program: ``@program`` or ``@program(backend=...)``.

    A program calls field operators and scan operators with ``out=`` fields; it returns nothing.

    Args:
        definition: the function; left out when the decorator is called with options only.
        backend: where calls run, e.g. ``gtx.gtfn_cpu``; left out, ``gtx.embedded_numpy``.
        grid_type: ``GridType.CARTESIAN`` or ``GridType.UNSTRUCTURED``, kept on the result
            for compatibility; how offsets shift is decided by the offset provider of a call.
        frozen: accepted for compatibility with released gt4py; has no effect.
        **compilation_options: those of ``with_compilation_options``: ``static_params`` names
            scalar parameters whose values become constants of the generated code (one variant
            per value); ``enable_jit=False`` makes a call that matches no ``.compile()``d
            variant an error; ``connectivities`` and ``static_domains`` fix the neighbour tables
            and domains at compile time.

    Returns:
        A ``Program`` (or, without ``definition``, the decorator that makes one).

    Raises:
        gt4py.next.errors.DSLError: the definition is not valid (syntax or types).
    """

    decorate = _decorator("program", Program, backend, compilation_options, grid_type=grid_type)

    try:
        return decorate if definition is None else decorate(definition)
    except _USER_ERRORS as error:
        _hide_internal_frames(error)
        raise


__all__ = ["field_operator", "program", "scan_operator"]

"""`Program`, what ``@program`` returns (public in ``gt4py.next.ffront.decorator``).

Decorating checks the definition (the frontend, imported on the first decoration; a program
that does not type-check fails where it is first used); calls run it on fields (embedded
backends) or build and run a compiled variant (compiled backends), inside the program call
hooks.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, Generic, Self, Unpack, overload

import numpy as np

from .._backend import Backend, ExecutionMode
from .._dimensions import GridType
from ..instrumentation._hook_machinery import (
    embedded_program_call_context as _embedded_program_call_context,
    program_call_context as _program_call_context,
)
from . import _callable_kinds
from ._compilation_options import DEFAULT_OPTIONS, CompilationOptions, CompilationOptionsArgs
from ._entries import (
    _P,
    PUBLIC_MODULE,
    _compile,
    _compiled_variants,
    _Entry,
    _jit_for_this_call,
    enable_jit_override,
)
from ._user_errors import USER_ERRORS as _USER_ERRORS, hide_internal_frames as _hide_internal_frames


class Program(_Entry, Generic[_P]):
    """A type-checked program: a sequence of operator calls writing into ``out`` fields;
    generic over its definition's parameters.

    Call it with the program's arguments and ``offset_provider=`` (neighbour tables for
    unstructured shifts; optional on Cartesian grids).
    """

    __module__ = PUBLIC_MODULE
    _kind = "program"

    def __init__(
        self,
        definition: Callable[_P, object],
        *,
        backend: Backend,
        grid_type: GridType | None = None,
        checked: Any = None,
        compilation_options: CompilationOptions = DEFAULT_OPTIONS,
        bound_args: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(definition, backend, grid_type, compilation_options)
        #: released ``with_bound_args``: parameter values every call gets (static on compiled
        #: backends, so they are constants of the generated code as in released gt4py)
        self.bound_args: dict[str, Any] = {} if bound_args is None else dict(bound_args)
        self._definition_error: Exception | None = None
        self._definition_traceback: Any = None  # each raise of the error starts from it again
        if checked is None:
            from ..errors import DSLError
            from ._frontend import check_program

            try:
                checked = check_program(definition)
            except DSLError as error:
                # As in released gt4py, a program that does not type-check fails where it is
                # first used (called, compiled), not where it is defined: a module holding
                # one that nobody calls still imports (ADR 0015).
                self._definition_error = error
                self._definition_traceback = error.__traceback__
        self._checked = checked

    def _raised_definition_error(self) -> Exception:
        """The definition's DSLError as each use raises it: a copy, with the frontend's
        traceback, so that one use's traceback does not pile onto the next one's."""
        assert self._definition_error is not None
        return copy.copy(self._definition_error).with_traceback(self._definition_traceback)

    @property
    def checked(self) -> Any:
        """The frontend's result, a ``checked.CheckedProgram`` that lowering reads (raises the
        definition's DSLError, if any)."""
        if self._definition_error is not None:
            raise self._raised_definition_error()
        return self._checked

    @functools.cached_property
    def _written(self) -> frozenset[str]:
        """The parameters the program's calls write (their arrays must be writable)."""
        from ._call_arguments import written_parameters

        return written_parameters(self.checked.calls)

    @property
    def definition_stage(self) -> Any:
        """The checked frontend definition, an eve node (raises the definition's DSLError)."""
        return self.checked.definition

    def with_backend(self, backend: Backend) -> Self:
        """The same program on another backend (not checked again; no compiled variants)."""
        return self._replace(backend=backend)

    def with_compilation_options(self, **options: Unpack[CompilationOptionsArgs]) -> Self:
        """The same program with these compilation options changed (``enable_jit``,
        ``static_params``, ``connectivities``, ``static_domains``; see
        ``gt4py.next.ffront._compilation_options``); it starts with no compiled variants."""
        return self._with_compilation_options(options)

    def with_static_params(self, *static_params: str | None) -> Self:
        """Released spelling of ``with_compilation_options(static_params=...)``; no names (or
        ``None``) means none."""
        names = tuple(p for p in static_params if p is not None)
        return self.with_compilation_options(static_params=names)

    def with_bound_args(self, **bound: Any) -> Program[...]:
        """The program with some parameters fixed: a call passes the others only. Bound
        scalars are static arguments on compiled backends (constants of the generated code).
        Its calls are not checked by type checkers (``Program[...]``)."""
        names = [p.name for p in self.checked.params]
        for name in bound:
            if name not in names:
                raise TypeError(
                    f"program '{self.__name__}'.with_bound_args(): {name!r} is not a parameter "
                    f"({', '.join(names)})"
                )
        merged = {**self.bound_args, **bound}
        static = [n for n in names if n in merged and _is_scalar_value(merged[n])]
        options = self.compilation_options
        if static:
            declared = tuple(options.static_params or ())
            options = options.replace(
                "with_bound_args",
                static_params=(*declared, *(n for n in static if n not in declared)),
            )
        return self._replace(bound_args=merged, compilation_options=options)

    def with_call_options(
        self, *, offset_provider: Any = None, enable_jit: bool | None = None
    ) -> Callable[_P, None]:
        """This program's call with the keywords a call adds given once:
        ``run.with_call_options(offset_provider=offsets)(a, b, out)`` is
        ``run(a, b, out, offset_provider=offsets)``.

        Its arguments are checked against the definition by every type checker (pyright, mypy
        without gt4py's plugin), which no ``ParamSpec`` allows for the call with the keywords
        (ADR 0045)."""
        options = {"offset_provider": offset_provider, "enable_jit": enable_jit}
        return functools.partial(self, **{k: v for k, v in options.items() if v is not None})

    # For type checkers (ADR 0029): a call with the definition's arguments only is checked
    # against them; with `offset_provider=` or `enable_jit=` (which a ParamSpec cannot add) by
    # the mypy plugin only, pyright then checks those keywords alone.
    @overload
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> None: ...
    @overload
    def __call__(
        self, *args: Any, offset_provider: Any, enable_jit: bool | None = None, **kwargs: Any
    ) -> None: ...
    @overload
    def __call__(self, *args: Any, enable_jit: bool | None, **kwargs: Any) -> None: ...
    def __call__(  # type: ignore[misc]  # P could name `offset_provider`: not in gt4py definitions
        self,
        *args: Any,
        offset_provider: Any = None,
        enable_jit: bool | None = None,
        **kwargs: Any,
    ) -> None:
        try:
            if self._definition_error is not None:
                raise self._raised_definition_error()
            if self.bound_args:
                kwargs = {**self.bound_args, **kwargs}
            if enable_jit is not None and self._mode is ExecutionMode.COMPILED:
                with _jit_for_this_call(enable_jit):
                    return self(*args, offset_provider=offset_provider, **kwargs)
            # The one check hooks cost when none is registered (no context to enter and exit).
            if _program_call_context.callbacks:
                jit = enable_jit_override.get()
                if jit is None:
                    jit = self.compilation_options.enable_jit
                if jit is None:
                    from gt4py.infra import config

                    jit = bool(config.get("enable_jit"))
                with _program_call_context(
                    program=self,
                    args=args,
                    offset_provider={} if offset_provider is None else offset_provider,
                    enable_jit=jit,
                    kwargs=kwargs,
                ):
                    if self._mode is ExecutionMode.EMBEDDED:
                        self._call_embedded(args, kwargs, offset_provider)
                    else:
                        self._call_compiled(args, kwargs, offset_provider)
                return
            if self._mode is ExecutionMode.EMBEDDED:
                self._call_embedded(args, kwargs, offset_provider)
                return
            self._call_compiled(args, kwargs, offset_provider)
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    def _call_compiled(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any
    ) -> None:
        """Run on the compiled backend; an argument only embedded would take (a safely
        widened field, ADR 0034) is converted and the call made again."""
        from ._call_arguments import run_compiled

        def run(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            self.backend.run(self, args, kwargs, offset_provider=offset_provider)  # type: ignore[attr-defined]

        params = [(p.name, p.type) for p in self._checked.params]
        run_compiled(run, params, args, kwargs, self._written)

    def _call_embedded(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any
    ) -> None:
        """Run the definition on fields (an embedded backend), inside the
        ``embedded_program_call_context`` hook; timed with ``collect_metrics_level`` above 0."""
        import time

        from .. import metrics
        from ..embedded.context import embedded_context
        from ._call_arguments import (
            argument_count_message,
            as_declared,
            check_call_arguments,
            check_writable,
            widen_to_declared,
        )

        given_args, given_kwargs = args, kwargs
        params = self._checked.params
        args, kwargs = widen_to_declared(
            [(p.name, p.type) for p in params], args, kwargs, self._written
        )
        if kwargs:
            args = self._bound(args, kwargs)
        if len(args) != len(params):
            raise TypeError(
                argument_count_message(self.__name__, [p.name for p in params], len(args))
            )
        declared = [p.type for p in params]
        callee = f"program '{self.__name__}'"
        check_call_arguments(callee, [p.name for p in params], declared, args)
        for param, value in zip(params, args, strict=True):
            if param.name in self._written:
                check_writable(callee, param.name, value)
        args = tuple(as_declared(a, t) for a, t in zip(args, declared, strict=True))
        definition: Callable[..., object] = self.definition  # the checked arguments, bound
        timed = metrics.level() > 0
        started = time.perf_counter() if timed else 0.0
        if _embedded_program_call_context.callbacks:
            hook = _embedded_program_call_context(
                self, given_args, {} if offset_provider is None else offset_provider, given_kwargs
            )
            with hook, embedded_context(offset_provider=offset_provider, lazy=True):
                definition(*args)
        else:
            with embedded_context(offset_provider=offset_provider, lazy=True):
                definition(*args)
        if timed:
            metrics.record_embedded_call(
                self.__name__, self.backend.name, time.perf_counter() - started
            )

    def _bound(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Keyword arguments in parameter order."""
        import inspect

        try:
            bound = inspect.signature(self.definition).bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"program '{self.__name__}': {error}") from None
        return tuple(bound.arguments.values())

    @property
    def compiled_variants(self) -> tuple[Any, ...]:
        """The variants compiled on this program's backend so far (none on embedded backends).

        Each has ``description`` (the argument types, static values and offset provider it was
        compiled for), ``stages`` (per stage of ``backend.STAGES``: the frontend definition,
        the IR before and after the passes, the generated code, the built library) and
        ``compile_seconds``."""
        return _compiled_variants(self)

    def compile(self, offset_provider: Any = None, **static_arguments: Any) -> Self:
        """Compile ahead of time (compiled backends only): ``compile(offset_provider=...,
        n=[1, 2])`` builds one variant per combination of the static arguments' values, from
        the declared parameter types, and returns the program. With ``async_compilation`` on it
        returns at once; ``gtx.wait_for_compilation()`` waits."""
        try:
            return _compile(self, f"program '{self.__name__}'", offset_provider, static_arguments)
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise


def _is_scalar_value(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.number))


_callable_kinds.register(Program, "program")

__all__ = ["Program"]

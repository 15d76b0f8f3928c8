"""``@field_operator``, ``@scan_operator`` and ``@program``: checked definitions bound to a backend.

Decorating parses and type-checks the definition (errors are :class:`gt4py.next.errors.DSLError`
with the user's file:line:col); the frontend modules are imported on the first decoration, so
``import gt4py.next`` stays cheap. Calls dispatch on the backend: embedded backends run the
Python definition on fields, compiled backends build (or reuse) a compiled variant.
"""

from __future__ import annotations

import contextvars
import copy
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Generic, ParamSpec, Self, TypeVar, Unpack, overload

import numpy as np

from .._backend import DEFAULT_BACKEND, Backend, ExecutionMode, execution_mode, resolve_backend
from .._dimensions import Dimension, GridType
from ..instrumentation._hook_machinery import (
    embedded_program_call_context as _embedded_program_call_context,
    program_call_context as _program_call_context,
)
from ._compilation_options import DEFAULT_OPTIONS, CompilationOptions, CompilationOptionsArgs
from ._user_errors import USER_ERRORS as _USER_ERRORS, hide_internal_frames as _hide_internal_frames


_UNSET: Final = object()
_EntryT = TypeVar("_EntryT")
#: the definition's parameters and result, kept by the decorators for type checkers only (ADR
#: 0029): a call with a wrong, missing or extra argument is a type error at the call site. With
#: the defaults (PEP 696, typing_extensions' stubs: no run-time dependency) a bare `Program` or
#: `FieldOperator` annotation means "any signature", as before, also under `--strict`.
if TYPE_CHECKING:
    from typing_extensions import ParamSpec as _ParamSpecDefault, TypeVar as _TypeVarDefault

    _P = _ParamSpecDefault("_P", default=...)
    _R = _TypeVarDefault("_R", default=Any)
else:
    _P = ParamSpec("_P")
    _R = TypeVar("_R")
#: where a compiled backend keeps the variant pools of a definition (in its ``__dict__``)
COMPILED_POOLS_ATTRIBUTE: Final = "__gt_compiled_pools__"
_log = logging.getLogger("gt4py.next.compile")

#: ``program(..., enable_jit=...)`` for the duration of one call (read by the variant pool only
#: when a call matches no variant, so the hot path never looks at it).
enable_jit_override: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "gt4py_next_enable_jit_override", default=None
)


def _backend_or_default(backend: Any, what: str) -> Backend:
    return DEFAULT_BACKEND if backend is _UNSET else resolve_backend(backend, what)


def _copy_metadata(target: Any, definition: Callable[..., Any]) -> None:
    target.__name__ = definition.__name__
    target.__qualname__ = definition.__qualname__
    target.__doc__ = definition.__doc__
    target.__module__ = definition.__module__


class FieldOperator(Generic[_P, _R]):
    """A type-checked field operator, generic over its definition's parameters and result.

    Called from a program or directly with ``out=`` (and ``domain=``, ``offset_provider=``)
    it writes its result into ``out``; called directly without ``out`` it returns the result;
    called from another operator it is part of that operator's expression.
    """

    _kind = "field operator"
    __name__: str  # copied from the definition (_copy_metadata)

    def __init__(
        self,
        definition: Callable[_P, _R],
        *,
        backend: Backend,
        grid_type: GridType | None = None,
        checked: Any = None,
        compilation_options: CompilationOptions = DEFAULT_OPTIONS,
    ) -> None:
        self.definition = definition
        self.grid_type = None if grid_type is None else GridType(grid_type)
        _copy_metadata(self, definition)
        self.backend = resolve_backend(backend, f"{self._kind} '{definition.__name__}'")
        self._mode = execution_mode(self.backend, f"{self._kind} '{definition.__name__}'")
        self.compilation_options = compilation_options
        #: the frontend's result (a ``checked.CheckedOperator``): lowering reads its typed body
        self.checked = checked if checked is not None else self._check()
        self.__gt_signature__ = self.checked.signature

    def _check(self) -> Any:
        from ._frontend import check_operator

        return check_operator(self.definition)

    def _replace(self, **changes: Any) -> Self:
        return _replace(self, f"{self._kind} '{self.__name__}'", changes)

    def with_backend(self, backend: Backend) -> Self:
        """The same operator on another backend (the definition is not checked again)."""
        return self._replace(backend=backend)

    def with_grid_type(self, grid_type: GridType) -> Self:
        return self._replace(grid_type=GridType(grid_type))

    def with_compilation_options(self, **options: Unpack[CompilationOptionsArgs]) -> Self:
        """The same operator with these compilation options changed (``enable_jit``,
        ``static_params``, ``connectivities``, ``static_domains``; see
        ``gt4py.next.ffront._compilation_options``); it starts with no compiled variants."""
        what = f"{self._kind} '{self.__name__}'.with_compilation_options()"
        return self._replace(compilation_options=self.compilation_options.replace(what, **options))

    @property
    def static_params(self) -> tuple[str, ...] | None:
        return self.compilation_options.static_params

    @property
    def enable_jit(self) -> bool | None:
        return self.compilation_options.enable_jit

    @property
    def __gt_allocator__(self) -> Any:
        return self.backend.allocator

    @property
    def definition_stage(self) -> Any:
        """The checked frontend definition (an eve node)."""
        return self.__gt_signature__.definition

    # For type checkers (ADR 0029): a call with the definition's arguments only (from another
    # operator, or a direct call returning the result) is checked against them; a ParamSpec
    # cannot add keywords, so a call with `out=` or `offset_provider=` is checked against the
    # definition by the mypy plugin only (pyright checks those keywords alone).
    @overload
    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R: ...
    @overload
    def __call__(
        self,
        *args: Any,
        out: Any,
        domain: Any = None,
        offset_provider: Any = None,
        enable_jit: bool | None = None,
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __call__(
        self, *args: Any, offset_provider: Any, enable_jit: bool | None = None, **kwargs: Any
    ) -> _R: ...
    def __call__(  # type: ignore[misc]  # P could name `out`: not in gt4py definitions
        self,
        *args: Any,
        out: Any = None,
        domain: Any = None,
        offset_provider: Any = None,
        enable_jit: bool | None = None,
        **kwargs: Any,
    ) -> Any:
        try:
            from . import _embedded_run

            if enable_jit is not None and self._mode is ExecutionMode.COMPILED:
                with _jit_for_this_call(enable_jit):
                    return self(
                        *args, out=out, domain=domain, offset_provider=offset_provider, **kwargs
                    )
            if self._mode is ExecutionMode.EMBEDDED or _embedded_run.in_operator_body.get():
                args, kwargs = _numpy_bools(args, kwargs)
            if out is None:
                if domain is not None:
                    raise TypeError(f"{self.__name__}: 'domain' needs 'out'")
                if offset_provider is None and _embedded_run.in_operator_body.get():
                    return _embedded_run.call_nested(
                        self.definition,
                        args,
                        kwargs,
                        self.__gt_signature__.forwards_requested_domain,
                    )
                if self._mode is ExecutionMode.EMBEDDED:
                    return _embedded_run.run_returning(
                        self.definition, args, kwargs, offset_provider
                    )
                raise TypeError(
                    f"{self.__name__} runs on the compiled backend {self.backend.name}: pass "
                    "'out=' (a compiled field operator writes into fields)"
                )
            if self._mode is ExecutionMode.EMBEDDED or _embedded_run.in_operator_body.get():
                from ._call_arguments import check_writable

                check_writable(f"field operator '{self.__name__}'", "out", out)
                _embedded_run.run_into(
                    self.definition,
                    args,
                    kwargs,
                    out,
                    domain,
                    offset_provider,
                    self.__gt_signature__.forwards_requested_domain,
                )
                return None
            return self.backend.run(  # type: ignore[attr-defined]
                self,
                args,
                {**kwargs, "out": out, "domain": domain},
                offset_provider=offset_provider,
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    @property
    def compiled_variants(self) -> tuple[Any, ...]:
        """The variants compiled on this operator's backend so far (see ``Program``)."""
        return _compiled_variants(self)

    def compile(self, offset_provider: Any = None, **static_arguments: Any) -> Self:
        """Compile ahead of time (compiled backends only) the call ``op(*args, out=...,
        offset_provider=...)``, ``out`` typed as the operator's result: one variant per
        combination of the static arguments' values (each a list), as ``Program.compile``."""
        try:
            return _compile(
                self, f"{self._kind} '{self.__name__}'", offset_provider, static_arguments
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    def __repr__(self) -> str:
        return f"<{self._kind} {self.__name__} on {self.backend.name}>"


class ScanOperator(FieldOperator[..., Any]):
    """A field operator that carries a value along ``axis``, level by level.

    Not generic: its definition takes the carry and scalars, a call passes fields (or scalars)
    without the carry, which a ParamSpec cannot say; calls are not checked by type checkers.
    """

    _kind = "scan operator"

    def __init__(
        self,
        definition: Callable[..., Any],
        *,
        axis: Dimension,
        forward: bool = True,
        init: Any = 0.0,
        backend: Backend,
        grid_type: GridType | None = None,
        checked: Any = None,
        compilation_options: CompilationOptions = DEFAULT_OPTIONS,
    ) -> None:
        if not isinstance(axis, Dimension):
            raise TypeError(f"scan_operator's axis must be a Dimension, got {axis!r}")
        self.axis = axis
        self.forward = bool(forward)
        self.init = init
        super().__init__(
            definition,
            backend=backend,
            grid_type=grid_type,
            checked=checked,
            compilation_options=compilation_options,
        )
        self._result_dtypes: Any = None  # computed on the first embedded call
        self._binder: Any = None

    def _check(self) -> Any:
        from ._frontend import check_operator

        return check_operator(self.definition, scan_axis=self.axis, init=self.init)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if not kwargs:
            expected = len(self.__gt_signature__.params)
            if len(args) != expected:
                raise TypeError(
                    f"{self.__name__} takes {expected} argument(s) besides the carry, "
                    f"got {len(args)}"
                )
            return list(args)
        if self._binder is None:
            import inspect

            parameters = list(inspect.signature(self.definition).parameters.values())[1:]
            self._binder = inspect.Signature(parameters)
        bound = self._binder.bind(*args, **kwargs)
        return list(bound.arguments.values())

    def __call__(
        self,
        *args: Any,
        out: Any = None,
        domain: Any = None,
        offset_provider: Any = None,
        enable_jit: bool | None = None,
        **kwargs: Any,
    ) -> Any:
        try:
            from . import _embedded_run

            embedded = self._mode is ExecutionMode.EMBEDDED or _embedded_run.in_operator_body.get()
            if not embedded:
                return super().__call__(
                    *args,
                    out=out,
                    domain=domain,
                    offset_provider=offset_provider,
                    enable_jit=enable_jit,
                    **kwargs,
                )
            if out is not None:
                from ._call_arguments import check_writable

                check_writable(f"scan operator '{self.__name__}'", "out", out)
            signature = self.__gt_signature__
            if self._result_dtypes is None:
                self._result_dtypes = _dtypes_of(signature.definition.returns)
            result = _embedded_run.run_scan(
                signature.level_function or self.definition,
                self.axis,
                self.forward,
                self.init,
                self._bind(args, kwargs),
                out,
                domain,
                offset_provider,
                self._result_dtypes,
                pointwise=signature.level_function is None,
            )
            return result if out is None else None
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise


def _numpy_bools(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Python ``bool`` arguments as ``numpy.bool_`` for embedded execution: in the DSL
    ``~flag`` is logical negation, Python's ``~True`` is ``-2``."""
    if any(type(a) is bool for a in args):
        args = tuple(np.bool_(a) if type(a) is bool else a for a in args)
    if any(type(v) is bool for v in kwargs.values()):
        kwargs = {k: np.bool_(v) if type(v) is bool else v for k, v in kwargs.items()}
    return args, kwargs


def _dtypes_of(type_: Any) -> Any:
    from . import type_specifications as ts

    if isinstance(type_, ts.TupleType):
        return tuple(_dtypes_of(t) for t in type_.types)
    if isinstance(type_, ts.NamedCollectionType) and hasattr(type_.python_type, "_fields"):
        # a NamedTuple carry: its dtypes in a NamedTuple of the same class (results keep it)
        return type_.python_type(*(_dtypes_of(t) for t in type_.types))
    dtype = ts.element_dtype(type_)
    if dtype is None:
        raise TypeError(
            f"a scan operator must return scalars, tuples or NamedTuples of scalars, not {type_}"
        )
    return dtype


class Program(Generic[_P]):
    """A type-checked program: a sequence of operator calls writing into ``out`` fields;
    generic over its definition's parameters.

    Call it with the program's arguments and ``offset_provider=`` (neighbour tables for
    unstructured shifts; optional on Cartesian grids).
    """

    __name__: str  # copied from the definition (_copy_metadata)

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
        self.definition = definition
        self.grid_type = None if grid_type is None else GridType(grid_type)
        _copy_metadata(self, definition)
        self.backend = resolve_backend(backend, f"program '{definition.__name__}'")
        self._mode = execution_mode(self.backend, f"program '{definition.__name__}'")
        self.compilation_options = compilation_options
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

    def with_grid_type(self, grid_type: GridType) -> Self:
        return self._replace(grid_type=GridType(grid_type))

    def with_compilation_options(self, **options: Unpack[CompilationOptionsArgs]) -> Self:
        """The same program with these compilation options changed (``enable_jit``,
        ``static_params``, ``connectivities``, ``static_domains``; see
        ``gt4py.next.ffront._compilation_options``); it starts with no compiled variants."""
        what = f"program '{self.__name__}'.with_compilation_options()"
        return self._replace(compilation_options=self.compilation_options.replace(what, **options))

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

    @property
    def static_params(self) -> tuple[str, ...] | None:
        return self.compilation_options.static_params

    @property
    def enable_jit(self) -> bool | None:
        return self.compilation_options.enable_jit

    def _replace(self, **changes: Any) -> Self:
        return _replace(self, f"program '{self.__name__}'", changes)

    @property
    def __gt_allocator__(self) -> Any:
        return self.backend.allocator

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
                        self.backend.run(self, args, kwargs, offset_provider=offset_provider)  # type: ignore[attr-defined]
                return
            if self._mode is ExecutionMode.EMBEDDED:
                self._call_embedded(args, kwargs, offset_provider)
                return
            self.backend.run(self, args, kwargs, offset_provider=offset_provider)  # type: ignore[attr-defined]
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    def _call_embedded(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], offset_provider: Any
    ) -> None:
        """Run the definition on fields (an embedded backend), inside the
        ``embedded_program_call_context`` hook; timed with ``collect_metrics_level`` above 0."""
        import time

        from .. import metrics
        from ..embedded.context import embedded_context
        from ._call_arguments import as_declared, check_call_arguments, check_writable

        given_args, given_kwargs = args, kwargs
        params = self._checked.params
        if kwargs:
            args = self._bound(args, kwargs)
        if len(args) != len(params):
            raise TypeError(
                f"{self.__name__}() takes {len(params)} argument(s) "
                f"({', '.join(p.name for p in params)}), got {len(args)}"
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

    def __repr__(self) -> str:
        return f"<program {self.__name__} on {self.backend.name}>"


def _is_scalar_value(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.bool_, np.number))


def _replace(entry: _EntryT, what: str, changes: dict[str, Any]) -> _EntryT:
    """A copy of ``entry`` with ``changes``, without the compiled variants of ``entry``: as in
    released gt4py, ``with_*`` gives a new object whose variants are its own (the variant pool
    reads the options, which may differ)."""
    clone: Any = object.__new__(type(entry))
    clone.__dict__.update(entry.__dict__)
    clone.__dict__.pop(COMPILED_POOLS_ATTRIBUTE, None)
    clone.__dict__.update(changes)
    if "backend" in changes:
        clone.backend = resolve_backend(changes["backend"], what)
        clone._mode = execution_mode(clone.backend, what)
    return clone  # type: ignore[no-any-return]


class _jit_for_this_call:
    """``enable_jit=`` of one call, for the pool's miss path (a context variable)."""

    __slots__ = ("_token", "_value")

    def __init__(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"enable_jit must be True or False, got {value!r}")
        self._value = value

    def __enter__(self) -> None:
        self._token = enable_jit_override.set(self._value)

    def __exit__(self, *exc: object) -> None:
        enable_jit_override.reset(self._token)


def _compiled_variants(entry: FieldOperator[..., Any] | Program[...]) -> tuple[Any, ...]:
    if entry._mode is ExecutionMode.EMBEDDED:
        return ()
    pool = entry.backend.pool(entry)  # type: ignore[attr-defined]
    return tuple(pool.variants.values())


_CompiledT = TypeVar("_CompiledT", bound="FieldOperator[..., Any] | Program[...]")


def _compile(
    entry: _CompiledT,
    what: str,
    offset_provider: Any,
    static_arguments: dict[str, Any],
) -> _CompiledT:
    if entry._mode is ExecutionMode.EMBEDDED:
        # As released: compiling for an embedded backend does nothing (there is no code).
        _log.debug(
            "%s: .compile() on the embedded backend %s does nothing", what, entry.backend.name
        )
        return entry
    if offset_provider is None:
        offset_provider = entry.compilation_options.connectivities
    result = entry.backend.compile(  # type: ignore[attr-defined]
        entry, offset_provider=offset_provider, **static_arguments
    )
    return entry if result is None else result


# -- decorators -----------------------------------------------------------------------------------
# The overloads are for type checkers only: `backend` is a Backend in each of them, so mypy flags
# `backend=None`; they keep the definition's signature (ParamSpec, ADR 0029) for the calls. At run time None still means embedded, with a DeprecationWarning naming
# gtx.embedded_numpy, as released 1.2.x and its users spell it (ADR 0025).


def _options(what: str, options: dict[str, Any]) -> CompilationOptions:
    return DEFAULT_OPTIONS.replace(what, **options)


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

    def decorate(function: Callable[..., Any]) -> FieldOperator[..., Any]:
        try:
            what = f"field operator '{function.__name__}'"
            return FieldOperator(
                function,
                backend=_backend_or_default(backend, what),
                grid_type=grid_type,
                compilation_options=_options(what, compilation_options),
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

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

    def decorate(function: Callable[..., Any]) -> ScanOperator:
        try:
            what = f"scan operator '{function.__name__}'"
            return ScanOperator(
                function,
                axis=axis,
                forward=forward,
                init=init,
                backend=_backend_or_default(backend, what),
                grid_type=grid_type,
                compilation_options=_options(what, compilation_options),
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

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

    def decorate(function: Callable[..., Any]) -> Program[...]:
        try:
            what = f"program '{function.__name__}'"
            return Program(
                function,
                backend=_backend_or_default(backend, what),
                grid_type=grid_type,
                compilation_options=_options(what, compilation_options),
            )
        except _USER_ERRORS as error:  # the user's frames only (ADR 0030)
            _hide_internal_frames(error)
            raise

    try:
        return decorate if definition is None else decorate(definition)
    except _USER_ERRORS as error:
        _hide_internal_frames(error)
        raise


__all__ = ["FieldOperator", "Program", "ScanOperator", "field_operator", "program", "scan_operator"]

"""`FieldOperator` and `ScanOperator`, what ``@field_operator`` and ``@scan_operator`` return
(public in ``gt4py.next.ffront.decorator``).

Decorating checks the definition (the frontend, imported on the first decoration); calls run
it on fields (embedded backends) or build and run a compiled variant (compiled backends).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, Self, Unpack, overload

import numpy as np

from .._backend import Backend, ExecutionMode
from .._dimensions import Dimension, GridType
from . import _callable_kinds
from ._compilation_options import DEFAULT_OPTIONS, CompilationOptions, CompilationOptionsArgs
from ._entries import (
    _P,
    _R,
    PUBLIC_MODULE,
    _compile,
    _compiled_variants,
    _Entry,
    _jit_for_this_call,
)
from ._user_errors import USER_ERRORS as _USER_ERRORS, hide_internal_frames as _hide_internal_frames


class FieldOperator(_Entry, Generic[_P, _R]):
    """A type-checked field operator, generic over its definition's parameters and result.

    Called from a program or directly with ``out=`` (and ``domain=``, ``offset_provider=``)
    it writes its result into ``out``; called directly without ``out`` it returns the result;
    called from another operator it is part of that operator's expression.
    """

    __module__ = PUBLIC_MODULE
    _kind = "field operator"

    def __init__(
        self,
        definition: Callable[_P, _R],
        *,
        backend: Backend,
        grid_type: GridType | None = None,
        checked: Any = None,
        compilation_options: CompilationOptions = DEFAULT_OPTIONS,
    ) -> None:
        super().__init__(definition, backend, grid_type, compilation_options)
        #: the frontend's result (a ``checked.CheckedOperator``): lowering reads its typed body
        self.checked = checked if checked is not None else self._check()
        self.__gt_signature__ = self.checked.signature

    def _check(self) -> Any:
        from ._frontend import check_operator

        return check_operator(self.definition)

    def with_backend(self, backend: Backend) -> Self:
        """The same operator on another backend (the definition is not checked again)."""
        return self._replace(backend=backend)

    def with_compilation_options(self, **options: Unpack[CompilationOptionsArgs]) -> Self:
        """The same operator with these compilation options changed (``enable_jit``,
        ``static_params``, ``connectivities``, ``static_domains``; see
        ``gt4py.next.ffront._compilation_options``); it starts with no compiled variants."""
        return self._with_compilation_options(options)

    @property
    def definition_stage(self) -> Any:
        """The checked frontend definition (an eve node)."""
        return self.__gt_signature__.definition

    # For type checkers (ADR 0029): a call with the definition's arguments only (from another
    # operator, or a direct call returning the result) is checked against them; a ParamSpec
    # cannot add keywords, so a call with `out=` or `offset_provider=` is checked against the
    # definition by the mypy plugin only (pyright checks those keywords alone).
    @overload
    def with_call_options(
        self,
        *,
        out: Any,
        domain: Any = None,
        offset_provider: Any = None,
        enable_jit: bool | None = None,
    ) -> Callable[_P, None]: ...
    @overload
    def with_call_options(
        self, *, offset_provider: Any = None, enable_jit: bool | None = None
    ) -> Callable[_P, _R]: ...
    def with_call_options(self, **options: Any) -> Callable[..., Any]:
        """This operator's call with the keywords a call adds given once: ``op.with_call_options
        (out=out, offset_provider=offsets)(a, b)`` is ``op(a, b, out=out, offset_provider=offsets)``.

        Its arguments are checked against the definition by every type checker (pyright, mypy
        without gt4py's plugin), which no ``ParamSpec`` allows for the call with the keywords
        (ADR 0045)."""
        return functools.partial(self, **{k: v for k, v in options.items() if v is not None})

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
                if not _embedded_run.in_operator_body.get():
                    from ._call_arguments import widen_to_declared

                    args, kwargs = widen_to_declared(self.__gt_signature__.params, args, kwargs)
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
            from ._call_arguments import run_compiled

            def run(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                return self.backend.run(  # type: ignore[attr-defined]
                    self,
                    args,
                    {**kwargs, "out": out, "domain": domain},
                    offset_provider=offset_provider,
                )

            # a safely widened field argument (ADR 0034) as embedded takes it
            return run_compiled(run, self.__gt_signature__.params, args, kwargs)
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


class ScanOperator(FieldOperator[..., Any]):
    """A field operator that carries a value along ``axis``, level by level.

    Not generic: its definition takes the carry and scalars, a call passes fields (or scalars)
    without the carry, which a ParamSpec cannot say; calls are not checked by type checkers.
    """

    __module__ = PUBLIC_MODULE
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


# a scan operator is a FieldOperator: registered with it
_callable_kinds.register(FieldOperator, "operator")

__all__ = ["FieldOperator", "ScanOperator"]

"""What field operators, scan operators and programs share: their type parameters, their base
class ``_Entry``, the ``with_*`` copy, the ``enable_jit=`` override of one call and
``.compile()``.

The classes live in ``_field_operator`` and ``_program``, the decorators in ``_decorators``;
``decorator`` is their public face.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, ParamSpec, Self, TypeVar

from .._backend import Backend, ExecutionMode, execution_mode, resolve_backend
from .._dimensions import GridType
from ._compilation_options import CompilationOptions, CompilationOptionsArgs


if TYPE_CHECKING:  # annotations only: those modules import this one
    from ._field_operator import FieldOperator
    from ._program import Program

#: the public module of the decorated-definition classes (their repr and pickled name)
PUBLIC_MODULE: Final = "gt4py.next.ffront.decorator"
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


def _copy_metadata(target: Any, definition: Callable[..., Any]) -> None:
    target.__name__ = definition.__name__
    target.__qualname__ = definition.__qualname__
    target.__doc__ = definition.__doc__
    target.__module__ = definition.__module__


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


class _Entry:
    """The base of ``FieldOperator`` (and ``ScanOperator``) and ``Program``: the definition on a
    backend with compilation options, and what they do alike with them. The public methods
    whose docs differ (``with_backend``, ``with_compilation_options``, ``compile``, ...) are
    each class's own; they call the helpers here."""

    _kind: str  # "field operator", "scan operator", "program": names the entry in messages
    __name__: str  # copied from the definition (_copy_metadata)

    def __init__(
        self,
        definition: Callable[..., Any],
        backend: Backend,
        grid_type: GridType | None,
        compilation_options: CompilationOptions,
    ) -> None:
        self.definition = definition
        self.grid_type = None if grid_type is None else GridType(grid_type)
        _copy_metadata(self, definition)
        self.backend = resolve_backend(backend, f"{self._kind} '{definition.__name__}'")
        self._mode = execution_mode(self.backend, f"{self._kind} '{definition.__name__}'")
        self.compilation_options = compilation_options

    def _replace(self, **changes: Any) -> Self:
        return _replace(self, f"{self._kind} '{self.__name__}'", changes)

    def _with_compilation_options(self, options: CompilationOptionsArgs) -> Self:
        what = f"{self._kind} '{self.__name__}'.with_compilation_options()"
        return self._replace(compilation_options=self.compilation_options.replace(what, **options))

    def with_grid_type(self, grid_type: GridType) -> Self:
        return self._replace(grid_type=GridType(grid_type))

    @property
    def static_params(self) -> tuple[str, ...] | None:
        return self.compilation_options.static_params

    @property
    def enable_jit(self) -> bool | None:
        return self.compilation_options.enable_jit

    @property
    def __gt_allocator__(self) -> Any:
        return self.backend.allocator

    def __repr__(self) -> str:
        return f"<{self._kind} {self.__name__} on {self.backend.name}>"


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

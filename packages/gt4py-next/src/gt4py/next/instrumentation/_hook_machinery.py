"""Hooks: callbacks that gt4py.next runs around program calls and when it compiles a variant.

A hook is declared by a function whose signature is the one every callback must have (its body
is empty: with nothing registered a hook does nothing, and its call sites skip it after one
check of ``hook.callbacks``). Two kinds:

- :class:`ContextHook` (``@context_hook``): each callback is called with the hook's arguments
  and returns a context manager; ``with hook(...):`` enters them in registration order and
  exits them in reverse order (a fresh stack per call: calls may nest and run in threads).
- :class:`EventHook` (``@event_hook``): ``hook(...)`` calls each callback in registration order.

``register(callback, name=None, index=None)`` checks the callback's parameters against the
declaration (names, kinds and defaults; annotations are not compared) and raises
``ValueError`` on a mismatch; ``index`` inserts it at that position of ``callbacks`` (as
``list.insert``), else it is appended. ``remove(name_or_callback)`` takes it out again
(``KeyError`` when it is not registered).

An exception raised by a callback propagates to the caller of the program (or of
``.compile()``): raised while a context hook enters, the call does not run and the contexts
already entered are exited with that exception; raised while exiting, the remaining contexts
are still exited and the first such exception propagates. A context manager cannot swallow
the program's exception. An event callback that raises stops the callbacks after it.

The hooks of gt4py.next (``gt4py.next.instrumentation.hooks`` re-exports them) are declared at
the end of this module, below the frontend and the backends that run them.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar


if TYPE_CHECKING:
    from gt4py.next import common
    from gt4py.next.backends._compiled_programs import ProgramPool
    from gt4py.next.backends._variant_keys import VariantKey
    from gt4py.next.ffront.decorator import Program


P = ParamSpec("P")
R = TypeVar("R")


def _default_name(callback: Callable[..., Any]) -> str:
    qualname = getattr(callback, "__qualname__", type(callback).__qualname__)
    return f"{getattr(callback, '__module__', None)}.{qualname}#{id(callback)}"


class _DocOfDefinition:
    """``__doc__`` of a hook class: its own docstring, and of a hook its declaration's."""

    def __init__(self, class_doc: str | None) -> None:
        self.class_doc = class_doc

    def __get__(self, instance: Any, owner: Any = None) -> str | None:
        return self.class_doc if instance is None else instance.definition.__doc__


def _comparable(parameter: inspect.Parameter) -> inspect.Parameter:
    return parameter.replace(annotation=inspect.Parameter.empty)


class _Hook(Generic[P, R]):
    """What both kinds of hooks share: the declaration and the registered callbacks."""

    __slots__ = ("_entries", "_lock", "_signature", "callbacks", "definition", "name")

    kind = "hook"

    def __init__(self, definition: Callable[P, R]) -> None:
        self.definition = definition
        self.name: str = definition.__name__
        #: The registered callbacks in the order they run (empty: the call sites skip the hook).
        self.callbacks: tuple[Callable[P, R], ...] = ()
        self._entries: tuple[tuple[str, Callable[P, R]], ...] = ()
        self._signature: inspect.Signature | None = None
        self._lock = threading.Lock()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__doc__ = _DocOfDefinition(cls.__dict__.get("__doc__"))  # type: ignore[assignment]

    @property
    def signature(self) -> inspect.Signature:
        """The parameters every callback must have."""
        if self._signature is None:
            self._signature = inspect.signature(self.definition)
        return self._signature

    @property
    def registry(self) -> dict[str, Callable[P, R]]:
        """The registered callbacks by name, in the order they run."""
        return dict(self._entries)

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name}{self.signature}: {len(self.callbacks)} callback(s)>"

    def register(
        self, callback: Callable[P, R], *, name: str | None = None, index: int | None = None
    ) -> None:
        """Register ``callback`` (under ``name``, default: its qualified name and id) to run
        at position ``index`` of ``callbacks`` (default: last)."""
        if not callable(callback):
            raise TypeError(f"{self.name}: a callback must be callable, got {callback!r}")
        try:
            given = inspect.signature(callback)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"{self.name}: cannot read the signature of {callback!r} ({error})"
            ) from None
        expected = self.signature
        if [_comparable(p) for p in given.parameters.values()] != [
            _comparable(p) for p in expected.parameters.values()
        ]:
            raise ValueError(
                f"Callback signature {given} does not match hook signature {expected} of "
                f"{self.name}: a callback takes the hook's parameters, by the same names"
            )
        name = name if name is not None else _default_name(callback)
        with self._lock:
            entries = list(self._entries)
            if any(existing == name for existing, _ in entries):
                raise ValueError(f"{self.name}: a callback named {name!r} is already registered")
            if index is None:
                entries.append((name, callback))
            else:
                entries.insert(index, (name, callback))
            self._set(entries)

    def remove(self, callback: str | Callable[P, R]) -> None:
        """Remove a callback: by its registered name, or the callback object (all of its
        registrations)."""
        with self._lock:
            if isinstance(callback, str):
                kept = [(n, c) for n, c in self._entries if n != callback]
                missing = f"no callback registered under the name {callback!r}"
            else:
                kept = [(n, c) for n, c in self._entries if c is not callback]
                missing = f"callback {callback!r} is not registered"
            if len(kept) == len(self._entries):
                raise KeyError(f"{self.name}: {missing}")
            self._set(kept)

    def _set(self, entries: list[tuple[str, Callable[P, R]]]) -> None:
        # One assignment each: a call reading ``callbacks`` sees the old or the new tuple.
        self._entries = tuple(entries)
        self.callbacks = tuple(c for _, c in entries)


class EventHook(_Hook[P, None]):
    """A hook that calls its callbacks in order when its event happens."""

    __slots__ = ()

    kind = "event hook"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for callback in self.callbacks:
            callback(*args, **kwargs)


class _EnteredCallbacks(contextlib.AbstractContextManager[None]):
    """The context managers the callbacks of one hook call returned, entered as one."""

    __slots__ = ("_entered", "_managers")

    def __init__(self, managers: list[Any]) -> None:
        self._managers = managers
        self._entered: list[Any] = []

    def __enter__(self) -> None:
        entered = self._entered
        for manager in self._managers:
            try:
                enter = type(manager).__enter__
            except AttributeError:
                error: BaseException = TypeError(
                    f"a callback of a context hook returned {manager!r}, not a context manager"
                )
                _exit_all(entered, type(error), error, None)
                raise error from None
            try:
                enter(manager)
            except BaseException as error:
                _exit_all(entered, type(error), error, error.__traceback__)
                raise
            entered.append(manager)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: types.TracebackType | None,
    ) -> None:
        _exit_all(self._entered, exc_type, exc_value, traceback)


def _exit_all(
    entered: list[Any],
    exc_type: type[BaseException] | None,
    exc_value: BaseException | None,
    traceback: types.TracebackType | None,
) -> None:
    """Exit ``entered`` in reverse order, each even when one before raised (the first such
    exception propagates); what they return is ignored (none swallows an exception)."""
    first: BaseException | None = None
    while entered:
        manager = entered.pop()
        try:
            type(manager).__exit__(manager, exc_type, exc_value, traceback)
        except BaseException as error:
            if first is None:
                first = error
    if first is not None:
        raise first


class ContextHook(_Hook[P, contextlib.AbstractContextManager[Any]]):
    """A hook whose callbacks return context managers, entered around what it wraps."""

    __slots__ = ()

    kind = "context hook"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> contextlib.AbstractContextManager[Any]:
        callbacks = self.callbacks
        if not callbacks:
            return contextlib.nullcontext()
        return _EnteredCallbacks([callback(*args, **kwargs) for callback in callbacks])


def event_hook(definition: Callable[P, None]) -> EventHook[P]:
    """Declare an :class:`EventHook` by its signature."""
    return EventHook(definition)


def context_hook(definition: Callable[P, contextlib.AbstractContextManager[Any]]) -> ContextHook[P]:
    """Declare a :class:`ContextHook` by its signature."""
    return ContextHook(definition)


# -- the hooks of gt4py.next ------------------------------------------------------------------


@context_hook
def program_call_context(
    program: Program,
    args: tuple[Any, ...],
    offset_provider: common.OffsetProvider,
    enable_jit: bool,
    kwargs: dict[str, Any],
) -> contextlib.AbstractContextManager[Any]:
    """Around every call of a program, embedded or compiled (a JIT compile included).

    ``program`` is the called ``Program``, ``args`` and ``kwargs`` the arguments as given,
    ``offset_provider`` the one given (``{}`` when none), ``enable_jit`` whether a call that
    matches no compiled variant compiles one (the call's ``enable_jit=``, else the program's
    option, else the ``enable_jit`` setting).
    """
    return contextlib.nullcontext()  # a declaration: only its signature counts


@context_hook
def embedded_program_call_context(
    program: Program,
    args: tuple[Any, ...],
    offset_provider: common.OffsetProvider,
    kwargs: dict[str, Any],
) -> contextlib.AbstractContextManager[Any]:
    """Around the execution of a program on an embedded backend (inside
    ``program_call_context``, after the arguments were checked; the arguments as given)."""
    return contextlib.nullcontext()  # a declaration: only its signature counts


@context_hook
def compiled_program_call_context(
    program_pool: ProgramPool,
    key: VariantKey,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    offset_provider: common.OffsetProvider,
) -> contextlib.AbstractContextManager[Any]:
    """Around the call of a compiled variant (after any JIT compile; also for a field or scan
    operator called directly on a compiled backend).

    ``program_pool`` holds the variants of the program (or operator) on one backend
    (``.definition``, ``.backend``), ``key`` is the ``VariantKey`` of the variant that runs
    (argument types, static values, offset provider), ``args`` and ``kwargs`` the arguments as
    given to the program (for an operator: ``out=`` and ``domain=`` in ``kwargs``).
    """
    return contextlib.nullcontext()  # a declaration: only its signature counts


@event_hook
def compile_variant_hook(
    program_pool: ProgramPool,
    key: VariantKey,
    backend: Any,
    argument_descriptors: dict[str, Any],
    offset_provider: common.OffsetProvider,
) -> None:
    """When a variant is about to be compiled (JIT or ``.compile()``, before lowering).

    ``key`` is the new variant's ``VariantKey``, ``backend`` the ``CompiledBackend``,
    ``argument_descriptors`` the values of its static arguments by name (released gt4py passes
    its static-argument descriptors here), ``offset_provider`` the one it is compiled for.
    """


__all__ = [
    "ContextHook",
    "EventHook",
    "compile_variant_hook",
    "compiled_program_call_context",
    "context_hook",
    "embedded_program_call_context",
    "event_hook",
    "program_call_context",
]

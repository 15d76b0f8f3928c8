"""A small ``functools.singledispatch`` alike that can be renamed and pickles by reference."""

from __future__ import annotations

import threading
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar


_R = TypeVar("_R")
_F = TypeVar("_F", bound=Callable[..., Any])


class SingleDispatcher(Generic[_R]):
    """Calls the implementation registered for the class of the first argument.

    Lookup follows the argument's MRO (nearest registered class wins), then registered
    abstract base classes in registration order; failing both, the default function runs.
    Results of the lookup are cached per class. ``__name__``, ``__qualname__`` and
    ``__module__`` come from the default function and can be reassigned; pickling stores
    only that qualified name, so the dispatcher must be reachable under it.
    """

    def __init__(self, default: Callable[..., _R]) -> None:
        if not callable(default):
            raise TypeError(f"single_dispatch() needs a callable, got {default!r}")
        self._default = default
        self._registry: dict[type, Callable[..., _R]] = {}
        self._cache: dict[type, Callable[..., _R]] = {}
        self._lock = threading.Lock()
        self.__name__: str = getattr(default, "__name__", type(default).__name__)
        self.__qualname__: str = getattr(default, "__qualname__", self.__name__)
        self.__module__: str = getattr(default, "__module__", __name__)
        self.__doc__ = getattr(default, "__doc__", None)
        self.__wrapped__ = default

    def __repr__(self) -> str:
        return f"<single dispatcher {self.__module__}.{self.__qualname__}>"

    def __reduce__(self) -> str:
        return self.__qualname__

    @property
    def registry(self) -> Mapping[type, Callable[..., _R]]:
        return types.MappingProxyType(self._registry)

    def register(self, cls: Any = None, func: Callable[..., _R] | None = None) -> Any:
        """Register an implementation: ``@d.register(int)``, ``@d.register`` with a type
        annotation on the first parameter, or ``d.register(int, func)``. Unions register
        each member."""
        if func is not None:
            self._add(cls, func)
            return func
        if cls is not None and not _is_class_or_union(cls) and callable(cls):
            implementation = cls  # bare @register: read the annotation
            self._add(_first_parameter_annotation(implementation), implementation)
            return implementation
        if cls is None:
            raise TypeError(
                "register() needs a class, a union of classes, or an annotated function"
            )

        def decorator(implementation: _F) -> _F:
            self._add(cls, implementation)
            return implementation

        return decorator

    def dispatch(self, cls: type) -> Callable[..., _R]:
        """The implementation used for instances of ``cls``."""
        try:
            return self._cache[cls]
        except KeyError:
            pass
        implementation = self._find(cls)
        with self._lock:
            self._cache[cls] = implementation
        return implementation

    def __call__(self, value: Any, *args: Any, **kwargs: Any) -> _R:
        try:
            implementation = self._cache[value.__class__]
        except KeyError:
            implementation = self.dispatch(value.__class__)
        return implementation(value, *args, **kwargs)

    def _add(self, cls: Any, implementation: Callable[..., _R]) -> None:
        if not callable(implementation):
            raise TypeError(f"the implementation for {cls!r} must be callable")
        classes = typing.get_args(cls) if _is_union(cls) else (cls,)
        for klass in classes:
            if not isinstance(klass, type):
                raise TypeError(f"can only register classes (or unions of classes), got {klass!r}")
        with self._lock:
            for klass in classes:
                self._registry[klass] = implementation
            self._cache.clear()

    def _find(self, cls: type) -> Callable[..., _R]:
        for klass in cls.__mro__:
            if klass in self._registry:
                return self._registry[klass]
        for klass, implementation in self._registry.items():
            if issubclass(cls, klass):  # abstract base classes with virtual subclasses
                return implementation
        return self._default


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _is_class_or_union(annotation: Any) -> bool:
    return isinstance(annotation, type) or _is_union(annotation)


def _first_parameter_annotation(func: Callable[..., Any]) -> Any:
    hints = typing.get_type_hints(func)
    hints.pop("return", None)
    if not hints:
        raise TypeError(
            f"register({getattr(func, '__qualname__', func)!r}): give the class explicitly or "
            "annotate the first parameter"
        )
    return next(iter(hints.values()))


def single_dispatch(func: Callable[..., _R]) -> SingleDispatcher[_R]:
    """Decorator: turn ``func`` into the default of a :class:`SingleDispatcher`."""
    return SingleDispatcher(func)

"""``.partial(...)`` on a function: bind some of its arguments now, the rest at the call."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar


_F = TypeVar("_F", bound=Callable[..., Any])


class fluid_partial(functools.partial):  # type: ignore[type-arg]  # any callable
    """A :class:`functools.partial` that binds more arguments with ``.partial(...)``.

    >>> def f(a, b, c=0):
    ...     return (a, b, c)
    >>> g = fluid_partial(f, 1).partial(c=3)
    >>> g(2)
    (1, 2, 3)
    """

    def partial(self, *args: Any, **kwargs: Any) -> fluid_partial:
        return fluid_partial(self, *args, **kwargs)


def with_fluid_partial(func: _F | None = None, *args: Any, **kwargs: Any) -> Any:
    """Give ``func`` a ``partial`` attribute: ``func.partial(**kw)`` is
    ``functools.partial(func, **kw)`` (arguments given here are bound first).

    ``func.partial`` is itself a :class:`fluid_partial`, so ``func.partial.partial(x=1)(y=2)``
    binds both. Used as ``@with_fluid_partial`` or ``@with_fluid_partial(None, x=1)``.

    >>> @with_fluid_partial
    ... def scale(x, *, factor):
    ...     return x * factor
    >>> double = scale.partial(factor=2)
    >>> double(21)
    42
    """

    def decorate(f: _F) -> _F:
        if not callable(f):
            raise TypeError(f"with_fluid_partial needs a callable, got {f!r}")
        setattr(f, "partial", fluid_partial(functools.partial, f, *args, **kwargs))  # noqa: B010  # a function attribute
        return f

    return decorate if func is None else decorate(func)


__all__ = ["fluid_partial", "with_fluid_partial"]

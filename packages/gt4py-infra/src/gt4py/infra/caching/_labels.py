"""Human labels of cache entries: which program or stencil an entry is built for.

A cache key is a digest; diagnostics (miss explanations, lock waits, corruption and publish
errors) name the entry by its namespace and digest, plus the label of what it is built for
when one is known: ``entry 1a2b3c4d of cache 'native/modules' (lap(a: ...) for gtfn_cpu)``.

A DSL stack sets the label around a compile with :func:`build_label`; every cache used inside
(in this thread: nested builds too) picks it up. ``get``/``get_or_build`` also take an explicit
``label=``, which holds for that call and the builds it runs. Labels never enter keys.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator


_current: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gt4py_cache_label", default=None
)


@contextlib.contextmanager
def build_label(label: str | None) -> Iterator[None]:
    """Label the cache entries used inside (``None``: keep the enclosing label)."""
    if label is None:
        yield
        return
    token = _current.set(str(label))
    try:
        yield
    finally:
        _current.reset(token)


def current_build_label() -> str | None:
    """The label set by the innermost :func:`build_label`, or None."""
    return _current.get()


def resolve(label: str | None) -> str | None:
    """An explicit ``label`` or else the context's."""
    return label if label is not None else _current.get()


__all__: list[str] = []

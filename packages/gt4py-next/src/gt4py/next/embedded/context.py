"""The state embedded execution reads implicitly: offset provider and evaluation mode.

Operator bodies call ``f(E2V)`` without naming the neighbour table; the caller installs the
tables for the duration of the call, and lets pointwise work be deferred so that dead
temporaries are reused in place::

    with embedded_context(offset_provider={"E2V": e2v, "Koff": K}, lazy=True):
        out[domain] = operator_body(a, b)

Contexts nest (the innermost setting wins) and are per thread / per asyncio task
(ContextVars).
"""

from __future__ import annotations

import contextvars
import threading
import types
from collections.abc import Mapping
from typing import Any, Final


OffsetProvider = Mapping[str, Any]

_EMPTY: Final[OffsetProvider] = types.MappingProxyType({})

_offset_provider: contextvars.ContextVar[OffsetProvider] = contextvars.ContextVar(
    "gt4py_next_offset_provider", default=_EMPTY
)

# Weak references to the pending results of a lazy context (None: not lazy).
_pending: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "gt4py_next_pending_results", default=None
)


class _WeakScalarPromotion:
    """numpy 2's scalar promotion (NEP 50) while embedded code runs, also on numpy 1.x.

    Operator bodies compute with numpy scalars in plain Python (``nlev - 1`` with ``nlev`` an
    int32 argument). The DSL types that as int32, as numpy 2 does; numpy 1.x's legacy rules
    give int64 (and float32 * 2.0 gives float64). numpy 1.24-1.26 offer NEP 50 behind
    ``_set_promotion_state``, a process-wide switch: it is on while any thread runs embedded
    code and restored when the last one leaves.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._restore: str | None = None
        import numpy as np

        self._set = getattr(np, "_set_promotion_state", None)
        self._get = getattr(np, "_get_promotion_state", None)

    def enter(self) -> None:
        if self._set is None or self._get is None:
            return  # numpy 2: weak promotion is the only rule
        with self._lock:
            if self._depth == 0 and self._get() == "legacy":
                self._restore = "legacy"
                self._set("weak")
            self._depth += 1

    def exit(self) -> None:
        if self._set is None:
            return
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._restore is not None:
                self._set(self._restore)
                self._restore = None


_weak_promotion = _WeakScalarPromotion()


class embedded_context:  # used like a function: `with embedded_context(...):`
    """Run the ``with`` block with an offset provider and/or lazy pointwise evaluation.

    ``offset_provider`` maps offset names to a :class:`~gt4py.next.Connectivity` (unstructured
    shifts) or a :class:`~gt4py.next.Dimension` (Cartesian shifts, e.g. ``{"Koff": K}``);
    ``None`` keeps the enclosing one.

    ``lazy=True`` defers pointwise operators on large fields until their data is used, so that
    dead temporaries of an operator body are overwritten in place (like numpy's temporary
    elision). The fields read inside must not be mutated through raw arrays while results are
    pending; writes through ``field[...] = ...`` and leaving the block compute everything
    pending first. ``None`` keeps the enclosing setting.
    """

    __slots__ = ("_lazy", "_offset_provider", "_registry", "_tokens")

    def __init__(
        self, *, offset_provider: OffsetProvider | None = None, lazy: bool | None = None
    ) -> None:
        if offset_provider is not None and not isinstance(offset_provider, Mapping):
            raise TypeError(
                "offset_provider must be a mapping from offset names to connectivities or "
                f"dimensions, got {type(offset_provider).__name__}"
            )
        self._offset_provider = offset_provider
        self._lazy = lazy
        self._registry: list[Any] | None = None
        self._tokens: list[tuple[contextvars.ContextVar[Any], contextvars.Token[Any]]] = []

    def __enter__(self) -> None:
        if self._tokens:
            raise RuntimeError("an embedded_context cannot be entered twice at the same time")
        _weak_promotion.enter()
        if self._offset_provider is not None:
            token = _offset_provider.set(self._offset_provider)
            self._tokens.append((_offset_provider, token))
        lazy = self._lazy
        if lazy is not None and lazy != (_pending.get() is not None):
            flush_pending_results()
            self._registry = [] if lazy else None
            self._tokens.append((_pending, _pending.set(self._registry)))

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self._registry is not None:
                _evaluate(self._registry)
        finally:
            for variable, token in reversed(self._tokens):
                variable.reset(token)
            self._tokens.clear()
            self._registry = None
            _weak_promotion.exit()


def get_offset_provider() -> OffsetProvider:
    """The offset provider of the innermost :func:`embedded_context` (empty outside any)."""
    return _offset_provider.get()


def pending_results() -> list[Any] | None:
    """The registry of pending lazy results, or ``None`` when evaluation is eager."""
    return _pending.get()


def flush_pending_results() -> None:
    """Compute every pending lazy result of the current context now."""
    registry = _pending.get()
    if registry:
        _evaluate(registry)


def _evaluate(registry: list[Any]) -> None:
    """Compute every still pending result of ``registry`` (latest first, so chains reuse).

    The registry holds weak references to the pending results (``_lazy.LazyNdArrayField``,
    which adds itself on creation), each computed by its ``compute()``.
    """
    while registry:
        field = registry.pop()()
        if field is not None:
            field.compute()

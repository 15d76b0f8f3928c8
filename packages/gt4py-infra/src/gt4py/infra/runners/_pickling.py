"""Pickling tasks for worker processes, refusing what a worker could not unpickle."""

from __future__ import annotations

import io
import pickle
import types
from typing import Any, Final

from ._base import short_repr


# Modules a worker process cannot import: the user's script, notebook or REPL session (the
# second name is what multiprocessing calls the parent's main module in its children).
_MAIN_MODULES: Final = frozenset({"__main__", "__mp_main__"})
_MAIN_MARKERS: Final = tuple(name.encode() for name in _MAIN_MODULES)


class TaskNotPicklableError(Exception):
    """Why a task cannot go to a worker process (internal: the runner falls back on it)."""


def dumps_for_worker(obj: object) -> bytes:
    """Pickle ``obj`` for a worker process, or raise ``TaskNotPicklableError`` saying why."""
    try:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as error:
        raise TaskNotPicklableError(f"{type(error).__name__}: {error}") from error
    # The byte search is a cheap pre-filter; only a hit pays for the exact, per-object search.
    if any(marker in data for marker in _MAIN_MARKERS):
        culprit = find_main_reference(obj)
        if culprit is not None:
            raise TaskNotPicklableError(
                f"it refers to {culprit}, defined in the main module (a script, notebook or "
                "REPL), which worker processes do not import"
            )
    return data


class _MainReferenceFound(Exception):
    def __init__(self, obj: object) -> None:
        self.obj = obj


class _MainReferenceFinder(pickle.Pickler):
    # Functions and classes are pickled by reference to their module; instances of a class
    # defined in __main__ pickle their class, so checking these two kinds covers everything.
    def reducer_override(self, obj: Any) -> Any:
        if (
            isinstance(obj, type | types.FunctionType | types.BuiltinFunctionType)
            and getattr(obj, "__module__", None) in _MAIN_MODULES
        ):
            raise _MainReferenceFound(obj)
        return NotImplemented


def find_main_reference(obj: object) -> str | None:
    """Describe the first function or class from ``__main__`` that pickling ``obj`` refers to."""
    try:
        _MainReferenceFinder(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except _MainReferenceFound as found:
        kind = "class" if isinstance(found.obj, type) else "function"
        name = getattr(found.obj, "__qualname__", short_repr(found.obj))
        return f"{kind} {name!r}"
    return None

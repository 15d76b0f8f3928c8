"""How functions, classes and modules are identified: verified qualified names or identities.

Strict fingerprints name a function or class by ``module:qualname`` and only after checking
that importing the module and walking the qualified name gives back the very same object, so
the name means the same thing in any process that imports the same code. Lenient fingerprints
fall back to a per-process identity serial when no such name exists.
"""

from __future__ import annotations

import importlib
import itertools
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any, Final


# CPython sets this flag on classes created at run time (``class`` statements, extension heap
# types); static C types lack it and their names are fixed by the interpreter or extension.
_HEAPTYPE_FLAG: Final = 1 << 9

_MISSING: Final = object()


def describe(obj: object) -> str:
    """A short, safe description of ``obj`` for error messages."""
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__qualname__} object>"
    return text if len(text) <= 120 else text[:117] + "..."


def qualified_name_of_class(cls: type) -> str | None:
    """``module:qualname`` of a class if it is reachable under that name, else None."""
    if not cls.__flags__ & _HEAPTYPE_FLAG:
        # Static C types (int, numpy.ndarray, ...) may not be reachable by attribute lookup
        # (e.g. ``builtins.function``) but their names are fixed in compiled code.
        return f"{cls.__module__}:{cls.__qualname__}"
    return _verified_name(cls, cls.__module__, cls.__qualname__)


def qualified_name_of_object(obj: object) -> str | None:
    """``module:qualname`` of a function-like object if verifiably reachable, else None."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(qualname, str):
        qualname = getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return None
    return _verified_name(obj, module, qualname)


def why_unnamed(obj: object) -> str:
    """Why ``obj`` has no verified qualified name, in words for an error message."""
    is_class = isinstance(obj, type)
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(qualname, str):
        return "it has no __module__/__qualname__ to name it by"
    if "<lambda>" in qualname:
        return "it is a lambda"
    if "<locals>" in qualname:
        kind = "class" if is_class else "function"
        return f"it is a {kind} defined inside a function ({module}.{qualname})"
    found = _walk(module, qualname)
    if found is _MISSING:
        return f"{module}.{qualname} cannot be imported"
    return f"{module}.{qualname} is a different object (was it redefined or replaced?)"


def _verified_name(obj: object, module: str, qualname: str) -> str | None:
    if "<" in qualname:  # <lambda>, <locals>, <genexpr>: never reachable by attribute lookup
        return None
    found = _walk(module, qualname)
    if found is obj:
        return f"{module}:{qualname}"
    unwrapping = _unwrapping_path(found, obj)
    if unwrapping is not None:
        # Wrapper and wrapped share a qualname but are different functions: say which one.
        return f"{module}:{qualname}{unwrapping}"
    return None


def _walk(module_name: str, qualname: str) -> object:
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = importlib.import_module(module_name)
        except Exception:
            return _MISSING
    target: object = module
    for part in qualname.split("."):
        target = getattr(target, part, _MISSING)
        if target is _MISSING:
            return _MISSING
    return target


def _unwrapping_path(found: object, obj: object) -> str | None:
    """The attributes leading from wrapper ``found`` to ``obj`` (``.__wrapped__``...), if any.

    Decorated functions (functools.wraps) and bound classmethods share their wrapped
    function's qualname; the path still designates ``obj`` uniquely.
    """
    path = ""
    for _ in range(32):  # bounded: wrapper chains can be cyclic in pathological code
        attribute = "__wrapped__"
        inner = getattr(found, attribute, None)
        if inner is None:
            attribute = "__func__"
            inner = getattr(found, attribute, None)
        if inner is None:
            return None
        path += f".{attribute}"
        if inner is obj:
            return path
        found = inner
    return None


def module_name_of(module: types.ModuleType) -> str | None:
    """The name of ``module`` if ``sys.modules`` maps it back to the same module."""
    name = getattr(module, "__name__", None)
    if isinstance(name, str) and sys.modules.get(name) is module:
        return name
    return None


class IdentitySerials:
    """Per-process serial numbers for objects that can only be keyed by identity.

    Unlike a bare ``id()``, a serial is never handed out twice in a process: once its object
    is gone, a new object at the same address gets a fresh serial, so a stale in-memory key
    can never match a different object. Objects that cannot be weakly referenced are kept
    alive by this table instead (a small leak is better than a wrong cache hit).
    """

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Callable[[], object], int]] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def serial(self, obj: object) -> int:
        key = id(obj)
        entry = self._by_id.get(key)
        if entry is not None and entry[0]() is obj:
            return entry[1]
        with self._lock:
            entry = self._by_id.get(key)
            if entry is not None and entry[0]() is obj:
                return entry[1]
            number = next(self._counter)
            reference: Callable[[], object]
            try:
                reference = weakref.ref(obj, self._make_forget(key))
            except TypeError:
                reference = _StrongReference(obj)
            self._by_id[key] = (reference, number)
            return number

    def _make_forget(self, key: int) -> Callable[[Any], None]:
        def forget(reference: Any) -> None:
            entry = self._by_id.get(key)
            if entry is not None and entry[0] is reference:
                del self._by_id[key]

        return forget


class _StrongReference:
    __slots__ = ("_obj",)

    def __init__(self, obj: object) -> None:
        self._obj = obj

    def __call__(self) -> object:
        return self._obj

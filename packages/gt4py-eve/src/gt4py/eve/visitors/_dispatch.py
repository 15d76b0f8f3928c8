"""Finding the handler of a value's class for a visitor class, cached per (visitor, class).

``visit_<ClassName>`` methods are looked up along the value's MRO, most specific class first
(``visit_object`` is therefore a catch-all); failing that, the visitor's ``generic_visit``.
The answer is cached in a dict owned by the visitor class, so a visit costs one dict lookup.
Handlers are stored as plain functions called with ``(visitor, value, **kwargs)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from gt4py.eve.nodes._registry import NODE_VALUES, SEQUENCE_TYPES


Handler = Callable[..., Any]

#: Hook for subclasses with other kinds of handlers (templates): a classmethod that, given one
#: class of the value's MRO, returns a handler or None. At each class of the MRO, a
#: ``visit_<Name>`` method is looked for first, then the hook.
HANDLER_LOOKUP_HOOK: Final = "_eve_handler_for"


def is_leaf_class(cls: type) -> bool:
    return cls not in NODE_VALUES and cls not in SEQUENCE_TYPES and cls is not dict


def resolve_handler(visitor_class: type, value_class: type) -> Handler:
    """The handler for ``value_class``; cached in ``visitor_class._eve_dispatch``."""
    handler = _find_handler(visitor_class, value_class)
    visitor_class._eve_dispatch[value_class] = handler  # type: ignore[attr-defined]
    return handler


def _find_handler(visitor_class: type, value_class: type) -> Handler:
    hook = getattr(visitor_class, HANDLER_LOOKUP_HOOK, None)
    for klass in value_class.__mro__:
        name = "visit_" + klass.__name__
        if hasattr(visitor_class, name):
            return _as_plain_function(visitor_class, name)
        if hook is not None:
            found = hook(klass)
            if found is not None:
                return found  # type: ignore[no-any-return]
    generic = _as_plain_function(visitor_class, "generic_visit")
    if is_leaf_class(value_class):
        # The built-in generic visits have a known result for leaves; traversals use the
        # shortcut to skip the call entirely.
        return getattr(generic, "__eve_leaf_shortcut__", generic)
    return generic


def _as_plain_function(visitor_class: type, name: str) -> Handler:
    static = inspect.getattr_static(visitor_class, name)
    if inspect.isfunction(static):
        return static
    # staticmethod, classmethod, callables...: go through normal attribute access per call.

    def call_bound(visitor: Any, value: Any, **kwargs: Any) -> Any:
        return getattr(visitor, name)(value, **kwargs)

    call_bound.__name__ = name
    return call_bound

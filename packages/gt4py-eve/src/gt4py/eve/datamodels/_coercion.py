"""Type coercion for fields that declare it: ``Coerced[T]``, ``field(coerce=True)``, and
classes that opt in with ``__eve_auto_coerce__ = True`` (e.g. symbol names from plain str).

Coercion only runs when a value fails its type check, so it costs nothing on the fast path.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from collections.abc import Callable
from typing import Any

from . import _type_check as tc
from ._field import COERCE_MARKER


Coercer = Callable[[Any], Any]

_REBUILDABLE_COLLECTIONS = (list, tuple, set, frozenset)


def make_coercer(
    annotation: Any, bindings: tc.TypeVarBindings, *, requested: bool
) -> Coercer | None:
    """The coercion function for a field, or None if the field does not coerce."""
    annotation, marked = _strip_annotated(annotation)
    requested = requested or marked
    target = tc.substitute_type_vars(annotation, bindings)
    if isinstance(target, typing.TypeVar):
        target = bindings.get(target, target.__bound__ or Any)
    coercer = _build(target, requested=requested)
    if requested and coercer is None:
        raise tc.UnsupportedAnnotationError(
            f"coercion was requested but values cannot be converted to {tc.type_repr(target)}; "
            "coercion needs a class, a union of classes, or a list/tuple/set of those"
        )
    return coercer


def _strip_annotated(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        return inner, any(item is COERCE_MARKER for item in metadata)
    return annotation, False


def _build(target: Any, *, requested: bool) -> Coercer | None:
    target, marked = _strip_annotated(target)
    requested = requested or marked
    origin = typing.get_origin(target)
    if origin is None and isinstance(target, type):
        if target is type(None) or target is object:
            return None
        if requested or getattr(target, "__eve_auto_coerce__", False):
            return _class_coercer(target)
        return None
    if origin is typing.Union or origin is types.UnionType:
        members = [_build(m, requested=requested) for m in typing.get_args(target)]
        candidates = [m for m in members if m is not None]
        return _first_success(candidates) if candidates else None
    if isinstance(origin, type) and issubclass(origin, _REBUILDABLE_COLLECTIONS):
        args = typing.get_args(target)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return None  # fixed-length tuples: element-wise coercion is not supported
        element = _build(args[0], requested=requested) if args else None
        if element is None:
            return _class_coercer(origin) if requested else None
        return _collection_coercer(origin, element, tc.as_predicate(tc.compile_check(args[0])))
    if isinstance(origin, type) and issubclass(origin, collections.abc.Mapping) and requested:
        return _class_coercer(origin)
    return None


def _class_coercer(target: type) -> Coercer:
    def coerce(value: Any) -> Any:
        return value if type(value) is target else target(value)

    return coerce


def _first_success(candidates: list[Coercer]) -> Coercer:
    def coerce(value: Any) -> Any:
        errors = []
        for candidate in candidates:
            try:
                return candidate(value)
            except (TypeError, ValueError) as error:
                errors.append(error)
        raise errors[-1]

    return coerce


def _collection_coercer(origin: type, element: Coercer, element_ok: tc.Predicate) -> Coercer:
    def coerce(value: Any) -> Any:
        if not isinstance(value, collections.abc.Iterable) or isinstance(value, str | bytes):
            raise TypeError(f"cannot convert {type(value).__qualname__} to {origin.__qualname__}")
        return origin(item if element_ok(item) else element(item) for item in value)

    return coerce

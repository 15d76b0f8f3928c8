"""Generic datamodels: ``Box[int]`` as a cached, validated, nameable subclass of ``Box``."""

from __future__ import annotations

import sys
import threading
import typing
from typing import Any

from . import _type_check as tc


def has_type_vars(annotation: Any) -> bool:
    return isinstance(annotation, typing.TypeVar) or bool(
        getattr(annotation, "__parameters__", ()) and typing.get_origin(annotation) is not None
    )


def type_var_bindings(cls: type) -> dict[Any, Any]:
    """The type arguments bound to each type variable of ``cls`` and its generic bases."""
    bindings: dict[Any, Any] = {}
    for klass in cls.__mro__:
        type_args = klass.__dict__.get("__eve_type_args__")
        if type_args is not None:
            origin = klass.__dict__["__eve_generic_origin__"]
            for param, arg in zip(origin.__parameters__, type_args, strict=True):
                bindings.setdefault(param, arg)
        for base in klass.__dict__.get("__orig_bases__", ()):
            origin = typing.get_origin(base)
            params = getattr(origin, "__parameters__", ()) if origin is not None else ()
            for param, arg in zip(params, typing.get_args(base), strict=False):
                bindings.setdefault(param, tc.substitute_type_vars(arg, bindings))
    return bindings


_concrete_lock = threading.RLock()


def concrete_class(origin: type, args: tuple[Any, ...]) -> type:
    cache: dict[tuple[Any, ...], type] | None = origin.__dict__.get("__eve_concrete_classes__")
    if cache is None:
        cache = {}
        type.__setattr__(origin, "__eve_concrete_classes__", cache)
    try:
        return cache[args]
    except KeyError:
        pass
    except TypeError as error:  # unhashable type arguments
        raise TypeError(
            f"type arguments of {origin.__qualname__} must be hashable: {error}"
        ) from None
    with _concrete_lock:
        if args not in cache:
            cache[args] = _make_concrete_class(origin, args)
        return cache[args]


def _make_concrete_class(origin: type, args: tuple[Any, ...]) -> type:
    params: tuple[Any, ...] = origin.__parameters__  # type: ignore[attr-defined]
    if len(args) != len(params):
        raise TypeError(
            f"{origin.__qualname__} takes {len(params)} type argument(s) "
            f"({', '.join(map(tc.type_repr, params))}), got {len(args)}"
        )
    for param, arg in zip(params, args, strict=True):
        _check_type_argument(origin, param, arg)
    suffix = f"[{', '.join(tc.type_repr(arg) for arg in args)}]"
    namespace = {
        "__module__": origin.__module__,
        "__qualname__": origin.__qualname__ + suffix,
        "__eve_generic_origin__": origin,
        "__eve_type_args__": args,
        "__reduce__": _reduce_concrete_instance,
    }
    concrete = type(origin)(origin.__name__ + suffix, (origin,), namespace)
    _publish_by_name(concrete)
    return concrete


def _check_type_argument(origin: type, param: Any, arg: Any) -> None:
    arg_class = typing.get_origin(arg) or arg
    problem = None
    if param.__bound__ is not None:
        bound = typing.get_origin(param.__bound__) or param.__bound__
        if not (
            isinstance(arg_class, type) and isinstance(bound, type) and issubclass(arg_class, bound)
        ):
            problem = f"does not satisfy the bound {tc.type_repr(param.__bound__)}"
    elif param.__constraints__:
        allowed = [typing.get_origin(c) or c for c in param.__constraints__]
        if not (isinstance(arg_class, type) and issubclass(arg_class, tuple(allowed))):
            constraints = ", ".join(map(tc.type_repr, param.__constraints__))
            problem = f"is not one of the allowed types ({constraints})"
    if problem is not None:
        raise TypeError(
            f"{origin.__qualname__}[...]: type argument {tc.type_repr(arg)} for type variable "
            f"{param.__name__} {problem}"
        )


def _publish_by_name(concrete: type) -> None:
    """Make ``module.Outer.Box[int]`` resolve to the concrete class.

    Strict fingerprints (and pickle, for classes) identify a class by a qualified name that
    must lead back to it; registering the parametrization next to its origin provides one.
    """
    module = sys.modules.get(concrete.__module__)
    path = concrete.__qualname__.split(".")
    if module is None or "<locals>" in path:
        return
    parent: Any = module
    for part in path[:-1]:
        parent = getattr(parent, part, None)
        if parent is None:
            return
    if isinstance(parent, type) and parent.__flags__ & (1 << 9) == 0:
        return  # a static (C) type; cannot take attributes
    setattr(parent, path[-1], concrete)


def _reduce_concrete_instance(self: Any) -> tuple[Any, ...]:
    cls = type(self)
    return (
        _new_concrete_instance,
        (cls.__eve_generic_origin__, cls.__eve_type_args__),
        self.__getstate__(),
    )


def _new_concrete_instance(origin: type, args: tuple[Any, ...]) -> Any:
    """Unpickling: the parametrization is re-created in the receiving process if needed."""
    return object.__new__(concrete_class(origin, args))

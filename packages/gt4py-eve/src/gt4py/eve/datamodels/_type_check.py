"""Compile a resolved type annotation into a fast runtime check.

Validation runs on every node construction, so the per-call work must be tiny. Each annotation
is compiled once per class into one of three forms:

- ``ACCEPT_ANY``: no check at all (``Any``, ``object``, unconstrained type variables);
- a tuple of classes: the value passes when ``isinstance(value, that_tuple)``;
- a predicate ``Callable[[object], bool]`` for everything structured (containers, literals...).

Only failures take the slow path (:func:`describe_mismatch`), which explains *why* a value does
not match, down to the offending element of a container.
"""

from __future__ import annotations

import collections.abc
import enum
import itertools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias


class _AcceptAny(enum.Enum):
    ACCEPT_ANY = enum.auto()


#: Marker for "this annotation constrains nothing".
ACCEPT_ANY: Final = _AcceptAny.ACCEPT_ANY

Predicate: TypeAlias = Callable[[Any], bool]
CompiledCheck: TypeAlias = _AcceptAny | tuple[type, ...] | Predicate
TypeVarBindings: TypeAlias = Mapping[Any, Any]


class UnsupportedAnnotationError(TypeError):
    """An annotation that cannot be turned into a runtime check."""


# PEP 484 numeric tower: an int is acceptable where a float (or complex) is expected.
_NUMERIC_TOWER: Final[dict[type, tuple[type, ...]]] = {
    float: (float, int),
    complex: (complex, float, int),
}

# Origins whose elements can be checked without consuming anything.
_ELEMENT_CHECKED_ORIGINS: Final = (
    list,
    set,
    frozenset,
    collections.deque,
    collections.abc.Sequence,
    collections.abc.MutableSequence,
    collections.abc.Set,
    collections.abc.MutableSet,
    collections.abc.Collection,
)
_MAPPING_ORIGINS: Final = (
    dict,
    collections.OrderedDict,
    collections.defaultdict,
    collections.abc.Mapping,
    collections.abc.MutableMapping,
)
_UNION_ORIGINS: Final = (typing.Union, types.UnionType)


def class_name(cls: type) -> str:
    """The qualified name of a class without the ``function.<locals>.`` prefix."""
    return cls.__qualname__.rsplit("<locals>.", 1)[-1]


def type_repr(annotation: object) -> str:
    """A short human-readable spelling of an annotation for error messages."""
    if isinstance(annotation, typing.NewType):
        return annotation.__name__
    if annotation is type(None) or annotation is None:
        return "None"
    if annotation is Ellipsis:
        return "..."
    if isinstance(annotation, typing.TypeVar):
        return annotation.__name__
    origin = typing.get_origin(annotation)
    if origin is None:
        if isinstance(annotation, type):
            return class_name(annotation)
        if isinstance(annotation, list):  # the parameter list of Callable[[...], R]
            return "[" + ", ".join(map(type_repr, annotation)) + "]"
        return repr(annotation).replace("typing.", "")
    args = typing.get_args(annotation)
    if origin in _UNION_ORIGINS:
        return " | ".join(map(type_repr, args))
    if origin is typing.Annotated:
        return type_repr(args[0])
    if origin is typing.Literal:
        return f"Literal[{', '.join(map(repr, args))}]"
    name = getattr(origin, "__qualname__", None) or repr(origin).replace("typing.", "")
    if not args:
        return name
    if args == ((),):
        return f"{name}[()]"
    return f"{name}[{', '.join(map(type_repr, args))}]"


def substitute_type_vars(annotation: Any, bindings: TypeVarBindings) -> Any:
    """Replace bound type variables inside ``annotation``."""
    if not bindings:
        return annotation
    if isinstance(annotation, typing.TypeVar):
        return bindings.get(annotation, annotation)
    parameters = getattr(annotation, "__parameters__", ())
    if parameters and typing.get_origin(annotation) is not None:
        return annotation[tuple(bindings.get(p, p) for p in parameters)]
    return annotation


def compile_check(annotation: Any, bindings: TypeVarBindings | None = None) -> CompiledCheck:
    """Compile ``annotation`` (already resolved, no strings) into a runtime check."""
    return _compile(annotation, bindings or {})


def as_predicate(check: CompiledCheck) -> Predicate:
    """The same check as a plain predicate."""
    if check is ACCEPT_ANY:
        return _always_true
    if isinstance(check, tuple):
        return lambda value: isinstance(value, check)
    return check


def passes(check: CompiledCheck, value: object) -> bool:
    if check is ACCEPT_ANY:
        return True
    if isinstance(check, tuple):
        return isinstance(value, check)
    return check(value)


def _always_true(_value: object) -> bool:
    return True


def _compile(annotation: Any, bindings: TypeVarBindings) -> CompiledCheck:
    if annotation is Any or annotation is object:
        return ACCEPT_ANY
    if annotation is None or annotation is type(None):
        return (type(None),)
    if isinstance(annotation, typing.TypeVar):
        return _compile_type_var(annotation, bindings)
    if isinstance(annotation, typing.NewType):
        return _compile(annotation.__supertype__, bindings)
    if isinstance(annotation, str | typing.ForwardRef):
        raise UnsupportedAnnotationError(
            f"unresolved forward reference {annotation!r} (the name is not defined where the "
            "class is defined)"
        )

    origin = typing.get_origin(annotation)
    if origin is None:
        if isinstance(annotation, type):
            return _compile_class(annotation)
        raise UnsupportedAnnotationError(f"unsupported annotation {annotation!r}")

    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _compile(args[0], bindings)
    if origin in _UNION_ORIGINS:
        return _compile_union(args, bindings)
    if origin is typing.Literal:
        return _compile_literal(args)
    if origin is typing.ClassVar or origin is typing.Final:
        return _compile(args[0], bindings) if args else ACCEPT_ANY
    if origin is type:
        return _compile_type_of(args[0] if args else Any, bindings)
    if origin is collections.abc.Callable:
        return callable
    if origin is tuple:
        return _compile_tuple(args, bindings)
    if isinstance(origin, type) and issubclass(origin, _MAPPING_ORIGINS):
        return _compile_mapping(origin, args, bindings)
    if isinstance(origin, type) and issubclass(origin, _ELEMENT_CHECKED_ORIGINS):
        return _compile_collection(origin, args, bindings)
    if isinstance(origin, type):
        return _compile_generic_class(origin, args, bindings)
    raise UnsupportedAnnotationError(f"unsupported annotation {annotation!r}")


def _compile_class(cls: type) -> CompiledCheck:
    if cls in _NUMERIC_TOWER:
        return _NUMERIC_TOWER[cls]
    try:
        isinstance(None, cls)
    except TypeError as error:  # e.g. a Protocol that is not runtime_checkable
        raise UnsupportedAnnotationError(
            f"{type_repr(cls)} cannot be used with isinstance(): {error}"
        ) from None
    return (cls,)


def _compile_type_var(var: typing.TypeVar, bindings: TypeVarBindings) -> CompiledCheck:
    if var in bindings and bindings[var] is not var:
        return _compile(bindings[var], bindings)
    if var.__bound__ is not None:
        return _compile(var.__bound__, bindings)
    if var.__constraints__:
        return _compile_union(var.__constraints__, bindings)
    return ACCEPT_ANY


def _compile_union(members: tuple[Any, ...], bindings: TypeVarBindings) -> CompiledCheck:
    compiled = [_compile(member, bindings) for member in members]
    if any(check is ACCEPT_ANY for check in compiled):
        return ACCEPT_ANY
    if all(isinstance(check, tuple) for check in compiled):
        # A union of plain classes is one isinstance() call with the merged tuple.
        merged: dict[type, None] = {}
        for check in compiled:
            merged.update(dict.fromkeys(typing.cast(tuple[type, ...], check)))
        return tuple(merged)
    predicates = tuple(as_predicate(check) for check in compiled)

    def check_union(value: object) -> bool:
        return any(predicate(value) for predicate in predicates)

    return check_union


def _compile_literal(values: tuple[Any, ...]) -> Predicate:
    # Compare type too, so that Literal[1] rejects True and Literal[0] rejects 0.0.
    allowed = tuple((type(v), v) for v in values)

    def check_literal(value: object) -> bool:
        return any(type(value) is tp and value == v for tp, v in allowed)

    return check_literal


def _compile_type_of(target: Any, bindings: TypeVarBindings) -> CompiledCheck:
    target_check = _compile(target, bindings)
    if target_check is ACCEPT_ANY:
        return (type,)
    if not isinstance(target_check, tuple):
        raise UnsupportedAnnotationError(f"unsupported annotation type[{type_repr(target)}]")
    classes = target_check

    def check_type_of(value: object) -> bool:
        return isinstance(value, type) and issubclass(value, classes)

    return check_type_of


def type_cacheable(classes: tuple[type, ...]) -> bool:
    """Whether ``isinstance(x, classes)`` depends on ``type(x)`` only, once it is True.

    True for ordinary classes and ABCs (registrations only ever add subclasses); not for
    runtime-checkable protocols, which look at the instance's attributes.
    """
    return not any(getattr(cls, "_is_protocol", False) for cls in classes)


def cached_isinstance_loop(
    classes: tuple[type, ...],
) -> Callable[[collections.abc.Iterable[Any]], bool]:
    """ "Every item is an instance of ``classes``", remembering the exact types that passed.

    ``isinstance`` against classes with a metaclass (datamodels, enums) takes a slow path in
    CPython; after the first few items a set lookup per item, in C, decides instead.
    """
    target = classes[0] if len(classes) == 1 else classes
    if not type_cacheable(classes):
        return lambda items: all(map(isinstance, items, itertools.repeat(target)))
    accepted: set[type] = set()
    accepts = accepted.__contains__

    def all_pass(items: collections.abc.Iterable[Any]) -> bool:
        if all(map(accepts, map(type, items))):
            return True
        for item in items:
            if type(item) not in accepted:
                if not isinstance(item, target):
                    return False
                accepted.add(type(item))
        return True

    return all_pass


def _element_loop(element: CompiledCheck) -> Callable[[collections.abc.Iterable[Any]], bool]:
    """The fastest available "every element passes" loop for an element check."""
    if element is ACCEPT_ANY:
        return lambda _items: True
    if isinstance(element, tuple):
        return cached_isinstance_loop(element)
    predicate = element
    return lambda items: all(map(predicate, items))


def _compile_collection(
    origin: type, args: tuple[Any, ...], bindings: TypeVarBindings
) -> CompiledCheck:
    element = _compile(args[0], bindings) if args else ACCEPT_ANY
    if element is ACCEPT_ANY:
        return (origin,)
    all_elements_pass = _element_loop(element)

    def check_collection(value: object) -> bool:
        return isinstance(value, origin) and all_elements_pass(value)  # type: ignore[arg-type]

    return check_collection


def _compile_mapping(
    origin: type, args: tuple[Any, ...], bindings: TypeVarBindings
) -> CompiledCheck:
    key = _compile(args[0], bindings) if args else ACCEPT_ANY
    item = _compile(args[1], bindings) if len(args) > 1 else ACCEPT_ANY
    if key is ACCEPT_ANY and item is ACCEPT_ANY:
        return (origin,)
    all_keys_pass = _element_loop(key)
    all_values_pass = _element_loop(item)

    def check_mapping(value: Any) -> bool:
        if not isinstance(value, origin):
            return False
        mapping: Any = value
        return all_keys_pass(mapping.keys()) and all_values_pass(mapping.values())

    return check_mapping


def _compile_tuple(args: tuple[Any, ...], bindings: TypeVarBindings) -> CompiledCheck:
    if not args:
        return (tuple,)
    if len(args) == 2 and args[1] is Ellipsis:
        return _compile_collection(tuple, args[:1], bindings)
    if args == ((),):  # tuple[()]
        return lambda value: isinstance(value, tuple) and not value
    positions = tuple(as_predicate(_compile(arg, bindings)) for arg in args)
    size = len(positions)

    def check_tuple(value: object) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) == size
            and all(check(item) for check, item in zip(positions, value, strict=True))
        )

    return check_tuple


def _compile_generic_class(
    origin: type, args: tuple[Any, ...], bindings: TypeVarBindings
) -> CompiledCheck:
    """``SomeGeneric[X]`` for a user class: datamodels become their concrete parametrization."""
    concretize = getattr(origin, "__eve_concretize__", None)
    if concretize is not None:
        substituted = tuple(substitute_type_vars(arg, bindings) for arg in args)
        concrete = concretize(substituted)
        if concrete is not None:
            return (concrete,)
    return _compile_class(origin)


def describe_mismatch(
    annotation: Any, value: object, bindings: TypeVarBindings | None = None
) -> str:
    """Explain why ``value`` does not match ``annotation`` (slow path, failures only)."""
    bindings = bindings or {}
    expected_type = substitute_type_vars(annotation, bindings)
    if isinstance(expected_type, typing.TypeVar):  # unbound: what it stands for
        if expected_type.__bound__ is not None:
            expected_type = expected_type.__bound__
        elif expected_type.__constraints__:
            expected_type = typing.Union[expected_type.__constraints__]  # noqa: UP007
    expected = type_repr(expected_type)
    detail = _find_bad_element(annotation, value, bindings)
    if isinstance(value, type):
        received = f"class {type_repr(value)}"
    else:
        received = f"{class_name(type(value))} {_short_repr(value)}"
    if detail:
        return f"expected {expected}, got {received}: {detail}"
    return f"expected {expected}, got {received}"


def _find_bad_element(annotation: Any, value: Any, bindings: TypeVarBindings) -> str:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _find_bad_element(args[0], value, bindings)
    if not isinstance(origin, type) or not args:
        return ""
    items: collections.abc.Iterable[tuple[str, Any, Any]]
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        if not isinstance(value, tuple):
            return ""
        if len(value) != len(args):
            return f"expected {len(args)} items, got {len(value)}"
        items = (
            (f"item [{i}]", item, arg)
            for i, (item, arg) in enumerate(zip(value, args, strict=True))
        )
    elif issubclass(origin, _MAPPING_ORIGINS) and isinstance(value, collections.abc.Mapping):
        key_type, value_type = (*args, Any)[:2]
        items = itertools.chain.from_iterable(
            ((f"key {k!r}", k, key_type), (f"value at key {k!r}", v, value_type))
            for k, v in value.items()
        )
    elif issubclass(origin, (*_ELEMENT_CHECKED_ORIGINS, tuple)) and isinstance(
        value, collections.abc.Collection
    ):
        items = ((f"item [{i}]", item, args[0]) for i, item in enumerate(value))
    else:
        return ""
    for where, item, item_type in items:
        check = _compile(item_type, bindings)
        if not passes(check, item):
            return f"{where} {describe_mismatch(item_type, item, bindings)}"
    return ""


def _short_repr(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."

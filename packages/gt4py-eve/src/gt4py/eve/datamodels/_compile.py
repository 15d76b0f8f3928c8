"""Compiling a datamodel class's validator, once, from its resolved annotations.

The validator replaces the class's ``__attrs_post_init__`` after the first construction
(annotations may name classes defined later, so this cannot happen at class creation).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import typing
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from . import _coercion, _type_check as tc
from ._errors import DataModelDefinitionError, DataModelTypeError
from ._field import FieldValidator, field_options, is_root_validator, validated_field_names
from ._generic import type_var_bindings


@dataclasses.dataclass(frozen=True)
class FieldInfo:
    """Everything the compiled validator knows about one field."""

    attribute: attrs.Attribute[Any]
    annotation: Any
    check: tc.CompiledCheck
    coerce: Callable[[Any], Any] | None
    validators: tuple[FieldValidator, ...]
    is_location: bool

    @property
    def name(self) -> str:
        return self.attribute.name


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    """The compiled, per-class view of a datamodel (built once, on first use)."""

    model: type
    fields: Mapping[str, FieldInfo]
    bindings: Mapping[Any, Any]
    root_validators: tuple[Callable[[Any], None], ...]
    post_init: Callable[[Any], None] | None

    @functools.cached_property
    def fingerprint_field_names(self) -> tuple[str, ...]:
        """Fields folded into fingerprints: not ``fingerprint=False``, not source locations."""
        from gt4py.infra.fingerprinting import METADATA_KEY

        return tuple(
            name
            for name, info in self.fields.items()
            if info.attribute.metadata.get(METADATA_KEY, True) and not info.is_location
        )


_compile_lock = threading.RLock()


def model_info(cls: type) -> ModelInfo:
    """The compiled info of a datamodel class (compiling it now if needed)."""
    info = cls.__dict__.get("__eve_info__")
    if info is None:
        with _compile_lock:
            info = cls.__dict__.get("__eve_info__")
            if info is None:
                info = _compile_model(cls)
                cls.__eve_info__ = info  # type: ignore[attr-defined]
                cls.__attrs_post_init__ = _make_validator(info)  # type: ignore[attr-defined]
    assert isinstance(info, ModelInfo)
    return info


def compile_and_validate(self: Any) -> None:
    """The first construction of a class: compile its validator, then run it."""
    model_info(type(self))
    type(self).__attrs_post_init__(self)


def _compile_model(cls: type) -> ModelInfo:
    options = cls.__eve_options__  # type: ignore[attr-defined]
    hints = _resolve_annotations(cls) if options.type_check else {}
    bindings = type_var_bindings(cls)
    method_validators = _collect_method_validators(cls)
    fields: dict[str, FieldInfo] = {}
    for attribute in attrs.fields(cls):
        annotation = hints.get(attribute.name, Any)
        field_opts = field_options(attribute)
        check: tc.CompiledCheck = tc.ACCEPT_ANY
        coerce = None
        if options.type_check and field_opts.type_check:
            try:
                check = tc.compile_check(annotation, bindings)
                coerce = _coercion.make_coercer(annotation, bindings, requested=field_opts.coerce)
            except tc.UnsupportedAnnotationError as error:
                raise DataModelDefinitionError(
                    f"cannot check field '{attribute.name}' of {cls.__qualname__}: {error}. "
                    "Annotate it with a checkable type, typing.Any, or use "
                    "field(type_check=False)."
                ) from None
        fields[attribute.name] = FieldInfo(
            attribute=attribute,
            annotation=annotation,
            check=check,
            coerce=coerce,
            validators=field_opts.validators + method_validators.get(attribute.name, ()),
            is_location=_is_location_check(check),
        )
    return ModelInfo(
        model=cls,
        fields=fields,
        bindings=bindings,
        root_validators=_collect_root_validators(cls),
        # Not defined on DataModel itself, so that mixins later in the MRO can provide it.
        post_init=getattr(cls, "__post_init__", None),
    )


def _resolve_annotations(cls: type) -> dict[str, Any]:
    local_names: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        local_names.update(klass.__dict__.get("__eve_defining_locals__") or {})
    try:
        if not local_names:
            return typing.get_type_hints(cls, include_extras=True)
        local_names[cls.__name__] = cls
        return typing.get_type_hints(cls, localns=local_names, include_extras=True)
    except NameError as error:
        raise DataModelDefinitionError(
            f"cannot resolve the annotations of {cls.__qualname__}: {error}. Annotations must "
            "name classes defined in the class's module or, for a class defined in a function, "
            "local names that exist when the class statement runs."
        ) from None
    except Exception as error:
        raise DataModelDefinitionError(
            f"cannot resolve the annotations of {cls.__qualname__}: {error}"
        ) from error


def _is_location_check(check: tc.CompiledCheck) -> bool:
    """Whether a field holds only source locations (or None): left out of fingerprints."""
    if not isinstance(check, tuple):
        return False
    kinds = [getattr(cls, "__eve_is_location__", False) for cls in check if cls is not type(None)]
    return bool(kinds) and all(kinds)


def _members_along_mro(cls: type) -> Iterator[tuple[str, Any]]:
    """(name, member) for every name defined in the class or its bases, nearest definition."""
    seen: set[str] = set()
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            if name not in seen:
                seen.add(name)
                yield name, member


def _collect_method_validators(cls: type) -> dict[str, tuple[FieldValidator, ...]]:
    by_field: dict[str, tuple[FieldValidator, ...]] = {}
    for _name, member in _members_along_mro(cls):
        for field_name in validated_field_names(member):
            by_field[field_name] = (*by_field.get(field_name, ()), member)
    return by_field


def _collect_root_validators(cls: type) -> tuple[Callable[[Any], None], ...]:
    found = [member for _name, member in _members_along_mro(cls) if is_root_validator(member)]
    return tuple(reversed(found))  # base classes' checks first


def _make_validator(info: ModelInfo) -> Callable[[Any], None]:
    """The per-class ``__attrs_post_init__``: precomputed checks, no per-call interpretation.

    The common case (every field checked against classes, nothing else to run) is one set
    lookup per field: ``type(value)`` in the set of exact types already accepted for that
    field; only types not seen before go through ``isinstance`` (which is slow for classes
    with a metaclass, like datamodels and enums).
    """
    simple = [
        (f.name, f.check[0] if len(f.check) == 1 else f.check)
        for f in info.fields.values()
        if isinstance(f.check, tuple)
    ]
    predicate_checks = tuple(
        (f.name, f.check)
        for f in info.fields.values()
        if f.check is not tc.ACCEPT_ANY and not isinstance(f.check, tuple)
    )
    field_validators = tuple(
        (f.attribute, validator) for f in info.fields.values() for validator in f.validators
    )
    whole_model_hooks = info.root_validators + (
        (info.post_init,) if info.post_init is not None else ()
    )

    # isinstance() results are remembered per field by exact type (see cached_isinstance_loop).
    uncacheable = [
        (name, classes) for name, classes in simple if not tc.type_cacheable(_as_tuple(classes))
    ]
    simple = [entry for entry in simple if entry not in uncacheable]
    predicate_checks = (
        tuple((name, tc.as_predicate(_as_tuple(classes))) for name, classes in uncacheable)
        + predicate_checks
    )
    accepted_types = tuple(set[type]() for _ in simple)

    def slow_simple_checks(self: Any) -> None:
        for (name, classes), accepted in zip(simple, accepted_types, strict=True):
            value = getattr(self, name)
            if type(value) not in accepted:
                if isinstance(value, classes):
                    accepted.add(type(value))
                else:
                    _repair_or_raise(info, self, name)

    check_simple: Callable[[Any], None] | None = None
    if len(simple) == 1:
        only_name = simple[0][0]
        only_accepted = accepted_types[0]

        def check_simple(self: Any) -> None:
            if type(getattr(self, only_name)) not in only_accepted:
                slow_simple_checks(self)

    elif simple:
        names_and_accepted = tuple(
            (name, accepted) for (name, _), accepted in zip(simple, accepted_types, strict=True)
        )

        def check_simple(self: Any) -> None:
            for name, accepted in names_and_accepted:
                if type(getattr(self, name)) not in accepted:
                    slow_simple_checks(self)
                    return

    if not (predicate_checks or field_validators or whole_model_hooks):
        validate = check_simple if check_simple is not None else _nothing_to_check
    else:

        def validate(self: Any) -> None:
            if check_simple is not None:
                check_simple(self)
            for name, predicate in predicate_checks:
                if not predicate(getattr(self, name)):
                    _repair_or_raise(info, self, name)
            for attribute, field_validator in field_validators:
                field_validator(self, attribute, getattr(self, attribute.name))
            for hook in whole_model_hooks:
                hook(self)

    return validate


def _as_tuple(classes: type | tuple[type, ...]) -> tuple[type, ...]:
    return classes if isinstance(classes, tuple) else (classes,)


def _nothing_to_check(self: Any) -> None:
    pass


def _repair_or_raise(info: ModelInfo, instance: Any, name: str) -> None:
    """A field failed its check: coerce it if the field allows that, else raise."""
    field = info.fields[name]
    coerced = _coerced_or_raise(info, field, getattr(instance, name))
    object.__setattr__(instance, name, coerced)  # also on frozen instances: still in __init__


def _coerced_or_raise(info: ModelInfo, field: FieldInfo, value: Any) -> Any:
    if field.coerce is not None:
        try:
            coerced = field.coerce(value)
        except Exception as error:
            raise DataModelTypeError(
                info.model,
                field.name,
                f"{tc.describe_mismatch(field.annotation, value, info.bindings)} "
                f"(coercion failed: {type(error).__name__}: {error})",
            ) from error
        if tc.passes(field.check, coerced):
            return coerced
    raise DataModelTypeError(
        info.model, field.name, tc.describe_mismatch(field.annotation, value, info.bindings)
    )


def validate_assignment(instance: Any, attribute: attrs.Attribute[Any], value: Any) -> Any:
    """attrs ``on_setattr`` hook of mutable models: the same checks as on construction."""
    info = model_info(type(instance))
    field = info.fields[attribute.name]
    if not tc.passes(field.check, value):
        value = _coerced_or_raise(info, field, value)
    for field_validator in field.validators:
        field_validator(instance, attribute, value)
    return value

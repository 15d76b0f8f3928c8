"""Field declarations and validator decorators for datamodels."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Final, TypeVar

import attrs

from gt4py.infra.fingerprinting import METADATA_KEY as FINGERPRINT_METADATA_KEY


#: Key under which eve keeps its own per-field options in attrs field metadata.
OPTIONS_METADATA_KEY: Final = "gt4py.eve"

FieldValidator = Callable[[Any, "attrs.Attribute[Any]", Any], None]

_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T")

_NOTHING: Final[Any] = attrs.NOTHING


@dataclasses.dataclass(frozen=True)
class FieldOptions:
    """What eve does with a field beyond what attrs does."""

    validators: tuple[FieldValidator, ...] = ()
    coerce: bool = False
    type_check: bool = True


_DEFAULT_OPTIONS: Final = FieldOptions()


def field_options(attribute: attrs.Attribute[Any]) -> FieldOptions:
    options = attribute.metadata.get(OPTIONS_METADATA_KEY, _DEFAULT_OPTIONS)
    assert isinstance(options, FieldOptions)
    return options


def field(
    *,
    default: Any = _NOTHING,
    factory: Callable[[], Any] | None = None,
    validator: FieldValidator | Iterable[FieldValidator] | None = None,
    converter: Callable[[Any], Any] | None = None,
    coerce: bool = False,
    type_check: bool = True,
    fingerprint: bool = True,
    compare: bool = True,
    hash: bool | None = None,  # mirrors attrs' parameter names
    repr: bool = True,
    init: bool = True,
    alias: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Any:
    """Declare a datamodel field.

    Args:
        default: default value; mutable containers are refused (use ``factory``).
        factory: called without arguments to make each instance's default.
        validator: ``(instance, attribute, value) -> None`` callables run after the type check;
            raise to reject the value.
        converter: applied by attrs to the raw argument before any check.
        coerce: when the value does not have the declared type, try ``Type(value)`` once.
        type_check: ``False`` skips the type check of this field.
        fingerprint: ``False`` leaves the field out of infra fingerprints (and ``content_hash``).
        compare: ``False`` leaves the field out of ``==`` and ``hash()``.
        hash, repr, init, alias: as in ``attrs.field``.
        metadata: extra attrs metadata.
    """
    if default is not _NOTHING and factory is not None:
        raise TypeError("field() takes either 'default' or 'factory', not both")
    if isinstance(default, list | dict | set | bytearray):
        raise TypeError(
            f"mutable default {default!r} would be shared by every instance; "
            f"use factory={type(default).__name__} instead"
        )
    validators: tuple[FieldValidator, ...]
    if validator is None:
        validators = ()
    elif callable(validator):
        validators = (validator,)
    else:
        validators = tuple(validator)
    for candidate in validators:
        if not callable(candidate):
            raise TypeError(f"field validator {candidate!r} is not callable")

    merged_metadata: dict[str, Any] = dict(metadata or {})
    if not fingerprint:
        merged_metadata[FINGERPRINT_METADATA_KEY] = False
    options = FieldOptions(validators=validators, coerce=coerce, type_check=type_check)
    if options != _DEFAULT_OPTIONS:
        merged_metadata[OPTIONS_METADATA_KEY] = options
    return attrs.field(
        default=attrs.Factory(factory) if factory is not None else default,
        converter=converter,
        eq=compare,
        hash=hash,
        repr=repr,
        init=init,
        alias=alias,
        metadata=merged_metadata,
    )


class _CoerceMarker:
    """``Annotated`` metadata saying "convert values of other types with ``Type(value)``"."""

    def __repr__(self) -> str:
        return "COERCE"


COERCE_MARKER: Final = _CoerceMarker()


class Coerced:
    """``x: Coerced[int]`` accepts anything ``int(...)`` accepts and stores the int."""

    def __class_getitem__(cls, item: Any) -> Any:
        return Annotated[item, COERCE_MARKER]

    def __init__(self) -> None:
        raise TypeError("Coerced is only used in annotations: Coerced[int]")


_VALIDATES_ATTRIBUTE: Final = "__eve_validates_fields__"
_ROOT_VALIDATOR_ATTRIBUTE: Final = "__eve_root_validator__"


def validator(*field_names: str) -> Callable[[_F], _F]:
    """Mark a method ``(self, attribute, value) -> None`` as validator of the named fields.

    It runs after the type checks, on construction (and on assignment for mutable models).
    """
    if not field_names or not all(isinstance(name, str) for name in field_names):
        raise TypeError("validator() takes one or more field names: @validator('x', 'y')")

    def mark(func: _F) -> _F:
        setattr(func, _VALIDATES_ATTRIBUTE, field_names)
        return func

    return mark


def root_validator(func: _F) -> _F:
    """Mark a method ``(self) -> None`` that checks the model as a whole after field checks."""
    setattr(func, _ROOT_VALIDATOR_ATTRIBUTE, True)
    return func


def validated_field_names(member: object) -> tuple[str, ...]:
    names = getattr(member, _VALIDATES_ATTRIBUTE, ())
    assert isinstance(names, tuple)
    return names


def is_root_validator(member: object) -> bool:
    return getattr(member, _ROOT_VALIDATOR_ATTRIBUTE, False) is True

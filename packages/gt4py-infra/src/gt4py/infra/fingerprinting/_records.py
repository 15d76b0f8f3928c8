"""Classes whose instances are their fields: dataclasses, attrs classes, named tuples, enums.

A record is folded as a node: a header with the class identity and the names of the
fingerprinted fields, then the field values. Naming the fields in the header means that
renaming, adding or reordering fields changes the fingerprint even when values do not.
A field whose metadata maps ``METADATA_KEY`` ("fingerprint") to False is left out.

attrs is never imported: attrs classes are recognised by their ``__attrs_attrs__``.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, cast

from ._context import FoldContext
from ._encoding import encode_int, encode_str
from ._errors import FingerprintError
from ._fold import ORDERED, Entry, Node


METADATA_KEY: Final = "fingerprint"


def record_entry(context: FoldContext, cls: type) -> Entry | None:
    """The entry for instances of ``cls`` if it is a record class, else None."""
    if issubclass(cls, enum.Enum):
        return _enum_entry(context, cls)
    if hasattr(cls, "__dataclass_fields__"):
        fields = dataclasses.fields(cast(Any, cls))
        names = _fingerprinted_names(cls, ((f.name, f.metadata) for f in fields), "dataclass")
        return _fields_entry(b"D", context.type_identity(cls), names)
    attrs_fields = getattr(cls, "__attrs_attrs__", None)
    if attrs_fields is not None:
        names = _fingerprinted_names(cls, ((a.name, a.metadata) for a in attrs_fields), "attrs")
        return _fields_entry(b"R", context.type_identity(cls), names)
    tuple_fields = getattr(cls, "_fields", None)
    if issubclass(cls, tuple) and isinstance(tuple_fields, tuple):
        names = tuple_fields
        header = b"n" + context.type_identity(cls) + _names_token(names)
        # A named tuple is its own sequence of field values.
        return True, lambda value: (header, value, ORDERED, names)
    return None


def _fingerprinted_names(
    cls: type, fields: Iterable[tuple[str, Mapping[Any, Any] | None]], kind: str
) -> tuple[str, ...]:
    names = []
    for name, metadata in fields:
        flag = metadata.get(METADATA_KEY, True) if metadata else True
        if not isinstance(flag, bool):
            raise FingerprintError(
                f"{kind} field {cls.__qualname__}.{name} has metadata "
                f"{{{METADATA_KEY!r}: {flag!r}}}; it must be True or False"
            )
        if flag:
            names.append(name)
    return tuple(names)


def _names_token(names: tuple[str, ...]) -> bytes:
    return encode_int(len(names)) + b"".join(encode_str(name) for name in names)


def _fields_entry(tag: bytes, identity: bytes, names: tuple[str, ...]) -> Entry:
    header = tag + identity + _names_token(names)
    getter: Callable[[Any], tuple[Any, ...]]
    if len(names) == 0:

        def getter(value: Any) -> tuple[Any, ...]:
            return ()

    elif len(names) == 1:
        name = names[0]

        def getter(value: Any) -> tuple[Any, ...]:
            return (getattr(value, name),)

    else:
        getter = operator.attrgetter(*names)  # one C call for all fields

    def fields_node(value: Any) -> Node:
        return header, getter(value), ORDERED, names

    return True, fields_node


def _enum_entry(context: FoldContext, cls: type[enum.Enum]) -> Entry:
    # Members by class and name: the name is what code refers to, and it is what pickle uses.
    prefix = b"e" + context.type_identity(cls)

    def member_token(member: enum.Enum) -> bytes:
        name = member._name_
        if name is not None:
            return prefix + encode_str(name)
        value = member._value_
        if isinstance(value, int):  # unnamed flag combinations
            return prefix + b"#" + encode_int(value)
        raise FingerprintError(f"enum member {member!r} has neither a name nor an int value")

    return False, member_token

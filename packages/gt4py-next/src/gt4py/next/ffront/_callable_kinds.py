"""The decorated definitions a DSL definition may call, registered by kind.

`type_of_value` (``_annotations``) types a global a definition refers to; a field operator or
scan operator is an ``"operator"``, a program a ``"program"``. Their classes register here when
their modules run (``_field_operator``, ``_program``), so that the frontend, which those classes
call, does not import them: the dependency points from the classes down to this module.
"""

from __future__ import annotations

from typing import Literal


CallableKind = Literal["operator", "program"]

_KINDS: dict[type, CallableKind] = {}


def register(cls: type, kind: CallableKind) -> None:
    """Instances of ``cls`` (and of its subclasses) are callables of ``kind`` in the DSL."""
    _KINDS[cls] = kind


def kind_of(value: object) -> CallableKind | None:
    """The kind ``value``'s class was registered with, or ``None``."""
    for cls, kind in _KINDS.items():
        if isinstance(value, cls):
            return kind
    return None


__all__ = ["CallableKind", "kind_of", "register"]

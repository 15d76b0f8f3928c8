"""eve's deconstructors for infra fingerprints, registered when ``gt4py.eve.datamodels`` is
imported (its ``__init__`` calls `register`, so every datamodel, hence every node, is
fingerprintable as soon as its class can exist).

A datamodel (and so every node) is folded as its class (by verified qualified name; infra
adds it) and ``(field names, *field values)``; fields marked ``fingerprint=False`` and fields
holding source locations are left out, so moving code does not change its fingerprint.
``lenient`` is built on ``strict`` and would see the registration anyway; registering on both
keeps eve's nodes covered should that layering ever change.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Final

from gt4py.infra import fingerprinting

from ._compile import model_info
from ._model import DataModel


_getters: Final[dict[type, Callable[[Any], tuple[Any, ...]]]] = {}


def _field_getter(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    names = model_info(cls).fingerprint_field_names
    header = (names,)
    if not names:
        return lambda model: header
    if len(names) == 1:
        value_of = operator.attrgetter(names[0])
        return lambda model: (names, value_of(model))
    values_of = operator.attrgetter(*names)
    return lambda model: header + values_of(model)


def deconstruct_datamodel(model: Any) -> tuple[Any, ...]:
    """``(fingerprinted field names, *their values)`` of a datamodel instance."""
    cls = model.__class__
    getter = _getters.get(cls)
    if getter is None:
        getter = _getters[cls] = _field_getter(cls)
    return getter(model)


def register() -> None:
    fingerprinting.strict.register(DataModel, deconstruct_datamodel)
    fingerprinting.lenient.register(DataModel, deconstruct_datamodel)

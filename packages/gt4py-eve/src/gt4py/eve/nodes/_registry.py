"""Which classes are tree nodes, and how to read their children.

Traversals (walks, visitors, symbol tables) look a value's class up here once per value: a
hit gives a function returning the node's field values as a tuple (one C-level
``attrgetter`` call for nodes with several fields); container classes are expanded; anything
else is a leaf. Plain dict lookups keep the per-value cost of a traversal small.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Final


#: Node class -> names of its fields, in definition order.
NODE_FIELDS: Final[dict[type, tuple[str, ...]]] = {}

#: Node class -> function giving the node's field values, in field order, as a tuple.
NODE_VALUES: Final[dict[type, Callable[[Any], tuple[Any, ...]]]] = {}

#: Node class -> (``__init__`` argument names, function giving those fields' values): what a
#: translator needs to rebuild a node.
NODE_INIT_FIELDS: Final[dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]]] = {}

#: Containers whose items are children in a tree (dicts contribute their values).
SEQUENCE_TYPES: Final = frozenset({list, tuple, set, frozenset})


def _no_values(node: Any) -> tuple[Any, ...]:
    return ()


def values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning the given attributes of an object as a tuple."""
    if not names:
        return _no_values
    if len(names) == 1:
        get_one = operator.attrgetter(names[0])
        return lambda node: (get_one(node),)
    return operator.attrgetter(*names)


def register_node_class(cls: type) -> None:
    names: tuple[str, ...] = cls.__eve_field_names__  # type: ignore[attr-defined]
    NODE_FIELDS[cls] = names
    NODE_VALUES[cls] = values_getter(names)
    init_names: tuple[tuple[str, str], ...] = cls.__eve_init_names__  # type: ignore[attr-defined]
    NODE_INIT_FIELDS[cls] = (
        tuple(alias for _, alias in init_names),
        values_getter(tuple(name for name, _ in init_names)),
    )


def child_values(value: Any) -> tuple[Any, ...] | list[Any] | Any:
    """The direct children of ``value`` in a tree (an empty tuple for leaves)."""
    cls = value.__class__
    values_of = NODE_VALUES.get(cls)
    if values_of is not None:
        return values_of(value)
    if cls in SEQUENCE_TYPES:
        return value
    if cls is dict:
        return value.values()
    return ()

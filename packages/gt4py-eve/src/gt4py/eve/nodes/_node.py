"""``Node``: the base of IR tree nodes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypeVar

from gt4py.eve.datamodels import DataModel, DataModelDefinitionError, evolve

from . import _walk
from ._registry import NODE_FIELDS, NODE_VALUES, register_node_class


_N = TypeVar("_N", bound="Node")

# Node methods; a field with one of these names would hide it.
_RESERVED_NAMES: Final = frozenset(
    {"iter_children_values", "iter_children_items", "iter_tree", "walk_values", "replace"}
)


class Node(DataModel):
    """A frozen, validated tree node; its children are the values of its fields.

    Fields may hold nodes, leaf values (str, int, enums, other datamodels...) and lists,
    tuples, sets or dicts of those. Equality is structural (field by field), ``repr`` shows
    the fields, and ``replace(**changes)`` gives a validated copy with some fields changed.
    """

    __slots__ = ()

    @classmethod
    def __eve_class_built__(cls) -> None:
        super().__eve_class_built__()
        clashes = _RESERVED_NAMES.intersection(cls.__eve_field_names__)
        if clashes:
            raise DataModelDefinitionError(
                f"{cls.__qualname__} cannot have field(s) {', '.join(sorted(clashes))}: "
                "the names are Node methods"
            )
        register_node_class(cls)

    def iter_children_values(self) -> Iterator[Any]:
        """The field values, in field order."""
        return iter(NODE_VALUES[type(self)](self))

    def iter_children_items(self) -> Iterator[tuple[str, Any]]:
        """``(field name, value)`` pairs, in field order."""
        cls = type(self)
        return zip(NODE_FIELDS[cls], NODE_VALUES[cls](self), strict=True)

    def iter_tree(self, order: _walk.TraversalOrder = "pre") -> Iterator[Node]:
        """This node and every node below it (see :func:`iter_tree`)."""
        return _walk.iter_tree(self, order)

    def walk_values(self, order: _walk.TraversalOrder = "pre") -> _walk.Walk[Any]:
        """Every node and leaf value from here down, as a chainable :class:`Walk`."""
        return _walk.walk_values(self, order)

    def replace(self: _N, **changes: Any) -> _N:
        """A validated copy with the given fields changed."""
        return evolve(self, **changes)


register_node_class(Node)

"""IR tree nodes, source locations and tree walks."""

from ._location import SourceLocation as SourceLocation
from ._node import Node as Node
from ._registry import child_values as child_values
from ._walk import (
    TraversalOrder as TraversalOrder,
    Walk as Walk,
    iter_tree as iter_tree,
    walk_values as walk_values,
)


__all__ = [
    "Node",
    "SourceLocation",
    "TraversalOrder",
    "Walk",
    "child_values",
    "iter_tree",
    "walk_values",
]
